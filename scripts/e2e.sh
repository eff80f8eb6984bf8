#!/usr/bin/env bash
# End-to-end tests in one command: builds the UI and the release app (if stale), then drives the
# app in a real window under a private Xvfb through tauri-driver and WebKitWebDriver.
# Screenshots and the driver's log go to test-output/e2e/.
#
# Needs: Xvfb, /usr/bin/WebKitWebDriver, tauri-driver (.ci/app.sh installs them).
# Extra arguments go to the test binary (e.g. `scripts/e2e.sh --nocapture`).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"

app_build
export QUIRE_APP_BINARY="$APP_BINARY"
cargo test --workspace --test app_shell --test scenarios -- --test-threads=1 "$@"
