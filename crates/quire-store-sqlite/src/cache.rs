//! The writer's copy of the Notes it wrote last, so that a write neither reads its Note's
//! version nor parses every tab of it again, and the keys of their versions not yet in
//! `write_keys`. An entry is always the newest version of its Note: every write of this store
//! goes through the writer, which puts what it wrote; the cache is emptied whenever a batch is
//! lost (so it never holds a state that is not committed, or about to be, in the open batch) and
//! whenever another connection has committed to the file since the writer's last transaction
//! (SQLite's `data_version`, read once per batch under the write lock).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::sync::mpsc::{self, Sender};

use quire_model::{NoteId, Version};
use rusqlite::Connection;

use super::read::Located;

/// Few entries: the writes of a burst go to few Notes, and a Note may be large.
const CAPACITY: usize = 64;

/// A key stored with the version its write made, not yet in `write_keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PendingKey {
    pub version: Version,
    pub fingerprint: Vec<u8>,
}

/// A Note's keys that are not in `write_keys` yet: those of its versions after
/// `notes.keys_through`.
#[derive(Debug, Clone, Default)]
pub(super) struct Keys {
    pub pending: HashMap<String, PendingKey>,
}

/// A Note as the writer knows it: its newest version and its keys not yet indexed.
pub(super) struct Cached {
    pub located: Located,
    pub keys: Keys,
}

impl Cached {
    /// A Note just created: no version of it holds a key.
    pub(super) fn new(located: Located) -> Self {
        Cached {
            located,
            keys: Keys::default(),
        }
    }

    fn apply(&mut self, keys: KeysChange) {
        match keys {
            KeysChange::None => {}
            KeysChange::Pending(key, pending) => {
                self.keys.pending.insert(key, pending);
            }
            KeysChange::Indexed => self.keys.pending.clear(),
        }
    }
}

/// What a write did to its Note's keys.
pub(super) enum KeysChange {
    /// No key, or a no-op write (its key went straight into `write_keys`).
    None,
    /// The write's key waits in its version's row.
    Pending(String, PendingKey),
    /// Every waiting key, the write's too, is now in `write_keys`.
    Indexed,
}

#[derive(Default)]
pub(super) struct NoteCache {
    notes: HashMap<NoteId, Cached>,
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
    pub(super) fn current(&self, id: &NoteId) -> Option<&Cached> {
        self.notes.get(id)
    }

    /// Records a committed write: `located` is the Note's newest version now. `loaded` are the
    /// Note's keys as the write read them from the file when the Note was not cached.
    pub(super) fn wrote(&mut self, loaded: Option<Keys>, located: Located, change: KeysChange) {
        if let Some(keys) = loaded {
            let mut entry = Cached { located, keys };
            entry.apply(change);
            self.put(entry);
        } else if let Some(entry) = self.notes.get_mut(&located.note.id) {
            drop_later(std::mem::replace(&mut entry.located, located));
            entry.apply(change);
        } else {
            let mut entry = Cached::new(located);
            entry.apply(change);
            self.put(entry);
        }
    }

    fn put(&mut self, entry: Cached) {
        let id = entry.located.note.id.clone();
        if self.notes.len() >= CAPACITY && !self.notes.contains_key(&id) {
            self.notes.clear();
        }
        self.notes.insert(id, entry);
    }

    pub(super) fn clear(&mut self) {
        self.notes.clear();
        self.data_version = None;
    }
}

/// Frees a Note's state the writer has replaced on another thread: freeing a Note of millions
/// of cells takes tens of milliseconds that the next write in the queue should not wait for.
fn drop_later(old: Located) {
    static FREEING: OnceLock<Option<Sender<Located>>> = OnceLock::new();
    let freeing = FREEING.get_or_init(|| {
        let (send, receive) = mpsc::channel::<Located>();
        let spawned = std::thread::Builder::new()
            .name("quire-free".to_owned())
            .spawn(move || receive.into_iter().for_each(drop));
        spawned.ok().map(|_| send)
    });
    match freeing {
        Some(freeing) => {
            if let Err(mpsc::SendError(old)) = freeing.send(old) {
                drop(old);
            }
        }
        None => drop(old),
    }
}
