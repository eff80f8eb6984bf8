//! `note_meta` on PostgreSQL is one row of `notes`, not the whole Note: the agent's approval
//! check runs before every MCP call and must not load every tab's content.

use quire_model::{AuthorKind, NoteId, Timestamp};
use quire_store::conformance::create_note;
use quire_store::{Store, StoreError};
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::{Cluster, RawClient};

#[tokio::test]
async fn note_meta_reads_no_tab_content() {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster.fresh_database().await.expect("a test database");
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store");
    let id = create_note(
        &store,
        "Meta",
        "person",
        AuthorKind::Person,
        Timestamp(1_796_019_881_000),
    )
    .await;
    let approved = store
        .set_agent_access(&id, true, "person", Timestamp(1_796_019_882_000))
        .await
        .expect("approve");

    // Take every tab's content away: the whole Note can no longer be read, its metadata can.
    let client = RawClient::connect(db.url()).await;
    let removed = client
        .execute(
            "DELETE FROM tab_versions WHERE note_id = $1",
            &[&id.as_str()],
        )
        .await
        .expect("delete");
    assert_eq!(removed, 3, "the fixed tabs' contents");
    client.close().await;
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
