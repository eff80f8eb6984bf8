//! `note_meta` on PostgreSQL is one row of `notes`, not the whole Note: the agent's approval
//! check runs before every MCP call and must not load every tab's content.

use quire_model::{AuthorKind, NoteId, Timestamp};
use quire_store::{NewNote, Store, StoreError};
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::Cluster;
use tokio_postgres::NoTls;

#[tokio::test]
async fn note_meta_reads_no_tab_content() {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster.fresh_database().await.expect("a test database");
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store");
    let id = NoteId::from_uuid(uuid::Uuid::now_v7());
    store
        .create_note(NewNote {
            id: id.clone(),
            title: "Meta".to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now: Timestamp(1_796_019_881_000),
            idempotency_key: None,
        })
        .await
        .expect("create_note");
    let approved = store
        .set_agent_access(&id, true, "person", Timestamp(1_796_019_882_000))
        .await
        .expect("approve");

    // Take every tab's content away: the whole Note can no longer be read, its metadata can.
    let (client, connection) = tokio_postgres::connect(db.url(), NoTls)
        .await
        .expect("connect");
    let connection = tokio::spawn(connection);
    let removed = client
        .execute(
            "DELETE FROM tab_versions WHERE note_id = $1",
            &[&id.as_str()],
        )
        .await
        .expect("delete");
    assert_eq!(removed, 3, "the fixed tabs' contents");
    drop(client);
    connection
        .await
        .expect("connection task")
        .expect("connection");
    assert!(
        matches!(store.get_note(&id).await, Err(StoreError::Backend(_))),
        "the Note is unreadable without its tabs"
    );

    assert_eq!(store.note_meta(&id).await.expect("note_meta"), approved);
    let missing = NoteId::from_uuid(uuid::Uuid::now_v7());
    assert!(matches!(
        store.note_meta(&missing).await,
        Err(StoreError::NoteNotFound(found)) if found == missing
    ));
    store.close().await.expect("close");
}
