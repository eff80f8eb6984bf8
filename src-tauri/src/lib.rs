//! Quire's desktop app: a Tauri 2 shell. It holds no logic of its own: commands (in
//! [`commands`]) parse, call one function of the engine, and map the result; errors cross the
//! boundary as [`error::CommandError`] (`{code, message}`), on which the UI switches by `code`.

#![forbid(unsafe_code)]

pub mod commands;
pub mod error;

use std::time::SystemTime;

/// Builds the app on any runtime: [`run`] uses the real one (Wry), tests use
/// `tauri::test::mock_builder()`.
pub fn app<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    launch: commands::Launch,
) -> tauri::Builder<R> {
    builder
        .manage(launch)
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::report_first_paint,
        ])
}

/// Runs the desktop app until its last window closes.
pub fn run() -> Result<(), tauri::Error> {
    let launch = commands::Launch::at(SystemTime::now());
    app(tauri::Builder::default(), launch).run(tauri::generate_context!("../tauri.conf.json"))
}
