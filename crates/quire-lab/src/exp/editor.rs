//! The scripted editors of the races: read -> think -> write, `edits` times, each edit leaving a
//! mark that can be counted at the end (a unique line in the Markdown tab, or a unique cell in
//! a Sheet), so every missing mark is a lost update.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use quire_model::{NoteId, Op, TabId};
use serde_json::{Value, json};

use crate::client::{Client, Reply, text_of};
use crate::harness::{self, LabRng};

/// What an editor does when its write is refused as stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnConflict {
    /// Read the tab again and redo the change on what is there now.
    Redo,
    /// Read only the new version and resend the payload computed from the old read.
    RefreshVersionOnly,
}

/// What one edit writes.
#[derive(Debug, Clone)]
pub enum Work {
    /// Append the line `<name>-<i>` to a Markdown tab (`replace_text` with the whole text).
    AppendLine { tab: TabId },
    /// Write `<name>-<i>` into cell (i, 0) of a Sheet tab (`sheet_set_range`).
    SetCell { tab: TabId },
}

impl Work {
    pub fn tab(&self) -> &TabId {
        match self {
            Work::AppendLine { tab } | Work::SetCell { tab } => tab,
        }
    }

    fn ops(&self, data: &Value, mark: &str, i: usize) -> anyhow::Result<Vec<Op>> {
        Ok(match self {
            Work::AppendLine { tab } => vec![Op::ReplaceText {
                tab_id: tab.clone(),
                text: append_line(&text_of(data)?, mark),
            }],
            Work::SetCell { tab } => vec![Op::SheetSetRange {
                tab_id: tab.clone(),
                sheet_id: None,
                start_row: i as u64,
                start_col: 0,
                values: vec![vec![json!(mark)]],
            }],
        })
    }

    /// How many of this editor's `edits` marks are missing from the tab's final `data`.
    pub fn lost(&self, data: &Value, name: &str, edits: usize) -> anyhow::Result<usize> {
        let present: HashSet<String> = match self {
            Work::AppendLine { .. } => text_of(data)?.lines().map(str::to_owned).collect(),
            Work::SetCell { .. } => data["sheets"][0]["rows"]
                .as_array()
                .map(|rows| {
                    rows.iter()
                        .filter_map(|r| r[0].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        };
        Ok((0..edits)
            .filter(|i| !present.contains(&mark(name, *i)))
            .count())
    }
}

pub fn mark(name: &str, i: usize) -> String {
    format!("{name}-{i}")
}

pub fn append_line(text: &str, line: &str) -> String {
    if text.is_empty() {
        line.to_owned()
    } else {
        format!("{text}\n{line}")
    }
}

/// One scripted editor.
pub struct Editor {
    pub name: &'static str,
    pub client: Arc<dyn Client>,
    pub note: NoteId,
    pub work: Work,
    pub edits: usize,
    /// Uniform think time between the read and the write, in ms; (0, 0) for none.
    pub think_ms: (u64, u64),
    pub on_conflict: OnConflict,
    /// Draws the think times.
    pub think_rng: LabRng,
    /// Draws the idempotency keys (one per attempt: a retry after a conflict is a new intent).
    pub key_rng: LabRng,
}

/// What an editor saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditorStats {
    pub edits: usize,
    pub writes: usize,
    pub conflicts: usize,
    pub max_attempts: usize,
}

/// A guard against a livelock turning into a hang: no edit in the articles needed more than 3.
const MAX_ATTEMPTS: usize = 1000;

impl Editor {
    pub async fn run(mut self) -> anyhow::Result<EditorStats> {
        let mut stats = EditorStats {
            edits: self.edits,
            ..EditorStats::default()
        };
        let tab = self.work.tab().clone();
        for i in 0..self.edits {
            let mark = mark(self.name, i);
            let (mut version, data) = self.client.read_tab(&self.note, &tab).await?;
            if self.think_ms.1 > 0 {
                tokio::time::sleep(harness::think(&mut self.think_rng, self.think_ms)).await;
            }
            let mut ops = self.work.ops(&data, &mark, i)?;
            let mut attempts = 0;
            loop {
                attempts += 1;
                if attempts > MAX_ATTEMPTS {
                    bail!(
                        "{}: edit {i} still refused after {MAX_ATTEMPTS} attempts",
                        self.name
                    );
                }
                stats.writes += 1;
                let key = harness::key(&mut self.key_rng);
                let reply = self
                    .client
                    .write(&self.note, version, Some(key), ops.clone())
                    .await
                    .with_context(|| format!("{} edit {i}", self.name))?;
                match reply {
                    Reply::Accepted(_) => break,
                    Reply::Conflict { .. } => {
                        stats.conflicts += 1;
                        let (fresh_version, fresh) = self.client.read_tab(&self.note, &tab).await?;
                        version = fresh_version;
                        if self.on_conflict == OnConflict::Redo {
                            ops = self.work.ops(&fresh, &mark, i)?;
                        }
                    }
                }
            }
            stats.max_attempts = stats.max_attempts.max(attempts);
        }
        Ok(stats)
    }
}

/// Sum of a few runs' stats, and the figures the tables print.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    pub runs: usize,
    pub edits: usize,
    pub writes: usize,
    pub conflicts: usize,
    pub lost: usize,
    pub max_attempts: usize,
    /// Conflicts per run, for the `a / b / c` columns.
    pub conflicts_by_run: Vec<usize>,
    pub lost_by_run: Vec<usize>,
}

impl Totals {
    pub fn add(&mut self, stats: &EditorStats, lost: usize) {
        self.runs += 1;
        self.edits += stats.edits;
        self.writes += stats.writes;
        self.conflicts += stats.conflicts;
        self.lost += lost;
        self.max_attempts = self.max_attempts.max(stats.max_attempts);
        self.conflicts_by_run.push(stats.conflicts);
        self.lost_by_run.push(lost);
    }

    pub fn mean_attempts(&self) -> f64 {
        if self.edits == 0 {
            0.0
        } else {
            self.writes as f64 / self.edits as f64
        }
    }
}

/// The two editors' clients: both on the store, or the agent on MCP and the person on REST of
/// a real server.
pub async fn pair_clients(
    server: Option<&crate::harness::LabServer>,
    store: &Arc<dyn quire_store::Store>,
) -> anyhow::Result<(Arc<dyn Client>, Arc<dyn Client>)> {
    use crate::client::{Direct, Mcp, Rest};
    Ok(match server {
        None => (
            Arc::new(Direct::new(store.clone(), "claude")),
            Arc::new(Direct::new(store.clone(), "person")),
        ),
        Some(s) => (
            Arc::new(Mcp::connect(&s.url(), &s.agent_token).await?),
            Arc::new(Rest::new(&s.url(), &s.person_token)),
        ),
    })
}

/// Runs both editors at once; their stats and the wall time of the pair.
pub fn spawn_pair(
    agent: Editor,
    person: Editor,
) -> tokio::task::JoinHandle<anyhow::Result<(EditorStats, EditorStats, Duration)>> {
    tokio::spawn(async move {
        let started = std::time::Instant::now();
        let agent = tokio::spawn(agent.run());
        let person = tokio::spawn(person.run());
        let agent = agent.await.context("agent task")??;
        let person = person.await.context("person task")??;
        Ok((agent, person, started.elapsed()))
    })
}
