//! The store's write benchmarks, on this machine, in one run:
//! - the guarded write (a 200-char `replace_text` on one Note, fresh key, current version;
//!   sequential writes through the `Store` API, each awaited) under FULL (group commit on) and
//!   under NORMAL;
//! - the floor: one bare `UPDATE` per `BEGIN IMMEDIATE` transaction (rusqlite, WAL, cached
//!   statements), NORMAL and FULL;
//! - the fsync floor: a 4 KiB write + fdatasync in a file on the same filesystem;
//! - throughput with 16 concurrent writers (one Note each) under FULL, group commit on and with
//!   one commit per write (`max_batch: 1`);
//! - reading a Note as it was at its first, middle and last version, after those writes.
//!
//! The floors are measured interleaved with the guarded writes (one sample of each in turn),
//! so that both see the same disk and the same load from other processes.
//!
//! `cargo run --release -p quire-store-sqlite --example bench_write -- [--writes N] [--dir PATH] [--normal-only]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quire_model::{NoteId, Version};
use quire_store::Store;
use quire_store::conformance::bench;
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use quire_testkit::bench::{Samples, Stats, micros as us, text_200};

struct Args {
    writes: usize,
    dir: PathBuf,
    /// Only the NORMAL comparison (quick, for trying a change).
    normal_only: bool,
}

fn args() -> Args {
    let mut out = Args {
        writes: 20_000,
        dir: std::env::temp_dir(),
        normal_only: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--normal-only" {
            out.normal_only = true;
            continue;
        }
        let value = it.next().expect("a value after the flag");
        match flag.as_str() {
            "--writes" => out.writes = value.parse().expect("--writes: a number"),
            "--dir" => out.dir = PathBuf::from(value),
            other => panic!("unknown flag {other} (known: --writes N, --dir PATH, --normal-only)"),
        }
    }
    out
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

/// Sequential guarded writes on one Note.
struct Guarded {
    store: SqliteStore,
    id: NoteId,
    version: u64,
}

impl Guarded {
    async fn open(dir: &Path, synchronous: Synchronous) -> Self {
        let path = dir.join(format!("guarded-{synchronous:?}.db"));
        let opts = SqliteOptions {
            synchronous,
            ..SqliteOptions::default()
        };
        let store = SqliteStore::open(&path, opts).expect("open");
        let id = bench::note(&store, 0).await;
        Guarded {
            store,
            id,
            version: 1,
        }
    }

    async fn once(&mut self, i: usize) -> Duration {
        let req = bench::write(&self.id, self.version, i, text_200(i));
        let t = Instant::now();
        let result = self.store.write(req).await.expect("write");
        let took = t.elapsed();
        self.version += 1;
        assert_eq!(result.version, Version(self.version));
        took
    }

    /// Reading the Note as it was at its first, middle and last version.
    async fn reads(&self) -> Vec<(u64, Stats)> {
        let mut out = Vec::new();
        for v in [1, self.version / 2, self.version] {
            let mut samples = Samples::default();
            for _ in 0..200 {
                let t = Instant::now();
                let note = self
                    .store
                    .note_at(&self.id, Version(v))
                    .await
                    .expect("note_at");
                samples.push(t.elapsed());
                assert_eq!(note.version, Version(v));
            }
            out.push((v, samples.stats()));
        }
        out
    }
}

/// The floor: one bare UPDATE per BEGIN IMMEDIATE transaction, statements cached.
struct Bare(rusqlite::Connection);

impl Bare {
    fn open(dir: &Path, synchronous: &str) -> Self {
        let conn =
            rusqlite::Connection::open(dir.join(format!("bare-{synchronous}.db"))).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        conn.pragma_update(None, "synchronous", synchronous)
            .expect("synchronous");
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL, n INTEGER NOT NULL);
             INSERT INTO t VALUES (1, '', 0);",
        )
        .expect("schema");
        Bare(conn)
    }

    fn once(&self, i: usize) -> Duration {
        let text = text_200(i);
        let conn = &self.0;
        timed(|| {
            conn.prepare_cached("BEGIN IMMEDIATE")
                .unwrap()
                .execute([])
                .unwrap();
            conn.prepare_cached("UPDATE t SET v = ?1, n = n + 1 WHERE id = 1")
                .unwrap()
                .execute([&text])
                .unwrap();
            conn.prepare_cached("COMMIT").unwrap().execute([]).unwrap();
        })
        .1
    }
}

/// The fsync floor: overwrite the 4 KiB blocks of a preallocated file in turn (as a reused
/// WAL is), fdatasync after each (what SQLite calls on Linux).
struct Fsync(File);

const FSYNC_BLOCKS: u64 = 1024;

impl Fsync {
    fn open(dir: &Path) -> Self {
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(dir.join("fsync-floor.bin"))
            .expect("open");
        file.write_all(&vec![0u8; (FSYNC_BLOCKS * 4096) as usize])
            .expect("preallocate");
        file.sync_all().expect("sync");
        Fsync(file)
    }

    fn once(&mut self, i: usize) -> Duration {
        let block = [7u8; 4096];
        let file = &mut self.0;
        timed(|| {
            file.seek(SeekFrom::Start((i as u64 % FSYNC_BLOCKS) * 4096))
                .expect("seek");
            file.write_all(&block).expect("write");
            file.sync_data().expect("fdatasync");
        })
        .1
    }
}

/// `writers` tasks, each writing `per_writer` sequential guarded writes to its own Note.
/// Returns writes per second.
async fn concurrent(
    dir: &Path,
    name: &str,
    max_batch: usize,
    writers: usize,
    per_writer: usize,
) -> f64 {
    let opts = SqliteOptions {
        synchronous: Synchronous::Full,
        max_batch,
        ..SqliteOptions::default()
    };
    let path = dir.join(format!("concurrent-{name}.db"));
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path, opts).expect("open"));
    let mut notes = Vec::new();
    for n in 0..writers {
        notes.push((Arc::clone(&store), bench::note(store.as_ref(), n).await));
    }
    let elapsed = bench::concurrent_writes(notes, per_writer, text_200).await;
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
    let dir = dir.path();
    let n = args.writes;
    let warmup = n / 20;
    println!(
        "databases in {} ({n} sequential writes each)",
        dir.display()
    );

    // NORMAL: the guarded write and the bare UPDATE, in turn.
    let mut guarded_normal = Guarded::open(dir, Synchronous::Normal).await;
    let bare_normal = Bare::open(dir, "NORMAL");
    let (mut g, mut b) = (Samples::default(), Samples::default());
    for i in 0..warmup + n {
        let tg = guarded_normal.once(i).await;
        let tb = bare_normal.once(i);
        if i >= warmup {
            g.push(tg);
            b.push(tb);
        }
    }
    let (normal, bare_normal) = (g.stats(), b.stats());
    if args.normal_only {
        guarded_normal.store.close().await.expect("close");
        println!(
            "NORMAL median: guarded {:.1} us, bare UPDATE {:.1} us: {:.2}x",
            us(normal.median),
            us(bare_normal.median),
            normal.median.as_secs_f64() / bare_normal.median.as_secs_f64()
        );
        return;
    }
    let reads = guarded_normal.reads().await;
    guarded_normal.store.close().await.expect("close");

    // FULL: the guarded write, the bare UPDATE and the fsync floor, in turn.
    let mut guarded_full = Guarded::open(dir, Synchronous::Full).await;
    let bare_full = Bare::open(dir, "FULL");
    let mut fsync = Fsync::open(dir);
    let (mut g, mut b, mut f) = (Samples::default(), Samples::default(), Samples::default());
    for i in 0..warmup + n {
        let tg = guarded_full.once(i).await;
        let tb = bare_full.once(i);
        let tf = fsync.once(i);
        if i >= warmup {
            g.push(tg);
            b.push(tb);
            f.push(tf);
        }
    }
    let (full, bare_full, fsync) = (g.stats(), b.stats(), f.stats());
    guarded_full.store.close().await.expect("close");

    let per_writer = (n / 16).clamp(100, 1_000);
    let grouped = concurrent(dir, "grouped", 512, 16, per_writer).await;
    let one_each = concurrent(dir, "one-each", 1, 16, per_writer).await;

    println!();
    println!("| measurement | median (us) | p99 (us) |");
    println!("|---|---:|---:|");
    let row = |name: &str, s: &Stats| {
        println!("| {name} | {:.1} | {:.1} |", us(s.median), us(s.p99));
    };
    row("guarded write, NORMAL", &normal);
    row("bare UPDATE per transaction, NORMAL", &bare_normal);
    row("guarded write, FULL (group commit)", &full);
    row("bare UPDATE per transaction, FULL", &bare_full);
    row("fsync floor (4 KiB write + fdatasync)", &fsync);
    for (v, s) in &reads {
        let last = reads.last().map_or(0, |r| r.0);
        row(&format!("note_at(version {v}), Note of {last} versions"), s);
    }
    println!();
    println!("| 16 concurrent writers, FULL, {per_writer} writes each | writes/s |");
    println!("|---|---:|");
    println!("| group commit (max_batch 512) | {grouped:.0} |");
    println!("| one commit per write (max_batch 1) | {one_each:.0} |");
    println!();
    let ratio = |a: &Stats, b: &Stats| a.median.as_secs_f64() / b.median.as_secs_f64();
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    let r = ratio(&normal, &bare_normal);
    println!(
        "NORMAL median <= 2x bare-UPDATE floor: {r:.2}x ({})",
        verdict(r <= 2.0)
    );
    let r = ratio(&full, &fsync);
    println!(
        "FULL median <= 1.3x fsync floor: {r:.2}x ({})",
        verdict(r <= 1.3)
    );
    let r = grouped / one_each;
    println!(
        "16 writers under FULL, group commit >= 2x one commit per write: {r:.2}x ({})",
        verdict(r >= 2.0)
    );
}
