//! The data directory follows the app's identifier (`<platform data dir>/<identifier>`). Quire
//! 0.1 was `dev.quire.app`, which macOS refuses (a bundle identifier must not end in `.app`);
//! the data a person made under the old identifier is moved to the new place on the first start,
//! before anything (the webview included) creates the new directory.
//!
//! The rule never loses data and never merges two directories: the old one is renamed to the new
//! name only when the new one does not exist (or is empty). If both hold something, the new one is
//! used and the old one is left where it is. If the move fails, the app runs on the old directory
//! as it is, and tries again on the next start.

use std::io;
use std::path::{Path, PathBuf};

/// The identifier of Quire 0.1, whose data directory is moved (see the module docs).
pub const OLD_IDENTIFIER: &str = "dev.quire.app";

/// What [`settle`] found and did.
#[derive(Debug)]
pub enum Migration {
    /// Nothing under the old name: nothing to do.
    NothingToMove,
    /// The old directory is now the new one.
    Moved { from: PathBuf },
    /// Both exist and the new one holds data: the old one is left alone (and not used).
    OldLeftInPlace { old: PathBuf },
    /// The rename failed: the old directory is used as it is this time.
    Failed { from: PathBuf, error: io::Error },
}

/// Picks the data directory for `new` (the platform's, for the current identifier) and moves the
/// one named `old_name` beside it there first when that applies (see the module docs). Returns the
/// directory to use and what happened.
pub fn settle(new: &Path, old_name: &str) -> (PathBuf, Migration) {
    settle_by(new, old_name, |from, to| std::fs::rename(from, to))
}

fn settle_by(
    new: &Path,
    old_name: &str,
    rename: impl FnOnce(&Path, &Path) -> io::Result<()>,
) -> (PathBuf, Migration) {
    let Some(old) = new.parent().map(|parent| parent.join(old_name)) else {
        return (new.to_owned(), Migration::NothingToMove);
    };
    if old == new || !old.is_dir() {
        return (new.to_owned(), Migration::NothingToMove);
    }
    if new.exists() {
        // `remove_dir` removes only an empty directory: a new one holding anything stays.
        if let Err(error) = std::fs::remove_dir(new) {
            tracing::debug!(%error, "the new data directory is not empty");
            return (new.to_owned(), Migration::OldLeftInPlace { old });
        }
    }
    match rename(&old, new) {
        Ok(()) => (new.to_owned(), Migration::Moved { from: old }),
        Err(error) => (old.clone(), Migration::Failed { from: old, error }),
    }
}

impl Migration {
    /// Writes what happened to the log (once the log is set up).
    pub fn log(&self, data_dir: &Path) {
        let to = data_dir.display();
        match self {
            Migration::NothingToMove => {}
            Migration::Moved { from } => {
                tracing::info!(from = %from.display(), %to, "moved the data directory")
            }
            Migration::OldLeftInPlace { old } => tracing::warn!(
                old = %old.display(), using = %to,
                "an older data directory is left in place (not used): both exist"
            ),
            Migration::Failed { from, error } => tracing::error!(
                %error, using = %to,
                "cannot move the data directory {} to its new place; using it where it is",
                from.display()
            ),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::fs;

    use super::*;

    const NEW: &str = "dev.quire.Quire";

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn the_old_directory_moves_to_the_new_place_with_everything_in_it() {
        let root = tempfile::tempdir().unwrap();
        let old = root.path().join(OLD_IDENTIFIER);
        write(&old.join("server.db"), "notes");
        write(&old.join("files/ab12"), "attachment");
        let new = root.path().join(NEW);

        let (dir, migration) = settle(&new, OLD_IDENTIFIER);

        assert_eq!(dir, new);
        assert!(matches!(migration, Migration::Moved { ref from } if *from == old));
        assert_eq!(fs::read_to_string(new.join("server.db")).unwrap(), "notes");
        assert_eq!(
            fs::read_to_string(new.join("files/ab12")).unwrap(),
            "attachment"
        );
        assert!(!old.exists());
    }

    #[test]
    fn an_empty_new_directory_does_not_stop_the_move() {
        let root = tempfile::tempdir().unwrap();
        let old = root.path().join(OLD_IDENTIFIER);
        write(&old.join("settings.json"), "{}");
        let new = root.path().join(NEW);
        fs::create_dir(&new).unwrap();

        let (dir, migration) = settle(&new, OLD_IDENTIFIER);

        assert_eq!(dir, new);
        assert!(
            matches!(migration, Migration::Moved { .. }),
            "{migration:?}"
        );
        assert_eq!(fs::read_to_string(new.join("settings.json")).unwrap(), "{}");
    }

    #[test]
    fn a_new_directory_with_data_is_used_and_the_old_one_left_alone() {
        let root = tempfile::tempdir().unwrap();
        let old = root.path().join(OLD_IDENTIFIER);
        write(&old.join("server.db"), "old notes");
        let new = root.path().join(NEW);
        write(&new.join("server.db"), "new notes");

        let (dir, migration) = settle(&new, OLD_IDENTIFIER);

        assert_eq!(dir, new);
        assert!(
            matches!(migration, Migration::OldLeftInPlace { old: ref o } if *o == old),
            "{migration:?}"
        );
        assert_eq!(
            fs::read_to_string(new.join("server.db")).unwrap(),
            "new notes"
        );
        assert_eq!(
            fs::read_to_string(old.join("server.db")).unwrap(),
            "old notes"
        );
    }

    #[test]
    fn without_an_old_directory_nothing_happens() {
        let root = tempfile::tempdir().unwrap();
        let new = root.path().join(NEW);

        let (dir, migration) = settle(&new, OLD_IDENTIFIER);

        assert_eq!(dir, new);
        assert!(matches!(migration, Migration::NothingToMove));
        assert!(!new.exists(), "settle creates nothing");
        // A file (not a directory) under the old name is not data of ours.
        write(&root.path().join(OLD_IDENTIFIER), "not a directory");
        assert!(matches!(
            settle(&new, OLD_IDENTIFIER).1,
            Migration::NothingToMove
        ));
    }

    /// A move that fails (another file system, a permission) leaves the person on the old
    /// directory, whole; the next start tries again.
    #[test]
    fn a_move_that_fails_keeps_using_the_old_directory() {
        let root = tempfile::tempdir().unwrap();
        let old = root.path().join(OLD_IDENTIFIER);
        write(&old.join("server.db"), "notes");
        let new = root.path().join(NEW);
        fs::create_dir(&new).unwrap();

        let refused = |_: &Path, _: &Path| Err(io::Error::from(io::ErrorKind::CrossesDevices));
        let (dir, migration) = settle_by(&new, OLD_IDENTIFIER, refused);

        assert_eq!(dir, old);
        assert!(
            matches!(migration, Migration::Failed { .. }),
            "{migration:?}"
        );
        assert_eq!(fs::read_to_string(old.join("server.db")).unwrap(), "notes");
    }
}
