//! A database file from before the search index (schema 9), opened by this build: the
//! migration that makes the index indexes the Notes already there, at their current version.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use quire_model::{AuthorKind, Op, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::search::{SearchQuery, SearchScope};
use quire_store::{Change, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use rusqlite::Connection;

const T0: Timestamp = Timestamp(1_796_019_881_000);

#[tokio::test]
async fn the_migration_indexes_the_notes_already_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let id = create_note(&store, "Old capybara", "Ana", AuthorKind::Person, T0).await;
    for (v, text) in [(1, "first draft"), (2, "the final wombat")] {
        store
            .write(WriteRequest {
                note_id: id.clone(),
                expected_version: Version(v),
                idempotency_key: None,
                author: "Ana".to_owned(),
                author_kind: AuthorKind::Person,
                change: Change::Ops(vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: text.to_owned(),
                }]),
                now: T0,
            })
            .await
            .unwrap();
    }
    store.close().await.unwrap();
    drop(store);

    // Back to schema 9: the file as a build without search left it.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch("DROP TABLE search_fts; DROP TABLE search_chunks; PRAGMA user_version = 9;")
        .unwrap();
    drop(conn);

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let find = |q: &str| SearchQuery::parse(q).unwrap();
    let hits = store
        .search(&find("wombat"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!((&hits[0].note_id, hits[0].version), (&id, Version(3)));
    let by_title = store
        .search(&find("capybara"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert_eq!(by_title[0].tab_id, TabId::new(TabId::MARKDOWN));
    let old_text = store
        .search(&find("draft"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert!(old_text.is_empty(), "{old_text:?}");
}
