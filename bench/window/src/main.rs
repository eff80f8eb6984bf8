//! The smallest Tauri 2 window with the app's renderer settings: the same tauri, the same
//! window size, `WEBKIT_DISABLE_DMABUF_RENDERER=1` where there is no GPU (as `quire-app` sets
//! it), a page served over the same protocol. It reports its first paint on stderr in the
//! app's words (`report_first_paint`), so `scripts/app-bench.sh` measures both alike,
//! alternated in one run: Quire's cold start against what any Tauri window costs here.

#![forbid(unsafe_code)]

use std::time::{SystemTime, UNIX_EPOCH};

/// When `main` started, in milliseconds since the epoch.
struct Launch(f64);

fn unix_ms(at: SystemTime) -> f64 {
    at.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The page's first frame: the line the app prints (`quire-app: first paint at ...`).
#[tauri::command]
fn report_first_paint(
    launch: tauri::State<'_, Launch>,
    navigation_started_at_unix_ms: f64,
    mounted_at_unix_ms: f64,
    painted_at_unix_ms: f64,
) {
    eprintln!(
        "quire-bench-window: first paint at unix_ms={painted_at_unix_ms:.0} ({:.0} ms after \
         main); navigation started at unix_ms={navigation_started_at_unix_ms:.0}; shell \
         mounted at unix_ms={mounted_at_unix_ms:.0}",
        painted_at_unix_ms - launch.0
    );
}

fn main() -> std::process::ExitCode {
    let launch = Launch(unix_ms(SystemTime::now()));
    #[cfg(target_os = "linux")]
    software_rendering_without_a_gpu();
    let run = tauri::Builder::default()
        .manage(launch)
        .invoke_handler(tauri::generate_handler![report_first_paint])
        .run(tauri::generate_context!());
    match run {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quire-bench-window: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// As `quire-app` (src-tauri/src/main.rs): without a render node, WebKit's DMA-BUF renderer
/// runs GL in software; the app turns it off, so the fixture does too.
#[cfg(target_os = "linux")]
fn software_rendering_without_a_gpu() {
    const VAR: &str = "WEBKIT_DISABLE_DMABUF_RENDERER";
    let gpu = std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    });
    if std::env::var_os(VAR).is_some() || gpu {
        return;
    }
    if let Err(error) = glib::setenv(VAR, "1", false) {
        eprintln!("quire-bench-window: cannot set {VAR}=1 ({error})");
    }
}
