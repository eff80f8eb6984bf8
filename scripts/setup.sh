#!/usr/bin/env bash
# Installs what Quire's build and tests need on a fresh Debian/Ubuntu machine: the system
# packages (Tauri's WebKitGTK build dependencies, Xvfb and WebKitWebDriver for the end-to-end
# tests, PostgreSQL for the PostgreSQL store's tests), the UI's npm packages and tauri-driver.
# Idempotent and quiet: a second run installs nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"

packages=(
  libwebkit2gtk-4.1-dev build-essential pkg-config libssl-dev libayatana-appindicator3-dev
  librsvg2-dev libxdo-dev xvfb xauth webkit2gtk-driver postgresql wrk
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_=()
  ((EUID == 0)) || sudo_=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  quiet "${sudo_[@]}" apt-get update
  quiet "${sudo_[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || { echo "setup: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: Node.js >= 20 and npm are required" >&2; exit 1; }

tauri_driver_bin="${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver"
if ! command -v tauri-driver >/dev/null && [[ ! -x "$tauri_driver_bin" ]]; then
  echo "setup: cargo install tauri-driver"
  quiet env -u CARGO_TARGET_DIR cargo install tauri-driver --version '^2' --locked
fi

ui_install
