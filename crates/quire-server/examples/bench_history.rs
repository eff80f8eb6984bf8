//! The versions panel of a long-lived Note: one Note with `--versions` versions (default
//! 100,000; one-character saves, as autosave makes them), then over HTTP on one keep-alive
//! connection, alternated: the whole history (`GET /notes/{id}/versions`, what the panel read
//! before pages) against the newest page (`?limit=100`, what it reads now) and a page deep in
//! the history (`?before=V&limit=100`). Bytes of each body and the round trip (median, p99).
//!
//! The versions are written straight into the store (`synchronous=NORMAL`, so that 100,000
//! commits take seconds, not minutes); the server then serves that file as `serve` does.
//!
//! `cargo run --release -p quire-server --example bench_history [-- --versions N --runs R]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::time::Instant;

use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};
use quire_server::ServeConfig;
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use quire_testkit::bench::{Samples, arg, micros};

fn main() {
    let versions = arg("--versions", 100_000);
    let runs = arg("--runs", 20);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let token = support::make_token(&db, "person", AuthorKind::Person);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let t0 = Instant::now();
    let id = rt.block_on(fill(&db, versions));
    eprintln!(
        "{versions} versions written in {:.1} s",
        t0.elapsed().as_secs_f64()
    );

    let server = support::serve(ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0))));
    let base = format!("http://{}/notes/{id}/versions", server.addr);
    let deep = versions / 2;
    let cases = [
        ("the whole history", base.clone()),
        ("the newest page (?limit=100)", format!("{base}?limit=100")),
        (
            "a page deep in it (?before=V/2&limit=100)",
            format!("{base}?before={deep}&limit=100"),
        ),
    ];
    let results = rt.block_on(async {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        let mut samples: Vec<(Samples, usize)> = cases
            .iter()
            .map(|_| (Samples::with_capacity(runs), 0))
            .collect();
        for round in 0..runs + 1 {
            for (i, (_, url)) in cases.iter().enumerate() {
                let t = Instant::now();
                let body = client
                    .get(url)
                    .bearer_auth(&token)
                    .send()
                    .await
                    .unwrap()
                    .error_for_status()
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap();
                let took = t.elapsed();
                // The first round warms the connection and the caches.
                if round > 0 {
                    samples[i].0.push(took);
                }
                samples[i].1 = body.len();
            }
        }
        samples
    });
    server.stop();

    println!("The versions panel of a Note with {versions} versions, {runs} reads each, loopback");
    println!("| read | body | round trip p50 | p99 |");
    println!("| --- | --- | --- | --- |");
    for ((what, _), (samples, bytes)) in cases.iter().zip(results) {
        let s = samples.stats();
        println!(
            "| {what} | {:.1} KiB | {:.2} ms | {:.2} ms |",
            bytes as f64 / 1024.0,
            micros(s.median) / 1000.0,
            micros(s.p99) / 1000.0
        );
    }
}

/// One Note with `versions` versions: its creation, then one-character saves.
async fn fill(db: &std::path::Path, versions: usize) -> NoteId {
    let options = SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    };
    let store = SqliteStore::open(db, options).unwrap();
    let id = NoteId::from_uuid(uuid::Uuid::now_v7());
    let now = Timestamp(1_780_000_000_000);
    store
        .create_note(NewNote {
            id: id.clone(),
            title: "Research log".to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now,
            idempotency_key: None,
        })
        .await
        .unwrap();
    let mut text = String::from("A long-lived Note: ");
    for v in 1..versions {
        text.push(char::from(b'a' + (v % 26) as u8));
        store
            .write(WriteRequest {
                note_id: id.clone(),
                expected_version: Version(v as u64),
                idempotency_key: Some(format!("save-{v}")),
                author: "person".to_owned(),
                author_kind: AuthorKind::Person,
                change: Change::Ops(vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: text.clone(),
                }]),
                now: Timestamp(now.0 + v as i64),
            })
            .await
            .unwrap();
    }
    store.close().await.unwrap();
    id
}
