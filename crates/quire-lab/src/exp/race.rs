//! Experiment 1: two editors append to one Markdown tab, read -> think -> write. Without a
//! check the slower editor's old text overwrites the other's lines; with the check plus
//! re-read-and-redo nothing is lost; with the check plus refresh-the-version-only the loss
//! comes back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire_model::TabId;
use quire_store::Store;
use quire_store_sqlite::Synchronous;

use super::editor::{Editor, OnConflict, Totals, Work, pair_clients, spawn_pair};
use crate::client::{Client, Direct};
use crate::controls::LastWriterWins;
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table, int, slash};

#[derive(Debug, Clone)]
pub struct Params {
    pub edits: usize,
    pub seeds: Vec<u64>,
    pub agent_think_ms: (u64, u64),
    pub person_think_ms: (u64, u64),
    pub transports: Vec<Transport>,
    pub synchronous: Synchronous,
}

impl Params {
    /// The article's: 100 edits per editor, seeds 1-5, agent 20-80 ms, person 5-40 ms.
    pub fn article() -> Self {
        Params {
            edits: 100,
            seeds: (1..=5).collect(),
            agent_think_ms: (20, 80),
            person_think_ms: (5, 40),
            transports: vec![Transport::Http, Transport::InProcess],
            synchronous: Synchronous::Full,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Both editors call the store directly.
    InProcess,
    /// A real server on loopback: the person on REST, the agent on MCP.
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The lab's last-writer-wins control.
    NoCheck,
    /// Quire's check; both editors re-read and redo on a conflict.
    Redo,
    /// Quire's check; both editors refresh only the version and resend the old text.
    RefreshOnly,
}

impl Row {
    pub const ALL: [Row; 3] = [Row::NoCheck, Row::Redo, Row::RefreshOnly];

    fn labels(self) -> (&'static str, &'static str) {
        match self {
            Row::NoCheck => ("none (lab control: last writer wins)", "—"),
            Row::Redo => ("Note version (Quire)", "re-read and redo"),
            Row::RefreshOnly => (
                "Note version (Quire)",
                "refresh the version, resend old text",
            ),
        }
    }

    /// The article's figures: lost, lost agent / person, conflicts agent / person, max attempts.
    fn article(self) -> [&'static str; 4] {
        match self {
            Row::NoCheck => ["300", "125 / 175", "0 / 0", "1"],
            Row::Redo => ["0", "0 / 0", "219 / 133", "2"],
            Row::RefreshOnly => ["304", "117 / 187", "213 / 136", "3"],
        }
    }
}

/// One row's result: both editors over every seed.
#[derive(Debug, Clone, Default)]
pub struct RowResult {
    pub agent: Totals,
    pub person: Totals,
    pub run_time: Vec<Duration>,
}

impl RowResult {
    pub fn lost(&self) -> usize {
        self.agent.lost + self.person.lost
    }
}

/// Runs one row: every seed at once, each on its own Note of one store (or one server).
pub async fn race_row(p: &Params, transport: Transport, row: Row) -> anyhow::Result<RowResult> {
    let lab = LabStore::open(p.synchronous)?;
    let product = lab.dyn_store();
    let store: Arc<dyn Store> = match row {
        Row::NoCheck => Arc::new(LastWriterWins::new(product.clone())),
        Row::Redo | Row::RefreshOnly => product.clone(),
    };
    let on_conflict = match row {
        Row::RefreshOnly => OnConflict::RefreshVersionOnly,
        Row::NoCheck | Row::Redo => OnConflict::Redo,
    };
    let server = match transport {
        Transport::Http => Some(LabServer::start(store.clone()).await?),
        Transport::InProcess => None,
    };
    let tab = TabId::new(TabId::MARKDOWN);
    let mut runs = Vec::new();
    for &seed in &p.seeds {
        let note = harness::create_note(&*product, &mut rng(seed, 0), "race").await?;
        let (agent_client, person_client) = pair_clients(server.as_ref(), &store).await?;
        let agent = Editor {
            name: "claude",
            client: agent_client,
            note: note.clone(),
            work: Work::AppendLine { tab: tab.clone() },
            edits: p.edits,
            think_ms: p.agent_think_ms,
            on_conflict,
            think_rng: rng(seed, 1),
            key_rng: rng(seed, 2),
        };
        let person = Editor {
            name: "person",
            client: person_client,
            note: note.clone(),
            work: Work::AppendLine { tab: tab.clone() },
            edits: p.edits,
            think_ms: p.person_think_ms,
            on_conflict,
            think_rng: rng(seed, 3),
            key_rng: rng(seed, 4),
        };
        runs.push((note, spawn_pair(agent, person)));
    }
    let reader = Direct::new(product.clone(), "lab");
    let mut result = RowResult::default();
    for (note, run) in runs {
        let (agent, person, took) = run.await.context("race task")??;
        let (_, data) = reader.read_tab(&note, &tab).await?;
        let work = Work::AppendLine { tab: tab.clone() };
        result
            .agent
            .add(&agent, work.lost(&data, "claude", p.edits)?);
        result
            .person
            .add(&person, work.lost(&data, "person", p.edits)?);
        result.run_time.push(took);
    }
    if let Some(server) = server {
        server.stop().await?;
    }
    Ok(result)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("1. The race: lines lost with and without the check");
    section.setup(format!(
        "{} edits per editor, seeds {}, agent thinks {}-{} ms, person {}-{} ms (real sleeps), \
         each write appends a unique line; a new idempotency key per attempt",
        p.edits,
        slash(&p.seeds),
        p.agent_think_ms.0,
        p.agent_think_ms.1,
        p.person_think_ms.0,
        p.person_think_ms.1
    ));
    section.setup(format!(
        "the {} seeds of a row run at the same time, each on its own Note; SQLite {}",
        p.seeds.len(),
        harness::sync_name(p.synchronous)
    ));
    let total = 2 * p.edits * p.seeds.len();
    for &transport in &p.transports {
        let mut table = Table::new(&[
            "write guard",
            "on a conflict",
            &format!("lines lost (of {})", int(total as i64)),
            "lost: agent / person",
            "conflicts: agent / person",
            "max attempts",
            "mean attempts: agent / person",
            "run time",
            "article: lost (of 1,000)",
            "article: agent / person",
            "article: conflicts",
            "article: max attempts",
        ]);
        for row in Row::ALL {
            let r = race_row(p, transport, row).await?;
            let (guard, policy) = row.labels();
            let [a_lost, a_split, a_conf, a_max] = row.article();
            let min = r.run_time.iter().min().copied().unwrap_or_default();
            let max = r.run_time.iter().max().copied().unwrap_or_default();
            table.row(vec![
                guard.into(),
                policy.into(),
                int(r.lost() as i64),
                format!("{} / {}", r.agent.lost, r.person.lost),
                format!("{} / {}", r.agent.conflicts, r.person.conflicts),
                r.agent.max_attempts.max(r.person.max_attempts).to_string(),
                format!(
                    "{:.2} / {:.2}",
                    r.agent.mean_attempts(),
                    r.person.mean_attempts()
                ),
                format!("{:.1}–{:.1} s", min.as_secs_f64(), max.as_secs_f64()),
                a_lost.into(),
                a_split.into(),
                a_conf.into(),
                a_max.into(),
            ]);
        }
        let caption = match transport {
            Transport::Http => {
                "Over real HTTP: one Quire server on loopback; the person on REST (`PATCH /notes/{id}`), the agent on MCP (`read_note_tab` / `edit_note_tab` through rmcp's client). The no-check row serves the lab's last-writer-wins wrapper through the same server."
            }
            Transport::InProcess => {
                "In-process: both editors call the store (`SqliteStore`) directly."
            }
        };
        section.table(Some(caption), table);
    }
    section.elapsed = started.elapsed();
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Params {
        Params {
            edits: 15,
            seeds: vec![1, 2],
            agent_think_ms: (4, 12),
            person_think_ms: (1, 6),
            transports: vec![Transport::InProcess],
            synchronous: Synchronous::Normal,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_redo_loses_nothing_in_process() {
        let p = small();
        let none = race_row(&p, Transport::InProcess, Row::NoCheck)
            .await
            .expect("no-check row");
        let redo = race_row(&p, Transport::InProcess, Row::Redo)
            .await
            .expect("redo row");
        let refresh = race_row(&p, Transport::InProcess, Row::RefreshOnly)
            .await
            .expect("refresh row");
        assert!(
            none.lost() > 0,
            "last-writer-wins must lose lines: {none:?}"
        );
        assert_eq!(none.agent.conflicts + none.person.conflicts, 0);
        assert_eq!(
            redo.lost(),
            0,
            "re-read and redo must lose nothing: {redo:?}"
        );
        assert!(
            redo.agent.conflicts > 0,
            "the check must refuse stale writes"
        );
        assert!(
            refresh.lost() > 0,
            "refreshing only the version must lose lines"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn over_http_and_mcp_redo_loses_nothing() {
        let p = Params {
            edits: 10,
            seeds: vec![3],
            ..small()
        };
        let redo = race_row(&p, Transport::Http, Row::Redo)
            .await
            .expect("redo over HTTP");
        assert_eq!(redo.lost(), 0, "{redo:?}");
        assert_eq!(redo.agent.edits + redo.person.edits, 20);
        let none = race_row(
            &Params {
                edits: 15,
                ..p.clone()
            },
            Transport::Http,
            Row::NoCheck,
        )
        .await
        .expect("no check over HTTP");
        assert!(none.lost() > 0, "{none:?}");
    }
}
