//! What is particular to the SQLite store: the file outlives the process's store, closing
//! drains the writer, and a closed store refuses writes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use quire_model::{AuthorKind, NoteId, Op, TabData, TabId, Timestamp, Version};
use quire_store::{Change, NewNote, Store, StoreError, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};

fn new_note(n: usize) -> NewNote {
    NewNote {
        id: NoteId::from_uuid(uuid::Uuid::now_v7()),
        title: format!("Note {n}"),
        author: "person".to_owned(),
        author_kind: AuthorKind::Person,
        now: Timestamp(1_796_019_881_000),
        idempotency_key: None,
    }
}

/// A fresh temporary directory, and the path of the database file `name` in it.
fn temp_db(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join(name);
    (dir, path)
}

/// The store's options with `synchronous = NORMAL`.
fn normal() -> SqliteOptions {
    SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    }
}

/// Creates Note `n` in `store`; returns it as created (version 1).
async fn create(store: &SqliteStore, n: usize) -> quire_model::Note {
    let (created, _) = store.create_note(new_note(n)).await.expect("create");
    created.note
}

/// Opens the file at `path` afresh and checks that every version in `model` reads back as it
/// was written; returns the reopened store.
async fn reopen_and_read_back(
    path: &Path,
    id: &NoteId,
    model: &[quire_model::Note],
) -> SqliteStore {
    let reopened = SqliteStore::open(path, SqliteOptions::default()).expect("reopen");
    for expected in model {
        let stored = reopened
            .note_at(id, expected.version)
            .await
            .expect("note_at");
        assert!(
            &stored == expected,
            "version {} reads back otherwise",
            expected.version
        );
    }
    reopened
}

fn text(id: &NoteId, expected: u64, text: &str) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: Some(format!("{text}-{expected}")),
        author: "agent".to_owned(),
        author_kind: AuthorKind::Agent,
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
    let (_dir, path) = temp_db("quire.db");
    let store = Arc::new(SqliteStore::open(&path, SqliteOptions::default()).expect("open"));
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..24 {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            let id = create(&store, n).await.id;
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
    let (_dir, path) = temp_db("quire.db");
    let store = Arc::new(SqliteStore::open(&path, normal()).expect("open"));
    let id = create(&store, 0).await.id;

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

/// Two stores on one file (two servers, or a tool beside the server): each writer keeps its
/// own copy of the Notes it wrote, and must not trust it once the other has committed. A stale
/// write is refused with the version the other store made, however the two interleave.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_by_another_connection_is_seen_by_the_next_guarded_write() {
    let (_dir, path) = temp_db("shared.db");
    let a = SqliteStore::open(&path, normal()).expect("open a");
    let b = SqliteStore::open(&path, normal()).expect("open b");
    let id = create(&a, 0).await.id;

    // a writes version 2 (and now holds the Note at 2); b, from the file, writes version 3.
    assert_eq!(
        a.write(text(&id, 1, "a1")).await.unwrap().version,
        Version(2)
    );
    assert_eq!(
        b.write(text(&id, 2, "b1")).await.unwrap().version,
        Version(3)
    );

    // a still holds version 2: the write it bases on 2 is stale, not a silent overwrite of b's.
    match a.write(text(&id, 2, "a2")).await {
        Err(StoreError::Conflict(c)) => {
            assert_eq!(c.current_version, Version(3));
            assert_eq!(c.changed_tab_ids, vec![TabId::new(TabId::MARKDOWN)]);
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    // Based on b's version it goes through, and b in turn sees a's.
    assert_eq!(
        a.write(text(&id, 3, "a3")).await.unwrap().version,
        Version(4)
    );
    assert!(matches!(
        b.write(text(&id, 3, "b2")).await,
        Err(StoreError::Conflict(_))
    ));
    let note = b.get_note(&id).await.expect("read").note;
    assert_eq!((note.version, markdown(&note)), (Version(4), "a3"));
    a.close().await.expect("close a");
    b.close().await.expect("close b");
}

/// A version whose tabs, kinds and labels are those of the version before stores only where
/// its tabs' contents are (`{"layout": V, "data_at": [...]}`), not the whole strip again; every
/// version still reads back exactly as the model computes it, across renames, new tabs, moves
/// and a restore of an older layout, from the pool and from a store opened afresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_layout_is_not_stored_again() {
    use quire_model::{ApplyCtx, Note};

    let (_dir, path) = temp_db("strip.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
    let created = create(&store, 0).await;
    let id = created.id.clone();
    let mut model: Vec<Note> = vec![created];

    let steps: Vec<serde_json::Value> = vec![
        serde_json::json!([{"op": "replace_text", "tab_id": "markdown", "text": "one"}]),
        serde_json::json!([{"op": "rename_tab", "tab_id": "markdown", "label": "Draft"}]),
        serde_json::json!([{"op": "replace_text", "tab_id": "markdown", "text": "two"}]),
        serde_json::json!([{"op": "create_tab", "tab_type": "sheet", "label": "Q3"}]),
        serde_json::json!([{"op": "move_tab", "tab_id": "files", "index": 0}]),
        serde_json::json!([{"op": "add_source", "title": "A page", "url": "https://example.org/a"}]),
        serde_json::json!("restore 2"),
        serde_json::json!([{"op": "replace_text", "tab_id": "markdown", "text": "three"}]),
    ];
    let ctx = ApplyCtx {
        now: Timestamp(1_796_019_882_000),
        author: "agent",
    };
    for (n, step) in steps.into_iter().enumerate() {
        let current = model.last().expect("a version").clone();
        let (change, next) = if step.is_string() {
            let old = model[1].clone();
            let next = quire_model::restore(&current, &old).note;
            (
                Change::Restore {
                    version: Version(2),
                },
                next,
            )
        } else {
            let ops: Vec<Op> = serde_json::from_value(step).expect("ops");
            let next = quire_model::apply(&current, &ops, &ctx)
                .expect("apply")
                .note;
            (Change::Ops(ops), next)
        };
        write_step(&store, &mut model, change, next, n, ctx.now).await;
    }
    store.close().await.expect("close");

    // The forms stored: the creation, a rename, a new tab, a move and the restore of version 2's
    // labels spell the strip out; the content-only writes point at the layout before them.
    let conn = rusqlite::Connection::open(&path).expect("open raw");
    let mut stmt = conn
        .prepare("SELECT strip FROM versions ORDER BY key")
        .expect("prepare");
    let strips: Vec<serde_json::Value> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .expect("query")
        .map(|s| serde_json::from_str(&s.expect("row")).expect("strip JSON"))
        .collect();
    let layouts: Vec<Option<u64>> = strips
        .iter()
        .map(|s| s.get("layout").map(|v| v.as_u64().expect("a version")))
        .collect();
    assert_eq!(
        layouts,
        vec![
            None,
            Some(1),
            None,
            Some(3),
            None,
            None,
            Some(6),
            None,
            Some(8)
        ]
    );

    let reopened = reopen_and_read_back(&path, &id, &model).await;
    let current = reopened.get_note(&id).await.expect("current").note;
    assert_eq!(Some(&current), model.last());
    reopened.close().await.expect("close");
}

/// A keyed write stores its key in its version's row, not in an index: the commit writes
/// one b-tree page, not two. Every 32 keyed versions of a Note, the write that finds that many
/// waiting indexes them in `version_keys` (by hash, pointing at their rows; a row of the same
/// hash holding another key is not the key's). Wherever a key is (waiting, indexed, read back by a
/// store opened afresh or by a second store on the file), a resend replays the first result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_wait_in_their_versions_then_move_to_the_index() {
    let (_dir, path) = temp_db("keys.db");
    let store = SqliteStore::open(&path, normal()).expect("open");
    let id = create(&store, 0).await.id;
    for i in 1..=70 {
        let written = store.write(keyed(&id, i, &format!("v{i}"))).await.unwrap();
        assert_eq!((written.version, written.replayed), (Version(i + 1), false));
    }

    let file = rusqlite::Connection::open(&path).expect("open the file");
    let count = |sql: &str| -> i64 { file.query_row(sql, [], |r| r.get(0)).expect(sql) };
    assert_eq!(
        count("SELECT count(*) FROM version_keys"),
        64,
        "two moves of 32"
    );
    assert_eq!(count("SELECT count(*) FROM write_keys"), 0);
    assert_eq!(
        count("SELECT count(*) FROM versions WHERE length(idem_fingerprint) = 16"),
        70,
        "a row keeps the first half of its request's fingerprint"
    );
    assert_eq!(count("SELECT keys_through FROM notes"), 65);
    assert_eq!(
        count("SELECT count(*) FROM versions WHERE idem_key IS NOT NULL"),
        70,
        "each version keeps its key"
    );

    replays(&store, &id).await;
    // A second store on the file reads the waiting keys from the versions.
    let second = SqliteStore::open(&path, normal()).expect("open a second store");
    replays(&second, &id).await;
    second.close().await.expect("close the second store");
    store.close().await.expect("close");
    drop(store);
    let reopened = SqliteStore::open(&path, normal()).expect("reopen");
    replays(&reopened, &id).await;
    // The index finds keys by hash: a key that shares its hash with an indexed one's row is
    // still a key never sent (the row's version holds another key).
    // (The index's hash: the top 31 bits of the key's XXH3.)
    let forged = (quire_store::search::text_hash(&key(71)) >> 33) as i64;
    file.execute(
        "INSERT INTO version_keys (nid, hash, version) SELECT nid, ?1, 2 FROM notes",
        [forged],
    )
    .expect("a row of the same hash");
    let fresh = reopened.write(keyed(&id, 71, "v71")).await.unwrap();
    assert_eq!((fresh.version, fresh.replayed), (Version(72), false));
    reopened.close().await.expect("close");
}

/// The key of write `i`: a UUID as the app makes them (rows store it short), or for odd `i`
/// beyond 60 any other string.
fn key(i: u64) -> String {
    match i {
        61.. if i % 2 == 1 => format!("k-{i}"),
        _ => format!("01936f0e-7c1a-7b2e-9f00-{i:012x}"),
    }
}

/// Write `i` of a Note written only by `keyed`: version `i + 1`, key [`key`]`(i)`.
fn keyed(id: &NoteId, i: u64, body: &str) -> WriteRequest {
    WriteRequest {
        idempotency_key: Some(key(i)),
        ..text(id, i, body)
    }
}

/// Resends of `keyed` writes, waiting and indexed ones, replay their first results.
async fn replays(store: &SqliteStore, id: &NoteId) {
    for i in [1, 31, 32, 33, 64, 65, 70] {
        let again = store.write(keyed(id, i, &format!("v{i}"))).await.unwrap();
        assert!(again.replayed && !again.request_differs, "k-{i}: {again:?}");
        assert_eq!(again.version, Version(i + 1), "k-{i}");
        assert_eq!(again.changed_tab_ids, vec![TabId::new(TabId::MARKDOWN)]);
    }
    let differs = store.write(keyed(id, 68, "other")).await.unwrap();
    assert!(differs.replayed && differs.request_differs);
}

/// A long Markdown text edited a little is stored as a splice of the text before it, so the
/// history grows by the edit, not by the text; every version still reads back exactly, from
/// the store that wrote it and from one opened afresh (which continues the chains it finds),
/// across a restore, a rename and a rewrite, and no chain is longer than 32 splices.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_texts_edited_a_little_are_stored_as_splices() {
    let (_dir, path) = temp_db("splices.db");
    let mut store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
    let id = create(&store, 0).await.id;
    // texts[v] is the Markdown text at version v (the creation's is empty).
    let mut texts: Vec<String> = vec![String::new(), String::new()];
    let mut lines: Vec<String> = (0..1200)
        .map(|i| format!("Line {i}: the quick brown fox, café, 5 €."))
        .collect();
    let edits = 150;
    for n in 0..=edits {
        let current = Version(texts.len() as u64 - 1);
        let change = match n {
            0 => None,
            40 => Some(Change::Restore {
                version: Version(10),
            }),
            70 => Some(Change::Ops(vec![Op::RenameTab {
                tab_id: TabId::new(TabId::MARKDOWN),
                label: "Draft".to_owned(),
            }])),
            100 => {
                lines = (0..1000)
                    .map(|i| format!("Rewritten {i}: ünïcödé"))
                    .collect();
                None
            }
            _ => {
                match n % 4 {
                    0 => lines.insert(n * 7 % lines.len(), format!("inserted at {n} — ok")),
                    1 => {
                        lines.remove(n * 13 % lines.len());
                    }
                    2 => lines[n * 3 % 1000].push('é'),
                    _ => lines.push(format!("appended {n}")),
                }
                None
            }
        };
        let (change, text) = match change {
            Some(Change::Restore { version }) => {
                let text = texts[version.0 as usize].clone();
                lines = text.lines().map(str::to_owned).collect();
                (Change::Restore { version }, text)
            }
            Some(rename) => (rename, texts[current.0 as usize].clone()),
            None => {
                let text = lines.join("\n");
                let op = Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: text.clone(),
                };
                (Change::Ops(vec![op]), text)
            }
        };
        let written = store
            .write(WriteRequest {
                change,
                ..text_request(&id, current)
            })
            .await
            .expect("write");
        assert_eq!(written.version, current.next(), "edit {n}");
        texts.push(text);
        if n == 55 {
            // A store opened afresh loads the chains it continues.
            store.close().await.expect("close");
            store = SqliteStore::open(&path, SqliteOptions::default()).expect("reopen");
        }
    }
    store.close().await.expect("close");

    let file = rusqlite::Connection::open(&path).expect("open the file");
    let (_, stored) = stored_contents(&file);
    let text_bytes = texts[2].len() as i64;
    assert!(text_bytes > 50_000, "a long text: {text_bytes} bytes");
    // Whole, the history would hold ~150 texts; with splices, a whole text every 33 versions
    // at most (and the rewrite), plus small splices.
    assert!(
        stored < 9 * text_bytes,
        "{stored} bytes stored for texts of {text_bytes}"
    );
    let bases = splice_bases(&file);
    assert!(bases.len() > 100, "{} spliced versions", bases.len());
    for &version in bases.keys() {
        let (mut depth, mut at) = (0, version);
        while let Some(&base) = bases.get(&at) {
            (depth, at) = (depth + 1, base);
        }
        assert!(depth <= 32, "version {version}: a chain of {depth}");
    }

    let reopened = SqliteStore::open(&path, SqliteOptions::default()).expect("reopen");
    reads_back(&reopened, &id, &texts, "afresh").await;
    let current = reopened.get_note(&id).await.expect("current").note;
    assert_eq!(markdown(&current), texts.last().expect("a text"));
    reopened.close().await.expect("close");
}

/// A long text saved many times a little at a time, here and there (as the app's splices and
/// as whole texts), stores the whole text once: when a chain of 32 splices is full, the next
/// version is one splice of the whole text under the chain (every change since, composed), not
/// the whole text again. Every version reads back exactly, from the store that wrote it and
/// from one opened afresh in the middle, and no chain is longer than 32 splices.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_chain_goes_on_from_the_whole_text_not_from_a_new_copy() {
    let (_dir, path) = temp_db("rebased.db");
    let mut store = SqliteStore::open(&path, normal()).expect("open");
    let id = create(&store, 0).await.id;
    let mut text: String = (0..3000)
        .map(|i| format!("Line {i}: the quick brown fox, café, 5 €.\n"))
        .collect();
    let mut texts = vec![String::new(), String::new()];
    let saves = 200u64;
    for n in 0..=saves {
        let current = Version(texts.len() as u64 - 1);
        let op = if n == 0 || n % 5 == 0 {
            // A whole text, a line changed (the agent's replace_text).
            if n > 0 {
                let at = text
                    .find(&format!("Line {}:", n * 11 % 3000))
                    .expect("line");
                text.insert_str(at, "whole ");
            }
            Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: text.clone(),
            }
        } else {
            // One character typed somewhere (the app's splice), in characters.
            let chars = text.chars().count() as u64;
            let at = n * 7919 % chars;
            let byte = text
                .char_indices()
                .nth(at as usize)
                .map_or(text.len(), |(b, _)| b);
            text.insert(byte, 'ü');
            Op::SpliceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                splices: vec![quire_model::TextSplice {
                    at,
                    delete: 0,
                    insert: "ü".to_owned(),
                }],
            }
        };
        let written = store
            .write(WriteRequest {
                change: Change::Ops(vec![op]),
                ..text_request(&id, current)
            })
            .await
            .expect("write");
        assert_eq!(written.version, current.next(), "save {n}");
        texts.push(text.clone());
        if n == 90 {
            store.close().await.expect("close");
            store = SqliteStore::open(&path, normal()).expect("reopen");
        }
    }
    reads_back(&store, &id, &texts, "from the writer").await;
    store.close().await.expect("close");

    let file = rusqlite::Connection::open(&path).expect("open the file");
    let (spliced, stored) = stored_contents(&file);
    let text_bytes = text.len() as i64;
    assert_eq!(
        spliced, saves as i64,
        "every save after the first is a splice"
    );
    // The whole text once, and 200 splices (those that rebased a full chain holding every
    // change since the splice they stand on): before, a whole text every 33 versions, 7 of them.
    assert!(
        stored < 2 * text_bytes,
        "{stored} bytes stored for a text of {text_bytes}"
    );
    // Each splice names its base by the digest its text kept (schema 14), not the XXH3 of old.
    let named: (i64, i64) = file
        .query_row(
            "SELECT count(json_extract(deltas, '$.markdown.hash')),
                    count(json_extract(deltas, '$.markdown.base_hash'))
             FROM versions WHERE deltas IS NOT NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("count");
    assert_eq!(named, (saves as i64, 0));
    let bases = splice_bases(&file);
    let whole = 2; // The version of the first save, the text whole.
    let rebased = bases.iter().filter(|&(v, b)| v - b > 1).count();
    assert!(rebased >= 6, "{rebased} full chains rebased");
    for &version in bases.keys() {
        let (mut depth, mut at) = (0, version);
        while let Some(&base) = bases.get(&at) {
            (depth, at) = (depth + 1, base);
        }
        assert_eq!(at, whole, "version {version} stands on the whole text");
        assert!(depth <= 32, "version {version}: a chain of {depth}");
    }
    let reopened = SqliteStore::open(&path, normal()).expect("reopen");
    reads_back(&reopened, &id, &texts, "afresh").await;
    reopened.close().await.expect("close");
}

/// Every version `v` of Note `id` in `store` reads back as `texts[v]` (from version 1).
async fn reads_back(store: &SqliteStore, id: &NoteId, texts: &[String], how: &str) {
    for (v, expected) in texts.iter().enumerate().skip(1) {
        let note = store.note_at(id, Version(v as u64)).await.expect("note_at");
        assert!(
            markdown(&note) == expected,
            "version {v} reads back otherwise {how}"
        );
    }
}

/// The base of each version's Markdown splice, by version.
fn splice_bases(file: &rusqlite::Connection) -> std::collections::HashMap<i64, i64> {
    let mut stmt = file
        .prepare("SELECT key & 4294967295, coalesce(json_extract(deltas, '$.markdown.base'), (key & 4294967295) - 1) FROM versions WHERE deltas IS NOT NULL")
        .expect("prepare");
    stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
        .expect("query")
        .map(|row| row.expect("row"))
        .collect()
}

/// A write of the Markdown tab at `expected`, with its own key.
fn text_request(id: &NoteId, expected: Version) -> WriteRequest {
    text(id, expected.0, &format!("edit at {expected}"))
}

/// The other kinds are spliced as their JSON text: a large sheet edited a cell at a time stores
/// small splices, and every version (across a rewrite of the sheet and a reopen) reads back as
/// the model computes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_sheet_edited_a_cell_at_a_time_is_stored_as_splices() {
    use quire_model::{ApplyCtx, Note};
    use serde_json::json;

    let (_dir, path) = temp_db("sheet.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
    let created = create(&store, 0).await;
    let id = created.id.clone();
    let ctx = ApplyCtx {
        now: Timestamp(1_796_019_882_000),
        author: "agent",
    };
    let mut model: Vec<Note> = vec![created];
    let mut steps: Vec<serde_json::Value> =
        vec![json!([{"op": "create_tab", "tab_type": "sheet", "label": "Numbers"}])];
    let grid: Vec<Vec<serde_json::Value>> = (0..60)
        .map(|r| {
            (0..60)
                .map(|c| match (r + c) % 3 {
                    0 => json!(r * 60 + c),
                    1 => json!(format!("café {r}/{c}")),
                    _ => json!((r as f64) * 0.25),
                })
                .collect()
        })
        .collect();
    steps.push(json!([{"op": "sheet_set_range", "tab_id": "SHEET", "start_row": 0, "start_col": 0, "values": grid}]));
    for n in 0..70u64 {
        let value = if n % 2 == 0 {
            json!(n as f64 * 1.5)
        } else {
            json!(format!("é{n}"))
        };
        steps.push(json!([{"op": "sheet_set_range", "tab_id": "SHEET",
            "start_row": n * 7 % 60, "start_col": n * 11 % 60, "values": [[value]]}]));
        if n == 35 {
            steps.push(json!([{"op": "replace_tab_data", "tab_id": "SHEET",
                "data": {"sheets": [{"id": "s1", "name": "Rewritten", "rows": [[1, 2], [3, 4]]}]}}]));
            steps.push(
                json!([{"op": "sheet_set_range", "tab_id": "SHEET", "start_row": 0,
                "start_col": 0, "values": grid}]),
            );
        }
    }
    let sheet_id = sheet_steps(store, &path, &mut model, steps, 20, &ctx).await;

    let file = rusqlite::Connection::open(&path).expect("open the file");
    let sheet_bytes: i64 = file
        .query_row(
            "SELECT length(json_extract(data, '$.' || ?1)) FROM versions WHERE key & 4294967295 = 3",
            [&sheet_id],
            |r| r.get(0),
        )
        .expect("the filled sheet, whole");
    let (spliced, stored) = stored_contents(&file);
    assert!(sheet_bytes > 20_000, "a large sheet: {sheet_bytes} bytes");
    assert!(spliced > 60, "{spliced} spliced versions");
    // Whole, the history would hold ~72 sheets; spliced, the fills and a few whole ones.
    assert!(
        stored < 8 * sheet_bytes,
        "{stored} bytes stored for a sheet of {sheet_bytes}"
    );

    let reopened = reopen_and_read_back(&path, &id, &model).await;
    reopened.close().await.expect("close");
}

/// Writes each step (operations on the sheet tab, named `"SHEET"`) on the newest Note of
/// `model` through `store`, appending what the model computes; reopens the store after step
/// `reopen_after`, then closes it. Returns the sheet tab's ID.
async fn sheet_steps(
    mut store: SqliteStore,
    path: &std::path::Path,
    model: &mut Vec<quire_model::Note>,
    steps: Vec<serde_json::Value>,
    reopen_after: usize,
    ctx: &quire_model::ApplyCtx<'_>,
) -> String {
    let mut sheet_id = String::new();
    for (n, step) in steps.into_iter().enumerate() {
        let current = model.last().expect("a version").clone();
        let step = step
            .to_string()
            .replace("\"SHEET\"", &format!("{sheet_id:?}"));
        let ops: Vec<Op> = serde_json::from_str(&step).expect("ops");
        let next = quire_model::apply(&current, &ops, ctx).expect("apply").note;
        write_step(&store, model, Change::Ops(ops), next, n, ctx.now).await;
        let newest = model.last().expect("a version");
        sheet_id = newest
            .tabs
            .last()
            .expect("the sheet")
            .id
            .as_str()
            .to_owned();
        if n == reopen_after {
            store.close().await.expect("close");
            store = SqliteStore::open(path, SqliteOptions::default()).expect("reopen");
        }
    }
    store.close().await.expect("close");
    sheet_id
}

/// Writes `change` (key `step-{n}`) on the newest Note of `model`, and appends `next` (what
/// the model computes for it) at the version the store gave it.
async fn write_step(
    store: &SqliteStore,
    model: &mut Vec<quire_model::Note>,
    change: Change,
    mut next: quire_model::Note,
    n: usize,
    now: Timestamp,
) {
    let current = model.last().expect("a version");
    let result = store
        .write(WriteRequest {
            note_id: current.id.clone(),
            expected_version: current.version,
            idempotency_key: Some(format!("step-{n}")),
            author: "agent".to_owned(),
            author_kind: AuthorKind::Agent,
            change,
            now,
        })
        .await
        .expect("write");
    next.version = result.version;
    model.push(next);
}

/// The history rows holding a splice, and the bytes of tab contents stored (whole and spliced).
fn stored_contents(file: &rusqlite::Connection) -> (i64, i64) {
    file.query_row(
        "SELECT count(deltas), sum(length(data) + coalesce(length(deltas), 0)) FROM versions",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .expect("stored bytes")
}

/// A batch writing cells here and there in a large sheet (rows apart, rows added at the end)
/// stores each written cell as a range of one splice, not the grid from the first to the last;
/// with the writer's copy of the sheet's text and without it (after a reopen), every version
/// reads back as the model computes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cells_written_here_and_there_are_stored_as_ranges_of_one_splice() {
    use quire_model::{ApplyCtx, Note};
    use serde_json::json;

    let (_dir, path) = temp_db("scattered.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
    let created = create(&store, 0).await;
    let id = created.id.clone();
    let ctx = ApplyCtx {
        now: Timestamp(1_796_019_882_000),
        author: "agent",
    };
    let mut model: Vec<Note> = vec![created];
    let grid: Vec<Vec<serde_json::Value>> = (0..80)
        .map(|r| (0..40).map(|c| json!(format!("r{r}c{c}"))).collect())
        .collect();
    let mut steps = vec![
        json!([{"op": "create_tab", "tab_type": "sheet"}]),
        json!([{"op": "sheet_set_range", "tab_id": "SHEET", "start_row": 0, "start_col": 0, "values": grid}]),
    ];
    for n in 0..6u64 {
        let mut ops: Vec<serde_json::Value> = (0..20u64)
            .map(|i| {
                json!({"op": "sheet_set_range", "tab_id": "SHEET",
                "start_row": (i * 4 + n) % 80, "start_col": (i * 7 + n) % 40,
                "values": [[format!("é {n}.{i}")]]})
            })
            .collect();
        if n == 4 {
            ops.push(json!({"op": "sheet_set_range", "tab_id": "SHEET", "start_row": 80, "start_col": 0, "values": [["added"]]}));
        }
        steps.push(serde_json::Value::Array(ops));
    }
    // After step 4 the store reopens: the next write finds no text of the sheet in the writer
    // and makes it.
    let sheet_id = sheet_steps(store, &path, &mut model, steps, 4, &ctx).await;

    let file = rusqlite::Connection::open(&path).expect("open the file");
    let mut stmt = file
        .prepare(
            "SELECT json_array_length(json_extract(deltas, '$.' || ?1 || '.more')), length(deltas)
             FROM versions WHERE key & 4294967295 > 3 ORDER BY key",
        )
        .expect("prepare");
    let spliced: Vec<(Option<i64>, Option<i64>)> = stmt
        .query_map([&sheet_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(spliced.len(), 6, "{spliced:?}");
    for (more, bytes) in &spliced {
        // Twenty cells (and a row added): one splice of about twenty ranges, a few KiB at most.
        assert!(more.is_some_and(|m| m >= 19), "{spliced:?}");
        assert!(bytes.is_some_and(|b| b < 4_096), "{spliced:?}");
    }
    let reopened = reopen_and_read_back(&path, &id, &model).await;
    reopened.close().await.expect("close");
}
