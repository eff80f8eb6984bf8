//! The writer's copy of the Notes it wrote last, so that a write neither reads its Note's
//! version nor parses every tab of it again, and the keys of their versions not yet in
//! `write_keys`. An entry is always the newest version of its Note: every write of this store
//! goes through the writer, which puts what it wrote; the cache is emptied whenever a batch is
//! lost (so it never holds a state that is not committed, or about to be, in the open batch) and
//! whenever another connection has committed to the file since the writer's last transaction
//! (SQLite's `data_version`, read once per batch under the write lock).
//!
//! It also knows which Notes' search index lags their newest version, and from what (see
//! `search::catch_up`): the Note as the index holds it and the tabs written since, so that the
//! index is brought up with the same comparison a write would have made.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Sender};
use std::time::Instant;

use quire_model::{NoteId, TabId, Version};
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

/// What a write did to its Note's listing in `search_pending`.
pub(super) enum Lag<'w> {
    /// The write indexed its Note itself (a new Note).
    Indexed,
    /// The write listed the Note: its index holds it as it was before the write, at version
    /// `at`. `changed`: the tabs the write changed (`None`: it does not know, a restore).
    Listed {
        at: Version,
        changed: Option<&'w [TabId]>,
    },
    /// The Note was listed before the write.
    Already(Option<&'w [TabId]>),
}

/// A Note whose search index lags its newest version, as the writer knows it.
pub(super) struct Behind {
    /// The version the index holds, when this writer listed the Note (`None`: it found it
    /// listed by a write it did not see).
    pub at: Option<Version>,
    /// The Note at `at`, kept from the write that listed it (unless too many are kept).
    pub indexed: Option<Located>,
    /// The tabs changed since `at`, when every write since is known (`None`: compare all).
    pub changed: Option<HashSet<TabId>>,
}

#[derive(Default)]
pub(super) struct NoteCache {
    notes: HashMap<NoteId, Cached>,
    /// `PRAGMA data_version` as the writer last saw it: it changes when another connection
    /// commits, never for the writer's own commits.
    data_version: Option<i64>,
    /// The Notes this writer listed in `search_pending`, by `nid`: only ever a hint, checked
    /// against the table by `search::catch_up`.
    behind: HashMap<i64, Behind>,
    /// Since when `search_pending` may list a Note: set by a write that lists one (and when
    /// this writer cannot know: another connection committed, a batch was lost), cleared by a
    /// catch-up that emptied it.
    behind_since: Option<Instant>,
}

impl NoteCache {
    /// Forgets every Note if another connection committed since the last call. Called at the
    /// start of each batch, inside its `BEGIN IMMEDIATE` (no one else can commit until it ends).
    pub(super) fn check_data_version(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare_cached("PRAGMA data_version")?;
        let now: i64 = stmt.query_row([], |r| r.get(0))?;
        if self.data_version != Some(now) {
            self.notes.clear();
            // Another connection may have written a listed Note or listed one.
            self.behind.clear();
            if self.data_version.is_some() {
                self.may_be_behind();
            }
            self.data_version = Some(now);
        }
        Ok(())
    }

    /// The Note at its newest version, if it is cached.
    pub(super) fn current(&self, id: &NoteId) -> Option<&Cached> {
        self.notes.get(id)
    }

    /// Records a committed write: `located` is the Note's newest version now. `loaded` are the
    /// Note's keys and its version before the write as the write read them from the file when
    /// the Note was not cached. `lag`: what the write did to the Note's search listing.
    pub(super) fn wrote(
        &mut self,
        loaded: Option<(Keys, Located)>,
        located: Located,
        change: KeysChange,
        lag: Lag<'_>,
    ) {
        let nid = located.nid;
        let was = if let Some((keys, was)) = loaded {
            let mut entry = Cached { located, keys };
            entry.apply(change);
            self.put(entry);
            Some(was)
        } else if let Some(entry) = self.notes.get_mut(&located.note.id) {
            let was = std::mem::replace(&mut entry.located, located);
            entry.apply(change);
            Some(was)
        } else {
            let mut entry = Cached::new(located);
            entry.apply(change);
            self.put(entry);
            None
        };
        let was = self.lagged(nid, was, lag);
        if let Some(was) = was {
            drop_later(was);
        }
    }

    /// Notes the writer lists this many keep no copy of the Note their index holds: it is read
    /// from the history when the index catches up.
    const BEHIND_KEPT: usize = CAPACITY;

    /// Records what a write did to its Note's search listing; gives back `was` (the Note
    /// before the write) unless it is kept as the Note the index holds.
    fn lagged(&mut self, nid: i64, was: Option<Located>, lag: Lag<'_>) -> Option<Located> {
        let rest = match lag {
            Lag::Indexed => return was,
            Lag::Listed { at, changed: tabs } => {
                let keep = self.behind.len() < Self::BEHIND_KEPT;
                let (indexed, rest) = match was {
                    Some(was) if keep && was.note.version == at => (Some(was), None),
                    was => (None, was),
                };
                let behind = Behind {
                    at: Some(at),
                    indexed,
                    changed: tabs.map(|t| t.iter().cloned().collect()),
                };
                self.behind.insert(nid, behind);
                rest
            }
            Lag::Already(tabs) => {
                match (self.behind.get_mut(&nid), tabs) {
                    (Some(behind), Some(tabs)) => {
                        if let Some(changed) = &mut behind.changed {
                            changed.extend(tabs.iter().cloned());
                        }
                    }
                    (Some(behind), None) => behind.changed = None,
                    (None, _) => {
                        let behind = Behind {
                            at: None,
                            indexed: None,
                            changed: None,
                        };
                        self.behind.insert(nid, behind);
                    }
                }
                was
            }
        };
        self.may_be_behind();
        rest
    }

    /// Whether this writer knows Note `nid` is listed in `search_pending`.
    pub(super) fn is_behind(&self, nid: i64) -> bool {
        self.behind.contains_key(&nid)
    }

    /// What this writer knows of listed Note `nid`.
    pub(super) fn behind(&self, nid: i64) -> Option<&Behind> {
        self.behind.get(&nid)
    }

    /// Since when a Note may be listed in `search_pending` (`None`: none is).
    pub(super) fn behind_since(&self) -> Option<Instant> {
        self.behind_since
    }

    /// Some Note may be listed in `search_pending` (a write listed one, a file was opened with a
    /// listing in it, or this writer cannot know).
    pub(super) fn may_be_behind(&mut self) {
        self.behind_since.get_or_insert_with(Instant::now);
    }

    /// A catch-up failed: the next is due a delay from now, not at once.
    pub(super) fn retry_later(&mut self) {
        self.behind_since = Some(Instant::now());
    }

    /// The index holds every Note at its newest version (inside the transaction that made it
    /// so: a lost batch clears the cache, and this with it).
    pub(super) fn caught_up(&mut self) {
        for (_, behind) in self.behind.drain() {
            if let Some(indexed) = behind.indexed {
                drop_later(indexed);
            }
        }
        self.behind_since = None;
    }

    fn put(&mut self, entry: Cached) {
        let id = entry.located.note.id.clone();
        if self.notes.len() >= CAPACITY && !self.notes.contains_key(&id) {
            self.notes.clear();
        }
        self.notes.insert(id, entry);
    }

    /// Forgets every Note; a Note may still be listed in `search_pending` (a lost batch may
    /// have listed one, or have caught up in vain).
    pub(super) fn clear(&mut self) {
        self.notes.clear();
        self.behind.clear();
        self.may_be_behind();
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
