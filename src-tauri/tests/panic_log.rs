//! A panic writes its report to the app's log file (and stderr) before the process ends. The test
//! runs its own binary again as a child that installs the app's logger as the app does
//! (`quire_app::logs::install`) and panics: on a worker thread, then ending at once
//! (`process::exit`, no destructor runs), and in a function called from C, as GTK calls the
//! app's callbacks, where the panic cannot unwind and aborts the process. The parent reads the
//! file the dead child left.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

/// Set in the child: the log directory.
const CHILD_DIR: &str = "QUIRE_PANIC_TEST_DIR";
/// Set in the child: how it panics.
const CHILD_HOW: &str = "QUIRE_PANIC_TEST_HOW";
const MESSAGE: &str = "the report must reach the file";

#[test]
fn a_panic_is_in_the_log_file_when_the_process_has_ended() {
    if let (Some(dir), Ok(how)) = (std::env::var_os(CHILD_DIR), std::env::var(CHILD_HOW)) {
        child(Path::new(&dir), &how);
    }
    let root = tempfile::tempdir().unwrap();
    for how in ["thread", "callback"] {
        let dir = root.path().join(how);
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_panic_is_in_the_log_file_when_the_process_has_ended",
                "--nocapture",
            ])
            .env(CHILD_DIR, &dir)
            .env(CHILD_HOW, how)
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{how}: the child did not die: {stderr}"
        );
        let log = std::fs::read_to_string(dir.join(quire_app::logs::LATEST))
            .unwrap_or_else(|e| panic!("{how}: no log file ({e}); stderr: {stderr}"));
        for part in [
            "ERROR",
            "panicked at",
            MESSAGE,
            "panic_log.rs:",
            "backtrace:",
        ] {
            assert!(log.contains(part), "{how}: no {part:?} in the log:\n{log}");
        }
        assert!(
            stderr.contains(MESSAGE),
            "{how}: the report is on stderr too: {stderr}"
        );
    }
}

/// The child: the app's logger, then a panic that ends the process.
fn child(dir: &Path, how: &str) -> ! {
    quire_app::logs::install(dir, quire_app::LOG_FILTER).unwrap();
    match how {
        "thread" => {
            let worker = std::thread::Builder::new()
                .name("worker".into())
                .spawn(|| panic!("{MESSAGE} (worker)"))
                .unwrap();
            assert!(worker.join().is_err());
            std::process::exit(3)
        }
        _ => {
            called_from_c();
            unreachable!("a panic in an extern \"C\" function aborts")
        }
    }
}

/// A callback as GTK calls it: a panic here cannot unwind out, so the process aborts.
extern "C" fn called_from_c() {
    panic!("{MESSAGE} (callback)");
}
