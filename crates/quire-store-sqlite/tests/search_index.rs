//! The search index as SQLite keeps it: after any sequence of writes it holds exactly the
//! chunks a fresh indexing of the Note would (and FTS5's words agree with them), and a write
//! that changes one chunk costs FTS5 one new segment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;

use quire_model::{
    AuthorKind, NewTabKind, Note, NoteId, Op, SlideInput, TabId, TabKind, Timestamp,
};
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

fn store_at(path: &Path) -> SqliteStore {
    let options = SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    };
    SqliteStore::open(path, options).expect("open")
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
            vec![Op::ReplaceText {
                tab_id: markdown_id(),
                text: words(rng, n),
            }]
        }
        (1, _) => {
            // A long text (the index re-chunks around the change from 64 KiB).
            let n = 12_000 + rng.below(2_000);
            vec![Op::ReplaceText {
                tab_id: markdown_id(),
                text: words(rng, n),
            }]
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

/// After each of 300 random writes of two Notes (every kind of tab, titles, labels, tabs made,
/// moved and deleted, multibyte text and NUL characters, long texts edited in one place), the
/// index holds exactly the chunks a fresh indexing of each Note would, and FTS5's words agree.
#[tokio::test]
async fn the_index_is_always_what_a_fresh_one_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let store = store_at(&path);
    let file = rusqlite::Connection::open(&path).unwrap();
    let mut notes = vec![
        create(&store, "First").await,
        create(&store, "Second").await,
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for step in 0..300 {
        let which = rng.below(notes.len());
        let ops = random_ops(&mut rng, &notes[which]);
        notes[which] = write(&store, &notes[which], ops).await;
        let mut expected = BTreeMap::new();
        for note in &notes {
            for (chunk, n) in fresh_chunks(note) {
                *expected.entry(chunk).or_default() += n;
            }
        }
        assert_eq!(stored_chunks(&file), expected, "after write {step}");
        if step % 10 == 0 {
            fts_agrees(&file);
        }
    }
    fts_agrees(&file);
}

/// A write that changes one chunk (of a short text, or of a long one edited in one place) adds
/// one segment to FTS5, not one per statement.
#[tokio::test]
async fn a_write_that_changes_one_chunk_adds_one_segment() {
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
        note = write(
            &store,
            &note,
            vec![Op::ReplaceText {
                tab_id: markdown_id(),
                text,
            }],
        )
        .await;
        let before = segments(&file);
        note = write(
            &store,
            &note,
            vec![Op::ReplaceText {
                tab_id: markdown_id(),
                text: edited,
            }],
        )
        .await;
        assert_eq!(segments(&file), before + 1, "at version {}", note.version);
    }
    fts_agrees(&file);
}
