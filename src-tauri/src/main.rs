//! The `quire-app` binary: everything lives in the library so that tests can build the same app
//! on Tauri's mock runtime.

#![forbid(unsafe_code)]
// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("mcp-stdio") {
        return match quire_app::mcp_stdio(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("quire-app: {error}");
                ExitCode::FAILURE
            }
        };
    }
    #[cfg(target_os = "linux")]
    software_rendering_without_a_gpu();
    match quire_app::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quire-app: {error}");
            ExitCode::FAILURE
        }
    }
}

/// WebKitGTK's DMA-BUF renderer wants a GPU. Without a render node (a VM, Xvfb, CI) it runs GL on
/// Mesa's software rasteriser, which costs ~1 s of start-up and ~70 MiB (see NOTES.md,
/// Measurements); `WEBKIT_DISABLE_DMABUF_RENDERER=1` avoids that path. WebKit reads the
/// variable when it starts, and setting it in-process is `unsafe` (edition 2024), so the binary
/// executes itself once more with it set (same PID, arguments and environment otherwise). A
/// value the person set is left alone.
#[cfg(target_os = "linux")]
fn software_rendering_without_a_gpu() {
    use std::os::unix::process::CommandExt;

    const VAR: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
    if std::env::var_os(VAR).is_some() || has_render_node() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // exec returns only on failure; then carry on with the default renderer.
    let error = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(VAR, "1")
        .exec();
    eprintln!("quire-app: cannot re-execute with {VAR}=1 ({error}); using the default renderer");
}

#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}
