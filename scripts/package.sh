#!/usr/bin/env bash
# Builds the Debian package quire_<version>_amd64.deb in the repository root: the app as
# /usr/bin/quire, the server as /usr/bin/quire-server, a desktop entry (the menu's "Quire"),
# icons in the usual sizes and the libraries the binaries need as dependencies. Install it with
#   sudo apt-get install ./quire_<version>_amd64.deb
#
# Tauri's bundler does the packaging (@tauri-apps/cli from ui/node_modules, prebuilt, of the
# tauri crate's minor version). It wants the config beside the app crate's Cargo.toml; ours is at
# the repository root (plain cargo builds the app), so it runs in a throwaway project under
# $CARGO_TARGET_DIR/deb: the root tauri.conf.json with its paths made absolute and the
# package's own settings, and a Cargo.toml naming the binaries already built. Nothing is
# compiled there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"
start=$SECONDS

command -v dpkg-shlibdeps >/dev/null || apt_ensure package dpkg-dev

app_build
echo "package: binaries built ($((SECONDS - start)) s)"

cli="$ROOT/ui/node_modules/.bin/tauri"
[[ -x "$cli" ]] || { echo "package: $cli is missing (npm ci in ui/)" >&2; exit 1; }
# The bundler reads the config as its own tauri-utils reads it: same minor line as the crate.
crate="$(awk '/^name = "tauri"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)"
cli_version="$("$cli" --version | awk '{ print $2 }')"
if [[ "${crate%.*}" != "${cli_version%.*}" ]]; then
  echo "package: @tauri-apps/cli $cli_version does not match the tauri crate $crate" >&2
  exit 1
fi

version="$(cargo metadata --no-deps --format-version 1 |
  node -e 'const m = JSON.parse(require("fs").readFileSync(0)); console.log(m.packages.find((p) => p.name === "quire-app").version)')"
triple="$(rustc -vV | sed -n 's/^host: //p')"
release="$CARGO_TARGET_DIR/release"
stage="$CARGO_TARGET_DIR/deb"
rm -rf "$stage"
mkdir -p "$stage/src" "$stage/target/release" "$stage/bin"
cp "$release/quire-app" "$stage/target/release/quire"
# An external binary is named with its target triple; it is installed without it.
cp "$release/quire-server" "$stage/bin/quire-server-$triple"

# The libraries the binaries link, as Debian names them (libwebkit2gtk-4.1-0, libgtk-3-0, ...).
mkdir -p "$stage/shlibs/debian"
touch "$stage/shlibs/debian/control"
depends="$(cd "$stage/shlibs" && dpkg-shlibdeps -O -e"$release/quire-app" -e"$release/quire-server" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')"
[[ -n "$depends" ]] || { echo "package: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

cat >"$stage/Cargo.toml" <<EOF
# Written by scripts/package.sh for Tauri's bundler; never built.
[package]
name = "quire"
version = "$version"
edition = "2021"

[[bin]]
name = "quire"
path = "src/main.rs"

[workspace]
EOF
echo 'fn main() {}' >"$stage/src/main.rs"

ROOT="$ROOT" STAGE="$stage" VERSION="$version" DEPENDS="$depends" node <<'EOF'
const fs = require("fs");
const path = require("path");
const { ROOT, STAGE, VERSION, DEPENDS } = process.env;
const config = JSON.parse(fs.readFileSync(path.join(ROOT, "tauri.conf.json"), "utf8"));
const abs = (p) => path.resolve(ROOT, p);
config.version = VERSION;
config.mainBinaryName = "quire";
config.build = { frontendDist: abs(config.build.frontendDist) };
const bundle = config.bundle;
bundle.icon = bundle.icon.map(abs);
bundle.externalBin = [path.join(STAGE, "bin", "quire-server")];
bundle.linux.deb.desktopTemplate = abs(bundle.linux.deb.desktopTemplate);
bundle.linux.deb.depends = DEPENDS.split(",").map((d) => d.trim()).filter(Boolean);
fs.writeFileSync(path.join(STAGE, "tauri.conf.json"), JSON.stringify(config, null, 2));
EOF

(cd "$stage" && CARGO_TARGET_DIR="$stage/target" quiet "$cli" bundle --bundles deb --ci)
built="$(find "$stage/target/release/bundle/deb" -name '*.deb' -print -quit)"
deb="$ROOT/quire_${version}_amd64.deb"
rm -f "$ROOT"/quire_*_amd64.deb
cp "$built" "$deb"
# The project and its copies of the binaries served once (~150 MB).
rm -rf "$stage"
echo "package: $deb ($(du -h "$deb" | cut -f1), $((SECONDS - start)) s)"
