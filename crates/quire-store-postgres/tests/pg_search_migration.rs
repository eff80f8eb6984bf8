//! A database from before the search index (schema 3), opened by this build: the migration that
//! makes the index indexes the Notes already there, at their current version.

use quire_model::{AuthorKind, Op, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::search::{SearchQuery, SearchScope};
use quire_store::{Change, Store, WriteRequest};
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::{Cluster, RawClient};

const T0: Timestamp = Timestamp(1_796_019_881_000);

#[tokio::test]
async fn the_migration_indexes_the_notes_already_there() {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster.fresh_database().await.expect("a test database");
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store");
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
            .expect("write");
    }
    store.close().await.expect("close");
    drop(store);

    // Back to schema 3: the database as a build without the trash (schema 4) and search
    // (schema 5) left it.
    let client = RawClient::connect(db.url()).await;
    client
        .batch_execute(
            "DROP TABLE search_titles, search_tabs, search_chunks;
             ALTER TABLE notes DROP COLUMN deleted_at;
             DELETE FROM quire_migrations WHERE version >= 4;",
        )
        .await
        .expect("schema 3");
    client.close().await;

    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store again");
    let find = |q: &str| SearchQuery::parse(q).expect("words");
    let hits = store
        .search(&find("wombat"), 10, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_eq!(hits.len(), 1);
    assert_eq!((&hits[0].note_id, hits[0].version), (&id, Version(3)));
    let by_title = store
        .search(&find("capybara"), 10, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_eq!(by_title[0].tab_id, TabId::new(TabId::MARKDOWN));
    let old_text = store
        .search(&find("draft"), 10, SearchScope::AllNotes)
        .await
        .expect("search");
    assert!(old_text.is_empty(), "{old_text:?}");
}

/// An index cut by schema 5's rules: schema 6 empties it and indexes every Note again, so no
/// chunk cut the old way is left to be found (or never removed).
#[tokio::test]
async fn the_index_cut_the_old_way_is_made_again() {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster.fresh_database().await.expect("a test database");
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store");
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
        .expect("write");
    store.close().await.expect("close");
    drop(store);

    // A chunk only the old rules made, as schema 5 left it, found by a search.
    let client = RawClient::connect(db.url()).await;
    let words = quire_store::search::tsvector("", "a stale zebra");
    client
        .execute(
            "INSERT INTO search_chunks (note_id, tab_id, title_tab, hash, body, body_tsv)
             SELECT note_id, 'markdown', title_tab, 7, 'a stale zebra', $1::text::tsvector
             FROM search_chunks LIMIT 1",
            &[&words],
        )
        .await
        .expect("a stale chunk");
    let found_before = store_finds(db.url(), "zebra").await;
    assert_eq!(
        found_before, 1,
        "the stale chunk is found before the migration"
    );
    client
        .batch_execute("DELETE FROM quire_migrations WHERE version >= 6;")
        .await
        .expect("schema 5");
    client.close().await;

    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store again");
    let find = |q: &str| SearchQuery::parse(q).expect("words");
    let stale = store
        .search(&find("zebra"), 10, SearchScope::AllNotes)
        .await
        .expect("search");
    assert!(stale.is_empty(), "{stale:?}");
    let hits = store
        .search(&find("okapi"), 10, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_eq!((hits.len(), &hits[0].note_id), (1, &id));
}

/// How many hits a search for `word` gives, through a store opened on `url`.
async fn store_finds(url: &str, word: &str) -> usize {
    let store = PgStore::connect(url, PgOptions::default())
        .await
        .expect("open the store");
    let hits = store
        .search(
            &SearchQuery::parse(word).expect("words"),
            10,
            SearchScope::AllNotes,
        )
        .await
        .expect("search");
    store.close().await.expect("close");
    hits.len()
}
