//! The writer's copy of the Notes it wrote last, so that a write does not read and parse every
//! tab of its Note again. An entry is used only when its version is the newest one stored,
//! read inside the write transaction, and the cache is emptied whenever a batch is lost, so it
//! never holds a state that is not committed (or about to be, in the open batch).

use std::collections::HashMap;

use quire_model::{NoteId, Version};

use super::read::Located;

/// Few entries: the writes of a burst go to few Notes, and a Note may be large.
const CAPACITY: usize = 64;

#[derive(Default)]
pub(super) struct NoteCache {
    notes: HashMap<NoteId, Located>,
}

impl NoteCache {
    /// The Note's number in the file, if it is cached (a Note is never deleted).
    pub(super) fn nid(&self, id: &NoteId) -> Option<i64> {
        self.notes.get(id).map(|l| l.nid)
    }

    /// The Note, if the cached copy is at `version`.
    pub(super) fn get(&self, id: &NoteId, version: Version) -> Option<&Located> {
        self.notes.get(id).filter(|l| l.note.version == version)
    }

    pub(super) fn put(&mut self, located: Located) {
        if self.notes.len() >= CAPACITY && !self.notes.contains_key(&located.note.id) {
            self.notes.clear();
        }
        self.notes.insert(located.note.id.clone(), located);
    }

    pub(super) fn clear(&mut self) {
        self.notes.clear();
    }
}
