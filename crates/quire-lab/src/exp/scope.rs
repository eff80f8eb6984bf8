//! Experiment 3: what a Note-wide version costs. The agent appends to the Markdown tab while
//! the person writes cells in a Sheet tab: they never touch the same tab, so every conflict is
//! a false one. A tab version (the lab's control) removes them and with them the cross-tab
//! guarantee; Quire keeps the Note-wide check on the server and lets the desktop app's engine
//! (`quire-sync`) re-apply the person's change by itself when the tabs changed meanwhile are
//! not the person's, so the person sees none.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire_model::{NewTabKind, NoteId, Op, TabId, Version};
use quire_store::Store;
use quire_store_sqlite::Synchronous;
use quire_sync::Engine;
use serde_json::{Value, json};

use super::editor::{
    Editor, EditorStats, OnConflict, Totals, Work, mark, pair_clients, spawn_pair,
};
use crate::client::{Client, Direct, Reply};
use crate::controls::TabScoped;
use crate::harness::{self, LabRng, LabServer, LabStore, rng};
use crate::report::{Section, Table, pct, slash};

#[derive(Debug, Clone)]
pub struct Params {
    pub edits: usize,
    pub seeds: Vec<u64>,
    pub agent_think_ms: (u64, u64),
    pub person_think_ms: (u64, u64),
    pub synchronous: Synchronous,
}

impl Params {
    /// The article's: 3 runs x 100 edits each, the race's think times.
    pub fn article() -> Self {
        Params {
            edits: 100,
            seeds: vec![1, 2, 3],
            agent_think_ms: (20, 80),
            person_think_ms: (5, 40),
            synchronous: Synchronous::Full,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Quire's server, the person on plain REST.
    Note,
    /// The lab's tab-version control, the person on plain REST.
    Tab,
    /// Quire's server, the person through the app's engine.
    NoteWithEngine,
}

#[derive(Debug, Clone, Default)]
pub struct RowResult {
    pub agent: Totals,
    pub person: Totals,
    /// Engine row: saves the server refused and the engine re-applied by itself.
    pub person_refused: usize,
    pub person_rebased: usize,
}

impl RowResult {
    pub fn lost(&self) -> usize {
        self.agent.lost + self.person.lost
    }
}

/// A Note with a Sheet tab; returns the Note and the Sheet's ID.
async fn setup(store: &Arc<dyn Store>, seed: u64) -> anyhow::Result<(NoteId, TabId)> {
    let note = harness::create_note(&**store, &mut rng(seed, 0), "scope").await?;
    let lab = Direct::new(store.clone(), "person");
    let op = Op::CreateTab {
        tab_type: NewTabKind::Sheet,
        label: Some("Figures".to_owned()),
        slides: None,
    };
    match lab.write(&note, Version(1), None, vec![op]).await? {
        Reply::Accepted(a) => Ok((note, a.created_tab.context("no tab created")?)),
        Reply::Conflict { .. } => anyhow::bail!("a fresh Note is at version 1"),
    }
}

pub async fn row(p: &Params, scope: Scope) -> anyhow::Result<RowResult> {
    let lab = LabStore::open(p.synchronous)?;
    let product = lab.dyn_store();
    let store: Arc<dyn Store> = match scope {
        Scope::Tab => Arc::new(TabScoped::new(product.clone())),
        Scope::Note | Scope::NoteWithEngine => product.clone(),
    };
    let server = LabServer::start(store.clone()).await?;
    let app_dir = tempfile::tempdir().context("a directory for the app's local store")?;
    let markdown = TabId::new(TabId::MARKDOWN);
    let mut runs = Vec::new();
    for &seed in &p.seeds {
        let (note, sheet) = setup(&product, seed).await?;
        let (agent_client, person_client) = pair_clients(Some(&server), &store).await?;
        let agent = Editor {
            name: "claude",
            client: agent_client,
            note: note.clone(),
            work: Work::AppendLine {
                tab: markdown.clone(),
            },
            edits: p.edits,
            think_ms: p.agent_think_ms,
            on_conflict: OnConflict::Redo,
            think_rng: rng(seed, 1),
            key_rng: rng(seed, 2),
        };
        let run = match scope {
            Scope::Note | Scope::Tab => {
                let person = Editor {
                    name: "person",
                    client: person_client,
                    note: note.clone(),
                    work: Work::SetCell { tab: sheet.clone() },
                    edits: p.edits,
                    think_ms: p.person_think_ms,
                    on_conflict: OnConflict::Redo,
                    think_rng: rng(seed, 3),
                    key_rng: rng(seed, 4),
                };
                let pair = spawn_pair(agent, person);
                tokio::spawn(async move {
                    let (agent, person, _) = pair.await.context("race task")??;
                    anyhow::Ok((agent, person, 0, 0))
                })
            }
            Scope::NoteWithEngine => {
                let engine = server.person_engine(app_dir.path().join(format!("app-{seed}.db")))?;
                let person = AppPerson {
                    engine,
                    note: note.clone(),
                    sheet: sheet.clone(),
                    edits: p.edits,
                    think_ms: p.person_think_ms,
                    think_rng: rng(seed, 3),
                };
                tokio::spawn(async move {
                    let agent = tokio::spawn(agent.run());
                    let person = tokio::spawn(person.run());
                    let agent = agent.await.context("agent task")??;
                    let (person, refused, rebased) = person.await.context("person task")??;
                    anyhow::Ok((agent, person, refused, rebased))
                })
            }
        };
        runs.push((note, sheet, run));
    }
    let reader = Direct::new(product.clone(), "lab");
    let mut result = RowResult::default();
    for (note, sheet, run) in runs {
        let (agent, person, refused, rebased) = run.await.context("scope task")??;
        result.person_refused += refused;
        result.person_rebased += rebased;
        let (_, text) = reader.read_tab(&note, &markdown).await?;
        let (_, cells) = reader.read_tab(&note, &sheet).await?;
        let lost_agent = Work::AppendLine {
            tab: markdown.clone(),
        }
        .lost(&text, "claude", p.edits)?;
        let lost_person = Work::SetCell { tab: sheet }.lost(&cells, "person", p.edits)?;
        result.agent.add(&agent, lost_agent);
        result.person.add(&person, lost_person);
    }
    server.stop().await?;
    Ok(result)
}

/// The person at the desktop app: every edit goes through the engine, which saves it with the
/// Note's version and, when the server refuses it, rebases or asks the person.
struct AppPerson {
    engine: Engine,
    note: NoteId,
    sheet: TabId,
    edits: usize,
    think_ms: (u64, u64),
    think_rng: LabRng,
}

/// How long one save may take to settle before the run fails.
const SETTLE: Duration = Duration::from_secs(30);

impl AppPerson {
    /// The person's stats (conflicts = those shown to the person), server refusals, rebases.
    async fn run(mut self) -> anyhow::Result<(EditorStats, usize, usize)> {
        self.engine.open_note(&self.note).await?;
        for i in 0..self.edits {
            let seen = self.engine.tab(&self.note, &self.sheet)?.data;
            tokio::time::sleep(harness::think(&mut self.think_rng, self.think_ms)).await;
            let data = with_cell(seen, i, &mark("person", i));
            self.engine.edit_tab(&self.note, &self.sheet, data).await?;
            self.engine.flush(&self.note).await?;
            self.engine
                .wait_until(&self.note, SETTLE, "the person's save", |s| {
                    s.status.settled
                })
                .await?;
        }
        let stats = self.engine.status(&self.note)?.stats;
        self.engine.shutdown();
        Ok((
            EditorStats {
                edits: self.edits,
                writes: stats.saves_sent as usize,
                conflicts: stats.conflicts_shown as usize,
                max_attempts: 0,
            },
            stats.refused as usize,
            stats.auto_rebased as usize,
        ))
    }
}

/// A Sheet tab's `data` with cell (row, 0) of its first sheet set to `value`.
fn with_cell(mut data: Value, row: usize, value: &str) -> Value {
    let rows = &mut data["sheets"][0]["rows"];
    if !rows.is_array() {
        *rows = json!([]);
    }
    if let Some(rows) = rows.as_array_mut() {
        while rows.len() <= row {
            rows.push(json!([]));
        }
        if !rows[row].is_array() {
            rows[row] = json!([]);
        }
        if let Some(cells) = rows[row].as_array_mut() {
            if cells.is_empty() {
                cells.push(Value::Null);
            }
            cells[0] = json!(value);
        }
    }
    data
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("3. Note-wide vs tab versions");
    section.setup(format!(
        "the agent appends lines to the Markdown tab over MCP, the person writes one cell per \
         edit in a Sheet tab; {} edits each, seeds {} run at once on one real server (SQLite \
         {}); think times as in the race; both re-read and redo on a conflict",
        p.edits,
        slash(&p.seeds),
        harness::sync_name(p.synchronous)
    ));
    section.setup(
        "tab version: the lab's `TabScoped` wrapper served by the same server (a write is refused \
         only if a tab it touches changed since the editor's read; built on the product's \
         conflict, which names the tabs changed since)"
            .to_owned(),
    );
    section.setup(
        "app engine: the person types through `quire_sync::Engine` (REST + events, the desktop \
         app's engine), each edit flushed and waited on; the server's check stays Note-wide"
            .to_owned(),
    );
    let n = p.edits * p.seeds.len();
    let mut table = Table::new(&[
        "version scope",
        &format!("agent conflicts (of {n} edits)"),
        "person: conflicts shown",
        "person: refused by the server, rebased by the app",
        "lost",
        "article: agent conflicts",
        "article: person conflicts",
        "article: lost",
    ]);
    for scope in [Scope::Note, Scope::Tab, Scope::NoteWithEngine] {
        let r = row(p, scope).await?;
        let (name, article) = match scope {
            Scope::Note => (
                "Note (Quire's server), person on REST",
                ["130 of 300 (43%)", "87 of 300 (29%)", "0"],
            ),
            Scope::Tab => ("tab (lab control)", ["0", "0", "0"]),
            Scope::NoteWithEngine => (
                "Note (Quire's server), person through the app's engine",
                ["—", "—", "—"],
            ),
        };
        let agent = format!(
            "{} ({})",
            r.agent.conflicts,
            pct(r.agent.conflicts as f64, n as f64)
        );
        let person = format!(
            "{} ({})",
            r.person.conflicts,
            pct(r.person.conflicts as f64, n as f64)
        );
        let refused = match scope {
            Scope::NoteWithEngine => format!("{} / {}", r.person_refused, r.person_rebased),
            Scope::Note | Scope::Tab => "—".into(),
        };
        table.row(vec![
            name.into(),
            agent,
            person,
            refused,
            r.lost().to_string(),
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

    fn small() -> Params {
        Params {
            edits: 12,
            seeds: vec![1],
            agent_think_ms: (4, 12),
            person_think_ms: (1, 6),
            synchronous: Synchronous::Normal,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn tab_versions_remove_the_false_conflicts_and_nothing_is_lost() {
        let p = small();
        let note = row(&p, Scope::Note).await.expect("note row");
        let tab = row(&p, Scope::Tab).await.expect("tab row");
        assert!(note.agent.conflicts + note.person.conflicts > 0, "{note:?}");
        assert_eq!(note.lost(), 0);
        assert_eq!(
            (tab.agent.conflicts, tab.person.conflicts, tab.lost()),
            (0, 0, 0)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_app_engine_shows_the_person_no_conflict() {
        let r = row(&small(), Scope::NoteWithEngine)
            .await
            .expect("engine row");
        assert_eq!(r.person.conflicts, 0, "{r:?}");
        assert_eq!(r.lost(), 0, "{r:?}");
        assert!(
            r.agent.conflicts > 0,
            "the server's check stays Note-wide: {r:?}"
        );
    }

    #[test]
    fn cells_are_set_in_place() {
        let data = json!({"sheets": [{"id": "s1", "name": "Sheet 1", "rows": [["a", "b"]]}]});
        let out = with_cell(with_cell(data, 2, "x"), 0, "y");
        assert_eq!(out["sheets"][0]["rows"], json!([["y", "b"], [], ["x"]]));
    }
}
