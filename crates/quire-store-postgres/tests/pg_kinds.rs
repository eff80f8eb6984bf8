//! Tokens and versions stored before they had a kind (NULL in `kind` / `author_kind`, as
//! migration 0002 leaves the rows it finds): a token counts as the person's until settled, a
//! version is an agent's when its author is the name of an agent token and of no person token.

use quire_api::Scope;
use quire_model::{AuthorKind, Op, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::{Change, HashedToken, Store, WriteRequest};
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::{Cluster, RawClient};

const T0: Timestamp = Timestamp(1_796_019_881_000);

#[tokio::test]
async fn rows_from_before_kinds_read_as_the_person_until_settled() {
    use AuthorKind::{Agent, Person};
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster.fresh_database().await.expect("a test database");
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("open the store");
    let id = create_note(&store, "Before kinds", "Ana", Person, T0).await;
    store
        .write(WriteRequest {
            note_id: id.clone(),
            expected_version: Version(1),
            idempotency_key: None,
            author: "claude".to_owned(),
            author_kind: Agent,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: "by claude".to_owned(),
            }]),
            now: T0,
        })
        .await
        .expect("write");

    // The rows as an older build stored them: no kinds.
    let client = RawClient::connect(db.url()).await;
    client
        .batch_execute(
            "UPDATE versions SET author_kind = NULL;
             INSERT INTO tokens (name, hash, scopes, created_at) VALUES
                 ('Ana', 'hash-person', '[\"notes:read\",\"notes:write\"]', 't'),
                 ('claude', 'hash-agent', '[\"notes:read\",\"notes:write\"]', 't');",
        )
        .await
        .expect("old rows");
    client.close().await;

    let kind = |hash: &'static str| {
        let store = &store;
        async move {
            store
                .find_token(hash)
                .await
                .expect("find")
                .expect("a token")
                .kind
        }
    };
    let kinds = || {
        let store = &store;
        let id = id.clone();
        async move {
            let history = store.history(&id).await.expect("history");
            history
                .into_iter()
                .map(|v| v.author_kind)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        (kind("hash-person").await, kind("hash-agent").await),
        (Person, Person)
    );
    assert_eq!(kinds().await, [Person, Person]);

    assert_eq!(
        store
            .settle_token_kinds("hash-person")
            .await
            .expect("settle"),
        ["claude"]
    );
    assert_eq!(
        (kind("hash-person").await, kind("hash-agent").await),
        (Person, Agent)
    );
    assert_eq!(kinds().await, [Person, Agent]);
    assert!(
        store
            .settle_token_kinds("hash-agent")
            .await
            .expect("settle")
            .is_empty()
    );

    // A person token of the agent's name keeps its old versions the person's.
    store
        .create_token(HashedToken::new(
            "claude",
            &[Scope::NotesRead],
            Person,
            "hash-person-claude",
            None,
        ))
        .await
        .expect("create_token");
    assert_eq!(kinds().await, [Person, Person]);
    store.close().await.expect("close");
}
