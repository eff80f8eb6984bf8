# Shared by the app's scripts (sourced, not run). Sets ROOT and CARGO_TARGET_DIR.
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
APP_BINARY="$CARGO_TARGET_DIR/release/quire-app"

# Runs a command with its output kept back; prints the output only if the command fails.
quiet() {
  local log status=0
  log="$(mktemp)"
  "$@" >"$log" 2>&1 || status=$?
  if ((status != 0)); then
    echo "failed ($status): $*" >&2
    cat "$log" >&2
  fi
  rm -f "$log"
  return "$status"
}

# The app's system packages: Tauri's build dependencies (WebKitGTK 4.1 and friends), an X
# server for the window, WebKitWebDriver for tauri-driver, xdotool, with which the end-to-end
# tests answer the system's file dialogs as a person would, x11-utils (xprop: a window's class),
# dbus for the session bus each test's desktop has (the app finds its running copy there), an
# English dictionary for the spell-checker (WebKitGTK's, through enchant and hunspell), and
# poppler-utils (pdfinfo, pdftotext, pdftoppm), with which the tests open the PDFs the app prints.
APP_PACKAGES=(
  libwebkit2gtk-4.1-dev build-essential pkg-config libssl-dev libayatana-appindicator3-dev
  librsvg2-dev libxdo-dev xvfb xauth webkit2gtk-driver xdotool x11-utils dbus hunspell-en-us
  poppler-utils
)

# apt_ensure WHO PACKAGE...: installs the packages not installed yet (with sudo unless root);
# WHO names the caller in the one line it prints when it installs something.
apt_ensure() {
  local who="$1" package missing=() sudo_=()
  shift
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  echo "$who: installing ${missing[*]}"
  ((EUID == 0)) || sudo_=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  quiet "${sudo_[@]}" apt-get update
  quiet "${sudo_[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# apt_install_deb WHO DEB: installs (again, if installed) a package file with apt-get, which
# installs its dependencies too.
apt_install_deb() {
  local sudo_=()
  ((EUID == 0)) || sudo_=(sudo)
  echo "$1: apt-get install $2"
  DEBIAN_FRONTEND=noninteractive quiet "${sudo_[@]}" apt-get install -y --reinstall "$2"
}

# tauri_driver_ensure WHO: cargo install tauri-driver unless it is there; exports TAURI_DRIVER
# when it is not on PATH. It builds in a temporary directory of its own, not the shared target.
tauri_driver_ensure() {
  local bin="${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver"
  if ! command -v tauri-driver >/dev/null && [[ ! -x "$bin" ]]; then
    echo "$1: cargo install tauri-driver"
    quiet env -u CARGO_TARGET_DIR cargo install tauri-driver --version '^2' --locked
  fi
  command -v tauri-driver >/dev/null || export TAURI_DRIVER="$bin"
}

# npm ci, unless node_modules already matches package-lock.json.
ui_install() {
  local want have=""
  want="$(sha256sum "$ROOT/ui/package-lock.json" | cut -d' ' -f1)"
  [[ -f "$ROOT/ui/node_modules/.quire-lock.sha256" ]] &&
    have="$(cat "$ROOT/ui/node_modules/.quire-lock.sha256")"
  if [[ "$want" != "$have" ]]; then
    echo "app: npm ci in ui/"
    (cd "$ROOT/ui" && quiet npm ci --no-audit --no-fund)
    echo "$want" >"$ROOT/ui/node_modules/.quire-lock.sha256"
  fi
}

# npm run build, unless ui/dist is newer than every input. A placeholder page written by
# src-tauri/build.rs (when cargo ran before the UI was built) never counts as built.
ui_build() {
  local index="$ROOT/ui/dist/index.html"
  local inputs=(src index.html package.json package-lock.json vite.config.ts tsconfig.json)
  if [[ -f "$index" ]] && ! grep -q 'quire-ui-placeholder' "$index" &&
    [[ -z "$(cd "$ROOT/ui" && find "${inputs[@]}" -newer "$index" -print -quit)" ]]; then
    return 0
  fi
  echo "app: building ui/"
  (cd "$ROOT/ui" && quiet npm run build)
}

# The production-like release binaries: the app (embedded UI served over tauri://) and the
# server the package ships beside it. One cargo command, so both see one feature set and share
# every crate below them (built apart, the server alone recompiled ~100 crates: ~3 min).
app_build() {
  ui_install
  ui_build
  cargo build --quiet --release -p quire-app -p quire-server --bin quire-app --bin quire-server \
    --features quire-app/custom-protocol
}
