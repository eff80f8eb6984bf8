//! A small write against its physical limit (issue 17). One acknowledged, durable write over
//! HTTP cannot cost less than one no-op HTTP round trip (`GET /healthz` on a keep-alive
//! connection) plus one 4 KiB write and `fdatasync` on the disk the database is on. This run
//! measures that limit and the guarded PATCH (a 200-character `replace_text`, SQLite
//! `synchronous=FULL`, one connection) side by side, round after round, so both see the same
//! machine; then the PATCH's throughput with 8 connections on 8 Notes.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire_model::NoteId;
use quire_store_sqlite::Synchronous;
use quire_testkit::bench::{Samples, percentile};

use crate::bench::{Load, PATCH_LUA, run_wrk, wrk_binary};
use crate::exp::cost::fsync_floor;
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table, int, slash, us};

const HEALTHZ_LUA: &str = include_str!("../wrk/healthz.lua");

#[derive(Debug, Clone)]
pub struct Params {
    /// Rounds of the three measurements, alternated.
    pub rounds: usize,
    /// Seconds per wrk run.
    pub seconds: u64,
    /// `fdatasync`s per round.
    pub syncs: usize,
    /// Connections (each on its own Note) of the throughput run.
    pub connections: usize,
}

impl Params {
    pub fn full() -> Self {
        Params {
            rounds: 5,
            seconds: 4,
            syncs: 2_000,
            connections: 8,
        }
    }
}

/// One round's figures.
#[derive(Debug, Clone, Default)]
pub struct Round {
    pub healthz: Load,
    pub fsync_p50: Duration,
    pub patch: Load,
    pub parallel: Load,
}

impl Round {
    /// The limit: a no-op round trip plus a durable 4 KiB write.
    pub fn limit(&self) -> Duration {
        self.healthz.p50 + self.fsync_p50
    }

    /// The PATCH's p50 over the limit.
    pub fn ratio(&self) -> f64 {
        ratio(self.patch.p50, self.limit())
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        0.0
    } else {
        a.as_secs_f64() / b.as_secs_f64()
    }
}

/// Every round, on one server and one database (FULL, as `quire-server serve` runs it).
pub async fn measure(p: &Params, wrk: &Path) -> anyhow::Result<Vec<Round>> {
    let scripts = tempfile::tempdir()?;
    let patch_lua = scripts.path().join("patch.lua");
    let healthz_lua = scripts.path().join("healthz.lua");
    std::fs::write(&patch_lua, PATCH_LUA)?;
    std::fs::write(&healthz_lua, HEALTHZ_LUA)?;

    let lab = LabStore::open(Synchronous::Full)?;
    let disk = lab
        .path
        .parent()
        .context("the database has no directory")?
        .to_owned();
    let store = lab.dyn_store();
    let mut ids = rng(17, 0);
    // Fresh Notes for each PATCH run: wrk's script starts every Note at version 1.
    let mut fresh = async |n: usize| -> anyhow::Result<Vec<NoteId>> {
        let mut notes = Vec::with_capacity(n);
        for _ in 0..n {
            notes.push(harness::create_note(&*store, &mut ids, "limit").await?);
        }
        Ok(notes)
    };
    let server = LabServer::start(lab.dyn_store()).await?;
    let token = &server.person_token;
    let healthz_url = format!("{}/healthz", server.url());
    let mut rounds = Vec::with_capacity(p.rounds);
    for _ in 0..p.rounds {
        let healthz = run_wrk(wrk, &healthz_lua, &healthz_url, 1, p.seconds, &[], token).await?;
        let (dir, syncs) = (disk.clone(), p.syncs);
        let floor = tokio::task::spawn_blocking(move || fsync_floor(&dir, syncs))
            .await
            .context("the fsync task")??;
        let mut samples = Samples::with_capacity(floor.len());
        floor.into_iter().for_each(|s| samples.push(s));
        let one = fresh(1).await?;
        let patch = run_wrk(wrk, &patch_lua, &server.url(), 1, p.seconds, &one, token).await?;
        let notes = fresh(p.connections).await?;
        let parallel = run_wrk(
            wrk,
            &patch_lua,
            &server.url(),
            p.connections,
            p.seconds,
            &notes,
            token,
        )
        .await?;
        for load in [&healthz, &patch, &parallel] {
            anyhow::ensure!(
                load.non_2xx == 0 && load.socket_errors == 0,
                "a refused or failed request in the run: {load:?}"
            );
        }
        rounds.push(Round {
            healthz,
            fsync_p50: samples.stats().median,
            patch,
            parallel,
        });
    }
    server.stop().await?;
    Ok(rounds)
}

/// The median of `f` over the rounds.
fn median<T: Copy + Default + PartialOrd>(rounds: &[Round], f: impl Fn(&Round) -> T) -> T {
    let mut v: Vec<T> = rounds.iter().map(f).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    percentile(&v, 0.5)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("A small write against its physical limit (issue 17)");
    let Some(wrk) = wrk_binary() else {
        section.note("wrk not found on the PATH (Debian: apt-get install wrk): nothing measured");
        return Ok(section);
    };
    section.setup(format!(
        "one real Quire server on loopback (`quire_server::serve_store` over `SqliteStore`, \
         `synchronous=FULL`), wrk ({}) on the same 2 cores; {} rounds, each: GET /healthz \
         (1 connection, {} s), {} x (4 KiB write + fdatasync) in the database's directory, \
         PATCH 200-char `replace_text` (1 connection, {} s), PATCH with {} connections on {} \
         Notes ({} s)",
        wrk.display(),
        p.rounds,
        p.seconds,
        int(p.syncs as i64),
        p.seconds,
        p.connections,
        p.connections,
        p.seconds
    ));
    let rounds = measure(p, &wrk).await?;
    let mut table = Table::new(&[
        "round",
        "GET /healthz p50 µs",
        "4 KiB + fdatasync p50 µs",
        "limit µs",
        "PATCH p50 µs",
        "PATCH / limit",
        "PATCH p99 µs",
        &format!("writes/s, {} connections", p.connections),
    ]);
    for (i, r) in rounds.iter().enumerate() {
        table.row(vec![
            (i + 1).to_string(),
            us(r.healthz.p50),
            us(r.fsync_p50),
            us(r.limit()),
            us(r.patch.p50),
            format!("{:.2}x", r.ratio()),
            us(r.patch.p99),
            int(r.parallel.per_second().round() as i64),
        ]);
    }
    table.row(vec![
        "median".to_owned(),
        us(median(&rounds, |r| r.healthz.p50)),
        us(median(&rounds, |r| r.fsync_p50)),
        us(median(&rounds, Round::limit)),
        us(median(&rounds, |r| r.patch.p50)),
        format!("{:.2}x", median(&rounds, Round::ratio)),
        us(median(&rounds, |r| r.patch.p99)),
        int(median(&rounds, |r| r.parallel.per_second()).round() as i64),
    ]);
    section.table(None, table);
    section.note(format!(
        "PATCH / limit per round: {} (target <= 1.5x); writes/s with {} connections: {} \
         (target >= 10,000)",
        slash(
            &rounds
                .iter()
                .map(|r| format!("{:.2}x", r.ratio()))
                .collect::<Vec<_>>()
        ),
        p.connections,
        slash(
            &rounds
                .iter()
                .map(|r| int(r.parallel.per_second().round() as i64))
                .collect::<Vec<_>>()
        ),
    ));
    section.elapsed = started.elapsed();
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One short round against the real server, wrk and the disk (setup installs wrk).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_round_measures_the_limit_and_the_patch() {
        let wrk = wrk_binary().expect("wrk on the PATH (scripts/setup.sh installs it)");
        let p = Params {
            rounds: 1,
            seconds: 1,
            syncs: 20,
            connections: 2,
        };
        let rounds = measure(&p, &wrk).await.expect("a round");
        let [r] = rounds.as_slice() else {
            panic!("one round, got {}", rounds.len());
        };
        for (what, load) in [
            ("healthz", &r.healthz),
            ("PATCH", &r.patch),
            ("8 PATCH", &r.parallel),
        ] {
            assert!(
                load.requests > 0 && load.p50 > Duration::ZERO,
                "{what}: {load:?}"
            );
        }
        assert!(r.fsync_p50 > Duration::ZERO);
        assert!(r.limit() > r.healthz.p50 && r.ratio() > 0.0);
    }

    #[test]
    fn the_limit_is_a_round_trip_and_a_sync() {
        let round = Round {
            healthz: Load {
                p50: Duration::from_micros(40),
                ..Load::default()
            },
            fsync_p50: Duration::from_micros(30),
            patch: Load {
                p50: Duration::from_micros(140),
                ..Load::default()
            },
            parallel: Load::default(),
        };
        assert_eq!(round.limit(), Duration::from_micros(70));
        assert!((round.ratio() - 2.0).abs() < 1e-9);
        let other = Round {
            fsync_p50: Duration::from_micros(90),
            ..round.clone()
        };
        let rounds = [round.clone(), other, round];
        assert_eq!(median(&rounds, |r| r.fsync_p50), Duration::from_micros(30));
    }
}
