//! Experiment 2: what the check costs per write. Quire's whole guarded write (the product's
//! `SqliteStore::write`) is timed as it ships; the check itself is isolated on a lab replica of
//! the write's transaction (the same statements, prepared and cached), run with no check, a
//! Note version and a tab version. Below them, the floors: one bare `UPDATE` per transaction
//! and a bare `fdatasync`, under `synchronous` FULL and NORMAL.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use quire_model::{AuthorKind, Op, TabId};
use quire_store::{Change, WriteRequest};
use quire_store_sqlite::{SqliteOptions, Synchronous};
use quire_testkit::bench::Samples;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::harness::{self, LabStore, rng};
use crate::report::{Section, Table, us_range};

#[derive(Debug, Clone)]
pub struct Params {
    pub writes: usize,
    pub repetitions: usize,
    /// Characters of each `replace_text`.
    pub text_chars: usize,
}

impl Params {
    /// The article's: 2,000 sequential 200-character `replace_text`, 3 repetitions.
    pub fn article() -> Self {
        Params {
            writes: 2_000,
            repetitions: 3,
            text_chars: 200,
        }
    }
}

/// Which version the replica compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    None,
    Note,
    Tab,
}

/// A 200-character text that differs from write to write.
fn text(i: usize, chars: usize) -> String {
    let stamp = format!("edit {i:06} ");
    let filler = "lorem ipsum dolor sit amet ".chars().cycle();
    stamp.chars().chain(filler).take(chars).collect()
}

/// Medians and p99s of each repetition.
#[derive(Debug, Clone, Default)]
pub struct Timing {
    pub medians: Vec<Duration>,
    pub p99s: Vec<Duration>,
}

impl Timing {
    fn push(&mut self, samples: Vec<Duration>) {
        let stats = Samples::from(samples).stats();
        self.medians.push(stats.median);
        self.p99s.push(stats.p99);
    }

    fn range(v: &[Duration]) -> String {
        let lo = v.iter().min().copied().unwrap_or_default();
        let hi = v.iter().max().copied().unwrap_or_default();
        us_range(lo, hi)
    }

    pub fn median_range(&self) -> String {
        Self::range(&self.medians)
    }

    pub fn p99_range(&self) -> String {
        Self::range(&self.p99s)
    }

    pub fn best_median(&self) -> Duration {
        self.medians.iter().min().copied().unwrap_or_default()
    }
}

/// One repetition of Quire's guarded write: `writes` times in a row on one Note.
pub async fn product(
    p: &Params,
    synchronous: Synchronous,
    rep: u64,
) -> anyhow::Result<Vec<Duration>> {
    let lab = LabStore::open_with(SqliteOptions {
        synchronous,
        ..SqliteOptions::default()
    })?;
    let store = lab.dyn_store();
    let mut keys = rng(rep, 1);
    let note = harness::create_note(&*store, &mut rng(rep, 0), "cost").await?;
    let mut version = store.get_note(&note).await?.note.version;
    let mut samples = Vec::with_capacity(p.writes);
    for i in 0..p.writes {
        let request = WriteRequest {
            note_id: note.clone(),
            expected_version: version,
            idempotency_key: Some(harness::key(&mut keys)),
            author: "lab".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: text(i, p.text_chars),
            }]),
            now: harness::now(),
        };
        let started = Instant::now();
        let result = store.write(request).await?;
        samples.push(started.elapsed());
        version = result.version;
    }
    store.close().await?;
    Ok(samples)
}

/// The lab's replica of the guarded write's transaction.
struct Replica {
    conn: Connection,
    check: Check,
}

const NOTE: &str = "note-1";
const TAB: &str = "markdown";

fn open_sqlite(path: &Path, synchronous: Synchronous) -> anyhow::Result<Connection> {
    let conn = Connection::open(path)?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        bail!("journal_mode is {mode}, not WAL");
    }
    let sync = match synchronous {
        Synchronous::Full => "FULL",
        Synchronous::Normal => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", sync)?;
    Ok(conn)
}

impl Replica {
    fn open(path: &Path, synchronous: Synchronous, check: Check) -> anyhow::Result<Self> {
        let conn = open_sqlite(path, synchronous)?;
        conn.execute_batch(
            "CREATE TABLE notes (id TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT;
             CREATE TABLE tabs (note_id TEXT NOT NULL, tab_id TEXT NOT NULL,
                                version INTEGER NOT NULL, data TEXT NOT NULL,
                                PRIMARY KEY (note_id, tab_id)) STRICT;
             CREATE TABLE idem (note_id TEXT NOT NULL, key TEXT NOT NULL, result TEXT NOT NULL,
                                PRIMARY KEY (note_id, key)) STRICT;
             INSERT INTO notes VALUES ('note-1', 1);
             INSERT INTO tabs VALUES ('note-1', 'markdown', 1, '');",
        )?;
        Ok(Replica { conn, check })
    }

    /// Key, then (maybe) the version, then the change, the bump and the key + result, in one
    /// `BEGIN IMMEDIATE` transaction. `Ok(Err(current))` is a conflict.
    fn write(&mut self, expected: u64, key: &str, text: &str) -> anyhow::Result<Result<u64, u64>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let replay: Option<String> = tx
            .prepare_cached("SELECT result FROM idem WHERE note_id = ?1 AND key = ?2")?
            .query_row(params![NOTE, key], |r| r.get(0))
            .optional()?;
        if let Some(result) = replay {
            let version: u64 = result.parse().context("stored result")?;
            return Ok(Ok(version));
        }
        let current: Option<u64> = match self.check {
            Check::None => None,
            Check::Note => Some(
                tx.prepare_cached("SELECT version FROM notes WHERE id = ?1")?
                    .query_row(params![NOTE], |r| r.get(0))?,
            ),
            Check::Tab => Some(
                tx.prepare_cached("SELECT version FROM tabs WHERE note_id = ?1 AND tab_id = ?2")?
                    .query_row(params![NOTE, TAB], |r| r.get(0))?,
            ),
        };
        if let Some(current) = current
            && current != expected
        {
            return Ok(Err(current));
        }
        let version: u64 = tx
            .prepare_cached(
                "UPDATE notes SET version = version + 1 WHERE id = ?1 RETURNING version",
            )?
            .query_row(params![NOTE], |r| r.get(0))?;
        tx.prepare_cached(
            "UPDATE tabs SET data = ?3, version = ?4 WHERE note_id = ?1 AND tab_id = ?2",
        )?
        .execute(params![NOTE, TAB, text, version])?;
        tx.prepare_cached("INSERT INTO idem (note_id, key, result) VALUES (?1, ?2, ?3)")?
            .execute(params![NOTE, key, version.to_string()])?;
        tx.commit()?;
        Ok(Ok(version))
    }
}

fn replica(
    p: &Params,
    synchronous: Synchronous,
    check: Check,
    rep: u64,
) -> anyhow::Result<Vec<Duration>> {
    let dir = tempfile::tempdir()?;
    let mut replica = Replica::open(&dir.path().join("replica.db"), synchronous, check)?;
    let mut keys = rng(rep, 1);
    let mut version = 1;
    let mut samples = Vec::with_capacity(p.writes);
    for i in 0..p.writes {
        let key = harness::key(&mut keys);
        let text = text(i, p.text_chars);
        let started = Instant::now();
        let written = replica.write(version, &key, &text)?;
        samples.push(started.elapsed());
        version = match written {
            Ok(v) => v,
            Err(current) => bail!("a sequential writer got a conflict at {current}"),
        };
    }
    Ok(samples)
}

/// One bare `UPDATE` per (autocommit) transaction.
fn bare_update(p: &Params, synchronous: Synchronous) -> anyhow::Result<Vec<Duration>> {
    let dir = tempfile::tempdir()?;
    let conn = open_sqlite(&dir.path().join("floor.db"), synchronous)?;
    conn.execute_batch(
        "CREATE TABLE notes (id TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT;
         INSERT INTO notes VALUES ('note-1', 1);",
    )?;
    let mut samples = Vec::with_capacity(p.writes);
    for _ in 0..p.writes {
        let started = Instant::now();
        conn.prepare_cached("UPDATE notes SET version = version + 1 WHERE id = ?1")?
            .execute(params![NOTE])?;
        samples.push(started.elapsed());
    }
    Ok(samples)
}

/// 4 KiB written over the same offset, then `fdatasync`, `writes` times, in a fresh file in
/// `dir`: what FULL waits for on each commit.
pub fn fsync_floor(dir: &Path, writes: usize) -> anyhow::Result<Vec<Duration>> {
    let page = [b'q'; 4096];
    let dir = tempfile::tempdir_in(dir)?;
    let mut file = std::fs::File::create(dir.path().join("fsync.bin"))?;
    let mut samples = Vec::with_capacity(writes);
    for _ in 0..writes {
        let started = Instant::now();
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&page)?;
        file.sync_data()?;
        samples.push(started.elapsed());
    }
    Ok(samples)
}

/// Everything the table shows; each timing indexed [NORMAL, FULL].
#[derive(Default)]
pub struct Results {
    pub product: [Timing; 2],
    pub replica: [[Timing; 2]; 3],
    pub bare_update: [Timing; 2],
    pub fsync: Timing,
}

const SYNCS: [Synchronous; 2] = [Synchronous::Normal, Synchronous::Full];
const CHECKS: [Check; 3] = [Check::None, Check::Note, Check::Tab];

/// Repetition by repetition, every path in turn, so that a busy moment of the machine (other
/// processes, the disk) falls on all of them rather than on one.
pub async fn measure(p: &Params) -> anyhow::Result<Results> {
    let mut r = Results::default();
    for rep in 0..p.repetitions as u64 {
        for (s, &sync) in SYNCS.iter().enumerate() {
            r.product[s].push(product(p, sync, rep).await?);
            let p2 = p.clone();
            let (replicas, bare) = tokio::task::spawn_blocking(move || {
                let replicas = CHECKS
                    .iter()
                    .map(|&check| replica(&p2, sync, check, rep))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                anyhow::Ok((replicas, bare_update(&p2, sync)?))
            })
            .await
            .context("the timing task")??;
            for (c, samples) in replicas.into_iter().enumerate() {
                r.replica[c][s].push(samples);
            }
            r.bare_update[s].push(bare);
        }
        let p2 = p.clone();
        r.fsync.push(
            tokio::task::spawn_blocking(move || fsync_floor(&std::env::temp_dir(), p2.writes))
                .await
                .context("the fsync task")??,
        );
    }
    Ok(r)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let r = measure(p).await?;
    let mut section = Section::new("2. What the check costs");
    section.setup(format!(
        "{} sequential {}-character `replace_text` writes on one Note, {} repetitions per path; \
         figures are the lowest-highest of the repetitions' medians (and p99s), in µs",
        p.writes, p.text_chars, p.repetitions
    ));
    section.setup(
        "Quire's row is the product's `SqliteStore::write` through the `Store` trait: the writer \
         thread hop, reading and applying the Note, the history row, the key and its stored result"
            .to_owned(),
    );
    section.setup(
        "the replica rows run the guarded transaction alone (key lookup, version compare, update, \
         bump, key + result; `BEGIN IMMEDIATE`, cached statements) to isolate the compare"
            .to_owned(),
    );
    let mut table = Table::new(&[
        "write path",
        "NORMAL: median",
        "NORMAL: p99",
        "FULL: median",
        "FULL: p99",
        "article: median (Python, M1)",
        "article: p99",
    ]);
    let row = |name: &str, t: &[Timing; 2], article: &str, article_p99: &str| -> Vec<String> {
        vec![
            name.to_owned(),
            t[0].median_range(),
            t[0].p99_range(),
            t[1].median_range(),
            t[1].p99_range(),
            article.to_owned(),
            article_p99.to_owned(),
        ]
    };
    table.row(row(
        "Quire `SqliteStore::write` (Note version)",
        &r.product,
        "57.0–58.8 (Note version)",
        "420–1,330",
    ));
    for (check, timing) in CHECKS.iter().zip(&r.replica) {
        let (name, article) = match check {
            Check::None => ("replica, no check (control)", "61.9–63.1"),
            Check::Note => ("replica, Note version", "57.0–58.8"),
            Check::Tab => ("replica, tab version", "55.1–61.1"),
        };
        table.row(row(name, timing, article, "420–1,330"));
    }
    table.row(row(
        "floor: one bare UPDATE per transaction",
        &r.bare_update,
        "—",
        "—",
    ));
    table.row(vec![
        "floor: 4 KiB write + fdatasync".into(),
        "—".into(),
        "—".into(),
        r.fsync.median_range(),
        r.fsync.p99_range(),
        "—".into(),
        "—".into(),
    ]);
    section.table(None, table);
    let none = r.replica[0][0].best_median();
    let note = r.replica[1][0].best_median();
    let tab = r.replica[2][0].best_median();
    section.note(format!(
        "replica under NORMAL, best medians: no check {:.1} µs, Note version {:.1} µs, tab version \
         {:.1} µs: the compare is one indexed read in a transaction that is open anyway",
        none.as_secs_f64() * 1e6,
        note.as_secs_f64() * 1e6,
        tab.as_secs_f64() * 1e6
    ));
    section.elapsed = started.elapsed();
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_refuses_stale_and_replays_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut r = Replica::open(&dir.path().join("r.db"), Synchronous::Normal, Check::Note)
            .expect("open");
        assert_eq!(r.write(1, "a", "x").expect("write"), Ok(2));
        assert_eq!(r.write(1, "b", "y").expect("write"), Err(2), "stale");
        assert_eq!(r.write(1, "a", "x").expect("write"), Ok(2), "replay first");
        let mut none = Replica::open(&dir.path().join("n.db"), Synchronous::Normal, Check::None)
            .expect("open");
        assert_eq!(none.write(1, "a", "x").expect("write"), Ok(2));
        assert_eq!(none.write(1, "b", "y").expect("write"), Ok(3), "no check");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_path_is_timed() {
        let p = Params {
            writes: 40,
            repetitions: 2,
            text_chars: 200,
        };
        let r = measure(&p).await.expect("measure");
        assert_eq!(r.product[0].medians.len(), 2);
        assert!(r.product.iter().all(|t| t.best_median() > Duration::ZERO));
        assert!(r.replica.iter().all(|t| t[1].p99s.len() == 2));
        assert!(r.fsync.best_median() > Duration::ZERO);
        assert_eq!(text(3, 200).chars().count(), 200);
    }
}
