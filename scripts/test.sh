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
# Not among --all-targets (`test = false`: they need the release app or the installed package;
# .ci/app.sh runs them). `--workspace`, not `-p quire-e2e`: the features the line above resolved,
# so only these targets are checked (with `-p`, ~115 s of crates again).
cargo clippy --quiet --workspace --test app_shell --test scenarios --test installed -- -D warnings

step "Rust tests"
# cargo builds quire-server's binary for its own integration tests, with the features this
# command unifies; the other crates' tests start that one. (A `cargo build -p quire-server`
# before, or quire-sync's own call of it, resolves features for that package alone: every
# crate below tokio compiled a second time, ~150 s.)
# The end-to-end tests are not among them (`test = false`; .ci/app.sh runs them against the
# release app), but their crate is resolved with the others: they are built later with these
# features (`--workspace --test scenarios`), not with every crate again.
QUIRE_SERVER_BIN="$CARGO_TARGET_DIR/debug/quire-server" \
  cargo test --workspace 2>&1 | grep -Ev '^test .* \.\.\. ok$'
test "${PIPESTATUS[0]}" -eq 0

step "the app: UI unit tests and end-to-end tests"
bash .ci/app.sh

step "done"
