//! The app's persisted settings: `settings.json` in the data directory, readable by its owner
//! only (it holds bearer tokens).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The port the embedded server prefers, so that agent configs keep working across restarts.
pub const DEFAULT_EMBEDDED_PORT: u16 = 7878;

/// Which server the app talks to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ServerMode {
    /// `quire-server` inside the app, on loopback, with its database in the data directory.
    #[default]
    Embedded,
    /// A server elsewhere (URL + token).
    Remote,
}

/// A remote server and the person's token for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remote {
    pub url: String,
    pub token: String,
}

/// What `settings.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    #[serde(default)]
    pub mode: ServerMode,
    /// The person's name: the author of their writes in the embedded server's history.
    #[serde(default)]
    pub person_name: Option<String>,
    /// The person's token for the embedded server (made on first start).
    #[serde(default)]
    pub embedded_token: Option<String>,
    /// The port the embedded server tries first (0: any free port).
    #[serde(default = "default_port")]
    pub embedded_port: u16,
    #[serde(default)]
    pub remote: Option<Remote>,
    /// A PEM file of certificate authorities to trust besides the system's store (a team
    /// server whose certificate comes from the team's own CA). `QUIRE_CA_FILE` wins over it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
}

fn default_port() -> u16 {
    DEFAULT_EMBEDDED_PORT
}

impl Default for Stored {
    fn default() -> Self {
        Stored {
            mode: ServerMode::Embedded,
            person_name: None,
            embedded_token: None,
            embedded_port: DEFAULT_EMBEDDED_PORT,
            remote: None,
            ca_file: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid settings: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Reads the settings; a missing file is the defaults.
pub fn load(path: &Path) -> Result<Stored, SettingsError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::default()),
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|source| SettingsError::Parse {
        path: path.to_owned(),
        source,
    })
}

/// Writes the settings atomically (a temporary file renamed over the old one), mode 0600.
pub fn save(path: &Path, stored: &Stored) -> Result<(), SettingsError> {
    let failed = |source| SettingsError::Write {
        path: path.to_owned(),
        source,
    };
    let json = serde_json::to_vec_pretty(stored).map_err(|e| failed(std::io::Error::other(e)))?;
    let tmp = path.with_extension("json.tmp");
    let mut file = private_file(&tmp).map_err(failed)?;
    file.write_all(&json).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    fs::rename(&tmp, path).map_err(failed)
}

#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // An older file keeps its mode on open: make sure.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<fs::File> {
    fs::File::create(path)
}

/// The person's default name: the OS user name, else "you".
pub fn default_person_name() -> String {
    ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .filter_map(|var| std::env::var(var).ok())
        .map(|name| name.trim().to_owned())
        .find(|name| !name.is_empty())
        .unwrap_or_else(|| "you".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_the_defaults_and_a_saved_one_reads_back_private() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.json");
        assert_eq!(load(&path).expect("defaults"), Stored::default());
        let stored = Stored {
            mode: ServerMode::Remote,
            person_name: Some("ada".to_owned()),
            embedded_token: Some("qk_secret".to_owned()),
            embedded_port: 0,
            remote: Some(Remote {
                url: "http://127.0.0.1:9".to_owned(),
                token: "qk_other".to_owned(),
            }),
            ca_file: Some(PathBuf::from("/etc/quire/team-ca.pem")),
        };
        save(&path, &stored).expect("save");
        assert_eq!(load(&path).expect("load"), stored);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).expect("metadata").permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "settings hold tokens: owner only");
        }
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("settings.json");
        fs::write(&path, "{not json").expect("write");
        let error = load(&path).expect_err("corrupt settings are refused");
        assert!(error.to_string().contains("settings.json"), "{error}");
    }
}
