//! The store's write benchmarks, on this machine, in one run:
//! - the guarded write (a 200-char `replace_text` on one Note, fresh key, current version;
//!   20,000 sequential writes through the `Store` API) under FULL (group commit) and NORMAL;
//! - the floor: one bare `UPDATE` per `BEGIN IMMEDIATE` transaction (rusqlite, WAL), NORMAL
//!   and FULL;
//! - the fsync floor: a 4 KiB write + fdatasync loop in a file on the same filesystem;
//! - throughput with 16 concurrent writers (one Note each) under FULL, with group commit and
//!   with one commit per write (`max_batch: 1`).
//!
//! `cargo run --release -p quire-store --example bench_write -- [--writes N] [--dir PATH]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::OpenOptions;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_model::{NoteId, Op, TabId, Timestamp, Version};
use quire_store::{Change, NewNote, SqliteOptions, SqliteStore, Store, Synchronous, WriteRequest};

struct Args {
    writes: usize,
    dir: PathBuf,
}

fn args() -> Args {
    let mut out = Args {
        writes: 20_000,
        dir: std::env::temp_dir(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().expect("a value after the flag");
        match flag.as_str() {
            "--writes" => out.writes = value.parse().expect("--writes: a number"),
            "--dir" => out.dir = PathBuf::from(value),
            other => panic!("unknown flag {other} (known: --writes N, --dir PATH)"),
        }
    }
    out
}

struct Stats {
    median: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats {
        median: at(0.5),
        p99: at(0.99),
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// 200 characters, different for every `i` (so that no write is a no-op).
fn text_200(i: usize) -> String {
    let head = format!("write {i:>10} ");
    let mut s = head.clone();
    while s.len() < 200 {
        s.push_str("lorem ipsum dolor sit amet ");
    }
    s.truncate(200);
    s
}

fn replace(i: usize) -> Op {
    Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: text_200(i),
    }
}

async fn new_note(store: &dyn Store, n: usize) -> NoteId {
    let id = NoteId::from_uuid(uuid::Uuid::now_v7());
    store
        .create_note(NewNote {
            id: id.clone(),
            title: format!("Bench {n}"),
            author: "bench".to_owned(),
            now: Timestamp(1_796_019_881_000),
            idempotency_key: None,
        })
        .await
        .expect("create_note");
    id
}

fn request(id: &NoteId, version: u64, i: usize) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(version),
        idempotency_key: Some(format!("bench-{i}")),
        author: "bench".to_owned(),
        change: Change::Ops(vec![replace(i)]),
        now: Timestamp(1_796_019_881_000 + i as i64),
    }
}

/// Sequential guarded writes on one Note, each awaited before the next.
async fn guarded_sequential(dir: &Path, synchronous: Synchronous, writes: usize) -> Stats {
    let path = dir.join(format!("guarded-{synchronous:?}.db"));
    let store = SqliteStore::open(
        &path,
        SqliteOptions {
            synchronous,
            ..SqliteOptions::default()
        },
    )
    .expect("open");
    let id = new_note(&store, 0).await;
    let warmup = writes / 20;
    let mut samples = Vec::with_capacity(writes);
    for i in 0..warmup + writes {
        let req = request(&id, i as u64 + 1, i);
        let t = Instant::now();
        let result = store.write(req).await.expect("write");
        let took = t.elapsed();
        assert_eq!(result.version, Version(i as u64 + 2));
        if i >= warmup {
            samples.push(took);
        }
    }
    store.close().await.expect("close");
    stats(samples)
}

/// The floor: one bare UPDATE per BEGIN IMMEDIATE transaction, statement cached.
fn bare_update(dir: &Path, synchronous: &str, writes: usize) -> Stats {
    let path = dir.join(format!("bare-{synchronous}.db"));
    let conn = rusqlite::Connection::open(&path).expect("open");
    conn.pragma_update(None, "journal_mode", "WAL")
        .expect("wal");
    conn.pragma_update(None, "synchronous", synchronous)
        .expect("synchronous");
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL, n INTEGER NOT NULL);
         INSERT OR REPLACE INTO t VALUES (1, '', 0);",
    )
    .expect("schema");
    let warmup = writes / 20;
    let mut samples = Vec::with_capacity(writes);
    for i in 0..warmup + writes {
        let text = text_200(i);
        let t = Instant::now();
        conn.prepare_cached("BEGIN IMMEDIATE")
            .unwrap()
            .execute([])
            .unwrap();
        conn.prepare_cached("UPDATE t SET v = ?1, n = n + 1 WHERE id = 1")
            .unwrap()
            .execute([&text])
            .unwrap();
        conn.prepare_cached("COMMIT").unwrap().execute([]).unwrap();
        let took = t.elapsed();
        if i >= warmup {
            samples.push(took);
        }
    }
    stats(samples)
}

/// The fsync floor: overwrite 4 KiB blocks of a preallocated file in turn (as a reused WAL
/// is), fdatasync after each (what SQLite calls on Linux).
fn fsync_floor(dir: &Path, writes: usize) -> Stats {
    let path = dir.join("fsync-floor.bin");
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .expect("open");
    let blocks = 1024u64;
    file.write_all(&vec![0u8; (blocks * 4096) as usize])
        .expect("preallocate");
    file.sync_all().expect("sync");
    let block = vec![7u8; 4096];
    let warmup = writes / 20;
    let mut samples = Vec::with_capacity(writes);
    for i in 0..warmup + writes {
        let t = Instant::now();
        file.seek(SeekFrom::Start((i as u64 % blocks) * 4096))
            .expect("seek");
        file.write_all(&block).expect("write");
        file.sync_data().expect("fdatasync");
        let took = t.elapsed();
        if i >= warmup {
            samples.push(took);
        }
    }
    drop(file);
    std::fs::remove_file(&path).expect("remove");
    stats(samples)
}

/// `writers` tasks, each writing `per_writer` sequential guarded writes to its own Note.
/// Returns writes per second.
async fn concurrent(
    dir: &Path,
    name: &str,
    opts: SqliteOptions,
    writers: usize,
    per_writer: usize,
) -> f64 {
    let path = dir.join(format!("concurrent-{name}.db"));
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path, opts).expect("open"));
    let mut notes = Vec::new();
    for n in 0..writers {
        notes.push(new_note(store.as_ref(), n).await);
    }
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for id in notes {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            for i in 0..per_writer {
                store
                    .write(request(&id, i as u64 + 1, i))
                    .await
                    .expect("write");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("writer task");
    }
    let elapsed = start.elapsed();
    store.close().await.expect("close");
    (writers * per_writer) as f64 / elapsed.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let args = args();
    let dir = tempfile::Builder::new()
        .prefix("quire-bench-")
        .tempdir_in(&args.dir)
        .expect("temporary directory");
    let n = args.writes;
    println!(
        "databases in {} ({n} sequential writes each)",
        dir.path().display()
    );

    let fsync = fsync_floor(dir.path(), n.min(5_000));
    let bare_normal = bare_update(dir.path(), "NORMAL", n);
    let bare_full = bare_update(dir.path(), "FULL", n.min(5_000));
    let normal = guarded_sequential(dir.path(), Synchronous::Normal, n).await;
    let full = guarded_sequential(dir.path(), Synchronous::Full, n).await;

    let full_opts = |max_batch| SqliteOptions {
        synchronous: Synchronous::Full,
        max_batch,
        ..SqliteOptions::default()
    };
    let per_writer = (n / 16).clamp(100, 1_000);
    let grouped = concurrent(dir.path(), "grouped", full_opts(512), 16, per_writer).await;
    let one_each = concurrent(dir.path(), "one-each", full_opts(1), 16, per_writer).await;

    println!();
    println!("| measurement | median (us) | p99 (us) |");
    println!("|---|---:|---:|");
    let row = |name: &str, s: &Stats| {
        println!("| {name} | {:.1} | {:.1} |", us(s.median), us(s.p99));
    };
    row("fsync floor (4 KiB write + fdatasync)", &fsync);
    row("bare UPDATE per transaction, NORMAL", &bare_normal);
    row("bare UPDATE per transaction, FULL", &bare_full);
    row("guarded write, NORMAL", &normal);
    row("guarded write, FULL (group commit)", &full);
    println!();
    println!("| 16 concurrent writers, FULL | writes/s |");
    println!("|---|---:|");
    println!("| group commit (max_batch 512) | {grouped:.0} |");
    println!("| one commit per write (max_batch 1) | {one_each:.0} |");
    println!();
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let targets = [
        (
            "NORMAL median <= 2x bare-UPDATE floor",
            ratio(normal.median, bare_normal.median),
            2.0,
        ),
        (
            "FULL median <= 1.3x fsync floor",
            ratio(full.median, fsync.median),
            1.3,
        ),
    ];
    for (name, got, bound) in targets {
        let verdict = if got <= bound { "met" } else { "MISSED" };
        println!("{name}: {got:.2}x ({verdict})");
    }
    let speedup = grouped / one_each;
    let verdict = if speedup >= 2.0 { "met" } else { "MISSED" };
    println!("16 writers, group commit >= 2x one commit per write: {speedup:.2}x ({verdict})");
}
