//! The app binary started where no window can open (no X server, no Wayland compositor).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

/// It refuses with a message that names the missing display, exits with 1, and leaves no data
/// behind; it does not panic.
#[test]
fn without_a_display_the_app_says_so() {
    let home = tempfile::tempdir().expect("temporary directory");
    let out = Command::new(env!("CARGO_BIN_EXE_quire-app"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .output()
        .expect("run quire-app");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot open a window") && stderr.contains("DISPLAY unset"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !home.path().join("data").exists(),
        "nothing is created before a window can open"
    );
}
