//! What is particular to the SQLite store: the file outlives the process's store, closing
//! drains the writer, and a closed store refuses writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use quire_model::{NoteId, Op, TabData, TabId, Timestamp, Version};
use quire_store::{
    Change, NewNote, SqliteOptions, SqliteStore, Store, StoreError, Synchronous, WriteRequest,
};

fn new_note(n: usize) -> NewNote {
    NewNote {
        id: NoteId::from_uuid(uuid::Uuid::now_v7()),
        title: format!("Note {n}"),
        author: "person".to_owned(),
        now: Timestamp(1_796_019_881_000),
        idempotency_key: None,
    }
}

fn text(id: &NoteId, expected: u64, text: &str) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: Some(format!("{text}-{expected}")),
        author: "agent".to_owned(),
        change: Change::Ops(vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: text.to_owned(),
        }]),
        now: Timestamp(1_796_019_882_000),
    }
}

fn markdown(note: &quire_model::Note) -> &str {
    match &note
        .tab(&TabId::new(TabId::MARKDOWN))
        .expect("markdown")
        .data
    {
        TabData::Markdown(t) => t,
        other => panic!("{other:?}"),
    }
}

/// Every acknowledged write, from many concurrent writers, is in the file after the store is
/// dropped and opened again; the file passes SQLite's integrity check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_a_reopen() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("quire.db");
    let store = Arc::new(SqliteStore::open(&path, SqliteOptions::default()).expect("open"));
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..24 {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            let (created, _) = store.create_note(new_note(n)).await.expect("create");
            let id = created.note.id;
            for v in 1..=5 {
                store
                    .write(text(&id, v, &format!("note {n} v{}", v + 1)))
                    .await
                    .expect("write");
            }
            id
        });
    }
    let mut ids = Vec::new();
    while let Some(id) = tasks.join_next().await {
        ids.push(id.expect("writer task"));
    }
    drop(Arc::into_inner(store).expect("the only handle"));

    let store = SqliteStore::open(&path, SqliteOptions::default()).expect("reopen");
    assert_eq!(store.list_notes().await.expect("list").len(), 24);
    for id in &ids {
        let note = store.get_note(id).await.expect("get_note").note;
        assert_eq!(note.version, Version(6));
        assert!(markdown(&note).ends_with(" v6"), "{}", markdown(&note));
        assert_eq!(store.history(id).await.expect("history").len(), 6);
        // The keys survive too: a resend replays.
        let last = markdown(&note).to_owned();
        let replay = store.write(text(id, 5, &last)).await.expect("replay");
        assert!(replay.replayed);
    }
    store.close().await.expect("close");
    drop(store);

    let conn = rusqlite::Connection::open(&path).expect("open the file");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity_check");
    assert_eq!(check, "ok");
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .expect("journal_mode");
    assert_eq!(mode, "wal");
}

/// `close` waits for what is queued; afterwards writes are refused and reads still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_drains_then_refuses_writes() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("quire.db");
    let opts = SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    };
    let store = Arc::new(SqliteStore::open(&path, opts).expect("open"));
    let (created, _) = store.create_note(new_note(0)).await.expect("create");
    let id = created.note.id;

    // Queue writes without awaiting them one by one, then close.
    let mut pending = tokio::task::JoinSet::new();
    for n in 0..50 {
        let store = Arc::clone(&store);
        let note = store
            .create_note(new_note(n + 1))
            .await
            .expect("create")
            .0
            .note
            .id;
        pending.spawn(async move { store.write(text(&note, 1, "queued")).await });
    }
    store.close().await.expect("close");
    let mut acknowledged = 0;
    while let Some(done) = pending.join_next().await {
        match done.expect("task") {
            Ok(result) => {
                assert_eq!(result.version, Version(2));
                acknowledged += 1;
            }
            Err(StoreError::Closed) => {}
            Err(e) => panic!("{e}"),
        }
    }

    match store.write(text(&id, 1, "too late")).await {
        Err(StoreError::Closed) => {}
        other => panic!("a write after close: {other:?}"),
    }
    assert!(matches!(
        store.create_note(new_note(99)).await,
        Err(StoreError::Closed)
    ));
    assert_eq!(
        store
            .get_note(&id)
            .await
            .expect("reads still work")
            .note
            .version,
        Version(1)
    );
    store.close().await.expect("closing twice is harmless");
    drop(Arc::into_inner(store).expect("the only handle"));

    let store = SqliteStore::open(&path, SqliteOptions::default()).expect("reopen");
    let queued = store
        .list_notes()
        .await
        .expect("list")
        .into_iter()
        .filter(|n| n.version == Version(2))
        .count();
    assert_eq!(
        queued, acknowledged,
        "exactly the acknowledged writes are stored"
    );
}
