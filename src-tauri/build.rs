//! The app's config lives at the repository root (`../tauri.conf.json`), not beside this crate,
//! so plain cargo (not tauri-cli) is the build path.

use std::fs;
use std::path::Path;

/// Embedded when the UI has not been built yet, so that `cargo check/clippy --workspace` works
/// without Node. The real app is always built after `npm run build` in `ui/`; the e2e test
/// fails on this page (no header, no version).
const PLACEHOLDER: &str = "<!doctype html>\n<meta charset=\"utf-8\">\n<title>Quire</title>\n\
<p data-quire-ui-placeholder>The UI was not built: run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>, \
then rebuild quire-app.</p>\n";

fn main() {
    let dist = Path::new("../ui/dist");
    let index = dist.join("index.html");
    if !index.exists() {
        println!(
            "cargo:warning=ui/dist is missing: embedding a placeholder page (build the UI first)"
        );
        if let Err(error) = fs::create_dir_all(dist).and_then(|()| fs::write(&index, PLACEHOLDER)) {
            panic!("cannot write the placeholder {}: {error}", index.display());
        }
    }
    // tauri-build watches the config and the capabilities; the assets are embedded by
    // generate_context!, so rebuild when the built UI changes.
    println!("cargo:rerun-if-changed=../ui/dist");

    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json");
    if let Err(error) = tauri_build::try_build(attributes) {
        // A build script reports failure by panicking; print the whole chain first.
        panic!("tauri-build failed: {error:#}");
    }
}
