//! The worst writes `quire_model::limits` allow, each timed through the guarded write
//! (`SqliteStore`, synchronous FULL, as the server runs it): how long one holds the writer, and
//! how long a small save to another Note, sent just after it reached the writer, waits. The
//! request's fingerprint (its hash) is taken before it waits for the writer, and timed apart;
//! the writer's hold is the time it spent committing (`SqliteStore::writer_busy`).
//!
//! `cargo run --release -p quire-store-sqlite --example bench_bounds -- [--runs N] [--only NAME]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_api::WriteResult;
use quire_model::{
    AuthorKind, NewTabKind, NoteId, Op, OpOutcome, SlideInput, TabId, Timestamp, Version, limits,
};
use quire_store::guard::Fingerprinted;
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use quire_testkit::bench::Samples;
use serde_json::{Value, json};

const NOW: Timestamp = Timestamp(1_796_019_882_000);

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

async fn new_note(store: &SqliteStore, title: &str) -> NoteId {
    let id = NoteId::from_uuid(uuid::Uuid::now_v7());
    store
        .create_note(NewNote {
            author_kind: AuthorKind::Person,
            id: id.clone(),
            title: title.to_owned(),
            author: "bench".to_owned(),
            now: NOW,
            idempotency_key: None,
        })
        .await
        .unwrap();
    id
}

fn request(id: &NoteId, version: Version, ops: Vec<Op>) -> WriteRequest {
    WriteRequest {
        author_kind: AuthorKind::Person,
        note_id: id.clone(),
        expected_version: version,
        idempotency_key: Some(format!("k-{}", uuid::Uuid::now_v7())),
        author: "bench".to_owned(),
        change: Change::Ops(ops),
        now: NOW,
    }
}

async fn write(store: &SqliteStore, id: &NoteId, version: Version, ops: Vec<Op>) -> WriteResult {
    store
        .write(request(id, version, ops))
        .await
        .unwrap_or_else(|e| panic!("refused: {e}"))
}

fn created(result: &WriteResult) -> Vec<TabId> {
    result
        .outcomes
        .iter()
        .filter_map(|o| match o {
            OpOutcome::TabCreated { tab_id } => Some(tab_id.clone()),
            _ => None,
        })
        .collect()
}

fn create(kind: NewTabKind, n: usize) -> Vec<Op> {
    (0..n)
        .map(|_| Op::CreateTab {
            tab_type: kind,
            label: None,
            slides: None,
        })
        .collect()
}

/// A Note prepared for a scenario, and the request (for the Note's current version and the
/// run's number) to time on it.
struct Prepared {
    id: NoteId,
    request: Box<dyn Fn(usize) -> Vec<Op>>,
}

/// Fills a Note to the limit the scenario is about.
async fn prepare(store: &SqliteStore, scenario: &str) -> Prepared {
    let id = new_note(store, scenario).await;
    match scenario {
        "1,000 move_tab on a 200-tab Note" | "1,000 rename_tab on a 200-tab Note" => {
            let made = write(
                store,
                &id,
                Version(1),
                create(NewTabKind::Sheet, limits::TABS - 3),
            )
            .await;
            let tabs = created(&made);
            let request: Box<dyn Fn(usize) -> Vec<Op>> = if scenario.contains("move") {
                Box::new(move |run| {
                    (0..limits::OPS)
                        .map(|i| Op::MoveTab {
                            tab_id: tabs[(i * 7 + run) % tabs.len()].clone(),
                            index: (i * 13 + run) % limits::TABS,
                        })
                        .collect()
                })
            } else {
                Box::new(move |run| {
                    (0..limits::OPS)
                        .map(|i| Op::RenameTab {
                            tab_id: tabs[i % tabs.len()].clone(),
                            label: format!("run {run} label {i}"),
                        })
                        .collect()
                })
            };
            Prepared { id, request }
        }
        "1,000 source ops (500 cited, 500 removed) on a Note citing 4,500 pages" => {
            let mut base = Vec::new();
            for chunk in 0..5 {
                let ops = (0..900)
                    .map(|i| Op::AddSource {
                        title: format!("Page {chunk}-{i}"),
                        url: format!("https://example.org/{chunk}/{i}"),
                    })
                    .collect();
                let made = write(store, &id, Version(1 + chunk as u64), ops).await;
                base.extend(made.outcomes.into_iter().filter_map(|o| match o {
                    OpOutcome::SourceAdded { source_id, .. } => Some(source_id),
                    _ => None,
                }));
            }
            Prepared {
                id,
                request: Box::new(move |run| {
                    let removed =
                        base[run * 500..(run + 1) * 500]
                            .iter()
                            .map(|s| Op::RemoveSource {
                                source_id: s.clone(),
                            });
                    let cited = (0..500).map(|i| Op::AddSource {
                        title: format!("New {run}-{i}"),
                        url: format!("https://example.com/{run}/{i}"),
                    });
                    removed.chain(cited).collect()
                }),
            }
        }
        "1 cell set in a 2,000,000-cell sheet"
        | "1,000 cells set in a 2,000,000-cell sheet, one op each" => {
            let made = write(store, &id, Version(1), create(NewTabKind::Sheet, 1)).await;
            let sheet = created(&made).remove(0);
            let cols = limits::SHEET_COLS;
            let rows: Vec<Value> = (0..limits::SHEET_CELLS / cols)
                .map(|r| {
                    Value::Array(
                        (0..cols)
                            .map(|c| match c % 2 {
                                0 => json!(r * cols + c),
                                _ => json!(format!("c{c}")),
                            })
                            .collect(),
                    )
                })
                .collect();
            let data = json!({"sheets": [{"id": "s1", "name": "Big", "rows": rows}]});
            write(
                store,
                &id,
                Version(2),
                vec![Op::ReplaceTabData {
                    tab_id: sheet.clone(),
                    data,
                }],
            )
            .await;
            let ops = if scenario.starts_with("1 cell") {
                1
            } else {
                limits::OPS
            };
            Prepared {
                id,
                request: Box::new(move |run| {
                    (0..ops)
                        .map(|i| Op::SheetSetRange {
                            tab_id: sheet.clone(),
                            sheet_id: None,
                            start_row: ((i * 37 + run) % 2_000) as u64,
                            start_col: ((i * 11) % 1_000) as u64,
                            values: vec![vec![json!(run * 10_000 + i)]],
                        })
                        .collect()
                }),
            }
        }
        "1 slide layout set in a 1,000-slide deck"
        | "1,000 slides added, 16 KiB each (a 16 MiB request)" => {
            let made = write(store, &id, Version(1), create(NewTabKind::Slides, 1)).await;
            let deck = created(&made).remove(0);
            if scenario.contains("layout") {
                let slides = |n: usize| -> Vec<SlideInput> {
                    (0..n)
                        .map(|i| SlideInput {
                            title: format!("Slide {i}"),
                            body: "A body of a few words, as slides have.\n".repeat(8),
                            notes: "Speaker notes.".to_owned(),
                        })
                        .collect()
                };
                let ops = (0..limits::DECK_SLIDES / limits::OUTLINE_SLIDES)
                    .map(|_| Op::SlidesAddOutline {
                        tab_id: deck.clone(),
                        slides: slides(limits::OUTLINE_SLIDES),
                    })
                    .collect();
                let made = write(store, &id, Version(2), ops).await;
                let ids: Vec<String> = made
                    .outcomes
                    .iter()
                    .flat_map(|o| match o {
                        OpOutcome::SlidesAdded { slide_ids, .. } => slide_ids.clone(),
                        _ => Vec::new(),
                    })
                    .collect();
                let layouts = [quire_model::Layout::Section, quire_model::Layout::Quote];
                Prepared {
                    id,
                    request: Box::new(move |run| {
                        vec![Op::SetSlideLayout {
                            tab_id: deck.clone(),
                            slide_id: ids[run * 31 % ids.len()].clone(),
                            layout: layouts[run % 2],
                        }]
                    }),
                }
            } else {
                Prepared {
                    id,
                    request: Box::new(move |run| {
                        // A fresh deck each run: replace it with an empty one first.
                        let mut ops = vec![Op::ReplaceTabData {
                            tab_id: deck.clone(),
                            data: json!({"slides": []}),
                        }];
                        ops.extend((0..limits::OPS - 1).map(|i| Op::SlideAdd {
                            tab_id: deck.clone(),
                            title: format!("Run {run} slide {i}"),
                            body: "x".repeat(16 * 1024),
                            notes: String::new(),
                        }));
                        ops
                    }),
                }
            }
        }
        "16 MiB of Markdown replaced" => Prepared {
            id,
            request: Box::new(|run| {
                vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: format!(
                        "{run}\n{}",
                        "A line of a long Note.\n".repeat(16 * 1024 * 1024 / 23)
                    ),
                }]
            }),
        },
        "1 line edited in a Note holding 64 MiB of text" => {
            // 16 MiB of Markdown and three decks of one 16 MiB slide each: each write within
            // the 16 MiB body limit.
            let text = "A line of a long Note.\n".repeat(16 * 1024 * 1024 / 23 - 100);
            write(
                store,
                &id,
                Version(1),
                vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: text.clone(),
                }],
            )
            .await;
            let mut version = 2;
            for _ in 0..3 {
                let slides = Some(vec![SlideInput {
                    title: "Big".to_owned(),
                    body: text.clone(),
                    notes: String::new(),
                }]);
                let made = write(
                    store,
                    &id,
                    Version(version),
                    vec![Op::CreateTab {
                        tab_type: NewTabKind::Slides,
                        label: None,
                        slides,
                    }],
                )
                .await;
                version = made.version.0;
            }
            Prepared {
                id,
                request: Box::new(move |run| {
                    let mut edited = text.clone();
                    edited.replace_range(0..1, &format!("{}", run % 10));
                    vec![Op::ReplaceText {
                        tab_id: TabId::new(TabId::MARKDOWN),
                        text: edited,
                    }]
                }),
            }
        }
        "1 line edited with edit_text in a 1 MiB Markdown Note" => {
            // The Note of `quire-server`'s `bench_edit_text`: 16,384 lines of 64 bytes, a
            // line no write touched before changed each run.
            let text: String = (0..16_384)
                .map(|i| {
                    format!(
                        "{:<63}\n",
                        format!("line {i:05} of the long Note, a few words")
                    )
                })
                .collect();
            write(
                store,
                &id,
                Version(1),
                vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text,
                }],
            )
            .await;
            Prepared {
                id,
                request: Box::new(|run| {
                    // 97 is prime to 16,384: a new line every run for 16,384 runs (it went
                    // past the last line, and panicked, after 86).
                    let line = (8_000 + run * 97) % 16_384;
                    vec![Op::EditText {
                        tab_id: TabId::new(TabId::MARKDOWN),
                        edits: vec![quire_model::TextEdit {
                            old_text: format!("line {line:05} of"),
                            new_text: format!("line {line:05} (edited) of"),
                        }],
                    }]
                }),
            }
        }
        other => panic!("no scenario {other:?}"),
    }
}

const SCENARIOS: &[&str] = &[
    "1,000 move_tab on a 200-tab Note",
    "1,000 rename_tab on a 200-tab Note",
    "1,000 source ops (500 cited, 500 removed) on a Note citing 4,500 pages",
    "1 cell set in a 2,000,000-cell sheet",
    "1,000 cells set in a 2,000,000-cell sheet, one op each",
    "1 slide layout set in a 1,000-slide deck",
    "1,000 slides added, 16 KiB each (a 16 MiB request)",
    "16 MiB of Markdown replaced",
    "1 line edited in a Note holding 64 MiB of text",
    "1 line edited with edit_text in a 1 MiB Markdown Note",
];

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

fn median(v: Vec<Duration>) -> Duration {
    Samples::from(v).stats().median
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let runs: usize = arg("--runs").map_or(5, |r| r.parse().expect("a number"));
    let only = arg("--only");
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Arc::new(
        SqliteStore::open(&dir.path().join("bounds.db"), SqliteOptions::default()).expect("open"),
    );
    let other = new_note(&store, "other").await;
    let mut other_version = Version(1);
    println!(
        "Each request {runs} times (synchronous FULL); a small save to another Note sent just after it."
    );
    println!();
    println!(
        "| request (at the limits) | writer held, median (ms) | max (ms) | of which apply, median (ms) | hashed before the writer, median (ms) | small save behind it, median (ms) | max (ms) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for scenario in SCENARIOS {
        if only.as_deref().is_some_and(|o| !scenario.contains(o)) {
            continue;
        }
        let prepared = prepare(&store, scenario).await;
        let mut version = store.get_note(&prepared.id).await.unwrap().note.version;
        let (mut held, mut behind) = (Vec::new(), Vec::new());
        let (mut applying, mut hashing) = (Vec::new(), Vec::new());
        for run in 0..runs {
            let ops = (prepared.request)(run);
            // The model's share: `apply` alone, on the Note as the writer holds it.
            let note = store.get_note(&prepared.id).await.unwrap().note;
            let ctx = quire_model::ApplyCtx {
                now: NOW,
                author: "bench",
            };
            let start = Instant::now();
            let applied = quire_model::apply(&note, &ops, &ctx).expect("applies");
            applying.push(start.elapsed());
            drop((applied, note));
            // The request's fingerprint, which the store takes before the request waits for
            // the writer.
            let start = Instant::now();
            let keyed = request(&prepared.id, version, ops.clone());
            Fingerprinted::new(keyed).expect("a key");
            let hashed = start.elapsed();
            hashing.push(hashed);
            let (big_store, big_id) = (Arc::clone(&store), prepared.id.clone());
            let busy = store.writer_busy();
            let start = Instant::now();
            let big = tokio::spawn(async move {
                let result = write(&big_store, &big_id, version, ops).await;
                (result, start.elapsed())
            });
            // Sent 1 ms after the big write reached the writer (it is then queued or running:
            // each takes more).
            tokio::time::sleep(hashed + Duration::from_millis(1)).await;
            let small_start = Instant::now();
            let small = write(
                &store,
                &other,
                other_version,
                vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: format!("small save {scenario} {run}"),
                }],
            )
            .await;
            behind.push(small_start.elapsed());
            other_version = small.version;
            let (result, _took) = big.await.unwrap();
            // What the writer spent committing meanwhile: the big write's batch (and, if it
            // has committed already, the small save's own, about a millisecond).
            held.push(store.writer_busy() - busy);
            version = result.version;
        }
        println!(
            "| {scenario} | {} | {} | {} | {} | {} | {} |",
            ms(median(held.clone())),
            ms(*held.iter().max().unwrap()),
            ms(median(applying)),
            ms(median(hashing)),
            ms(median(behind.clone())),
            ms(*behind.iter().max().unwrap()),
        );
    }
}
