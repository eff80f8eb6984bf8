//! Tauri's build step for the fixture window (its config is `tauri.conf.json` beside this file).

fn main() {
    tauri_build::build();
}
