#!/usr/bin/env bash
# Installs what Quire's build and tests need on a fresh Debian/Ubuntu machine: the system
# packages (Tauri's WebKitGTK build dependencies, Xvfb and WebKitWebDriver for the end-to-end
# tests, PostgreSQL for the PostgreSQL store's tests), the UI's npm packages and tauri-driver.
# Idempotent and quiet: a second run installs nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"

# The app's packages, PostgreSQL for the PostgreSQL store's tests, wrk for the lab's HTTP load.
apt_ensure setup "${APP_PACKAGES[@]}" postgresql wrk

command -v cargo >/dev/null || { echo "setup: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || { echo "setup: Node.js >= 20 and npm are required" >&2; exit 1; }

tauri_driver_ensure setup
ui_install
