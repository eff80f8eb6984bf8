//! The search index as SQLite keeps it: a guarded write lists its Note as lagging instead of
//! indexing it; once caught up (asked, by a search, by the writer when it is due, or by a store
//! that opens a file a stopped one left) the index holds exactly the chunks a fresh indexing of
//! every Note would (and FTS5's words agree with them), whatever writes came between, and a
//! catch-up of writes that changed one chunk costs FTS5 one new segment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;

use quire_model::{
    AuthorKind, NewTabKind, Note, NoteId, Op, SlideInput, TabId, TabKind, Timestamp,
};
use std::time::{Duration, Instant};

use quire_store::search::{SearchQuery, SearchScope};
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use serde_json::json;

/// One row of `search_chunks`, without its rowid: (tab, type, label, title tab, hash, title, body).
type Chunk = (String, String, String, bool, i64, String, String);

/// The rows of `search_chunks` of every Note, counted.
fn stored_chunks(file: &rusqlite::Connection) -> BTreeMap<Chunk, usize> {
    let mut rows = BTreeMap::new();
    let mut stmt = file
        .prepare(
            "SELECT tab_id, tab_type, tab_label, title_tab, hash, title, body FROM search_chunks",
        )
        .unwrap();
    let found = stmt
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })
        .unwrap();
    for chunk in found {
        *rows.entry(chunk.unwrap()).or_default() += 1;
    }
    rows
}

/// The rows a fresh indexing of `note` would write.
fn fresh_chunks(note: &Note) -> BTreeMap<Chunk, usize> {
    let mut rows = BTreeMap::new();
    for tab in quire_store::search::plan(None, note, None).tabs {
        for (hash, body) in &tab.add {
            let chunk = (
                tab.tab_id.as_str().to_owned(),
                tab.kind.as_str().to_owned(),
                tab.label.to_owned(),
                tab.carries_title,
                *hash,
                note.title.clone(),
                body.to_string(),
            );
            *rows.entry(chunk).or_default() += 1;
        }
    }
    rows
}

/// FTS5's own check that its words are those of `search_chunks` (an error otherwise).
fn fts_agrees(file: &rusqlite::Connection) {
    file.execute_batch("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1);")
        .expect("the words of the index are those of its chunks");
}

/// FTS5's segments (each has at least one row in `search_fts_idx`).
fn segments(file: &rusqlite::Connection) -> i64 {
    file.query_row(
        "SELECT count(DISTINCT segid) FROM search_fts_idx",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "alpha",
    "béta",
    "gamma",
    "δέλτα",
    "ε",
    "zèta",
    "η",
    "theta",
    "😀",
    "iota",
    "kappa",
    "lambda",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(WORDS[rng.below(WORDS.len())]);
        out.push_str(match rng.below(12) {
            0 => "\n",
            1 => "\n\n",
            2 if i % 5 == 0 => "\0",
            _ => " ",
        });
    }
    out
}

/// A store whose writer never finds the index due on its own within a test: the tests say
/// when it catches up.
fn store_at(path: &Path) -> SqliteStore {
    store_with_delay(path, Duration::from_secs(3600))
}

fn store_with_delay(path: &Path, search_delay: Duration) -> SqliteStore {
    let options = SqliteOptions {
        synchronous: Synchronous::Normal,
        search_delay,
        ..SqliteOptions::default()
    };
    SqliteStore::open(path, options).expect("open")
}

/// The Notes listed as lagging their index: (nid, the version the index holds).
fn listed(file: &rusqlite::Connection) -> Vec<(i64, u64)> {
    let mut stmt = file
        .prepare("SELECT nid, indexed_version FROM search_pending ORDER BY nid")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The rows a fresh indexing of every one of `notes` would write.
fn fresh_of(notes: &[Note]) -> BTreeMap<Chunk, usize> {
    let mut expected = BTreeMap::new();
    for note in notes {
        for (chunk, n) in fresh_chunks(note) {
            *expected.entry(chunk).or_default() += n;
        }
    }
    expected
}

fn find(word: &str) -> SearchQuery {
    SearchQuery::parse(word).expect("query")
}

async fn create(store: &SqliteStore, title: &str) -> Note {
    let (created, _) = store
        .create_note(NewNote {
            id: NoteId::from_uuid(uuid::Uuid::now_v7()),
            title: title.to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now: Timestamp(1_796_019_881_000),
            idempotency_key: None,
        })
        .await
        .expect("create");
    created.note
}

async fn write(store: &SqliteStore, note: &Note, ops: Vec<Op>) -> Note {
    store
        .write(WriteRequest {
            note_id: note.id.clone(),
            expected_version: note.version,
            idempotency_key: None,
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(ops),
            now: Timestamp(1_796_019_882_000),
        })
        .await
        .expect("write");
    store.get_note(&note.id).await.expect("read").note
}

fn markdown_id() -> TabId {
    TabId::new(TabId::MARKDOWN)
}

/// One op: the Markdown tab's text replaced by `text`.
fn replace_text(text: impl Into<String>) -> Vec<Op> {
    vec![Op::ReplaceText {
        tab_id: markdown_id(),
        text: text.into(),
    }]
}

/// Waits until the store's writer has caught the index up by itself (no Note listed), for at
/// most 30 s.
async fn until_none_listed(file: &rusqlite::Connection) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !listed(file).is_empty() {
        assert!(Instant::now() < deadline, "still listed after 30 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The ops of one random write of `note`: its text replaced (short, long, or edited in one
/// place), its title set, a tab made, renamed, moved or deleted, cells or slides written.
fn random_ops(rng: &mut Rng, note: &Note) -> Vec<Op> {
    let others: Vec<&TabId> = note
        .tabs
        .iter()
        .filter(|t| matches!(t.kind(), TabKind::Sheet | TabKind::Slides))
        .map(|t| &t.id)
        .collect();
    let other = (!others.is_empty()).then(|| others[rng.below(others.len())].clone());
    let text = match &note.tab(&markdown_id()).expect("markdown").data {
        quire_model::TabData::Markdown(t) => t.to_string(),
        _ => String::new(),
    };
    match (rng.below(9), other) {
        (0, _) => {
            let n = 1 + rng.below(600);
            replace_text(words(rng, n))
        }
        (1, _) => {
            // A long text (the index re-chunks around the change from 64 KiB).
            let n = 12_000 + rng.below(2_000);
            replace_text(words(rng, n))
        }
        (2 | 3, _) if !text.is_empty() => {
            let chars = text.chars().count();
            let at = rng.below(chars);
            let delete = rng.below(40).min(chars - at) as u64;
            let n = rng.below(30);
            vec![Op::SpliceText {
                tab_id: markdown_id(),
                splices: vec![quire_model::TextSplice {
                    at: at as u64,
                    delete,
                    insert: words(rng, n),
                }],
            }]
        }
        (4, _) => vec![Op::SetTitle {
            title: format!("Title {}", words(rng, 2).trim()),
        }],
        (5, _) if others.len() < 4 => vec![Op::CreateTab {
            tab_type: if rng.below(2) == 0 {
                NewTabKind::Sheet
            } else {
                NewTabKind::Slides
            },
            label: Some(words(rng, 2).trim().replace('\0', "")),
            slides: None,
        }],
        (6, Some(tab)) => vec![Op::RenameTab {
            tab_id: tab,
            label: format!("Renamed {}", rng.below(100)),
        }],
        (7, Some(tab)) if rng.below(3) == 0 => vec![Op::DeleteTab { tab_id: tab }],
        (7 | 8, Some(tab)) => {
            let kind = note.tab(&tab).expect("tab").kind();
            if kind == TabKind::Slides {
                vec![Op::SlidesAddOutline {
                    tab_id: tab,
                    slides: vec![SlideInput {
                        title: words(rng, 2),
                        body: words(rng, 20),
                        notes: words(rng, 3),
                    }],
                }]
            } else {
                let row = rng.below(300) as u64;
                vec![Op::SheetSetRange {
                    tab_id: tab,
                    sheet_id: None,
                    start_row: row,
                    start_col: rng.below(5) as u64,
                    values: vec![vec![json!(words(rng, 2)), json!(rng.below(1000))]],
                }]
            }
        }
        _ => vec![Op::MoveTab {
            tab_id: markdown_id(),
            index: note.tabs.len() - 1,
        }],
    }
}

/// Over 300 random writes of two Notes (every kind of tab, titles, labels, tabs made, moved
/// and deleted, multibyte text and NUL characters, long texts edited in one place), caught up
/// after one to four writes at a time (asked, or by a search): the index then holds exactly the
/// chunks a fresh indexing of each Note would, and FTS5's words agree. Between catch-ups it
/// holds what it held after the last one.
#[tokio::test]
async fn once_caught_up_the_index_is_what_a_fresh_one_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let store = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    let mut notes = vec![
        create(&store, "First").await,
        create(&store, "Second").await,
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut caught_up = stored_chunks(&file);
    assert_eq!(
        caught_up,
        fresh_of(&notes),
        "two new Notes are indexed as they are made"
    );
    let mut since = 0;
    for step in 0..300 {
        let which = rng.below(notes.len());
        let ops = random_ops(&mut rng, &notes[which]);
        notes[which] = write(&store, &notes[which], ops).await;
        since += 1;
        if since < 1 + rng.below(4) {
            assert_eq!(
                stored_chunks(&file),
                caught_up,
                "after write {step}: not caught up"
            );
            continue;
        }
        since = 0;
        if rng.below(2) == 0 {
            store.catch_up_search().await.expect("catch up");
        } else {
            store
                .search(&find("alpha"), 5, SearchScope::AllNotes)
                .await
                .expect("search");
        }
        assert_eq!(listed(&file), [], "after write {step}");
        caught_up = stored_chunks(&file);
        assert_eq!(caught_up, fresh_of(&notes), "after write {step}");
        if step % 10 == 0 {
            fts_agrees(&file);
        }
    }
    fts_agrees(&file);
}

/// The catch-up of a write that changes one chunk (of a short text, or of a long one edited in
/// one place) adds one segment to FTS5, not one per statement; so does the catch-up of ten
/// writes that changed the same chunk.
#[tokio::test]
async fn a_catch_up_of_writes_that_change_one_chunk_adds_one_segment() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("segments.db");
    let store = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    // No merging: each flush of FTS5's pending words stays a segment of its own.
    file.execute_batch("INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 0);")
        .unwrap();
    let mut note = create(&store, "Segments").await;
    let mut rng = Rng(7);
    let long = words(&mut rng, 14_000);
    let (cut, _) = long.char_indices().nth(20_000).unwrap();
    for (text, edited) in [
        ("a short text".to_owned(), "a short text, edited".to_owned()),
        (
            long.clone(),
            format!("{}edited {}", &long[..cut], &long[cut..]),
        ),
    ] {
        note = write(&store, &note, replace_text(text)).await;
        store.catch_up_search().await.unwrap();
        let before = segments(&file);
        note = write(&store, &note, replace_text(edited.clone())).await;
        assert_eq!(segments(&file), before, "a write alone adds none");
        store.catch_up_search().await.unwrap();
        assert_eq!(segments(&file), before + 1, "at version {}", note.version);
        for n in 0..10 {
            note = write(&store, &note, replace_text(format!("{edited} {n}"))).await;
        }
        assert_eq!(store.catch_up_search().await.unwrap(), 1, "one Note lagged");
        assert_eq!(segments(&file), before + 2, "ten writes, one catch-up");
    }
    fts_agrees(&file);
}

/// A write lists its Note with the version the index still holds, and leaves the index as it
/// was; a later write of the Note keeps that listing. A search right after finds the newest
/// words and not the words written over (it has the index caught up first), and leaves no
/// Note listed.
#[tokio::test]
async fn a_search_finds_what_was_written_just_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh.db");
    let store = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    let mut note = create(&store, "Animals").await;
    let nid: i64 = file
        .query_row("SELECT nid FROM notes", [], |r| r.get(0))
        .unwrap();
    note = write(&store, &note, replace_text("the aardvark sleeps")).await;
    store.catch_up_search().await.unwrap();
    let indexed = stored_chunks(&file);
    note = write(&store, &note, replace_text("the wombat digs")).await;
    assert_eq!(listed(&file), [(nid, 2)]);
    note = write(&store, &note, replace_text("the capybara swims")).await;
    assert_eq!(
        listed(&file),
        [(nid, 2)],
        "listed once, at the version indexed"
    );
    assert_eq!(
        stored_chunks(&file),
        indexed,
        "the writes left the index as it was"
    );

    for (word, found) in [("capybara", 1), ("aardvark", 0), ("wombat", 0)] {
        let hits = store
            .search(&find(word), 10, SearchScope::AllNotes)
            .await
            .unwrap();
        assert_eq!(hits.len(), found, "{word}: {hits:?}");
    }
    assert_eq!(listed(&file), []);
    assert_eq!(stored_chunks(&file), fresh_of(&[note]));
    fts_agrees(&file);
}

/// With nothing asking, the writer brings a lagging index up to date by itself once the delay
/// has passed: no search, no catch-up asked, no other write.
#[tokio::test]
async fn the_writer_catches_the_index_up_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timer.db");
    let store = store_with_delay(&path, Duration::from_millis(50));
    let file = rusqlite::Connection::open(&path).unwrap();
    let note = create(&store, "Timer").await;
    let note = write(&store, &note, replace_text("the pangolin waits")).await;
    until_none_listed(&file).await;
    assert_eq!(stored_chunks(&file), fresh_of(&[note]));
}

/// A store that stopped with Notes listed (here: a copy of its file taken while they were)
/// leaves them to the next store that opens the file. That store catches up on its own, from
/// the versions the listing names (it kept no copy of them), and a search finds the last words.
#[tokio::test]
async fn a_listing_left_in_the_file_is_caught_up_by_the_next_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("left.db");
    let copy = dir.path().join("copy.db");
    let store = store_at(&path);
    let mut notes = vec![create(&store, "Left").await, create(&store, "Behind").await];
    let mut rng = Rng(0xC0FFEE);
    for step in 0..40 {
        let which = step % 2;
        let ops = random_ops(&mut rng, &notes[which]);
        notes[which] = write(&store, &notes[which], ops).await;
    }
    let last = format!("{} marmoset", words(&mut rng, 3_000));
    notes[0] = write(&store, &notes[0], replace_text(last)).await;
    let file = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(listed(&file).len(), 2);
    file.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])
        .unwrap();
    drop(store);

    // Opened with the listing: caught up by its writer once due, without being asked.
    let copied = rusqlite::Connection::open(&copy).unwrap();
    assert_eq!(listed(&copied).len(), 2);
    let reopened = store_with_delay(&copy, Duration::from_millis(20));
    until_none_listed(&copied).await;
    assert_eq!(stored_chunks(&copied), fresh_of(&notes));
    fts_agrees(&copied);
    let hits = reopened
        .search(&find("marmoset"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
}

/// Two stores on one file (two processes): each lists the Notes it writes, neither trusts what
/// it knew of a listing once the other wrote, and a catch-up by either leaves the index as a
/// fresh one, whoever wrote last.
#[tokio::test]
async fn two_stores_on_one_file_keep_one_listing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let a = store_at(&path);
    let b = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    let mut note = create(&a, "Shared").await;
    let mut rng = Rng(0x5EED);
    for step in 0..60 {
        let store = if rng.below(2) == 0 { &a } else { &b };
        let ops = random_ops(&mut rng, &note);
        note = write(store, &note, ops).await;
        if step % 7 == 6 {
            let catcher = if rng.below(2) == 0 { &a } else { &b };
            catcher.catch_up_search().await.unwrap();
            assert_eq!(listed(&file), [], "after write {step}");
            assert_eq!(
                stored_chunks(&file),
                fresh_of(&[note.clone()]),
                "after write {step}"
            );
        }
    }
    fts_agrees(&file);
}

/// A lagging Note erased from the trash takes its listing with it; a Note made after it (which
/// may reuse its row number) is listed and caught up as its own.
#[tokio::test]
async fn an_erased_note_takes_its_listing_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("erase.db");
    let store = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    let note = create(&store, "Doomed").await;
    let note = write(&store, &note, replace_text("the dodo")).await;
    store
        .write(WriteRequest {
            note_id: note.id.clone(),
            expected_version: note.version,
            idempotency_key: None,
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Trash,
            now: Timestamp(1_796_019_883_000),
        })
        .await
        .unwrap();
    assert_eq!(listed(&file).len(), 1);
    assert_eq!(
        store.empty_trash(None).await.unwrap(),
        vec![note.id.clone()]
    );
    assert_eq!(listed(&file), []);
    assert_eq!(stored_chunks(&file), BTreeMap::new());

    let next = create(&store, "Next").await;
    let next = write(&store, &next, replace_text("the quagga")).await;
    assert_eq!(listed(&file).len(), 1);
    let hits = store
        .search(&find("quagga"), 10, SearchScope::AllNotes)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(stored_chunks(&file), fresh_of(&[next]));
}
