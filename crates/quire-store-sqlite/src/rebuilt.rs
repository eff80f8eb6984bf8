//! The long Markdown texts the read pool rebuilt from their splices, kept for the next read of
//! the same content. A text stored as a splice chain is rebuilt from the whole text under it,
//! splice by splice, each checked against the hash of the text it was made on: for a 1 MiB text
//! 32 splices deep, 32 hashes of the whole text, about 3 ms a read, while an agent reading 20
//! lines of it with `read_note_lines` and the app opening it read the same version again and
//! again. A read of a newer version starts from the newest kept text under it (the version
//! read a moment ago): one or two splices applied, not the whole chain.
//!
//! A content is kept by its Note's ID, its tab and the version whose row holds it. What a
//! committed row holds never changes (the store never rewrites history; `empty_trash` erases a
//! Note with all its rows, and a Note's ID is never given again), and a reader sees committed
//! rows only, so a kept text is the text, for as long as the store is open. The Note's ID, not
//! its row number: SQLite may give an erased Note's row number to a new one.

use std::sync::Mutex;

use quire_model::{NoteId, TabId, Text, Version};

/// Texts shorter than this are rebuilt on every read: cheap, and not worth the memory.
pub(super) const MIN_BYTES: usize = 64 * 1024;
/// The most the kept texts hold together.
const MAX_BYTES: usize = 64 << 20;

/// The kept texts, the most recently read last.
#[derive(Default)]
pub(super) struct Rebuilt {
    kept: Mutex<Vec<Kept>>,
}

struct Kept {
    note: NoteId,
    tab: TabId,
    at: Version,
    text: Text,
    /// The splices it was rebuilt through.
    depth: u32,
}

impl Rebuilt {
    /// The text of tab `tab` of Note `note` stored at version `at`, and its depth, if kept.
    pub(super) fn get(&self, note: &NoteId, tab: &TabId, at: Version) -> Option<(Text, u32)> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let i = kept
            .iter()
            .position(|k| k.at == at && &k.tab == tab && &k.note == note)?;
        let hit = kept.remove(i);
        let found = (hit.text.clone(), hit.depth);
        kept.push(hit);
        Some(found)
    }

    /// Keeps a text rebuilt through `depth` splices, if it is long enough to be worth it;
    /// forgets the least recently read texts beyond [`MAX_BYTES`].
    pub(super) fn put(&self, note: &NoteId, tab: &TabId, at: Version, text: &Text, depth: u32) {
        if depth == 0 || text.len() < MIN_BYTES || text.len() > MAX_BYTES {
            return;
        }
        let entry = Kept {
            note: note.clone(),
            tab: tab.clone(),
            at,
            text: text.clone(),
            depth,
        };
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|k| !(k.at == at && &k.tab == tab && &k.note == note));
        kept.push(entry);
        let mut total: usize = kept.iter().map(|k| k.text.len()).sum();
        while total > MAX_BYTES {
            total -= kept.remove(0).text.len();
        }
    }

    /// How many texts are kept (for tests).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> NoteId {
        format!("01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f{n:02x}")
            .parse()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_text_is_kept_by_note_tab_and_version() {
        let cache = Rebuilt::default();
        let tab = TabId::new(TabId::MARKDOWN);
        let long = Text::from("x".repeat(MIN_BYTES));
        cache.put(&id(1), &tab, Version(3), &long, 2);
        assert_eq!(
            cache
                .get(&id(1), &tab, Version(3))
                .map(|(t, d)| (t.len(), d)),
            Some((long.len(), 2))
        );
        assert!(cache.get(&id(1), &tab, Version(4)).is_none());
        assert!(cache.get(&id(2), &tab, Version(3)).is_none());
        assert!(
            cache
                .get(&id(1), &TabId::new("notes-2"), Version(3))
                .is_none()
        );
    }

    #[test]
    fn short_whole_and_too_many_texts_are_not_kept() {
        let cache = Rebuilt::default();
        let tab = TabId::new(TabId::MARKDOWN);
        cache.put(
            &id(1),
            &tab,
            Version(2),
            &"x".repeat(MIN_BYTES - 1).into(),
            1,
        );
        cache.put(&id(1), &tab, Version(3), &"x".repeat(MIN_BYTES).into(), 0);
        assert_eq!(cache.len(), 0);
        // 8 MiB each: the oldest go once they hold more than 64 MiB together.
        let big = Text::from("y".repeat(8 << 20));
        for v in 1..=10 {
            cache.put(&id(1), &tab, Version(v), &big, 1);
        }
        assert_eq!(cache.len(), 8);
        assert!(cache.get(&id(1), &tab, Version(2)).is_none());
        assert!(cache.get(&id(1), &tab, Version(10)).is_some());
    }
}
