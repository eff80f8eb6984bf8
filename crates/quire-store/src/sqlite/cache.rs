//! The writer's copy of the Notes it wrote last, so that a write does not read and parse every
//! tab of its Note again. An entry is used only when its version is the one the `notes` row
//! holds inside the write transaction, and the cache is emptied whenever a batch is lost, so it
//! never holds a state that is not committed (or about to be, in the open batch).

use std::collections::HashMap;

use quire_model::{Note, NoteId, Version};

/// Few entries: the writes of a burst go to few Notes, and a Note may be large.
const CAPACITY: usize = 64;

#[derive(Default)]
pub(super) struct NoteCache {
    notes: HashMap<NoteId, Note>,
}

impl NoteCache {
    /// The Note, if the cached copy is at `version`.
    pub(super) fn get(&self, id: &NoteId, version: Version) -> Option<&Note> {
        self.notes.get(id).filter(|n| n.version == version)
    }

    pub(super) fn put(&mut self, note: Note) {
        if self.notes.len() >= CAPACITY && !self.notes.contains_key(&note.id) {
            self.notes.clear();
        }
        self.notes.insert(note.id.clone(), note);
    }

    pub(super) fn clear(&mut self) {
        self.notes.clear();
    }
}
