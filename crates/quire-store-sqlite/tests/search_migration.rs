//! Database files from before a schema, opened by this build: the migration that makes the
//! search index (schema 9) indexes the Notes already there, at their current version; the one
//! that makes history rows smaller (schema 12) indexes the keys waiting in rows as they are.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use quire_model::{AuthorKind, Op, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::search::{SearchQuery, SearchScope};
use quire_store::{Change, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use rusqlite::Connection;

const T0: Timestamp = Timestamp(1_796_019_881_000);

/// Takes a file back from schema 13: no Note is listed as lagging its index (the store caught
/// its index up when it closed).
const BEFORE_SCHEMA_13: &str = "DROP TABLE search_pending;";

/// Takes a file back from schema 12: every row spells its history entry and title out again,
/// the column that named another row's is gone, and the keys indexed by hash are in
/// `write_keys`. (No row here leaves its strip to another: each write's author differs from
/// the one before's.)
const BEFORE_SCHEMA_12: &str = "
    INSERT INTO write_keys (nid, key, fingerprint, version)
        SELECT k.nid, v.idem_key, v.idem_fingerprint, k.version FROM version_keys k
        JOIN versions v ON v.key = (k.nid << 32) | k.version;
    DROP TABLE version_keys;
    UPDATE versions SET (author, author_kind, summary, changed_tab_ids, outcomes, title) = (
        SELECT a.author, a.author_kind, a.summary, a.changed_tab_ids, a.outcomes, a.title
        FROM versions a
        WHERE a.key = (versions.key >> 32 << 32) | versions.entry_at
    ) WHERE entry_at IS NOT NULL;
    ALTER TABLE versions DROP COLUMN entry_at;";

#[tokio::test]
async fn the_migration_indexes_the_notes_already_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let id = create_note(&store, "Old capybara", "Ana", AuthorKind::Person, T0).await;
    for (v, text, author) in [(1, "first draft", "Ana"), (2, "the final wombat", "Bo")] {
        store
            .write(WriteRequest {
                note_id: id.clone(),
                expected_version: Version(v),
                idempotency_key: None,
                author: author.to_owned(),
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
    conn.execute_batch(BEFORE_SCHEMA_13).unwrap();
    conn.execute_batch(BEFORE_SCHEMA_12).unwrap();
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

/// A file whose index was cut by schema 10's rules: schema 11 empties the index and indexes
/// every Note again, so no chunk cut the old way is left to be found (or never removed).
#[tokio::test]
async fn the_index_cut_the_old_way_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let id = create_note(&store, "Ledger", "Ana", AuthorKind::Person, T0).await;
    store
        .write(WriteRequest {
            note_id: id.clone(),
            expected_version: Version(1),
            idempotency_key: None,
            author: "Ana".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: "the okapi ledger".to_owned(),
            }]),
            now: T0,
        })
        .await
        .unwrap();
    store.close().await.unwrap();
    drop(store);

    // A chunk only the old rules made, as schema 10 left it.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(BEFORE_SCHEMA_13).unwrap();
    conn.execute_batch(BEFORE_SCHEMA_12).unwrap();
    let before: i64 = conn
        .query_row("SELECT count(*) FROM search_chunks", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch(
        "INSERT INTO search_chunks (nid, tab_id, tab_type, tab_label, title_tab, hash, title, body)
         SELECT nid, 'sources', 'sources', 'Sources', 0, 7, title, 'a stale zebra'
         FROM search_chunks LIMIT 1;
         PRAGMA user_version = 10;",
    )
    .unwrap();
    drop(conn);

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let find = |q: &str| SearchQuery::parse(q).unwrap();
    let stale = store
        .search(&find("zebra"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert!(stale.is_empty(), "{stale:?}");
    let hits = store
        .search(&find("okapi"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert_eq!((hits.len(), &hits[0].note_id), (1, &id));
    store.close().await.unwrap();
    drop(store);
    let conn = Connection::open(&path).unwrap();
    let (after, version): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM search_chunks), (SELECT user_version FROM pragma_user_version)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((after, version), (before, 14));
    // FTS5's own index agrees with its content table.
    conn.execute_batch("INSERT INTO search_fts (search_fts) VALUES ('integrity-check');")
        .unwrap();
}

/// A key waiting in its version's row (not indexed yet) in a file from before schema 12 is
/// stored as it was sent: the migration indexes it as it is, so a resend replays, even for a
/// key that the short form of schema 12 would read otherwise (one starting with `~`).
#[tokio::test]
async fn keys_waiting_in_rows_from_before_schema_12_replay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let id = create_note(&store, "Keyed", "Ana", AuthorKind::Person, T0).await;
    let keyed = |key: &str| WriteRequest {
        note_id: id.clone(),
        expected_version: Version(1),
        idempotency_key: Some(key.to_owned()),
        author: "Ana".to_owned(),
        author_kind: AuthorKind::Person,
        change: Change::Ops(vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: "keyed".to_owned(),
        }]),
        now: T0,
    };
    let first = store.write(keyed("~old")).await.unwrap();
    store.close().await.unwrap();
    drop(store);

    // As schema 11 left it: the key waits in its row as sent, with its whole fingerprint.
    let conn = Connection::open(&path).unwrap();
    let fingerprint = quire_store::guard::Fingerprint::of(&keyed("~old")).unwrap();
    conn.execute(
        "UPDATE versions SET idem_key = '~old', idem_fingerprint = ?1 WHERE idem_key IS NOT NULL",
        [&fingerprint.as_bytes()[..]],
    )
    .unwrap();
    conn.execute_batch(BEFORE_SCHEMA_13).unwrap();
    conn.execute_batch(BEFORE_SCHEMA_12).unwrap();
    conn.execute_batch("PRAGMA user_version = 11;").unwrap();
    let waiting: i64 = conn
        .query_row("SELECT count(*) FROM write_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(waiting, 0, "the key waits in its row");
    drop(conn);

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let again = store.write(keyed("~old")).await.unwrap();
    assert!(again.replayed && !again.request_differs, "{again:?}");
    assert_eq!(again.version, first.version);
    let fresh = store
        .write(WriteRequest {
            expected_version: first.version,
            ..keyed("~new")
        })
        .await
        .unwrap();
    assert!(!fresh.replayed);
}
