#!/usr/bin/env bash
# Sets up a fresh machine and launches Quire: the desktop app with its embedded server (database
# and settings in the app's data directory). Extra arguments go to the app.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"
bash scripts/setup.sh
app_build
exec "$APP_BINARY" "$@"
