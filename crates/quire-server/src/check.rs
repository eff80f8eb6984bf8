//! `quire-server check`: reads every version of every Note back, as any reader would, and
//! reports the ones that cannot be rebuilt. A store never hands out a version it cannot rebuild
//! exactly (a splice made on other bytes than its base holds is refused, not applied), so a
//! version that fails here is one the API answers with an error: this finds them all at once.

use quire_model::{NoteId, Version};
use quire_store::{Store, StoreError};

/// What a check read, and what it could not.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub notes: usize,
    pub versions: usize,
    pub failures: Vec<CheckFailure>,
}

/// A Note whose history, or one of whose versions, cannot be read back.
#[derive(Debug)]
pub struct CheckFailure {
    pub note_id: NoteId,
    /// `None`: the Note's history itself could not be listed.
    pub version: Option<Version>,
    pub error: StoreError,
}

impl std::fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.version {
            Some(v) => write!(f, "note {} version {v}: {}", self.note_id, self.error),
            None => write!(f, "note {}: {}", self.note_id, self.error),
        }
    }
}

/// Reads back every version of every Note in `store`. `progress` is called after each Note
/// with the report so far. Fails only when the store cannot even list its Notes.
pub async fn check(
    store: &dyn Store,
    mut progress: impl FnMut(&CheckReport),
) -> Result<CheckReport, StoreError> {
    let mut report = CheckReport::default();
    for summary in store.list_notes().await? {
        let id = summary.id;
        report.notes += 1;
        match store.history(&id).await {
            Ok(history) => {
                for entry in history {
                    report.versions += 1;
                    if let Err(error) = store.note_at(&id, entry.version).await {
                        report.failures.push(CheckFailure {
                            note_id: id.clone(),
                            version: Some(entry.version),
                            error,
                        });
                    }
                }
            }
            Err(error) => report.failures.push(CheckFailure {
                note_id: id.clone(),
                version: None,
                error,
            }),
        }
        progress(&report);
    }
    Ok(report)
}
