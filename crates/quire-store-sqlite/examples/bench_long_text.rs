//! A long Markdown tab edited a line at a time, as a person typing in a large Note saves it
//! (`replace_text` with the whole text, every save): the guarded write's latency, the history
//! bytes each version adds, and reading the Note back at its newest and an older version.
//!
//! `cargo run --release -p quire-store-sqlite --example bench_long_text -- [--kib N] [--edits N]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use quire_testkit::bench::{Samples, arg, micros as us};

fn replace(id: &NoteId, expected: u64, text: String) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: Some(format!("edit-{expected}")),
        author: "bench".to_owned(),
        author_kind: AuthorKind::Person,
        change: Change::Ops(vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text,
        }]),
        now: Timestamp(1_796_019_882_000),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let kib = arg("--kib", 1024);
    let edits = arg("--edits", 300);
    println!("A {kib} KiB Markdown tab, {edits} one-line edits, each saved whole");
    println!();
    println!(
        "| synchronous | write p50 (us) | write p99 (us) | history bytes per version | note_at newest, median (us) | note_at middle, median (us) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, synchronous) in [("FULL", Synchronous::Full), ("NORMAL", Synchronous::Normal)] {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("long.db");
        let store = SqliteStore::open(
            &path,
            SqliteOptions {
                synchronous,
                ..SqliteOptions::default()
            },
        )
        .expect("open");
        let id = NoteId::from_uuid(uuid::Uuid::now_v7());
        store
            .create_note(NewNote {
                id: id.clone(),
                title: "Long".to_owned(),
                author: "bench".to_owned(),
                author_kind: AuthorKind::Person,
                now: Timestamp(1_796_019_881_000),
                idempotency_key: None,
            })
            .await
            .expect("create");
        let line = "A line of a long Note, with some words in it and a number: ";
        let mut lines: Vec<String> = (0..kib * 1024 / (line.len() + 6))
            .map(|i| format!("{line}{i:05}"))
            .collect();
        store
            .write(replace(&id, 1, lines.join("\n")))
            .await
            .expect("first text");
        let stored = |path: &std::path::Path| -> i64 {
            // Every stored column of the history rows (`deltas` since schema 5).
            let conn = rusqlite::Connection::open(path).expect("open the file");
            let spliced: bool = conn
                .query_row(
                    "SELECT count(*) FROM pragma_table_info('versions') WHERE name = 'deltas'",
                    [],
                    |r| r.get(0),
                )
                .expect("columns");
            let deltas = if spliced {
                "coalesce(length(deltas), 0)"
            } else {
                "0"
            };
            conn.query_row(
                &format!(
                    "SELECT sum(length(data) + length(strip) + length(summary) + {deltas}) FROM versions"
                ),
                [],
                |r| r.get(0),
            )
            .expect("sum")
        };
        let before = stored(&path);
        let mut samples = Samples::with_capacity(edits);
        for n in 0..edits {
            let at = n * 7919 % lines.len();
            lines[at].push_str(" edited");
            let text = lines.join("\n");
            let t = Instant::now();
            store
                .write(replace(&id, 2 + n as u64, text))
                .await
                .expect("edit");
            samples.push(t.elapsed());
        }
        let per_version = (stored(&path) - before) / edits as i64;
        let newest = Version(2 + edits as u64);
        let middle = Version(2 + edits as u64 / 2);
        // Median of 21 reads each (the read pool's connections, as the server reads).
        let read = |v: Version| {
            let store = &store;
            let id = &id;
            async move {
                let mut reads = Samples::with_capacity(21);
                for _ in 0..21 {
                    let t = Instant::now();
                    store.note_at(id, v).await.expect("note_at");
                    reads.push(t.elapsed());
                }
                reads.stats().median
            }
        };
        let newest_t = read(newest).await;
        let middle_t = read(middle).await;
        let s = samples.stats();
        println!(
            "| {name} | {:.0} | {:.0} | {per_version} | {:.0} | {:.0} |",
            us(s.median),
            us(s.p99),
            us(newest_t),
            us(middle_t)
        );
        store.close().await.expect("close");
    }
}
