//! A database file made before tokens and versions had a kind (schema 5), opened by this build:
//! its tokens count as the person's until the desktop app settles them, its versions keep
//! their rows and read as the person's or an agent's by their author's name, and everything
//! written from then on records its kind.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use quire_api::Scope;
use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::{Change, HashedToken, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use rusqlite::Connection;

/// Every migration up to schema 5, as released.
const SCHEMA_5: [&str; 5] = [
    include_str!("../src/migrations/0001_init.sql"),
    include_str!("../src/migrations/0002_small_write_keys.sql"),
    include_str!("../src/migrations/0003_compact_strip.sql"),
    include_str!("../src/migrations/0004_keys_with_versions.sql"),
    include_str!("../src/migrations/0005_text_splices.sql"),
];

/// The columns `versions` has at schema 5.
const VERSION_COLUMNS: &str = "key, author, created_at, summary, changed_tab_ids, title, seq, \
                               strip, data, outcomes, idem_key, idem_fingerprint, deltas";

const T0: Timestamp = Timestamp(1_796_019_881_000);

fn text(t: &str) -> Change {
    Change::Ops(vec![Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: t.to_owned(),
    }])
}

fn write(id: &NoteId, expected: u64, author: &str, kind: AuthorKind, t: &str) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: None,
        author: author.to_owned(),
        author_kind: kind,
        change: text(t),
        now: T0,
    }
}

/// A Note written by the person "Ana" (versions 1 and 3) and the agent "claude" (version 2),
/// stored by this build in `path`; returns its ID.
async fn history_rows(path: &Path) -> NoteId {
    let store = SqliteStore::open(path, SqliteOptions::default()).unwrap();
    let id = create_note(&store, "Before kinds", "Ana", AuthorKind::Person, T0).await;
    for (v, author, kind) in [
        (1, "claude", AuthorKind::Agent),
        (2, "Ana", AuthorKind::Person),
    ] {
        store
            .write(write(&id, v, author, kind, &format!("by {author}")))
            .await
            .unwrap();
    }
    store.close().await.unwrap();
    id
}

/// The file as a schema-5 build left it: the Note's rows without their kinds, and two tokens,
/// the app's person token "Ana" and one its agent panel made, "claude".
fn schema_5_file(path: &Path, rows_from: &Path) {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    for sql in SCHEMA_5 {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 5).unwrap();
    conn.execute("ATTACH ?1 AS new", [rows_from.to_str().unwrap()])
        .unwrap();
    conn.execute_batch(&format!(
        "INSERT INTO notes (nid, id, agent_access, created_at, keys_through)
             SELECT nid, id, agent_access, created_at, keys_through FROM new.notes;
         INSERT INTO versions ({VERSION_COLUMNS}) SELECT {VERSION_COLUMNS} FROM new.versions;
         DETACH new;"
    ))
    .unwrap();
    let scopes = r#"["notes:read","notes:write"]"#;
    for (name, hash) in [("Ana", "hash-person"), ("claude", "hash-agent")] {
        conn.execute(
            "INSERT INTO tokens (name, hash, scopes, created_at) VALUES (?1, ?2, ?3, 't')",
            [name, hash, scopes],
        )
        .unwrap();
    }
}

async fn kinds(store: &SqliteStore, id: &NoteId) -> Vec<AuthorKind> {
    let history = store.history(id).await.unwrap();
    history.into_iter().map(|v| v.author_kind).collect()
}

async fn token_kind(store: &SqliteStore, hash: &str) -> AuthorKind {
    store.find_token(hash).await.unwrap().unwrap().kind
}

#[tokio::test]
async fn a_file_from_before_kinds_is_migrated_and_settled_by_the_app() {
    use AuthorKind::{Agent, Person};
    let dir = tempfile::tempdir().unwrap();
    let rows = dir.path().join("rows.db");
    let id = history_rows(&rows).await;
    let old = dir.path().join("old.db");
    schema_5_file(&old, &rows);

    let store = SqliteStore::open(&old, SqliteOptions::default()).unwrap();
    let version: i64 = Connection::open(&old)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, 8);

    // Migrated: every old token counts as the person's, so every old version is the person's.
    assert_eq!(token_kind(&store, "hash-person").await, Person);
    assert_eq!(token_kind(&store, "hash-agent").await, Person);
    assert_eq!(kinds(&store, &id).await, [Person, Person, Person]);

    // The app settles: its own token stays the person's, the panel's becomes an agent's, and
    // the old versions by that agent's name are the agent's. Once.
    assert_eq!(
        store.settle_token_kinds("hash-person").await.unwrap(),
        ["claude"]
    );
    assert_eq!(token_kind(&store, "hash-person").await, Person);
    assert_eq!(token_kind(&store, "hash-agent").await, Agent);
    assert_eq!(kinds(&store, &id).await, [Person, Agent, Person]);
    assert!(
        store
            .settle_token_kinds("hash-agent")
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(token_kind(&store, "hash-agent").await, Agent);

    // A name held by a person token never makes an old version an agent's.
    store
        .create_token(HashedToken::new(
            "Ana",
            &[Scope::NotesRead],
            Agent,
            "hash-agent-ana",
            None,
        ))
        .await
        .unwrap();
    assert_eq!(kinds(&store, &id).await, [Person, Agent, Person]);

    // New versions record their kind, whatever their author's name; the old rows are untouched.
    store
        .write(write(
            &id,
            3,
            "claude",
            Person,
            "by the person, named claude",
        ))
        .await
        .unwrap();
    assert_eq!(kinds(&store, &id).await, [Person, Agent, Person, Person]);
    let stored: Vec<Option<String>> = {
        let conn = Connection::open(&old).unwrap();
        let mut stmt = conn
            .prepare("SELECT author_kind FROM versions ORDER BY key")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(stored, [None, None, None, Some("person".to_owned())]);

    // Approvals are recorded on a migrated file too.
    store
        .set_agent_access(&id, true, "Ana", Timestamp(T0.0 + 1_000))
        .await
        .unwrap();
    let changes = store.agent_access_changes(&id).await.unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!((changes[0].approved, changes[0].by.as_str()), (true, "Ana"));
    store.close().await.unwrap();
}
