#!/usr/bin/env bash
# The desktop app on a fresh Debian 12 machine, as root: installs what its build and its
# end-to-end tests need, builds the UI and the release app, runs the UI unit tests (Vitest) and
# the end-to-end tests (the app in a real window under Xvfb, via tauri-driver).
# Idempotent: a second run installs nothing and rebuilds only what changed. Quiet unless
# something is installed or fails; the test runners' summaries are always printed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib-app.sh"
cd "$ROOT"

# System packages: Tauri's build dependencies (WebKitGTK 4.1 and friends), an X server for the
# window, and WebKitWebDriver for tauri-driver.
packages=(
  libwebkit2gtk-4.1-dev build-essential pkg-config libssl-dev libayatana-appindicator3-dev
  librsvg2-dev libxdo-dev xvfb xauth webkit2gtk-driver
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "app: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  quiet apt-get update
  quiet apt-get install -y "${missing[@]}"
fi

command -v npm >/dev/null || { echo "app: Node.js and npm are required (Node >= 20.19)" >&2; exit 1; }

# tauri-driver builds in a temporary directory of its own, not the shared target directory.
tauri_driver_bin="${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver"
if ! command -v tauri-driver >/dev/null && [[ ! -x "$tauri_driver_bin" ]]; then
  echo "app: cargo install tauri-driver"
  quiet env -u CARGO_TARGET_DIR cargo install tauri-driver --version '^2' --locked
fi
if ! command -v tauri-driver >/dev/null; then
  export TAURI_DRIVER="$tauri_driver_bin"
fi

app_build

echo "app: UI unit tests"
(cd ui && npm test --silent)

echo "app: end-to-end tests"
# One scenario at a time: each runs its own X server, WebKit and app on two cores.
QUIRE_APP_BINARY="$APP_BINARY" cargo test --quiet -p quire-e2e -- --test-threads=1
