//! The lab's controls: what the articles compared Quire's rules against. Each wraps the
//! product's own store (every write still commits through the real guarded write) and changes
//! one rule, so a difference in outcome comes from that rule alone. They live here only; the
//! product has no unguarded path, no timestamp versions and one order of checks.
//!
//! Each implements [`Store`], so the same wrapper serves in-process editors and, through
//! `quire_server::serve_store`, a real server on loopback.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use quire_api::{AccessChange, Clock, Conflict, NoteMeta, StoredNote, VersionInfo, WriteResult};
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, Op, TabId, Timestamp, Version};
use quire_store::{
    Change, HashedToken, NewNote, Result, Store, StoreError, TokenRecord, WriteRequest,
};
use tokio::sync::Mutex;

/// `impl Store for $ty`: the methods written out in the braces, plus one that goes straight to
/// `self.inner` for each method named in `forward: [...]`. The compiler checks the two lists
/// together cover the trait, once each.
macro_rules! wrap_store {
    ($ty:ty, forward: [$($forward:ident),* $(,)?], { $($custom:tt)* }) => {
        wrap_store!(@munch $ty, [$($custom)*], [$($forward),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], []) => {
        #[async_trait]
        impl Store for $ty {
            $($done)*
        }
    };
    (@munch $ty:ty, [$($done:tt)*], [create_note $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
                self.inner.create_note(new).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [list_notes $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
                self.inner.list_notes().await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [get_note $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
                self.inner.get_note(id).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [history $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>> {
                self.inner.history(id).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [note_at $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note> {
                self.inner.note_at(id, version).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [set_agent_access $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn set_agent_access(
                &self,
                id: &NoteId,
                approved: bool,
                by: &str,
                now: Timestamp,
            ) -> Result<NoteMeta> {
                self.inner.set_agent_access(id, approved, by, now).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [agent_access_changes $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn agent_access_changes(&self, id: &NoteId) -> Result<Vec<AccessChange>> {
                self.inner.agent_access_changes(id).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [create_token $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn create_token(&self, token: HashedToken) -> Result<TokenRecord> {
                self.inner.create_token(token).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [list_tokens $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn list_tokens(&self) -> Result<Vec<TokenRecord>> {
                self.inner.list_tokens().await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [revoke_tokens $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn revoke_tokens(
                &self,
                name: &str,
                kind: Option<AuthorKind>,
                now: Timestamp,
            ) -> Result<usize> {
                self.inner.revoke_tokens(name, kind, now).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [record_token_use $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn record_token_use(&self, id: i64, at: Timestamp) -> Result<()> {
                self.inner.record_token_use(id, at).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [settle_token_kinds $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn settle_token_kinds(&self, person_hash: &str) -> Result<Vec<String>> {
                self.inner.settle_token_kinds(person_hash).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [find_token $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
                self.inner.find_token(token_hash).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [list_trash $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn list_trash(&self) -> Result<Vec<NoteSummary>> {
                self.inner.list_trash().await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [empty_trash $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn empty_trash(&self, before: Option<Timestamp>) -> Result<Vec<NoteId>> {
                self.inner.empty_trash(before).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [search $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn search(
                &self,
                query: &quire_store::search::SearchQuery,
                limit: usize,
                scope: quire_store::search::SearchScope,
            ) -> Result<Vec<quire_api::SearchHit>> {
                self.inner.search(query, limit, scope).await
            }
        ], [$($rest),*]);
    };
    (@munch $ty:ty, [$($done:tt)*], [close $(, $rest:ident)*]) => {
        wrap_store!(@munch $ty, [$($done)*
            async fn close(&self) -> Result<()> {
                self.inner.close().await
            }
        ], [$($rest),*]);
    };
}

/// `wrap_store!` for a control that changes `write` alone; everything else is forwarded.
macro_rules! wrap_store_but_write {
    ($ty:ty, { $($custom:tt)* }) => {
        wrap_store!($ty, forward: [
            create_note, list_notes, get_note, history, note_at, set_agent_access,
            agent_access_changes, create_token, find_token, list_tokens, revoke_tokens,
            record_token_use, settle_token_kinds, list_trash, empty_trash, search, close,
        ], { $($custom)* });
    };
}

/// No check: every write lands on whatever is there (last writer wins). The write is still
/// the product's: it is retried at the current version until it commits, so the payload the
/// editor computed from its (possibly old) read replaces what is there.
pub struct LastWriterWins {
    inner: Arc<dyn Store>,
}

impl LastWriterWins {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        LastWriterWins { inner }
    }
}

wrap_store_but_write!(LastWriterWins, {
    async fn write(&self, mut req: WriteRequest) -> Result<WriteResult> {
        loop {
            req.expected_version = self.inner.get_note(&req.note_id).await?.note.version;
            match self.inner.write(req.clone()).await {
                Err(StoreError::Conflict(_)) => continue, // someone committed in between
                other => return other,
            }
        }
    }
});

/// Tab-scoped versions: a write is refused only if a tab it touches changed since the version
/// the editor read. Built on the product's conflict, which names the tabs changed since:
/// when none of them is one this write touches, the write is retried at the newer version.
pub struct TabScoped {
    inner: Arc<dyn Store>,
}

impl TabScoped {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        TabScoped { inner }
    }
}

/// The tabs a batch writes to (a created tab is new, so it cannot collide).
fn touched_tabs(change: &Change) -> BTreeSet<TabId> {
    let Change::Ops(ops) = change else {
        return BTreeSet::new();
    };
    ops.iter()
        .filter_map(|op| match op {
            Op::AddSource { .. } | Op::RemoveSource { .. } => Some(TabId::new(TabId::SOURCES)),
            Op::AddFile { .. } | Op::RemoveFile { .. } => Some(TabId::new(TabId::FILES)),
            _ => op.tab_id().cloned(),
        })
        .collect()
}

wrap_store_but_write!(TabScoped, {
    async fn write(&self, mut req: WriteRequest) -> Result<WriteResult> {
        let mine = touched_tabs(&req.change);
        loop {
            match self.inner.write(req.clone()).await {
                // `changed_tab_ids` covers (expected, current]; earlier rounds covered the
                // versions before, so together they cover everything since the editor's read.
                Err(StoreError::Conflict(c))
                    if !c.changed_tab_ids.iter().any(|t| mine.contains(t)) =>
                {
                    req.expected_version = c.current_version;
                }
                other => return other,
            }
        }
    }
});

/// Versions as wall-clock milliseconds, the way a store that stamps `updated_at` and compares
/// it would do: the Note's version is the millisecond of its last commit. Two commits in one
/// millisecond share a version. One lock makes read-compare-write atomic, as the single
/// transaction of such a store would.
pub struct MillisVersions {
    inner: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    /// The stamp's resolution in milliseconds: 1 for millisecond timestamps.
    resolution_ms: u64,
    /// The millisecond version of each Note.
    stamps: Mutex<HashMap<NoteId, u64>>,
}

impl MillisVersions {
    pub fn new(inner: Arc<dyn Store>, clock: Arc<dyn Clock>, resolution_ms: u64) -> Self {
        MillisVersions {
            inner,
            clock,
            resolution_ms: resolution_ms.max(1),
            stamps: Mutex::new(HashMap::new()),
        }
    }

    fn stamp(&self) -> u64 {
        let ms = self.clock.now().millis().max(0) as u64;
        ms - ms % self.resolution_ms
    }
}

wrap_store!(MillisVersions, forward: [
    list_notes, history, note_at, set_agent_access, agent_access_changes, create_token,
    find_token, list_tokens, revoke_tokens, record_token_use, settle_token_kinds, list_trash,
    empty_trash, search,
    close,
], {
    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
        let mut stamps = self.stamps.lock().await;
        let (mut note, replayed) = self.inner.create_note(new).await?;
        let stamp = *stamps
            .entry(note.note.id.clone())
            .or_insert_with(|| self.stamp());
        note.note.version = Version(stamp);
        Ok((note, replayed))
    }

    async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
        let stamps = self.stamps.lock().await;
        let mut note = self.inner.get_note(id).await?;
        let stamp = stamps
            .get(id)
            .copied()
            .ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
        note.note.version = Version(stamp);
        Ok(note)
    }

    async fn write(&self, mut req: WriteRequest) -> Result<WriteResult> {
        let mut stamps = self.stamps.lock().await;
        let current = stamps
            .get(&req.note_id)
            .copied()
            .ok_or_else(|| StoreError::NoteNotFound(req.note_id.clone()))?;
        if req.expected_version != Version(current) {
            return Err(StoreError::Conflict(Conflict {
                current_version: Version(current),
                changed_tab_ids: Vec::new(),
            }));
        }
        // The stamp matched: commit on the real store at its real (counter) version.
        req.expected_version = self.inner.get_note(&req.note_id).await?.note.version;
        let mut result = self.inner.write(req).await?;
        let stamp = self.stamp();
        stamps.insert(result.note_id.clone(), stamp);
        result.version = Version(stamp);
        Ok(result)
    }
});

/// The version checked before the idempotency key: a resend after a lost answer, which
/// carries the version from before its own commit, is refused as stale instead of replayed.
pub struct VersionThenKey {
    inner: Arc<dyn Store>,
    /// Makes check-then-write atomic, as one transaction would.
    order: Mutex<()>,
}

impl VersionThenKey {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        VersionThenKey {
            inner,
            order: Mutex::new(()),
        }
    }
}

wrap_store_but_write!(VersionThenKey, {
    async fn write(&self, req: WriteRequest) -> Result<WriteResult> {
        let _serial = self.order.lock().await;
        let current = self.inner.get_note(&req.note_id).await?.note.version;
        if req.expected_version != current {
            return Err(StoreError::Conflict(Conflict {
                current_version: current,
                changed_tab_ids: Vec::new(),
            }));
        }
        self.inner.write(req).await
    }
});

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};

    use quire_model::Timestamp;
    use quire_store_sqlite::Synchronous;

    use super::*;
    use crate::client::{Client, Direct, Reply};
    use crate::harness::{LabStore, create_note, rng};

    /// A clock that stands still until told to move.
    struct Manual(AtomicI64);

    impl Clock for Manual {
        fn now(&self) -> Timestamp {
            Timestamp(self.0.load(Ordering::SeqCst))
        }
    }

    fn text(s: &str) -> Vec<Op> {
        vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: s.to_owned(),
        }]
    }

    fn source() -> Vec<Op> {
        vec![Op::AddSource {
            title: "t".to_owned(),
            url: "https://example.org/a".to_owned(),
        }]
    }

    async fn setup(
        wrap: impl FnOnce(Arc<dyn Store>) -> Arc<dyn Store>,
    ) -> (LabStore, Direct, NoteId) {
        let lab = LabStore::open(Synchronous::Normal).expect("store");
        let store = wrap(lab.dyn_store());
        let note = create_note(&*store, &mut rng(1, 0), "controls")
            .await
            .expect("note");
        (lab, Direct::new(store, "lab"), note)
    }

    #[tokio::test]
    async fn last_writer_wins_accepts_a_stale_write() {
        let (_lab, c, note) = setup(|s| Arc::new(LastWriterWins::new(s))).await;
        let first = c
            .write(&note, Version(1), None, text("a"))
            .await
            .expect("write");
        assert!(matches!(first, Reply::Accepted(_)));
        let stale = c
            .write(&note, Version(1), None, text("b"))
            .await
            .expect("write");
        assert!(matches!(stale, Reply::Accepted(_)), "{stale:?}");
        let (_, data) = c
            .read_tab(&note, &TabId::new(TabId::MARKDOWN))
            .await
            .expect("read");
        assert_eq!(data, "b");
    }

    #[tokio::test]
    async fn tab_scope_refuses_only_a_stale_write_to_a_changed_tab() {
        let (_lab, c, note) = setup(|s| Arc::new(TabScoped::new(s))).await;
        c.write(&note, Version(1), None, text("a"))
            .await
            .expect("write");
        let same_tab = c
            .write(&note, Version(1), None, text("b"))
            .await
            .expect("write");
        assert_eq!(
            same_tab,
            Reply::Conflict {
                current_version: Version(2)
            }
        );
        let other_tab = c
            .write(&note, Version(1), None, source())
            .await
            .expect("write");
        assert!(
            matches!(other_tab, Reply::Accepted(ref a) if a.version == Version(3)),
            "{other_tab:?}"
        );
    }

    #[tokio::test]
    async fn version_then_key_turns_a_resend_into_a_conflict() {
        let (_lab, c, note) = setup(|s| Arc::new(VersionThenKey::new(s))).await;
        let key = Some("k".to_owned());
        c.write(&note, Version(1), key.clone(), source())
            .await
            .expect("write");
        let resend = c
            .write(&note, Version(1), key.clone(), source())
            .await
            .expect("resend");
        assert_eq!(
            resend,
            Reply::Conflict {
                current_version: Version(2)
            }
        );
        let (_p, product, note) = setup(|s| s).await;
        product
            .write(&note, Version(1), key.clone(), source())
            .await
            .expect("write");
        let replay = product
            .write(&note, Version(1), key, source())
            .await
            .expect("resend");
        assert!(
            matches!(replay, Reply::Accepted(ref a) if a.replayed),
            "{replay:?}"
        );
    }

    #[tokio::test]
    async fn millisecond_versions_pass_a_stale_write_within_one_stamp() {
        let clock = Arc::new(Manual(AtomicI64::new(1_000)));
        let c2 = clock.clone();
        let (_lab, c, note) = setup(move |s| Arc::new(MillisVersions::new(s, c2, 1))).await;
        let (read, _) = c.list_tabs(&note).await.expect("list");
        assert_eq!(read, Version(1_000));
        c.write(&note, read, None, text("a")).await.expect("write");
        let same_ms = c.write(&note, read, None, text("b")).await.expect("write");
        assert!(
            matches!(same_ms, Reply::Accepted(_)),
            "one stamp: the stale write passes"
        );
        clock.0.store(1_001, Ordering::SeqCst);
        c.write(&note, read, None, text("c")).await.expect("write");
        let stale = c.write(&note, read, None, text("d")).await.expect("write");
        assert_eq!(
            stale,
            Reply::Conflict {
                current_version: Version(1_001)
            }
        );
    }
}
