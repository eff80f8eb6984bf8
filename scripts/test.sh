#!/usr/bin/env bash
# Sets up a fresh machine and runs every test: formatting and lints, the Rust test suites (model,
# store conformance on SQLite and PostgreSQL, the real server over HTTP and MCP, the sync engine,
# the lab's smoke runs, the app's command layer), the UI's unit tests and the end-to-end tests of
# the app in a real window under Xvfb, then the Debian package: built, installed on this machine
# (apt-get), and the installed app run the same way (.ci/app.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"
start=$SECONDS
step() { echo; echo "== $* ($((SECONDS - start)) s)"; }

step setup
bash scripts/setup.sh

step "UI build (the app crate embeds ui/dist)"
ui_build

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy -D warnings"
cargo clippy --quiet --workspace --all-targets -- -D warnings
# Not among --all-targets (`test = false`: it needs the package installed; .ci/app.sh runs it).
cargo clippy --quiet -p quire-e2e --test installed -- -D warnings

step "the server binary the integration tests start"
cargo build --quiet -p quire-server --bin quire-server

step "Rust tests"
cargo test --workspace --exclude quire-e2e 2>&1 | grep -Ev '^test .* \.\.\. ok$'
test "${PIPESTATUS[0]}" -eq 0

step "the server without PostgreSQL (as the desktop app builds it)"
cargo clippy --quiet -p quire-server --no-default-features --all-targets -- -D warnings
cargo test --quiet -p quire-server --no-default-features --lib

step "the app: UI unit tests and end-to-end tests"
bash .ci/app.sh

step "done"
