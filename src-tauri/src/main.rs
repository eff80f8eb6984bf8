//! The `quire-app` binary: everything lives in the library so that tests can build the same app
//! on Tauri's mock runtime.

#![forbid(unsafe_code)]
// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

/// jemalloc, not the system's allocator: a 10 MiB Note leaves hundreds of MiB freed in glibc's
/// arenas, which glibc keeps; jemalloc's background thread gives back what stays unused
/// (BENCHMARKS.md, "The 10 MiB Note in the real window"). MSVC builds keep the system's.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    {
        software_rendering_without_a_gpu();
        if let Err(error) = open_the_display() {
            eprintln!("quire-app: {error}");
            return ExitCode::FAILURE;
        }
    }
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
/// variable when it starts (and its helper processes inherit it). A value the person set is
/// left alone.
///
/// Setting a variable is unsound only while another thread may read the environment; this runs
/// first thing in `main`, before any thread exists (no runtime, GTK or WebKit yet). It used to
/// re-execute the binary with the variable set instead (`std::env::set_var` is `unsafe` in
/// edition 2024 and the crate forbids unsafe code), which cost a second load of GTK and WebKit:
/// ~60-100 ms of every start (NOTES.md, Measurements). `glib::setenv` is GLib's safe
/// `g_setenv`, whose documented condition (before other threads start) holds here.
#[cfg(target_os = "linux")]
fn software_rendering_without_a_gpu() {
    const VAR: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
    if std::env::var_os(VAR).is_some() || has_render_node() {
        return;
    }
    if let Err(error) = glib::setenv(VAR, "1", false) {
        eprintln!("quire-app: cannot set {VAR}=1 ({error}); using the default renderer");
    }
}

#[cfg(target_os = "linux")]
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Initialises GTK, which opens the display, before Tauri does: Tauri's window library panics
/// when it cannot ("Failed to initialize gtk backend!"); this names what is missing instead.
/// GTK then counts as initialised on this (the main) thread, and Tauri goes on with it.
#[cfg(target_os = "linux")]
fn open_the_display() -> Result<(), String> {
    gtk::init().map_err(|error| {
        let var = |name| std::env::var(name).unwrap_or_else(|_| "unset".to_owned());
        format!(
            "cannot open a window: {error} (DISPLAY {}, WAYLAND_DISPLAY {}); \
             Quire needs a graphical session",
            var("DISPLAY"),
            var("WAYLAND_DISPLAY")
        )
    })
}
