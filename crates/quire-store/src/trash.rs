//! The trash, as the guarded write sees it. Moving a Note to the trash and back are changes
//! like any other ([`Change::Trash`], [`Change::Undelete`]): the same key replay, the same
//! compare-and-swap on the version, a new version with its history summary. The content of the
//! new version is the Note as it was; what changes is the Note's `deleted_at`, kept in the
//! store's row of the Note (not in a version) so that listings filter without reading content.
//!
//! The invariant: a Note in the trash takes no write but [`Change::Undelete`]; nothing but
//! [`crate::Store::empty_trash`] ever erases a Note, and it erases only trashed ones.

use quire_model::{Applied, Note, NoteId, Timestamp};

use crate::{Change, Result, StoreError};

/// History summary of a move into the trash.
pub const TRASHED: &str = "moved to trash";
/// History summary of a move out of the trash.
pub const RESTORED: &str = "restored from trash";

/// See [`crate::guard::GuardedWrite::check_trash`].
pub(crate) fn check(id: &NoteId, change: &Change, trashed: bool) -> Result<()> {
    match (change, trashed) {
        (Change::Undelete, false) => Err(StoreError::NotInTrash(id.clone())),
        (Change::Undelete, true) | (_, false) => Ok(()),
        (_, true) => Err(StoreError::NoteInTrash(id.clone())),
    }
}

/// What a change sets the Note's `deleted_at` to: `Some(Some(now))` into the trash, `Some(None)`
/// out of it, `None` left as it is.
pub fn mark(change: &Change, now: Timestamp) -> Option<Option<Timestamp>> {
    match change {
        Change::Trash => Some(Some(now)),
        Change::Undelete => Some(None),
        Change::Ops(_) | Change::Restore { .. } | Change::Revert { .. } => None,
    }
}

/// A move into or out of the trash applied: the same Note, nothing changed in it.
pub(crate) fn applied(current: &Note, change: &Change) -> Applied {
    let summary = match change {
        Change::Undelete => RESTORED,
        _ => TRASHED,
    };
    Applied {
        note: current.clone(),
        changed_tab_ids: Vec::new(),
        title_changed: false,
        outcomes: Vec::new(),
        summary: summary.to_owned(),
        text_ends_kept: Default::default(),
    }
}
