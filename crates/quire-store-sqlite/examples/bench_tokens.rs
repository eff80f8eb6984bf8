//! What checking a bearer token costs per request, and what recording its use would cost if it
//! were written on every request:
//! - `find_token` through the `Store` API (the read every request makes: revoked and expired
//!   tokens are refused from what it returns), on a database holding `--tokens` tokens;
//! - the same lookup as a bare prepared `SELECT` (rusqlite, WAL), with the columns of schema 6
//!   and with schema 7's three more (`expires_at`, `revoked_at`, `last_used_at`): what the
//!   revocation and expiry check adds to a lookup;
//! - `record_token_use` (one write through the writer, FULL): what the server does at most once
//!   a minute per token instead of on every request.
//!
//! Samples interleave (one of each in turn) so that all see the same load.
//!
//! `cargo run --release -p quire-store-sqlite --example bench_tokens -- [--lookups N] [--tokens N]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use quire_api::Scope;
use quire_model::{AuthorKind, Timestamp};
use quire_store::{HashedToken, Store};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use quire_testkit::bench::{Samples, Stats, arg, micros as us};
use rusqlite::{Connection, OptionalExtension};

fn line(what: &str, s: &Stats) {
    println!(
        "{what:<52} p50 {:>7.1} us  p99 {:>7.1} us  mean {:>7.1} us  (n = {})",
        us(s.median),
        us(s.p99),
        us(s.mean),
        s.count
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let lookups = arg("--lookups", 20_000);
    let tokens = arg("--tokens", 100);
    let writes = arg("--writes", 500);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.db");
    let store = SqliteStore::open(
        &path,
        SqliteOptions {
            synchronous: Synchronous::Full,
            ..SqliteOptions::default()
        },
    )
    .unwrap();
    let mut ids = Vec::new();
    for i in 0..tokens {
        let t = store
            .create_token(HashedToken::new(
                &format!("agent-{i}"),
                &[Scope::NotesRead],
                AuthorKind::Agent,
                &format!("{i:064x}"),
                None,
            ))
            .await
            .unwrap();
        ids.push(t.id);
    }
    let raw = Connection::open(&path).unwrap();
    let old = "SELECT id, name, scopes, created_at, kind FROM tokens WHERE hash = ?1";
    let new = "SELECT id, name, scopes, created_at, kind, expires_at, revoked_at, last_used_at \
               FROM tokens WHERE hash = ?1";
    let mut via_store = Samples::with_capacity(lookups);
    let mut bare_old = Samples::with_capacity(lookups);
    let mut bare_new = Samples::with_capacity(lookups);
    for i in 0..lookups {
        let hash = format!("{:064x}", i % tokens);
        let t = Instant::now();
        let found = store.find_token(&hash).await.unwrap();
        via_store.push(t.elapsed());
        assert!(found.is_some());
        let t = Instant::now();
        let row: Option<i64> = raw
            .prepare_cached(old)
            .unwrap()
            .query_row([&hash], |r| r.get(0))
            .optional()
            .unwrap();
        bare_old.push(t.elapsed());
        assert!(row.is_some());
        let t = Instant::now();
        let row: Option<(i64, Option<i64>, Option<i64>)> = raw
            .prepare_cached(new)
            .unwrap()
            .query_row([&hash], |r| Ok((r.get(0)?, r.get(5)?, r.get(6)?)))
            .optional()
            .unwrap();
        bare_new.push(t.elapsed());
        assert!(row.is_some());
    }
    let mut use_writes = Samples::with_capacity(writes);
    for i in 0..writes {
        let t = Instant::now();
        store
            .record_token_use(ids[i % ids.len()], Timestamp(1_800_000_000_000 + i as i64))
            .await
            .unwrap();
        use_writes.push(t.elapsed());
    }
    println!("{tokens} tokens; {lookups} lookups, {writes} use writes");
    line(
        "find_token (Store API: read pool, spawn_blocking)",
        &via_store.stats(),
    );
    line("bare SELECT, schema 6 columns", &bare_old.stats());
    line(
        "bare SELECT, schema 7 columns (+ expiry, revocation)",
        &bare_new.stats(),
    );
    line("record_token_use (one write, FULL)", &use_writes.stats());
    store.close().await.unwrap();
}
