//! The Notes this store last read or wrote, each at its version: what lets a guarded write skip
//! its read and commit in one round trip.
//!
//! Never wrong, only possibly old: a Note's content at a given version never changes (every
//! write makes a new version, a restore too), so an entry for version V is the truth about V
//! whichever server wrote it. Whether V is still current is what the compare-and-swap checks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use quire_model::{Note, NoteId, Version};

pub(crate) struct Recent {
    notes: Mutex<HashMap<NoteId, Arc<Note>>>,
    capacity: usize,
}

impl Recent {
    pub(crate) fn new(capacity: usize) -> Self {
        Recent {
            notes: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    /// The Note as it was at `version`, if that is the version held.
    pub(crate) fn get(&self, id: &NoteId, version: Version) -> Option<Arc<Note>> {
        let notes = self.notes.lock().ok()?;
        notes.get(id).filter(|n| n.version == version).cloned()
    }

    /// Holds `note` unless a later version of it is held already.
    pub(crate) fn put(&self, note: Arc<Note>) {
        if self.capacity == 0 {
            return;
        }
        let Ok(mut notes) = self.notes.lock() else {
            return;
        };
        if notes
            .get(&note.id)
            .is_some_and(|n| n.version > note.version)
        {
            return;
        }
        if notes.len() >= self.capacity && !notes.contains_key(&note.id) {
            // Full: start over rather than track use (a miss costs one read, nothing more).
            notes.clear();
        }
        notes.insert(note.id.clone(), note);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(n: u128, version: u64) -> Arc<Note> {
        let mut note = Note::new(NoteId::from_uuid(uuid::Uuid::from_u128(n)), "t".to_owned());
        note.version = Version(version);
        Arc::new(note)
    }

    #[test]
    fn holds_the_newest_version_only_and_answers_for_that_version() {
        let recent = Recent::new(2);
        let a = note(1, 3);
        recent.put(Arc::clone(&a));
        assert!(recent.get(&a.id, Version(3)).is_some());
        assert!(recent.get(&a.id, Version(2)).is_none());
        recent.put(note(1, 2));
        assert!(
            recent.get(&a.id, Version(3)).is_some(),
            "an older read must not win"
        );
        recent.put(note(1, 4));
        assert!(recent.get(&a.id, Version(3)).is_none());
        assert!(recent.get(&a.id, Version(4)).is_some());
        recent.put(note(2, 1));
        recent.put(note(3, 1));
        assert_eq!(recent.notes.lock().map(|n| n.len()).unwrap_or(0), 1);
        let off = Recent::new(0);
        off.put(note(1, 1));
        assert!(off.get(&a.id, Version(1)).is_none());
    }
}
