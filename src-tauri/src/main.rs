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
    match quire_app::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quire-app: {error}");
            ExitCode::FAILURE
        }
    }
}
