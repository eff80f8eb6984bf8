//! One app per data directory. A second launch on the same data finds the first on the session
//! bus (tauri-plugin-single-instance: a D-Bus name on Linux), asks it to show its window, and
//! exits before it opens anything; two apps on the same files would run two embedded servers
//! and two engines on one `sync.db`.
//!
//! The name is the app's identifier, so every launch on the platform's data directory is the same
//! app; a data directory chosen with `QUIRE_DATA_DIR` adds a hash of its absolute path, so a
//! second profile runs beside the first.

use std::path::Path;

use sha2::{Digest, Sha256};

/// The D-Bus name (before the plugin's `.SingleInstance`) for the app `identifier` on
/// `data_dir` (`None`: the platform's data directory).
pub fn bus_name(identifier: &str, data_dir: Option<&Path>) -> String {
    let Some(dir) = data_dir else {
        return identifier.to_owned();
    };
    // The same directory under two spellings is one app.
    let dir = dir
        .canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_owned());
    let hash = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    // A bus name's element may not start with a digit.
    format!("{identifier}.d{}", &hex::encode(hash)[..16])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// What D-Bus accepts: elements of `[A-Za-z0-9_-]`, none empty or starting with a digit, at
    /// least two, 255 bytes at most.
    fn valid_bus_name(name: &str) -> bool {
        let elements: Vec<&str> = name.split('.').collect();
        name.len() <= 255
            && elements.len() >= 2
            && elements.iter().all(|e| {
                !e.is_empty()
                    && !e.starts_with(|c: char| c.is_ascii_digit())
                    && e.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            })
    }

    #[test]
    fn the_platform_data_directory_is_the_identifier() {
        assert_eq!(bus_name("dev.quire.Quire", None), "dev.quire.Quire");
    }

    #[test]
    fn a_chosen_data_directory_is_its_own_app_whatever_its_spelling() {
        let root = tempfile::tempdir().unwrap();
        let a = root.path().join("a");
        let b = root.path().join("b");
        std::fs::create_dir(&a).unwrap();
        let one = bus_name("dev.quire.Quire", Some(&a));
        assert!(valid_bus_name(&one), "{one}");
        assert_ne!(one, "dev.quire.Quire");
        assert_eq!(bus_name("dev.quire.Quire", Some(&a.join("../a"))), one);
        assert_ne!(bus_name("dev.quire.Quire", Some(&b)), one);
        // Not created yet (the first start): still a valid, stable name.
        let missing = bus_name("dev.quire.Quire", Some(&b));
        assert!(valid_bus_name(&missing), "{missing}");
        assert_eq!(bus_name("dev.quire.Quire", Some(&b)), missing);
    }
}
