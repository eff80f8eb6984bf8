//! The PostgreSQL store's write benchmark, in one run on one PostgreSQL (each measurement interleaved
//! with the others, one write of each in turn, so that all see the same disk):
//! - the guarded write (a 200-char `replace_text` on one Note, fresh key, current version,
//!   through the `Store` API), in one round trip (the store holds the Note at the version it
//!   last wrote) and in two (a store that holds nothing: read, then commit), next to its floor, one bare single-row `UPDATE` of the same text
//!   (autocommit, prepared);
//! - both with every commit flushed (`synchronous_commit=on`, PostgreSQL's default: what the
//!   server runs) and without waiting for the flush (`synchronous_commit=off`: the round trips
//!   and the work alone);
//! - throughput of 16 concurrent writers (one Note each) spread over two stores, each with its
//!   own pool and listening for the other's commits, as two servers are (without their HTTP),
//!   next to 16 connections doing the bare `UPDATE`.
//!
//! The server is a throwaway cluster started here with PostgreSQL's durable defaults, or the
//! one named by `QUIRE_TEST_PG`.
//!
//! `cargo run --release -p quire-store-postgres --example pg_bench -- [--writes N]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_model::Version;
use quire_store::Store;
use quire_store::conformance::bench;
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::bench::{Samples, Stats, micros, text_200};
use quire_testkit::pg::{Cluster, Durability};
use tokio_postgres::NoTls;

fn writes_arg() -> usize {
    let mut writes = 5_000;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().expect("a value after the flag");
        match flag.as_str() {
            "--writes" => writes = value.parse().expect("--writes: a number"),
            other => panic!("unknown flag {other} (known: --writes N)"),
        }
    }
    writes
}

async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect");
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            eprintln!("bench connection: {e}");
        }
    });
    client
}

/// `url` with `synchronous_commit` set for every session opened through it.
fn with_sync(url: &str, sync: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}options=-c%20synchronous_commit%3D{sync}")
}

struct Trio {
    /// Through a store that holds the Note at the version it wrote: one round trip.
    warm: Stats,
    /// Through a store that keeps no Notes (`recent_notes: 0`): read, then commit.
    cold: Stats,
    floor: Stats,
}

/// Bare UPDATEs and guarded writes (warm and cold), interleaved, on one database.
async fn sequential(url: &str, writes: usize) -> Trio {
    let warm = PgStore::connect(url, PgOptions::default())
        .await
        .expect("open the store");
    let cold = PgStore::connect(
        url,
        PgOptions {
            recent_notes: 0,
            ..PgOptions::default()
        },
    )
    .await
    .expect("open the store");
    let warm_note = bench::note(&warm, 0).await;
    let cold_note = bench::note(&cold, 1).await;
    let floor = connect(url).await;
    floor
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS floor (id int PRIMARY KEY, v text NOT NULL, n bigint NOT NULL);
             INSERT INTO floor VALUES (1, '', 0) ON CONFLICT (id) DO NOTHING;",
        )
        .await
        .expect("floor table");
    let update = floor
        .prepare("UPDATE floor SET v = $1, n = n + 1 WHERE id = 1")
        .await
        .expect("prepare");

    // One of each in turn, the order rotating, so that all three see the same disk.
    let warmup = writes / 20;
    let (mut warm_samples, mut cold_samples, mut bare) =
        (Samples::default(), Samples::default(), Samples::default());
    let (mut warm_version, mut cold_version) = (1, 1);
    for i in 0..warmup + writes {
        for turn in 0..3 {
            let t = Instant::now();
            let samples = match (i + turn) % 3 {
                0 => {
                    let n = floor
                        .execute(&update, &[&text_200(i)])
                        .await
                        .expect("update");
                    assert_eq!(n, 1);
                    &mut bare
                }
                1 => {
                    let result = warm
                        .write(bench::write(&warm_note, warm_version, i, text_200(i)))
                        .await
                        .expect("write");
                    warm_version += 1;
                    assert_eq!(result.version, Version(warm_version));
                    &mut warm_samples
                }
                _ => {
                    let result = cold
                        .write(bench::write(&cold_note, cold_version, i, text_200(i)))
                        .await
                        .expect("write");
                    cold_version += 1;
                    assert_eq!(result.version, Version(cold_version));
                    &mut cold_samples
                }
            };
            if i >= warmup {
                samples.push(t.elapsed());
            }
        }
    }
    warm.close().await.expect("close");
    cold.close().await.expect("close");
    Trio {
        warm: warm_samples.stats(),
        cold: cold_samples.stats(),
        floor: bare.stats(),
    }
}

/// 16 writers, one Note each, half on each of two stores: writes per second.
async fn concurrent_guarded(url: &str, writers: usize, per_writer: usize) -> f64 {
    let servers = [
        Arc::new(
            PgStore::connect(url, PgOptions::default())
                .await
                .expect("open"),
        ),
        Arc::new(
            PgStore::connect(url, PgOptions::default())
                .await
                .expect("open"),
        ),
    ];
    // Each listening for the other's writes and handing them on, as servers do.
    for server in &servers {
        let mut heard = server.others().await.expect("listen");
        tokio::spawn(async move { while heard.recv().await.is_some() {} });
    }
    let mut notes = Vec::new();
    for n in 0..writers {
        let store: Arc<dyn Store> = servers[n % 2].clone();
        let id = bench::note(store.as_ref(), n).await;
        notes.push((store, id));
    }
    let elapsed = bench::concurrent_writes(notes, per_writer, text_200).await;
    for s in &servers {
        s.close().await.expect("close");
    }
    (writers * per_writer) as f64 / elapsed.as_secs_f64()
}

/// The same load as bare UPDATEs: `writers` connections, one row each.
async fn concurrent_floor(url: &str, writers: usize, per_writer: usize) -> f64 {
    let setup = connect(url).await;
    setup
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS floor_many (id int PRIMARY KEY, v text NOT NULL, n bigint NOT NULL)",
        )
        .await
        .expect("floor table");
    for w in 0..writers as i32 {
        setup
            .execute(
                "INSERT INTO floor_many VALUES ($1, '', 0) ON CONFLICT (id) DO NOTHING",
                &[&w],
            )
            .await
            .expect("row");
    }
    let mut clients = Vec::new();
    for _ in 0..writers {
        clients.push(connect(url).await);
    }
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (w, client) in clients.into_iter().enumerate() {
        tasks.spawn(async move {
            let update = client
                .prepare("UPDATE floor_many SET v = $2, n = n + 1 WHERE id = $1")
                .await
                .expect("prepare");
            for i in 0..per_writer {
                client
                    .execute(&update, &[&(w as i32), &text_200(i)])
                    .await
                    .expect("update");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("writer task");
    }
    (writers * per_writer) as f64 / start.elapsed().as_secs_f64()
}

async fn setting(url: &str, name: &str) -> String {
    let client = connect(url).await;
    client
        .query_one(&format!("SHOW {name}"), &[])
        .await
        .expect("SHOW")
        .get(0)
}

#[tokio::main]
async fn main() {
    let writes = writes_arg();
    let cluster = Cluster::from_env_or_start(Durability::Durable).expect("a PostgreSQL");
    let db = cluster.fresh_database().await.expect("a database");
    let url = db.url().to_owned();
    let version = setting(&url, "server_version").await;
    println!(
        "PostgreSQL {version} at {} (fsync={}, synchronous_commit={}), {writes} writes of each kind, interleaved",
        cluster.admin_url(),
        setting(&url, "fsync").await,
        setting(&url, "synchronous_commit").await,
    );

    let durable = sequential(&url, writes).await;
    let unflushed = sequential(&with_sync(&url, "off"), writes).await;
    let per_writer = (writes / 16).clamp(100, 1_000);
    let guarded16 = concurrent_guarded(&url, 16, per_writer).await;
    let floor16 = concurrent_floor(&url, 16, per_writer).await;

    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!();
    println!("| measurement | median (us) | p99 (us) | median / floor |");
    println!("|---|---:|---:|---:|");
    for (name, trio) in [
        ("synchronous_commit=on", &durable),
        ("synchronous_commit=off", &unflushed),
    ] {
        println!(
            "| bare single-row UPDATE (floor), {name} | {:.1} | {:.1} | 1.00 |",
            micros(trio.floor.median),
            micros(trio.floor.p99)
        );
        for (kind, s) in [
            (
                "guarded write, 1 round trip (store holds the Note)",
                &trio.warm,
            ),
            (
                "guarded write, 2 round trips (read, then commit)",
                &trio.cold,
            ),
        ] {
            println!(
                "| {kind}, {name} | {:.1} | {:.1} | {:.2} |",
                micros(s.median),
                micros(s.p99),
                ratio(s.median, trio.floor.median)
            );
        }
    }
    println!();
    println!(
        "| 16 concurrent writers, synchronous_commit=on, {per_writer} writes each | writes/s |"
    );
    println!("|---|---:|");
    println!("| guarded writes, one Note each, over two stores | {guarded16:.0} |");
    println!("| bare UPDATEs, one row each, 16 connections (floor) | {floor16:.0} |");
    println!();
    for (kind, s) in [
        ("1 round trip", &durable.warm),
        ("2 round trips", &durable.cold),
    ] {
        let r = ratio(s.median, durable.floor.median);
        println!(
            "target: guarded median <= 1.5x the floor (synchronous_commit=on), {kind}: {r:.2}x {}",
            if r <= 1.5 { "met" } else { "missed" }
        );
    }
    drop(db);
    cluster.stop();
}
