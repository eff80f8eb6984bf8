//! The writer's copy of the Notes it wrote last, so that a write neither reads its Note's
//! version nor parses every tab of it again. An entry is always the newest version of its Note:
//! every write of this store goes through the writer, which puts what it wrote; the cache is
//! emptied whenever a batch is lost (so it never holds a state that is not committed, or about
//! to be, in the open batch) and whenever another connection has committed to the file since
//! the writer's last transaction (SQLite's `data_version`, read once per batch under the
//! write lock).

use std::collections::HashMap;

use quire_model::NoteId;
use rusqlite::Connection;

use super::read::Located;

/// Few entries: the writes of a burst go to few Notes, and a Note may be large.
const CAPACITY: usize = 64;

#[derive(Default)]
pub(super) struct NoteCache {
    notes: HashMap<NoteId, Located>,
    /// `PRAGMA data_version` as the writer last saw it: it changes when another connection
    /// commits, never for the writer's own commits.
    data_version: Option<i64>,
}

impl NoteCache {
    /// Forgets every Note if another connection committed since the last call. Called at the
    /// start of each batch, inside its `BEGIN IMMEDIATE` (no one else can commit until it ends).
    pub(super) fn check_data_version(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached("PRAGMA data_version")?;
        let now: i64 = stmt.query_row([], |r| r.get(0))?;
        if self.data_version != Some(now) {
            self.notes.clear();
            self.data_version = Some(now);
        }
        Ok(())
    }

    /// The Note at its newest version, if it is cached.
    pub(super) fn current(&self, id: &NoteId) -> Option<&Located> {
        self.notes.get(id)
    }

    pub(super) fn put(&mut self, located: Located) {
        if let Some(entry) = self.notes.get_mut(&located.note.id) {
            *entry = located;
            return;
        }
        if self.notes.len() >= CAPACITY {
            self.notes.clear();
        }
        self.notes.insert(located.note.id.clone(), located);
    }

    pub(super) fn clear(&mut self) {
        self.notes.clear();
        self.data_version = None;
    }
}
