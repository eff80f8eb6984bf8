//! The trash, for the person: a Note moves in and out by guarded writes ([`Change::Trash`],
//! [`Change::Undelete`]), lists apart from the others, and is erased only by emptying the trash.
//! Agents never see a trashed Note: to them it is missing (see `visible`).

use quire_api::{TrashedNote, WriteResult};
use quire_model::{AuthorKind, NoteId, NoteSummary, Timestamp, Version};
use quire_store::Change;

use super::{Caller, Channel, Notes, NotesError, Result, require};
use quire_api::Scope;

/// Milliseconds in a day, for `--older-than-days`.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Only the person manages the trash.
fn person_only(caller: &Caller, channel: Channel) -> Result<()> {
    if caller.acts_as(channel) == AuthorKind::Person {
        Ok(())
    } else {
        Err(NotesError::PersonOnly)
    }
}

impl Notes {
    /// Moves the Note into the trash at `expected` (a new version, "moved to trash").
    pub async fn trash(
        &self,
        caller: &Caller,
        channel: Channel,
        id: NoteId,
        expected: Version,
        key: Option<String>,
    ) -> Result<TrashedNote> {
        require(caller, Scope::NotesWrite)?;
        person_only(caller, channel)?;
        let result = self
            .write(caller, channel, id.clone(), expected, key, Change::Trash)
            .await?;
        // The time it went in is the store's (a replay answers the first move's).
        let meta = self.store.note_meta(&id).await?;
        let deleted_at = meta
            .deleted_at
            .unwrap_or_else(|| self.clock.now().to_rfc3339());
        Ok(TrashedNote {
            id,
            version: result.version,
            deleted_at,
        })
    }

    /// Brings the Note back out of the trash at `expected` ("restored from trash").
    pub async fn undelete(
        &self,
        caller: &Caller,
        channel: Channel,
        id: NoteId,
        expected: Version,
        key: Option<String>,
    ) -> Result<WriteResult> {
        require(caller, Scope::NotesWrite)?;
        person_only(caller, channel)?;
        self.write(caller, channel, id, expected, key, Change::Undelete)
            .await
    }

    /// The Notes in the trash, most recently trashed first.
    pub async fn list_trash(&self, caller: &Caller, channel: Channel) -> Result<Vec<NoteSummary>> {
        require(caller, Scope::NotesRead)?;
        person_only(caller, channel)?;
        Ok(self.store.list_trash().await?)
    }

    /// Erases for good the Notes in the trash (those trashed more than `older_than_days` days
    /// ago, if given); returns their IDs.
    pub async fn empty_trash(
        &self,
        caller: &Caller,
        channel: Channel,
        older_than_days: Option<u32>,
    ) -> Result<Vec<NoteId>> {
        require(caller, Scope::NotesWrite)?;
        person_only(caller, channel)?;
        let before = older_than_days.map(|days| cutoff(self.clock.now(), days));
        Ok(self.store.empty_trash(before).await?)
    }
}

/// The time `days` days before `now`: Notes trashed before it are older than that.
pub fn cutoff(now: Timestamp, days: u32) -> Timestamp {
    Timestamp(now.0.saturating_sub(i64::from(days) * DAY_MS))
}
