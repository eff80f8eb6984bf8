//! An agent learns nothing about a Note the person did not approve, not even from how long the
//! answer takes: every MCP tool decides visibility from the Note's metadata before it loads the
//! content. The server runs on port 0 over a real SQLite store wrapped in a recorder of the
//! store calls made for each Note; the agent speaks MCP through the rmcp client.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use mcp_support::{Protocol, connect, key, merged, ok, refused};
use quire_api::{AccessChange, NoteMeta, Scope, StoredNote, VersionInfo, WriteResult};
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, Timestamp, Version};
use quire_server::notes::{Caller, Channel, Notes};
use quire_store::{HashedToken, NewNote, Result, Store, TokenRecord, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use serde_json::json;

/// The real store, recording which of its methods ran for which Note.
struct Recorder {
    inner: SqliteStore,
    calls: Mutex<Vec<(&'static str, NoteId)>>,
}

impl Recorder {
    fn record(&self, method: &'static str, id: &NoteId) {
        self.calls.lock().unwrap().push((method, id.clone()));
    }

    /// The methods that ran for Note `id`, in order; forgets every call recorded so far.
    fn take_for(&self, id: &NoteId) -> Vec<&'static str> {
        std::mem::take(&mut *self.calls.lock().unwrap())
            .into_iter()
            .filter(|(_, of)| of == id)
            .map(|(method, _)| method)
            .collect()
    }
}

/// `impl Store for Recorder`: each method under `recorded` (each about one Note, `id`) is
/// recorded for that Note, then run by the real store; each under `forwarded` is only run by
/// the real store; the rest are written out.
macro_rules! recorder_impl {
    (
        recorded { $(fn $name:ident(id $(, $arg:ident: $ty:ty)*) -> $out:ty;)* }
        forwarded { $(fn $fwd:ident($($farg:ident: $fty:ty),*) -> $fout:ty;)* }
        $($rest:item)*
    ) => {
        #[async_trait]
        impl Store for Recorder {
            $(
                async fn $name(&self, id: &NoteId $(, $arg: $ty)*) -> Result<$out> {
                    self.record(stringify!($name), id);
                    self.inner.$name(id $(, $arg)*).await
                }
            )*
            $(
                async fn $fwd(&self, $($farg: $fty),*) -> Result<$fout> {
                    self.inner.$fwd($($farg),*).await
                }
            )*
            $($rest)*
        }
    };
}

recorder_impl! {
    recorded {
        fn get_note(id) -> StoredNote;
        fn note_meta(id) -> NoteMeta;
        fn history(id) -> Vec<VersionInfo>;
        fn note_at(id, version: Version) -> Note;
        fn set_agent_access(id, approved: bool, by: &str, now: Timestamp) -> NoteMeta;
        fn agent_access_changes(id) -> Vec<AccessChange>;
    }
    forwarded {
        fn list_notes() -> Vec<NoteSummary>;
        fn create_token(token: HashedToken) -> TokenRecord;
        fn find_token(token_hash: &str) -> Option<TokenRecord>;
        fn list_tokens() -> Vec<TokenRecord>;
        fn revoke_tokens(name: &str, kind: Option<AuthorKind>, now: Timestamp) -> usize;
        fn record_token_use(token_id: i64, at: Timestamp) -> ();
        fn settle_token_kinds(person_hash: &str) -> Vec<String>;
        fn list_trash() -> Vec<NoteSummary>;
        fn empty_trash(before: Option<Timestamp>) -> Vec<NoteId>;
        fn search(
            query: &quire_store::search::SearchQuery,
            limit: usize,
            scope: quire_store::search::SearchScope
        ) -> Vec<quire_api::SearchHit>;
        fn close() -> ();
    }

    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
        self.record("create_note", &new.id);
        self.inner.create_note(new).await
    }

    async fn write(&self, req: WriteRequest) -> Result<WriteResult> {
        self.record("write", &req.note_id);
        self.inner.write(req).await
    }

    async fn write_as_agent(&self, req: WriteRequest) -> Result<WriteResult> {
        self.record("write_as_agent", &req.note_id);
        self.inner.write_as_agent(req).await
    }
}

#[tokio::test]
async fn no_tool_loads_a_note_the_person_did_not_approve() {
    let dir = tempfile::tempdir().unwrap();
    let recorder = Arc::new(Recorder {
        inner: SqliteStore::open(&dir.path().join("notes.db"), SqliteOptions::default()).unwrap(),
        calls: Mutex::new(Vec::new()),
    });
    let store: Arc<dyn Store> = recorder.clone();
    let scopes = [Scope::NotesRead, Scope::NotesWrite];
    let token = quire_server::tokens::create(store.as_ref(), "claude", &scopes, AuthorKind::Agent)
        .await
        .unwrap()
        .token;
    let notes = Notes::new(store.clone(), Arc::new(quire_api::SystemClock));
    let person = Caller {
        name: "Ana".to_owned(),
        scopes: scopes.to_vec(),
        kind: AuthorKind::Person,
        token_id: 1,
    };
    let mut ids = Vec::new();
    for title in ["Private", "Shared"] {
        let (created, _) = notes
            .create_note(&person, Channel::App, title.to_owned(), None)
            .await
            .unwrap();
        ids.push(created.note.id);
    }
    let [hidden, shared] = <[NoteId; 2]>::try_from(ids).unwrap();
    notes
        .set_agent_access(&person, Channel::App, &shared, true)
        .await
        .unwrap();

    let server = quire_server::serve_store(
        store,
        SocketAddr::from(([127, 0, 0, 1], 0)),
        quire_server::DEFAULT_BODY_LIMIT,
    )
    .await
    .unwrap();
    let agent = connect(
        &format!("{}/mcp", server.url()),
        &token,
        Protocol::Stateless,
    )
    .await
    .unwrap();

    let calls = [
        ("list_note_tabs", json!({})),
        ("read_note_tab", json!({"tab_id": "markdown"})),
        (
            "read_sheet_range",
            json!({"tab_id": "markdown", "start_row": 0, "start_col": 0, "rows": 1, "cols": 1}),
        ),
        ("list_note_attachments", json!({})),
        (
            "edit_note_tab",
            json!({"tab_id": "markdown", "expected_version": 1, "idempotency_key": key(),
                   "operation": "replace_text", "text": "x"}),
        ),
        (
            "create_note_tab",
            json!({"expected_version": 1, "idempotency_key": key(), "tab_type": "sheet"}),
        ),
        (
            "add_note_source",
            json!({"expected_version": 1, "idempotency_key": key(),
                   "title": "x", "url": "https://example.org"}),
        ),
        (
            "edit_note_text",
            json!({"tab_id": "markdown", "expected_version": 1, "idempotency_key": key(),
                   "edits": [{"old_text": "a", "new_text": "b"}]}),
        ),
    ];
    recorder.take_for(&hidden);
    for (tool, args) in &calls {
        let out = refused(
            &agent,
            tool,
            merged(json!({"note_id": hidden.to_string()}), args.clone()),
        )
        .await;
        assert_eq!(out["error"], "note_not_found", "{tool}: {out}");
        // A write asks the store's agent door, which refuses it in the write's transaction
        // before anything else (the conformance suite holds every store to that).
        let writes =
            tool.starts_with("edit_") || tool.starts_with("create_") || tool.starts_with("add_");
        let only = if writes {
            "write_as_agent"
        } else {
            "note_meta"
        };
        assert_eq!(
            recorder.take_for(&hidden),
            [only],
            "{tool} on a Note the person did not approve may read its metadata only"
        );
    }
    assert_eq!(
        notes
            .get_note(&person, &hidden, Channel::App)
            .await
            .unwrap()
            .note
            .version,
        Version(1),
        "nothing was written"
    );

    // The recorder sees what the tools do: on the approved Note, the reads load the Note.
    ok(
        &agent,
        "read_note_tab",
        json!({"note_id": shared.to_string(), "tab_id": "markdown"}),
    )
    .await;
    assert!(
        recorder.take_for(&shared).contains(&"get_note"),
        "the recorder is in the path"
    );
    agent.cancel().await.unwrap();
    server.shutdown().await.unwrap();
}
