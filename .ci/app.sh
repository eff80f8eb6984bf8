#!/usr/bin/env bash
# The desktop app on a fresh Debian 12 machine, as root: installs what its build and its
# end-to-end tests need, builds the UI and the release app, runs the UI unit tests (Vitest) and
# the end-to-end tests (the app in a real window under Xvfb, via tauri-driver), then builds the
# Debian package, installs it on this machine and runs the installed app (tests/installed.rs).
# Idempotent: a second run installs nothing and rebuilds only what changed. Quiet unless
# something is installed or fails; the test runners' summaries are always printed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib-app.sh"
cd "$ROOT"

apt_ensure app "${APP_PACKAGES[@]}"

command -v npm >/dev/null || { echo "app: Node.js and npm are required (Node >= 20.19)" >&2; exit 1; }

tauri_driver_ensure app

app_build

echo "app: UI unit tests"
(cd ui && npm test --silent)

echo "app: end-to-end tests"
# One scenario at a time: each runs its own X server, WebKit and app on two cores.
# `--workspace --test`: built with the features the workspace's tests resolved (scripts/test.sh),
# so only these targets are compiled now.
QUIRE_APP_BINARY="$APP_BINARY" cargo test --quiet --workspace --test app_shell --test scenarios \
  -- --test-threads=1

echo "app: the package (build, install, run the installed app)"
started=$SECONDS
bash scripts/package.sh
built=$SECONDS
apt_install_deb app "$(ls "$ROOT"/quire_*_amd64.deb)"
installed=$SECONDS
cargo test --quiet --workspace --test installed
echo "app: the package took $((SECONDS - started)) s: build $((built - started)) s," \
  "install $((installed - built)) s, installed app test $((SECONDS - installed)) s"
