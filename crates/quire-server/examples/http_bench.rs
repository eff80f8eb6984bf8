//! The guarded write over HTTP on loopback: one client, one keep-alive connection, sequential
//! requests. Small `GET /notes/{id}` and a 200-character `replace_text` PATCH, p50 / p99, under
//! `synchronous=FULL` (the default) and `NORMAL`.
//!
//! `cargo run --release -p quire-server --example http_bench [-- ITERATIONS]`
#![allow(clippy::unwrap_used)]

mod support;

use std::net::SocketAddr;
use std::time::Instant;

use quire_model::AuthorKind;
use quire_server::ServeConfig;
use quire_store_sqlite::Synchronous;
use quire_testkit::bench::{Samples, micros, text_200};
use serde_json::{Value, json};

const WARMUP: usize = 300;

fn main() {
    let iterations: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("ITERATIONS is a number"))
        .unwrap_or(5_000);
    println!("HTTP on loopback, one keep-alive connection, {iterations} requests each");
    println!("| synchronous | request | p50 | p99 | mean |");
    println!("| --- | --- | --- | --- | --- |");
    for (name, mode) in [("FULL", Synchronous::Full), ("NORMAL", Synchronous::Normal)] {
        run(name, mode, iterations);
    }
}

fn run(name: &str, mode: Synchronous, iterations: usize) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let token = support::make_token(&db, "bench", AuthorKind::Person);

    // The server on its own runtime and threads, as the binary runs it.
    let config = ServeConfig {
        synchronous: mode,
        ..ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0)))
    };
    let server = support::serve(config);
    let addr = server.addr;

    let client_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    client_rt.block_on(async {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        let base = format!("http://{addr}");
        let note: Value = http
            .post(format!("{base}/notes"))
            .bearer_auth(&token)
            .json(&json!({ "title": "bench" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let url = format!("{base}/notes/{}", note["id"].as_str().unwrap());
        let mut version = note["version"].as_u64().unwrap();

        let mut gets = Samples::with_capacity(iterations);
        for i in 0..WARMUP + iterations {
            let t = Instant::now();
            let resp = http.get(&url).bearer_auth(&token).send().await.unwrap();
            assert!(resp.status().is_success());
            resp.bytes().await.unwrap();
            if i >= WARMUP {
                gets.push(t.elapsed());
            }
        }

        let mut patches = Samples::with_capacity(iterations);
        for i in 0..WARMUP + iterations {
            let text = text_200(i);
            let body = json!({
                "expected_version": version,
                "changes": [{ "op": "replace_text", "tab_id": "markdown", "text": text }],
            });
            let t = Instant::now();
            let resp = http
                .patch(&url)
                .bearer_auth(&token)
                .json(&body)
                .send()
                .await
                .unwrap();
            assert!(resp.status().is_success(), "{}", resp.status());
            let result: Value = resp.json().await.unwrap();
            if i >= WARMUP {
                patches.push(t.elapsed());
            }
            version = result["version"].as_u64().unwrap();
        }
        report(name, "GET /notes/{id}", gets);
        report(name, "PATCH 200-char replace_text", patches);
    });
    server.stop();
}

fn report(mode: &str, what: &str, samples: Samples) {
    let stats = samples.stats();
    println!(
        "| {mode} | {what} | {:.0} us | {:.0} us | {:.0} us |",
        micros(stats.median),
        micros(stats.p99),
        micros(stats.mean)
    );
}
