//! The store conformance suite, written once against the [`Store`] trait: every backend
//! (SQLite now, PostgreSQL later) runs these very cases. Each case takes a fresh, empty store.
//!
//! A backend's test file expands one `#[tokio::test]` per case with [`conformance_tests!`]:
//!
//! ```text
//! async fn open() -> (Arc<dyn Store>, tempfile::TempDir) { ... }
//! quire_store::conformance_tests!(open());
//! ```
//!
//! The expression is evaluated once per case; it returns the store and anything that must live
//! as long as the case (a temporary directory, a database guard).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use quire_model::{
    AuthorKind, NewTabKind, Note, NoteId, Op, OpErrorCode, OpOutcome, SlideInput, TabData, TabId,
    Timestamp, Version,
};

use crate::{Change, HashedToken, NewNote, Store, StoreError, WriteRequest};
use quire_api::{AccessChange, Conflict, Scope, WriteResult};

mod search_cases;
pub use search_cases::*;

/// Expands one `#[tokio::test]` per conformance case. `$open` is an expression evaluated in
/// each test: an `async` value resolving to `(Arc<dyn Store>, guard)`.
#[macro_export]
macro_rules! conformance_tests {
    ($open:expr) => {
        $crate::conformance_tests!(@cases $open;
            cas_accepts_the_current_version_and_refuses_stale_ones,
            conflict_names_exactly_the_tabs_changed_since,
            replay_comes_before_the_version_check,
            replay_is_byte_identical,
            keys_are_scoped_per_note,
            refused_writes_store_nothing,
            bad_keys_are_refused,
            history_reproduces_every_version,
            history_pages_are_slices_of_the_history,
            numbers_read_back_exactly,
            restore_makes_a_new_version_equal_to_the_old_one,
            restore_of_a_missing_version_is_refused,
            revert_is_a_guarded_write,
            citing_a_page_again_is_a_noop,
            create_note_is_idempotent_per_author,
            agent_access_toggles_without_a_new_version,
            agent_access_changes_are_recorded,
            the_agents_door_writes_only_notes_agents_may_see,
            history_records_each_authors_kind,
            tokens_are_found_by_hash,
            tokens_are_listed_oldest_first,
            revoking_a_name_revokes_every_token_of_it,
            revoking_an_unknown_name_is_refused,
            revoking_by_kind_spares_the_other_kind,
            token_use_is_recorded_and_never_goes_back,
            missing_notes_are_reported,
            concurrent_writers_each_get_their_own_verdict,
            trash_and_undelete_are_guarded_writes,
            a_trashed_note_takes_no_write_but_undelete,
            emptying_the_trash_erases_only_trashed_notes,
            a_trashed_note_is_not_found,
            // Search (`conformance/search_cases.rs`).
            search_follows_acknowledged_writes_only,
            search_finds_every_kind_of_content,
            search_matches_words_as_people_type_them,
            search_survives_hostile_queries,
            search_ranks_and_limits,
            agent_search_finds_approved_notes_only,
            agent_search_looks_past_notes_it_may_not_see,
            search_follows_edits_of_a_long_text,
            a_note_link_is_found_by_its_target,
            words_spread_over_a_long_tab_are_found,
        );
    };
    (@cases $open:expr; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let (store, _guard) = $open.await;
                $crate::conformance::$case(store).await;
            }
        )+
    };
}

mod trash;
pub use trash::{
    a_trashed_note_is_not_found, a_trashed_note_takes_no_write_but_undelete,
    emptying_the_trash_erases_only_trashed_notes, trash_and_undelete_are_guarded_writes,
};

const T0: Timestamp = Timestamp(1_796_019_881_000);

fn at(step: i64) -> Timestamp {
    Timestamp(T0.0 + step * 1000)
}

fn new_id() -> NoteId {
    NoteId::from_uuid(uuid::Uuid::now_v7())
}

/// What the backends' benchmarks (their `examples/`) share, so that each measures the same
/// writes: the Notes, the one write, and the load of many writers at once.
pub mod bench {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};

    use super::{T0, create_note};
    use crate::{Change, Store, WriteRequest};

    /// The `n`th Note of a benchmark ("Bench {n}", by the person "bench"), new in `store`.
    pub async fn note(store: &dyn Store, n: usize) -> NoteId {
        create_note(
            store,
            &format!("Bench {n}"),
            "bench",
            AuthorKind::Person,
            T0,
        )
        .await
    }

    /// The benchmarks' guarded write, their `i`th: by the person "bench", at `expected`, under
    /// the fresh key `bench-{i}`, replacing the markdown tab's text with `text`.
    pub fn write(id: &NoteId, expected: u64, i: usize, text: String) -> WriteRequest {
        WriteRequest {
            note_id: id.clone(),
            expected_version: Version(expected),
            idempotency_key: Some(format!("bench-{i}")),
            author: "bench".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text,
            }]),
            now: Timestamp(T0.0 + i as i64),
        }
    }

    /// One task per `(store, Note)`, each making `per_writer` sequential [`write`]s (the `i`th
    /// with `text(i)`) on its Note, new at version 1; returns the time from the first write
    /// until the last is answered.
    pub async fn concurrent_writes(
        writers: Vec<(Arc<dyn Store>, NoteId)>,
        per_writer: usize,
        text: fn(usize) -> String,
    ) -> Duration {
        let start = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for (store, id) in writers {
            tasks.spawn(async move {
                for i in 0..per_writer {
                    store
                        .write(write(&id, i as u64 + 1, i, text(i)))
                        .await
                        .expect("write");
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.expect("writer task");
        }
        start.elapsed()
    }
}

/// Creates a Note under a fresh ID (no idempotency key) by `author` at `now`, and returns its
/// ID; panics unless the store makes it, new, at version 1. For the cases here and for the
/// backends' own tests and benchmarks.
pub async fn create_note(
    store: &dyn Store,
    title: &str,
    author: &str,
    author_kind: AuthorKind,
    now: Timestamp,
) -> NoteId {
    let id = new_id();
    let (created, replayed) = store
        .create_note(NewNote {
            id: id.clone(),
            title: title.to_owned(),
            author: author.to_owned(),
            author_kind,
            now,
            idempotency_key: None,
        })
        .await
        .expect("create_note");
    assert!(!replayed);
    assert_eq!(created.note.id, id);
    assert_eq!(created.note.version, Version(1));
    id
}

async fn create(store: &dyn Store, title: &str) -> NoteId {
    create_note(store, title, "person", AuthorKind::Person, T0).await
}

/// A new Note with a sheet tab added (version 2); returns both IDs.
async fn create_with_sheet(store: &dyn Store, title: &str) -> (NoteId, TabId) {
    let id = create(store, title).await;
    let sheet = created_tab(
        &write(
            store,
            request(&id, 1, None, vec![new_tab(NewTabKind::Sheet)]),
        )
        .await,
    );
    (id, sheet)
}

fn request(id: &NoteId, expected: u64, key: Option<&str>, ops: Vec<Op>) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: key.map(str::to_owned),
        author: "agent".to_owned(),
        author_kind: AuthorKind::Agent,
        change: Change::Ops(ops),
        now: at(expected as i64),
    }
}

fn text(s: &str) -> Op {
    Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: s.to_owned(),
    }
}

fn cite(url: &str) -> Op {
    Op::AddSource {
        title: "The report".to_owned(),
        url: url.to_owned(),
    }
}

fn new_tab(kind: NewTabKind) -> Op {
    Op::CreateTab {
        tab_type: kind,
        label: None,
        slides: None,
    }
}

async fn write(store: &dyn Store, req: WriteRequest) -> WriteResult {
    let what = format!("write at expected version {}", req.expected_version);
    store.write(req).await.expect(&what)
}

fn conflict(outcome: crate::Result<WriteResult>) -> Conflict {
    match outcome {
        Err(StoreError::Conflict(c)) => c,
        other => panic!("expected a version conflict, got {other:?}"),
    }
}

fn created_tab(result: &WriteResult) -> TabId {
    result
        .outcomes
        .iter()
        .find_map(|o| match o {
            OpOutcome::TabCreated { tab_id } => Some(tab_id.clone()),
            _ => None,
        })
        .expect("a created tab in the outcomes")
}

async fn markdown(store: &dyn Store, id: &NoteId) -> String {
    let note = store.get_note(id).await.expect("get_note").note;
    match &note
        .tab(&TabId::new(TabId::MARKDOWN))
        .expect("markdown tab")
        .data
    {
        TabData::Markdown(t) => t.to_string(),
        other => panic!("markdown tab holds {other:?}"),
    }
}

/// Whether the Note is approved for agents, as `get_note` reads it.
async fn agent_access(store: &dyn Store, id: &NoteId) -> bool {
    store
        .get_note(id)
        .await
        .expect("get_note")
        .meta
        .agent_access
}

async fn version(store: &dyn Store, id: &NoteId) -> Version {
    store.get_note(id).await.expect("get_note").note.version
}

fn ids(list: &[&str]) -> Vec<TabId> {
    list.iter().map(|s| TabId::new(*s)).collect()
}

/// A write at the current version is accepted and bumps the version by one; a write at any
/// other version (lower or higher) is refused with the current version and changes nothing.
pub async fn cas_accepts_the_current_version_and_refuses_stale_ones(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let first = write(store, request(&id, 1, Some("a"), vec![text("first")])).await;
    assert_eq!(first.version, Version(2));
    assert_eq!(first.changed_tab_ids, ids(&["markdown"]));
    assert!(!first.replayed);

    let stale = conflict(
        store
            .write(request(&id, 1, Some("b"), vec![text("stale")]))
            .await,
    );
    assert_eq!(stale.current_version, Version(2));
    assert_eq!(stale.changed_tab_ids, ids(&["markdown"]));

    let ahead = conflict(
        store
            .write(request(&id, 3, Some("c"), vec![text("ahead")]))
            .await,
    );
    assert_eq!(ahead.current_version, Version(2));
    assert_eq!(ahead.changed_tab_ids, Vec::<TabId>::new());

    let unkeyed = conflict(
        store
            .write(request(&id, 1, None, vec![text("stale")]))
            .await,
    );
    assert_eq!(unkeyed.current_version, Version(2));

    assert_eq!(markdown(store, &id).await, "first");
    assert_eq!(version(store, &id).await, Version(2));
    assert_eq!(store.history(&id).await.expect("history").len(), 2);

    let second = write(store, request(&id, 2, None, vec![text("second")])).await;
    assert_eq!(second.version, Version(3));
    assert_eq!(markdown(store, &id).await, "second");
}

/// The conflict lists the distinct tabs changed by every version after the expected one, and
/// only those.
pub async fn conflict_names_exactly_the_tabs_changed_since(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (id, sheet) = create_with_sheet(store, "Plan").await;
    write(store, request(&id, 2, None, vec![text("brief")])).await;
    write(
        store,
        request(&id, 3, None, vec![cite("https://example.org/a")]),
    )
    .await;
    write(store, request(&id, 4, None, vec![text("brief, again")])).await;

    let cases: [(u64, Vec<TabId>); 5] = [
        (
            1,
            vec![sheet.clone(), TabId::new("markdown"), TabId::new("sources")],
        ),
        (2, ids(&["markdown", "sources"])),
        (3, ids(&["sources", "markdown"])),
        (4, ids(&["markdown"])),
        (9, Vec::new()),
    ];
    for (expected, changed) in cases {
        let c = conflict(
            store
                .write(request(&id, expected, None, vec![text("x")]))
                .await,
        );
        assert_eq!(c.current_version, Version(5), "expected {expected}");
        assert_eq!(c.changed_tab_ids, changed, "expected {expected}");
    }
    // A title change touches no tab.
    write(
        store,
        request(
            &id,
            5,
            None,
            vec![Op::SetTitle {
                title: "Renamed".to_owned(),
            }],
        ),
    )
    .await;
    let c = conflict(store.write(request(&id, 5, None, vec![text("x")])).await);
    assert_eq!(c.current_version, Version(6));
    assert_eq!(c.changed_tab_ids, Vec::<TabId>::new());
}

/// A resend after a lost response carries the old version: the key is checked first, so it gets
/// the first result (same created tab ID), not a conflict, and creates nothing.
pub async fn replay_comes_before_the_version_check(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Deck").await;
    let first = write(
        store,
        request(&id, 1, Some("deck-1"), vec![new_tab(NewTabKind::Slides)]),
    )
    .await;
    let deck = created_tab(&first);
    write(
        store,
        request(&id, 2, Some("other"), vec![text("meanwhile")]),
    )
    .await;

    let resent = write(
        store,
        request(&id, 1, Some("deck-1"), vec![new_tab(NewTabKind::Slides)]),
    )
    .await;
    assert!(resent.replayed);
    assert!(!resent.request_differs);
    assert_eq!(resent.version, Version(2));
    assert_eq!(created_tab(&resent), deck);

    let note = store.get_note(&id).await.expect("get_note").note;
    assert_eq!(note.version, Version(3));
    let decks = note
        .tabs
        .iter()
        .filter(|t| t.kind() == quire_model::TabKind::Slides)
        .count();
    assert_eq!(decks, 1, "the resend must not create a second deck");
}

/// A replay returns the stored result, byte for byte (but for the replay flag), however often
/// and whatever the request now says; a different request under the same key is flagged.
pub async fn replay_is_byte_identical(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let outline = vec![
        SlideInput {
            title: "One".to_owned(),
            body: "b".to_owned(),
            notes: String::new(),
        },
        SlideInput {
            title: "Two".to_owned(),
            body: String::new(),
            notes: "n".to_owned(),
        },
    ];
    let op = Op::CreateTab {
        tab_type: NewTabKind::Slides,
        label: Some("Pitch".to_owned()),
        slides: Some(outline),
    };
    let first = write(
        store,
        request(&id, 1, Some("k"), vec![op.clone(), text("t")]),
    )
    .await;
    let first_json = serde_json::to_string(&first).expect("serialize");

    let again = write(
        store,
        request(&id, 1, Some("k"), vec![op.clone(), text("t")]),
    )
    .await;
    let third = write(store, request(&id, 1, Some("k"), vec![op, text("t")])).await;
    assert!(again.replayed && third.replayed);
    assert!(!again.request_differs);
    let again_json = serde_json::to_string(&again).expect("serialize");
    assert_eq!(
        again_json,
        serde_json::to_string(&third).expect("serialize")
    );
    let unflagged = WriteResult {
        replayed: false,
        ..again.clone()
    };
    assert_eq!(
        serde_json::to_string(&unflagged).expect("serialize"),
        first_json
    );

    let differs = write(
        store,
        request(&id, 2, Some("k"), vec![text("something else")]),
    )
    .await;
    assert!(differs.replayed);
    assert!(differs.request_differs);
    assert_eq!(
        WriteResult {
            replayed: false,
            request_differs: false,
            ..differs
        },
        first
    );
    assert_eq!(markdown(store, &id).await, "t");
    assert_eq!(version(store, &id).await, Version(2));
}

/// The same key on two Notes names two intents: both are accepted.
pub async fn keys_are_scoped_per_note(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let a = create(store, "A").await;
    let b = create(store, "B").await;
    let on_a = write(store, request(&a, 1, Some("same"), vec![text("for a")])).await;
    let on_b = write(store, request(&b, 1, Some("same"), vec![text("for b")])).await;
    assert!(!on_a.replayed && !on_b.replayed);
    assert_eq!(
        (on_a.note_id.clone(), on_a.version),
        (a.clone(), Version(2))
    );
    assert_eq!(
        (on_b.note_id.clone(), on_b.version),
        (b.clone(), Version(2))
    );
    assert_eq!(markdown(store, &a).await, "for a");
    assert_eq!(markdown(store, &b).await, "for b");
    let replay_a = write(store, request(&a, 1, Some("same"), vec![text("for a")])).await;
    assert!(replay_a.replayed);
    assert_eq!(replay_a.note_id, a);
}

/// An invalid change or a conflict writes nothing, not even the key: a corrected resend with the
/// same key is a fresh write.
pub async fn refused_writes_store_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let wrong_tab = vec![
        text("applied first, then undone"),
        Op::SlideAdd {
            tab_id: TabId::new("slides"),
            title: "t".to_owned(),
            body: String::new(),
            notes: String::new(),
        },
    ];
    match store.write(request(&id, 1, Some("k"), wrong_tab)).await {
        Err(StoreError::Invalid(e)) => {
            assert_eq!(e.code, OpErrorCode::TabNotFound);
            assert_eq!(e.field, "tab_id");
            assert_eq!(e.index, 1);
        }
        other => panic!("expected an invalid op, got {other:?}"),
    }
    assert_eq!(version(store, &id).await, Version(1));
    assert_eq!(markdown(store, &id).await, "");
    assert_eq!(store.history(&id).await.expect("history").len(), 1);

    let corrected = write(store, request(&id, 1, Some("k"), vec![text("fixed")])).await;
    assert!(!corrected.replayed);
    assert_eq!(corrected.version, Version(2));

    conflict(
        store
            .write(request(&id, 1, Some("late"), vec![text("stale")]))
            .await,
    );
    let redone = write(store, request(&id, 2, Some("late"), vec![text("redone")])).await;
    assert!(!redone.replayed, "a refused write must not store its key");
    assert_eq!(redone.version, Version(3));
    assert_eq!(markdown(store, &id).await, "redone");
}

/// Keys are 1 to 255 characters; a bad key is refused before anything is looked at.
pub async fn bad_keys_are_refused(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let long = "k".repeat(256);
    for key in ["", long.as_str()] {
        match store
            .write(request(&id, 1, Some(key), vec![text("x")]))
            .await
        {
            Err(StoreError::BadKey(_)) => {}
            other => panic!("key of {} chars: expected BadKey, got {other:?}", key.len()),
        }
    }
    assert_eq!(version(store, &id).await, Version(1));
    let longest = "é".repeat(255);
    let ok = write(store, request(&id, 1, Some(&longest), vec![text("x")])).await;
    assert_eq!(ok.version, Version(2));
    let created = store
        .create_note(NewNote {
            id: new_id(),
            title: "t".to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now: T0,
            idempotency_key: Some(String::new()),
        })
        .await;
    assert!(matches!(created, Err(StoreError::BadKey(_))), "{created:?}");
}

/// Every version can be read back exactly as it was, and the history lists them all.
pub async fn history_reproduces_every_version(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let mut seen: Vec<Note> = vec![store.get_note(&id).await.expect("get_note").note];
    let mut results = Vec::new();
    let r = write(
        store,
        request(
            &id,
            1,
            None,
            vec![new_tab(NewTabKind::Sheet), text("intro")],
        ),
    )
    .await;
    let sheet = created_tab(&r);
    results.push(r);
    seen.push(store.get_note(&id).await.expect("get_note").note);
    let r = write(
        store,
        request(&id, 2, None, vec![new_tab(NewTabKind::Slides)]),
    )
    .await;
    let deck = created_tab(&r);
    results.push(r);
    seen.push(store.get_note(&id).await.expect("get_note").note);
    let mut v = 3;

    let batches = vec![
        vec![Op::SheetSetRange {
            tab_id: sheet.clone(),
            sheet_id: None,
            start_row: 0,
            start_col: 0,
            values: vec![
                vec![1.into(), "two".into()],
                vec![serde_json::Value::Null, true.into()],
            ],
        }],
        vec![Op::RenameTab {
            tab_id: sheet.clone(),
            label: "Budget".to_owned(),
        }],
        vec![Op::MoveTab {
            tab_id: deck.clone(),
            index: 0,
        }],
        vec![cite("https://www.example.org/report/")],
        vec![Op::SetTitle {
            title: "Plan, v2".to_owned(),
        }],
        vec![Op::DeleteTab {
            tab_id: deck.clone(),
        }],
        vec![text("intro, rewritten")],
        vec![Op::SlideAdd {
            tab_id: deck,
            title: "gone".to_owned(),
            body: String::new(),
            notes: String::new(),
        }],
    ];
    for ops in batches {
        match store.write(request(&id, v, None, ops)).await {
            Ok(r) => {
                v += 1;
                results.push(r);
                seen.push(store.get_note(&id).await.expect("get_note").note);
            }
            // The last batch writes to the deleted deck: refused, nothing written.
            Err(StoreError::Invalid(e)) => {
                assert_eq!(e.code, OpErrorCode::TabNotFound);
            }
            Err(e) => panic!("{e}"),
        }
    }
    let restored = write(
        store,
        WriteRequest {
            change: Change::Restore {
                version: Version(3),
            },
            ..request(&id, v, None, Vec::new())
        },
    )
    .await;
    results.push(restored);
    seen.push(store.get_note(&id).await.expect("get_note").note);

    for (i, expected) in seen.iter().enumerate() {
        let version = Version(i as u64 + 1);
        assert_eq!(expected.version, version);
        let then = store.note_at(&id, version).await.expect("note_at");
        assert_eq!(&then, expected, "note_at({version})");
    }
    let history = store.history(&id).await.expect("history");
    assert_eq!(history.len(), seen.len());
    assert_eq!(history[0].version, Version(1));
    assert_eq!(history[0].summary, "created");
    assert_eq!(history[0].author, "person");
    assert_eq!(history[0].created_at, T0.to_rfc3339());
    for (entry, result) in history[1..].iter().zip(&results) {
        assert_eq!(entry.version, result.version);
        assert_eq!(entry.changed_tab_ids, result.changed_tab_ids);
        assert_eq!(entry.author, "agent");
        assert!(!entry.summary.is_empty());
    }
    let versions: Vec<u64> = history.iter().map(|h| h.version.0).collect();
    assert_eq!(versions, (1..=seen.len() as u64).collect::<Vec<_>>());
}

/// A page of the history is the newest `limit` versions before `before`, oldest first, the
/// same entries as the whole history holds; past the start it is empty; a missing Note is
/// refused as the whole history is.
pub async fn history_pages_are_slices_of_the_history(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Paged").await;
    for v in 1..=9 {
        write(store, request(&id, v, None, vec![text(&format!("v{v}"))])).await;
    }
    let all = store.history(&id).await.expect("history");
    assert_eq!(all.len(), 10);
    let id = &id;
    let page = |before: Option<u64>, limit: usize| async move {
        store
            .history_page(id, before.map(Version), limit)
            .await
            .expect("history_page")
    };
    assert_eq!(page(None, 3).await, all[7..].to_vec(), "the newest three");
    assert_eq!(
        page(Some(8), 3).await,
        all[4..7].to_vec(),
        "three before version 8"
    );
    assert_eq!(
        page(Some(3), 10).await,
        all[..2].to_vec(),
        "up to the first"
    );
    assert_eq!(page(None, 100).await, all, "a page larger than the history");
    assert_eq!(
        page(Some(1), 5).await,
        Vec::new(),
        "nothing before version 1"
    );
    assert_eq!(page(Some(0), 5).await, Vec::new());
    assert_eq!(page(Some(u64::MAX), 2).await, all[8..].to_vec());
    assert_eq!(page(None, 0).await, Vec::new());
    let missing = new_id();
    assert!(matches!(
        store.history_page(&missing, None, 5).await,
        Err(StoreError::NoteNotFound(_))
    ));
}

/// Every finite number written into a cell reads back as the very number written (the same
/// double, `-0.0` included; integers past 2^53 exactly), at every version, also when the sheet
/// is long enough to be stored as splices. Operations are parsed from JSON text, as a request
/// body is.
pub async fn numbers_read_back_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (id, sheet) = create_with_sheet(store, "Numbers").await;
    let numbers = [
        "1e-30",
        "3.899603970996924e76",
        "1.6356324386913733e-228",
        "0.21000000000000002",
        "5e-324",
        "1.7976931348623157e308",
        "-0.0",
        "0.0",
        "9007199254740993",
        "-9223372036854775808",
        "18446744073709551615",
        "0.1",
    ];
    let long = "x".repeat(5_000);
    let set = |row: usize, values: String| -> Op {
        serde_json::from_str(&format!(
            r#"{{"op": "sheet_set_range", "tab_id": "{sheet}", "start_row": {row}, "start_col": 0, "values": {values}}}"#
        ))
        .expect("an operation")
    };
    let mut batches: Vec<Op> = vec![set(0, format!(r#"[["{long}"]]"#))];
    for (row, number) in numbers.iter().enumerate() {
        batches.push(set(row + 1, format!("[[{number}, {number}]]")));
    }
    // -0.0 over 0.0 and back: each is a change.
    batches.push(set(8, "[[-0.0]]".to_owned()));
    batches.push(set(8, "[[0.0]]".to_owned()));

    let mut seen = vec![store.get_note(&id).await.expect("get_note").note];
    for (i, op) in batches.into_iter().enumerate() {
        let expected = seen.last().expect("a version").version;
        let r = write(store, request(&id, expected.0, None, vec![op])).await;
        assert_eq!(r.version, expected.next(), "batch {i} changes the sheet");
        seen.push(store.get_note(&id).await.expect("get_note").note);
    }
    let text = |note: &Note| serde_json::to_string(note).expect("a note serialises");
    let newest = text(seen.last().expect("a version"));
    for number in numbers {
        // The same double, as serde_json spells it (`3.899603970996924e+76`, `1e-30`).
        let value: serde_json::Value = serde_json::from_str(number).expect("a number");
        let spelled = value.to_string();
        let reread: serde_json::Value = serde_json::from_str(&spelled).expect("a number");
        assert_eq!(
            reread.as_f64().map(f64::to_bits),
            value.as_f64().map(f64::to_bits)
        );
        assert!(
            newest.contains(&format!("[{spelled},{spelled}]")),
            "{number} ({spelled}) in the newest version"
        );
    }
    for expected in &seen {
        let then = store.note_at(&id, expected.version).await.expect("note_at");
        assert_eq!(text(&then), text(expected), "note_at({})", expected.version);
    }
}

/// A revert (`quire_model::revert`'s Note) is a guarded write: a new version, history kept,
/// a tab it takes back a deletion of restored with its ID, the summary saying what it did.
pub async fn revert_is_a_guarded_write(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let made = write(
        store,
        request(
            &id,
            1,
            None,
            vec![text("a\nb\nc"), new_tab(NewTabKind::Sheet)],
        ),
    )
    .await;
    let sheet = created_tab(&made);
    write(
        store,
        request(
            &id,
            2,
            None,
            vec![
                text("a\nB\nc"),
                Op::DeleteTab {
                    tab_id: sheet.clone(),
                },
            ],
        ),
    )
    .await;
    write(store, request(&id, 3, None, vec![text("a\nB\nC")])).await;
    let (before, at, now) = (
        store.note_at(&id, Version(2)).await.expect("v2"),
        store.note_at(&id, Version(3)).await.expect("v3"),
        store.note_at(&id, Version(4)).await.expect("v4"),
    );
    let reverted = quire_model::revert(&before, &at, &now).expect("no clash");
    let revert = WriteRequest {
        change: Change::Revert {
            version: Version(3),
            note: Box::new(reverted),
        },
        ..request(&id, 4, Some("undo"), Vec::new())
    };
    let done = write(store, revert.clone()).await;
    assert_eq!(done.version, Version(5));
    assert_eq!(markdown(store, &id).await, "a\nb\nC");
    let note = store.get_note(&id).await.expect("get_note").note;
    assert_eq!(
        note.tab(&sheet).map(|t| t.kind()),
        Some(quire_model::TabKind::Sheet)
    );
    let history = store.history(&id).await.expect("history");
    assert_eq!(
        history.last().map(|v| v.summary.as_str()),
        Some("reverted version 3")
    );
    assert!(write(store, revert).await.replayed);
    let reopened = store.note_at(&id, Version(5)).await.expect("v5");
    assert_eq!(reopened.tabs, note.tabs);
}

/// Restore is a guarded write: a new version equal to the old one, history kept.
pub async fn restore_makes_a_new_version_equal_to_the_old_one(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    write(store, request(&id, 1, None, vec![text("A")])).await;
    let sheet = created_tab(
        &write(
            store,
            request(&id, 2, None, vec![text("B"), new_tab(NewTabKind::Sheet)]),
        )
        .await,
    );
    let restore = |expected: u64, key: &str| WriteRequest {
        change: Change::Restore {
            version: Version(2),
        },
        ..request(&id, expected, Some(key), Vec::new())
    };

    let stale = conflict(store.write(restore(2, "r")).await);
    assert_eq!(stale.current_version, Version(3));

    let restored = write(store, restore(3, "r")).await;
    assert_eq!(restored.version, Version(4));
    let mut changed = restored.changed_tab_ids.clone();
    changed.sort();
    let mut want = vec![TabId::new("markdown"), sheet.clone()];
    want.sort();
    assert_eq!(changed, want);

    let now = store.get_note(&id).await.expect("get_note").note;
    let old = store.note_at(&id, Version(2)).await.expect("note_at");
    assert_eq!(now.version, Version(4));
    assert_eq!(now.title, old.title);
    assert_eq!(now.tabs, old.tabs);
    assert!(now.seq >= 1, "the ID counter never goes back");
    assert_eq!(store.history(&id).await.expect("history").len(), 4);
    assert_eq!(
        store
            .note_at(&id, Version(3))
            .await
            .expect("note_at")
            .tab(&sheet)
            .map(|t| t.kind()),
        Some(quire_model::TabKind::Sheet),
        "history is never rewritten"
    );

    let replay = write(store, restore(3, "r")).await;
    assert!(replay.replayed);
    assert_eq!(replay.version, Version(4));

    // Restoring the current state changes nothing: no new version.
    let noop = write(
        store,
        WriteRequest {
            change: Change::Restore {
                version: Version(4),
            },
            ..request(&id, 4, None, Vec::new())
        },
    )
    .await;
    assert_eq!(noop.version, Version(4));
    assert!(noop.changed_tab_ids.is_empty());
}

/// Restoring a version the Note never had is refused and writes nothing.
pub async fn restore_of_a_missing_version_is_refused(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    for missing in [0, 2, 99] {
        let outcome = store
            .write(WriteRequest {
                change: Change::Restore {
                    version: Version(missing),
                },
                ..request(&id, 1, Some("r"), Vec::new())
            })
            .await;
        match outcome {
            Err(StoreError::VersionNotFound { note_id, version }) => {
                assert_eq!((note_id, version), (id.clone(), Version(missing)));
            }
            other => panic!("restore of version {missing}: {other:?}"),
        }
    }
    assert_eq!(version(store, &id).await, Version(1));
    match store.note_at(&id, Version(2)).await {
        Err(StoreError::VersionNotFound { .. }) => {}
        other => panic!("note_at a missing version: {other:?}"),
    }
}

/// One page is one source whatever its spelling: citing it again returns the existing source
/// and is a no-op write (no new version).
pub async fn citing_a_page_again_is_a_noop(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    let first = write(
        store,
        request(&id, 1, Some("c1"), vec![cite("https://example.org/report")]),
    )
    .await;
    assert_eq!(first.version, Version(2));
    assert_eq!(first.changed_tab_ids, ids(&["sources"]));
    let OpOutcome::SourceAdded {
        source_id,
        already_attached: false,
    } = &first.outcomes[0]
    else {
        panic!("{:?}", first.outcomes);
    };

    let spellings = [
        "https://example.org/report/",
        "https://www.example.org/report",
        "https://example.org/report?utm_source=newsletter&utm_medium=email",
        "https://example.org/report#methods",
        "http://example.org/report",
        "example.org/report",
    ];
    for (i, url) in spellings.iter().enumerate() {
        let key = format!("again-{i}");
        let again = write(store, request(&id, 2, Some(&key), vec![cite(url)])).await;
        assert_eq!(again.version, Version(2), "{url}");
        assert!(again.changed_tab_ids.is_empty(), "{url}");
        assert_eq!(
            again.outcomes,
            vec![OpOutcome::SourceAdded {
                source_id: source_id.clone(),
                already_attached: true
            }]
        );
        let replay = write(store, request(&id, 2, Some(&key), vec![cite(url)])).await;
        assert!(replay.replayed);
        assert_eq!(replay.outcomes, again.outcomes);
    }
    let note = store.get_note(&id).await.expect("get_note").note;
    assert_eq!(note.version, Version(2));
    match &note.tab(&TabId::new(TabId::SOURCES)).expect("sources").data {
        TabData::Sources(s) => assert_eq!(s.len(), 1),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.history(&id).await.expect("history").len(), 2);
}

/// A repeated creation key (per author) returns the first Note; another author's same key is
/// another Note.
pub async fn create_note_is_idempotent_per_author(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let new = |author: &str, title: &str| NewNote {
        id: new_id(),
        title: title.to_owned(),
        author: author.to_owned(),
        author_kind: AuthorKind::Person,
        now: T0,
        idempotency_key: Some("create-1".to_owned()),
    };
    let (first, replayed) = store
        .create_note(new("person", "  Trip  "))
        .await
        .expect("create");
    assert!(!replayed);
    assert_eq!(first.note.title, "Trip");
    assert_eq!(
        first.note.tab_ids(),
        ids(&[TabId::MARKDOWN, TabId::FILES, TabId::SOURCES])
    );
    assert!(!first.meta.agent_access);
    write(store, request(&first.note.id, 1, None, vec![text("later")])).await;

    let (again, replayed) = store
        .create_note(new("person", "Trip"))
        .await
        .expect("create");
    assert!(replayed);
    assert_eq!(again.note, first.note, "the first Note, as created");

    let (other, replayed) = store
        .create_note(new("agent", "Trip"))
        .await
        .expect("create");
    assert!(!replayed);
    assert_ne!(other.note.id, first.note.id);

    let listed = store.list_notes().await.expect("list_notes");
    assert_eq!(listed.len(), 2);
    let mine = listed
        .iter()
        .find(|n| n.id == first.note.id)
        .expect("listed");
    assert_eq!(mine.version, Version(2));

    let too_long = store
        .create_note(NewNote {
            idempotency_key: None,
            ..new("person", &"t".repeat(quire_model::limits::TITLE_CHARS + 1))
        })
        .await;
    match too_long {
        Err(StoreError::Invalid(e)) => assert_eq!(e.field, "title"),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.list_notes().await.expect("list_notes").len(), 2);
}

/// Approving a Note for agents is metadata: no new version.
pub async fn agent_access_toggles_without_a_new_version(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    assert!(!agent_access(store, &id).await);
    let meta = store
        .set_agent_access(&id, true, "person", at(1))
        .await
        .expect("approve");
    assert!(meta.agent_access);
    let stored = store.get_note(&id).await.expect("get_note");
    assert!(stored.meta.agent_access);
    assert_eq!(stored.note.version, Version(1));
    assert_eq!(
        store.note_meta(&id).await.expect("note_meta"),
        stored.meta,
        "note_meta is the Note's metadata without its tabs"
    );
    let listed = store.list_notes().await.expect("list_notes");
    assert!(listed.iter().any(|n| n.id == id && n.agent_access));
    assert!(
        !store
            .set_agent_access(&id, false, "person", at(2))
            .await
            .expect("withdraw")
            .agent_access
    );
    assert!(!agent_access(store, &id).await);
    assert_eq!(store.history(&id).await.expect("history").len(), 1);
    let missing = new_id();
    assert!(matches!(
        store.set_agent_access(&missing, true, "person", at(3)).await,
        Err(StoreError::NoteNotFound(m)) if m == missing
    ));
}

/// The agent's door ([`Store::write_as_agent`]) reaches only Notes approved for agents and out
/// of the trash; any other answers as a missing Note, before its key (no replay) and before its
/// version (no conflict), and keeps nothing (not even the key). The person's door reaches every
/// Note.
pub async fn the_agents_door_writes_only_notes_agents_may_see(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Private").await;
    let missing = |outcome: crate::Result<WriteResult>, what: &str| match outcome {
        Err(StoreError::NoteNotFound(m)) if m == id => {}
        other => panic!("{what}: expected note_not_found, got {other:?}"),
    };
    missing(
        store
            .write_as_agent(request(&id, 1, Some("k1"), vec![text("agent")]))
            .await,
        "not approved",
    );
    assert_eq!(version(store, &id).await, Version(1));
    assert_eq!(store.history(&id).await.expect("history").len(), 1);

    store
        .set_agent_access(&id, true, "person", at(1))
        .await
        .expect("approve");
    let first = store
        .write_as_agent(request(&id, 1, Some("k1"), vec![text("agent")]))
        .await
        .expect("approved: the key refused before was not kept");
    assert!(!first.replayed);
    assert_eq!(first.version, Version(2));

    store
        .set_agent_access(&id, false, "person", at(2))
        .await
        .expect("withdraw");
    missing(
        store
            .write_as_agent(request(&id, 1, Some("k1"), vec![text("agent")]))
            .await,
        "a resend after the withdrawal",
    );
    missing(
        store
            .write_as_agent(request(&id, 1, None, vec![text("stale")]))
            .await,
        "a stale write after the withdrawal",
    );
    missing(
        store
            .write_as_agent(request(&id, 2, None, vec![text("current")]))
            .await,
        "a current write after the withdrawal",
    );
    assert_eq!(markdown(store, &id).await, "agent");
    let person = write(store, request(&id, 2, None, vec![text("person")])).await;
    assert_eq!(person.version, Version(3), "the person's door reaches it");

    store
        .set_agent_access(&id, true, "person", at(3))
        .await
        .expect("approve again");
    let trash = WriteRequest {
        change: Change::Trash,
        ..request(&id, 3, None, Vec::new())
    };
    write(store, trash).await;
    missing(
        store
            .write_as_agent(request(&id, 4, None, vec![text("trashed")]))
            .await,
        "in the trash",
    );
    assert_eq!(version(store, &id).await, Version(4));

    let other = new_id();
    assert!(matches!(
        store.write_as_agent(request(&other, 1, None, vec![text("x")])).await,
        Err(StoreError::NoteNotFound(m)) if m == other
    ));
}

/// Each approval and each withdrawal is recorded, with who and when; setting what is already
/// set records nothing.
pub async fn agent_access_changes_are_recorded(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Shared").await;
    let other = create(store, "Other").await;
    assert_eq!(
        store.agent_access_changes(&id).await.expect("changes"),
        vec![]
    );
    let steps = [
        (true, "ana", 1),
        (true, "ana", 2),
        (false, "ben", 3),
        (false, "ana", 4),
        (true, "ben", 5),
    ];
    for (approved, by, step) in steps {
        let meta = store
            .set_agent_access(&id, approved, by, at(step))
            .await
            .expect("set_agent_access");
        assert_eq!(meta.agent_access, approved);
    }
    let change = |approved: bool, by: &str, step: i64| AccessChange {
        approved,
        by: by.to_owned(),
        at: at(step).to_rfc3339(),
    };
    assert_eq!(
        store.agent_access_changes(&id).await.expect("changes"),
        vec![
            change(true, "ana", 1),
            change(false, "ben", 3),
            change(true, "ben", 5)
        ]
    );
    assert_eq!(
        store.agent_access_changes(&other).await.expect("changes"),
        vec![],
        "per Note"
    );
    let missing = new_id();
    assert!(matches!(
        store.agent_access_changes(&missing).await,
        Err(StoreError::NoteNotFound(m)) if m == missing
    ));
}

/// Each version records the kind of its author, as the write said, restores included.
pub async fn history_records_each_authors_kind(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Kinds").await;
    write(store, request(&id, 1, Some("a"), vec![text("agent's")])).await;
    let person = WriteRequest {
        author: "person".to_owned(),
        author_kind: AuthorKind::Person,
        ..request(&id, 2, Some("p"), vec![text("person's")])
    };
    write(store, person).await;
    let restore = WriteRequest {
        change: Change::Restore {
            version: Version(2),
        },
        ..request(&id, 3, Some("r"), vec![])
    };
    write(store, restore).await;
    let kinds: Vec<(String, AuthorKind)> = store
        .history(&id)
        .await
        .expect("history")
        .into_iter()
        .map(|v| (v.author, v.author_kind))
        .collect();
    let want = [
        ("person", AuthorKind::Person),
        ("agent", AuthorKind::Agent),
        ("person", AuthorKind::Person),
        ("agent", AuthorKind::Agent),
    ];
    assert_eq!(kinds, want.map(|(a, k)| (a.to_owned(), k)));
}

/// Tokens are stored and found by hash.
pub async fn tokens_are_found_by_hash(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let made = store
        .create_token(HashedToken::new(
            "claude",
            &[Scope::NotesRead, Scope::NotesWrite],
            AuthorKind::Agent,
            "hash-one",
            None,
        ))
        .await
        .expect("create_token");
    store
        .create_token(HashedToken::new(
            "reader",
            &[Scope::NotesRead],
            AuthorKind::Person,
            "hash-two",
            None,
        ))
        .await
        .expect("create_token");
    let found = store
        .find_token("hash-one")
        .await
        .expect("find_token")
        .expect("a token");
    assert_eq!(found, made);
    assert_eq!(found.name, "claude");
    assert_eq!(found.scopes, vec![Scope::NotesRead, Scope::NotesWrite]);
    assert_eq!(found.kind, AuthorKind::Agent);
    assert_eq!(
        (found.expires_at, found.revoked_at, found.last_used_at),
        (None, None, None)
    );
    let reader = store
        .find_token("hash-two")
        .await
        .expect("find_token")
        .expect("a token");
    assert_eq!(reader.scopes, vec![Scope::NotesRead]);
    assert_eq!(reader.kind, AuthorKind::Person);
    assert_ne!(reader.id, found.id);
    assert_eq!(store.find_token("claude").await.expect("find_token"), None);

    // Tokens made with a kind keep it: settling concerns only tokens made before kinds.
    assert_eq!(
        store
            .settle_token_kinds("hash-two")
            .await
            .expect("settle_token_kinds"),
        Vec::<String>::new()
    );
    assert_eq!(
        store.find_token("hash-one").await.expect("find_token"),
        Some(made)
    );
    assert_eq!(
        store.find_token("hash-two").await.expect("find_token"),
        Some(reader)
    );
}

async fn token(store: &dyn Store, name: &str, hash: &str, expires_at: Option<Timestamp>) -> i64 {
    store
        .create_token(HashedToken::new(
            name,
            &[Scope::NotesRead],
            AuthorKind::Agent,
            hash,
            expires_at,
        ))
        .await
        .expect("create_token")
        .id
}

async fn found(store: &dyn Store, hash: &str) -> crate::TokenRecord {
    store
        .find_token(hash)
        .await
        .expect("find_token")
        .expect("a token")
}

/// `list_tokens` gives every token, oldest first, with its end and its times.
pub async fn tokens_are_listed_oldest_first(store: Arc<dyn Store>) {
    let store = store.as_ref();
    assert_eq!(store.list_tokens().await.expect("list_tokens"), Vec::new());
    token(store, "claude", "hash-one", Some(at(30))).await;
    token(store, "reader", "hash-two", None).await;
    store
        .revoke_tokens("reader", None, at(2))
        .await
        .expect("revoke");
    let one = found(store, "hash-one").await;
    let two = found(store, "hash-two").await;
    assert_eq!(one.expires_at, Some(at(30)));
    assert_eq!(two.revoked_at, Some(at(2)));
    assert_eq!(
        store.list_tokens().await.expect("list_tokens"),
        vec![one, two]
    );
}

/// Revoking a name revokes every token of it, once: the time of the first revocation stays.
pub async fn revoking_a_name_revokes_every_token_of_it(store: Arc<dyn Store>) {
    let store = store.as_ref();
    token(store, "claude", "hash-a", None).await;
    token(store, "claude", "hash-b", Some(at(100))).await;
    token(store, "reader", "hash-c", None).await;
    assert_eq!(
        store
            .revoke_tokens("claude", None, at(1))
            .await
            .expect("revoke"),
        2
    );
    for hash in ["hash-a", "hash-b"] {
        let t = found(store, hash).await;
        assert_eq!(t.revoked_at, Some(at(1)), "{hash}");
        assert_eq!(t.state(at(1)), crate::TokenState::Revoked, "{hash}");
    }
    let reader = found(store, "hash-c").await;
    assert_eq!(reader.revoked_at, None);
    assert_eq!(reader.state(at(1)), crate::TokenState::Active);
    // Again: nothing left to revoke, and the first time stays.
    assert_eq!(
        store
            .revoke_tokens("claude", None, at(5))
            .await
            .expect("revoke"),
        0
    );
    assert_eq!(found(store, "hash-a").await.revoked_at, Some(at(1)));
    // A new token of the name is not revoked by the old revocation.
    token(store, "claude", "hash-d", None).await;
    assert_eq!(found(store, "hash-d").await.revoked_at, None);
    assert_eq!(
        store
            .revoke_tokens("claude", None, at(6))
            .await
            .expect("revoke"),
        1
    );
    assert_eq!(found(store, "hash-d").await.revoked_at, Some(at(6)));
}

/// A name no token has is refused by name, and nothing is written.
pub async fn revoking_an_unknown_name_is_refused(store: Arc<dyn Store>) {
    let store = store.as_ref();
    token(store, "claude", "hash-a", None).await;
    let before = store.list_tokens().await.expect("list_tokens");
    match store.revoke_tokens("Claude", None, at(1)).await {
        Err(StoreError::TokenNotFound(name)) => assert_eq!(name, "Claude"),
        other => panic!("expected TokenNotFound, got {other:?}"),
    }
    assert_eq!(store.list_tokens().await.expect("list_tokens"), before);
}

/// Revoking a name's agent tokens leaves a person token of the same name working (the app's
/// agent panel revokes agents only), and a kind the name lacks is unknown.
pub async fn revoking_by_kind_spares_the_other_kind(store: Arc<dyn Store>) {
    let store = store.as_ref();
    token(store, "Ana", "hash-agent", None).await;
    store
        .create_token(HashedToken::new(
            "Ana",
            &[Scope::NotesRead],
            AuthorKind::Person,
            "hash-person",
            None,
        ))
        .await
        .expect("create_token");
    store
        .create_token(HashedToken::new(
            "Bo",
            &[Scope::NotesRead],
            AuthorKind::Person,
            "hash-bo",
            None,
        ))
        .await
        .expect("create_token");
    assert_eq!(
        store
            .revoke_tokens("Ana", Some(AuthorKind::Agent), at(1))
            .await
            .expect("revoke"),
        1
    );
    assert_eq!(found(store, "hash-agent").await.revoked_at, Some(at(1)));
    assert_eq!(found(store, "hash-person").await.revoked_at, None);
    match store
        .revoke_tokens("Bo", Some(AuthorKind::Agent), at(2))
        .await
    {
        Err(StoreError::TokenNotFound(name)) => assert_eq!(name, "Bo"),
        other => panic!("expected TokenNotFound, got {other:?}"),
    }
    assert_eq!(found(store, "hash-bo").await.revoked_at, None);
}

/// The last use moves forward only; an unknown token is no error.
pub async fn token_use_is_recorded_and_never_goes_back(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = token(store, "claude", "hash-a", None).await;
    let other = token(store, "reader", "hash-b", None).await;
    store.record_token_use(id, at(5)).await.expect("record");
    assert_eq!(found(store, "hash-a").await.last_used_at, Some(at(5)));
    store.record_token_use(id, at(3)).await.expect("record");
    assert_eq!(found(store, "hash-a").await.last_used_at, Some(at(5)));
    store.record_token_use(id, at(7)).await.expect("record");
    assert_eq!(found(store, "hash-a").await.last_used_at, Some(at(7)));
    assert_eq!(found(store, "hash-b").await.last_used_at, None);
    store
        .record_token_use(other.max(id) + 1000, at(8))
        .await
        .expect("an unknown token is no error");
}

/// Every call on a Note that does not exist says so.
pub async fn missing_notes_are_reported(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = new_id();
    let is_missing = |e: &StoreError| matches!(e, StoreError::NoteNotFound(m) if m == &id);
    assert!(is_missing(
        &store.get_note(&id).await.expect_err("get_note")
    ));
    assert!(is_missing(
        &store
            .write(request(&id, 1, Some("k"), vec![text("x")]))
            .await
            .expect_err("write")
    ));
    assert!(is_missing(&store.history(&id).await.expect_err("history")));
    assert!(is_missing(
        &store.note_meta(&id).await.expect_err("note_meta")
    ));
    assert!(is_missing(
        &store.note_at(&id, Version(1)).await.expect_err("note_at")
    ));
    assert!(store.list_notes().await.expect("list_notes").is_empty());
}

/// Writers racing on one Note: exactly one wins each version, the others get a conflict. On
/// separate Notes all win. (With group commit these land in the same batch.)
pub async fn concurrent_writers_each_get_their_own_verdict(store: Arc<dyn Store>) {
    let id = create(store.as_ref(), "Race").await;
    let mut racers = tokio::task::JoinSet::new();
    for i in 0..16 {
        let store = Arc::clone(&store);
        let id = id.clone();
        racers.spawn(async move {
            store
                .write(request(
                    &id,
                    1,
                    Some(&format!("racer-{i}")),
                    vec![text(&format!("racer {i}"))],
                ))
                .await
        });
    }
    let mut won = Vec::new();
    let mut lost = 0;
    while let Some(outcome) = racers.join_next().await {
        match outcome.expect("racer task") {
            Ok(r) => won.push(r),
            Err(StoreError::Conflict(c)) => {
                assert_eq!(c.current_version, Version(2));
                assert_eq!(c.changed_tab_ids, ids(&["markdown"]));
                lost += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((won.len(), lost), (1, 15));
    assert_eq!(version(store.as_ref(), &id).await, Version(2));

    let mut notes = Vec::new();
    for i in 0..16 {
        notes.push(create(store.as_ref(), &format!("N{i}")).await);
    }
    let mut writers = tokio::task::JoinSet::new();
    for note in notes.clone() {
        let store = Arc::clone(&store);
        writers.spawn(async move {
            store
                .write(request(&note, 1, Some("same-key"), vec![text("mine")]))
                .await
        });
    }
    while let Some(outcome) = writers.join_next().await {
        let r = outcome.expect("writer task").expect("write");
        assert_eq!(r.version, Version(2));
        assert!(!r.replayed);
    }
    for note in &notes {
        assert_eq!(markdown(store.as_ref(), note).await, "mine");
    }
}
