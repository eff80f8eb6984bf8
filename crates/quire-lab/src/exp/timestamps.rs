//! Experiment 4: versions as millisecond timestamps. With no think time two commits often land
//! in the same millisecond and share a version, so an editor that read before the first passes
//! the check against the second. Quire's per-Note counter cannot collide.

use std::sync::Arc;
use std::time::Instant;

use quire_api::SystemClock;
use quire_model::TabId;
use quire_store::Store;
use quire_store_sqlite::Synchronous;

use super::editor::{Editor, OnConflict, Totals, Work, pair_clients, spawn_pair};
use crate::client::{Client, Direct};
use crate::controls::MillisVersions;
use crate::harness::{self, LabStore, rng};
use crate::report::{Section, Table, int, pct, slash};

#[derive(Debug, Clone)]
pub struct Params {
    pub edits: usize,
    pub seeds: Vec<u64>,
    pub synchronous: Synchronous,
    /// Resolution of the control's timestamp versions: 1 ms in the article.
    pub stamp_ms: u64,
}

impl Params {
    /// The article's: think time 0, 2,000 edits per editor, 5 runs.
    pub fn article() -> Self {
        Params {
            edits: 2_000,
            seeds: (1..=5).collect(),
            synchronous: Synchronous::Normal,
            stamp_ms: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Versions {
    /// The lab's control: the Note's version is the millisecond of its last commit.
    Millis,
    /// Quire's per-Note counter.
    Counter,
}

#[derive(Debug, Clone, Default)]
pub struct RowResult {
    pub agent: Totals,
    pub person: Totals,
    pub runs_with_losses: usize,
}

impl RowResult {
    pub fn lost(&self) -> usize {
        self.agent.lost + self.person.lost
    }
}

/// One row: the runs one after the other, each on a fresh store.
pub async fn row(p: &Params, versions: Versions) -> anyhow::Result<RowResult> {
    let mut result = RowResult::default();
    for &seed in &p.seeds {
        let lab = LabStore::open(p.synchronous)?;
        let product = lab.dyn_store();
        let store: Arc<dyn Store> = match versions {
            Versions::Millis => Arc::new(MillisVersions::new(
                product.clone(),
                Arc::new(SystemClock),
                p.stamp_ms,
            )),
            Versions::Counter => product.clone(),
        };
        let note = harness::create_note(&*store, &mut rng(seed, 0), "timestamps").await?;
        let tab = TabId::new(TabId::MARKDOWN);
        let (agent_client, person_client) = pair_clients(None, &store).await?;
        let editor = |name, client, stream| Editor {
            name,
            client,
            note: note.clone(),
            work: Work::AppendLine { tab: tab.clone() },
            edits: p.edits,
            think_ms: (0, 0),
            on_conflict: OnConflict::Redo,
            think_rng: rng(seed, stream),
            key_rng: rng(seed, stream + 1),
        };
        let agent = editor("claude", agent_client, 1);
        let person = editor("person", person_client, 3);
        let (agent, person, _) = spawn_pair(agent, person).await??;
        let (_, data) = Direct::new(product.clone(), "lab")
            .read_tab(&note, &tab)
            .await?;
        let work = Work::AppendLine { tab };
        let lost = (
            work.lost(&data, "claude", p.edits)?,
            work.lost(&data, "person", p.edits)?,
        );
        result.agent.add(&agent, lost.0);
        result.person.add(&person, lost.1);
        if lost.0 + lost.1 > 0 {
            result.runs_with_losses += 1;
        }
        store.close().await?;
    }
    Ok(result)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("4. Millisecond timestamps as versions");
    let total = 2 * p.edits * p.seeds.len();
    section.setup(format!(
        "two editors, think time 0, {} edits each, runs with seeds {}, both re-read and redo on a \
         conflict; in-process on the product's `SqliteStore` (SQLite {}), one fresh store per run",
        int(p.edits as i64),
        slash(&p.seeds),
        harness::sync_name(p.synchronous)
    ));
    section.setup(
        "the millisecond row is the lab's `MillisVersions` wrapper: the version is the wall-clock \
         millisecond of the Note's last commit, compared and stamped under one lock (one \
         transaction); every commit still goes through the product's guarded write"
            .to_owned(),
    );
    let mut table = Table::new(&[
        "version",
        &format!("lines lost (of {})", int(total as i64)),
        "runs with losses",
        "lost per run",
        "conflicts: agent / person",
        "article: version",
        "article: lost (of 20,000)",
        "article: runs with losses",
    ]);
    for versions in [Versions::Millis, Versions::Counter] {
        let r = row(p, versions).await?;
        let by_run: Vec<usize> = r
            .agent
            .lost_by_run
            .iter()
            .zip(&r.person.lost_by_run)
            .map(|(a, b)| a + b)
            .collect();
        let (name, article) = match versions {
            Versions::Millis => (
                "milliseconds (lab control)",
                ["milliseconds", "136 (0.68%)", "5 of 5"],
            ),
            Versions::Counter => (
                "Quire's per-Note counter",
                ["microseconds + 6-hex suffix", "0", "0 of 5"],
            ),
        };
        table.row(vec![
            name.into(),
            format!(
                "{} ({})",
                int(r.lost() as i64),
                pct(r.lost() as f64, total as f64)
            ),
            format!("{} of {}", r.runs_with_losses, p.seeds.len()),
            slash(&by_run),
            format!("{} / {}", r.agent.conflicts, r.person.conflicts),
            article[0].into(),
            article[1].into(),
            article[2].into(),
        ]);
    }
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn millisecond_versions_lose_lines_and_the_counter_does_not() {
        // A debug build commits a few times per millisecond at best, so the smoke test stamps
        // at 20 ms: the same failure (commits that share a stamp), made certain.
        let p = Params {
            edits: 300,
            seeds: vec![1],
            synchronous: Synchronous::Normal,
            stamp_ms: 20,
        };
        let millis = row(&p, Versions::Millis).await.expect("millis row");
        let counter = row(&p, Versions::Counter).await.expect("counter row");
        assert!(
            millis.lost() > 0,
            "commits that share a stamp must collide: {millis:?}"
        );
        assert_eq!(counter.lost(), 0, "{counter:?}");
        assert!(counter.agent.conflicts + counter.person.conflicts > 0);
    }
}
