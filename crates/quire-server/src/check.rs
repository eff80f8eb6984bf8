//! `quire-server check`: reads every version of every Note back, as any reader would, and
//! reports the ones that cannot be rebuilt. A store never hands out a version it cannot rebuild
//! exactly (a splice made on other bytes than its base holds is refused, not applied), so a
//! version that fails here is one the API answers with an error: this finds them all at once.

use quire_model::{AuthorKind, NoteId, Timestamp, Version};
use quire_store::{Change, Store, StoreError, WriteRequest};

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
    // Notes in the trash are data too: read back like the others.
    let mut notes = store.list_notes().await?;
    notes.extend(store.list_trash().await?);
    for summary in notes {
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

/// A Note whose newest version could not be read back, made readable again.
#[derive(Debug)]
pub struct Repaired {
    pub note_id: NoteId,
    /// The version that could not be read back.
    pub broken: Version,
    /// The newest version that reads back, restored.
    pub restored: Version,
    /// The new version equal to `restored`.
    pub version: Version,
}

/// A Note that could not be repaired, and why.
#[derive(Debug)]
pub struct Unrepaired {
    pub note_id: NoteId,
    pub error: StoreError,
}

/// What a repair did.
#[derive(Debug, Default)]
pub struct RepairReport {
    pub repaired: Vec<Repaired>,
    pub unrepaired: Vec<Unrepaired>,
}

/// Makes every Note whose newest version cannot be read back readable again: restores the
/// newest version that reads (an ordinary guarded write by `author`: a new version, history
/// kept, the unreadable versions stay in it). A Note that reads is left as it is.
pub async fn repair(
    store: &dyn Store,
    author: &str,
    now: Timestamp,
) -> Result<RepairReport, StoreError> {
    let mut report = RepairReport::default();
    for summary in store.list_notes().await? {
        let id = summary.id;
        if store.get_note(&id).await.is_ok() {
            continue;
        }
        match repair_note(store, &id, author, now).await {
            Ok(repaired) => report.repaired.push(repaired),
            Err(error) => report.unrepaired.push(Unrepaired { note_id: id, error }),
        }
    }
    Ok(report)
}

async fn repair_note(
    store: &dyn Store,
    id: &NoteId,
    author: &str,
    now: Timestamp,
) -> Result<Repaired, StoreError> {
    let history = store.history(id).await?;
    let broken = history
        .last()
        .map(|entry| entry.version)
        .ok_or_else(|| StoreError::Backend(format!("note {id} has no history")))?;
    let mut restored = None;
    for entry in history.iter().rev().skip(1) {
        if store.note_at(id, entry.version).await.is_ok() {
            restored = Some(entry.version);
            break;
        }
    }
    let restored = restored
        .ok_or_else(|| StoreError::Backend(format!("note {id}: no version of it reads back")))?;
    let written = store
        .write(WriteRequest {
            note_id: id.clone(),
            expected_version: broken,
            idempotency_key: None,
            author: author.to_owned(),
            // The operator's repair: a person's act, not an agent's.
            author_kind: AuthorKind::Person,
            change: Change::Restore { version: restored },
            now,
        })
        .await?;
    store.get_note(id).await?;
    Ok(Repaired {
        note_id: id.clone(),
        broken,
        restored,
        version: written.version,
    })
}
