//! Experiment 12 (Quire's own): the agent and the person edit different lines of one Markdown
//! tab. The agent changes one line per edit over MCP, either with `edit_note_text` (old_text /
//! new_text, after reading that one line with `read_note_lines`) or with `edit_note_tab`
//! `replace_text` (the whole text, read first with `read_note_tab`); the person types on another
//! line through the desktop app's engine (`quire_sync::Engine`), whose editor takes the engine's
//! text now and then, as the app's does when the person pauses. The server keeps its Note-wide
//! check, so the agent is refused whenever the person saved meanwhile; the engine merges a
//! change of other lines into the person's draft by itself. Measured: the conflicts shown to the
//! person (the target is none), the agent's refusals, what was lost, and what the agent sends
//! and receives per edit.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire_model::{NoteId, Op, TabId, Version};
use quire_store_sqlite::Synchronous;
use quire_sync::Engine;
use serde_json::{Value, json};

use crate::client::{Client, Direct, Mcp, Reply, text_of};
use crate::harness::{self, LabRng, LabServer, LabStore, rng};
use crate::report::{Section, Table, slash};

#[derive(Debug, Clone)]
pub struct Params {
    pub edits: usize,
    pub seeds: Vec<u64>,
    /// Lines of the Note's text.
    pub lines: usize,
    pub agent_think_ms: (u64, u64),
    pub person_think_ms: (u64, u64),
    pub synchronous: Synchronous,
}

impl Params {
    /// 100 edits each, three seeds at once, the race's think times, a 2,000-line Note.
    pub fn article() -> Self {
        Params {
            edits: 100,
            seeds: vec![1, 2, 3],
            lines: 2_000,
            agent_think_ms: (20, 80),
            person_think_ms: (5, 40),
            synchronous: Synchronous::Full,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `read_note_lines` (the one line) + `edit_note_text`.
    EditText,
    /// `read_note_tab` + `edit_note_tab` `replace_text`.
    ReplaceText,
}

#[derive(Debug, Clone, Default)]
pub struct RowResult {
    pub agent_edits: usize,
    pub agent_refused: usize,
    /// Arguments and structured results of the agent's calls, in bytes of JSON.
    pub agent_bytes: usize,
    pub person_conflicts: usize,
    pub person_refused: usize,
    pub person_merged: usize,
    pub lost: usize,
}

fn line_of(n: usize) -> String {
    format!("line {n}")
}

/// The line the agent changes in its edit `i` (1-based line number): far from the person's.
fn agent_line(i: usize) -> usize {
    100 + i
}

fn agent_text(n: usize) -> String {
    format!("line {n} (claude)")
}

/// The person's line (line 3) after `typed` keystrokes.
fn person_text(typed: usize) -> String {
    format!("line 3 {}", "p".repeat(typed))
}

fn size(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.len())
}

async fn setup(
    store: &Arc<dyn quire_store::Store>,
    seed: u64,
    lines: usize,
) -> anyhow::Result<NoteId> {
    let note = harness::create_note(&**store, &mut rng(seed, 0), "lines").await?;
    let text: Vec<String> = (1..=lines).map(line_of).collect();
    let lab = Direct::new(store.clone(), "person");
    let op = Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: text.join("\n"),
    };
    match lab.write(&note, Version(1), None, vec![op]).await? {
        Reply::Accepted(_) => Ok(note),
        Reply::Conflict { .. } => anyhow::bail!("a fresh Note is at version 1"),
    }
}

struct Agent {
    mcp: Mcp,
    note: NoteId,
    tool: Tool,
    edits: usize,
    think_ms: (u64, u64),
    think_rng: LabRng,
    key_rng: LabRng,
}

impl Agent {
    /// (edits, refused, bytes).
    async fn run(mut self) -> anyhow::Result<(usize, usize, usize)> {
        let (mut refused, mut bytes) = (0, 0);
        for i in 0..self.edits {
            let n = agent_line(i);
            loop {
                let (read, write) = match self.tool {
                    Tool::EditText => {
                        let read = json!({"note_id": self.note, "tab_id": "markdown",
                                          "start_line": n, "line_count": 1});
                        let got = self.mcp.call("read_note_lines", read.clone()).await?;
                        anyhow::ensure!(!got.is_error, "read_note_lines: {}", got.body);
                        bytes += size(&read) + size(&got.body);
                        let version = got.body["version"].as_u64().context("version")?;
                        // The agent thinks between its read and its write, as in the race.
                        tokio::time::sleep(harness::think(&mut self.think_rng, self.think_ms))
                            .await;
                        let write = json!({"note_id": self.note, "tab_id": "markdown",
                            "expected_version": version,
                            "idempotency_key": harness::key(&mut self.key_rng),
                            "edits": [{"old_text": format!("\n{}\n", line_of(n)),
                                       "new_text": format!("\n{}\n", agent_text(n))}]});
                        ("edit_note_text", write)
                    }
                    Tool::ReplaceText => {
                        let read = json!({"note_id": self.note, "tab_id": "markdown"});
                        let got = self.mcp.call("read_note_tab", read.clone()).await?;
                        anyhow::ensure!(!got.is_error, "read_note_tab: {}", got.body);
                        bytes += size(&read) + size(&got.body);
                        let version = got.body["version"].as_u64().context("version")?;
                        tokio::time::sleep(harness::think(&mut self.think_rng, self.think_ms))
                            .await;
                        let text = text_of(&got.body["data"])?;
                        let mut lines: Vec<&str> = text.split('\n').collect();
                        let new = agent_text(n);
                        if let Some(l) = lines.get_mut(n - 1) {
                            *l = &new;
                        }
                        let write = json!({"note_id": self.note, "tab_id": "markdown",
                            "expected_version": version,
                            "idempotency_key": harness::key(&mut self.key_rng),
                            "operation": "replace_text", "text": lines.join("\n")});
                        ("edit_note_tab", write)
                    }
                };
                let answer = self.mcp.call(read, write.clone()).await?;
                bytes += size(&write) + size(&answer.body);
                if !answer.is_error {
                    break;
                }
                anyhow::ensure!(
                    answer.body["error"] == "version_conflict",
                    "{read}: {}",
                    answer.body
                );
                refused += 1;
            }
        }
        self.mcp.close().await?;
        Ok((self.edits, refused, bytes))
    }
}

/// The person at the desktop app, typing on line 3. Each keystroke is handed to the engine with
/// the version the editor's text was taken at; every third pause the editor takes the engine's
/// text (as the app's does when nothing was typed since it read it).
struct Person {
    engine: Engine,
    note: NoteId,
    edits: usize,
    think_ms: (u64, u64),
    think_rng: LabRng,
}

const SETTLE: Duration = Duration::from_secs(60);

impl Person {
    /// (conflicts shown, saves refused by the server, merged or re-applied by the engine).
    async fn run(mut self) -> anyhow::Result<(usize, usize, usize)> {
        let markdown = TabId::new(TabId::MARKDOWN);
        self.engine.open_note(&self.note).await?;
        let take = |engine: &Engine, note: &NoteId| -> anyhow::Result<(String, Version)> {
            let version = engine.view(note)?.version;
            let text = text_of(&engine.tab(note, &markdown)?.data)?;
            Ok((text, version))
        };
        let (mut editor, mut base) = take(&self.engine, &self.note)?;
        for i in 0..self.edits {
            tokio::time::sleep(harness::think(&mut self.think_rng, self.think_ms)).await;
            let mut lines: Vec<String> = editor.split('\n').map(str::to_owned).collect();
            if let Some(l) = lines.get_mut(2) {
                *l = person_text(i + 1);
            }
            editor = lines.join("\n");
            self.engine
                .edit_tab_on(&self.note, &markdown, json!(editor), base)
                .await?;
            if i % 3 == 2 {
                (editor, base) = take(&self.engine, &self.note)?;
            }
        }
        self.engine.flush(&self.note).await?;
        self.engine
            .wait_until(&self.note, SETTLE, "the person's saves", |s| {
                s.status.settled
            })
            .await?;
        let stats = self.engine.status(&self.note)?.stats;
        self.engine.shutdown();
        Ok((
            stats.conflicts_shown as usize,
            stats.refused as usize,
            stats.auto_rebased as usize,
        ))
    }
}

pub async fn row(p: &Params, tool: Tool) -> anyhow::Result<RowResult> {
    let lab = LabStore::open(p.synchronous)?;
    let store = lab.dyn_store();
    let server = LabServer::start(store.clone()).await?;
    let app_dir = tempfile::tempdir().context("a directory for the app's local store")?;
    let mut runs = Vec::new();
    for &seed in &p.seeds {
        let note = setup(&store, seed, p.lines).await?;
        let agent = Agent {
            mcp: Mcp::connect(&server.url(), &server.agent_token).await?,
            note: note.clone(),
            tool,
            edits: p.edits,
            think_ms: p.agent_think_ms,
            think_rng: rng(seed, 1),
            key_rng: rng(seed, 2),
        };
        let person = Person {
            engine: server.person_engine(app_dir.path().join(format!("app-{seed}.db")))?,
            note: note.clone(),
            edits: p.edits,
            think_ms: p.person_think_ms,
            think_rng: rng(seed, 3),
        };
        let run = tokio::spawn(async move {
            let agent = tokio::spawn(agent.run());
            let person = tokio::spawn(person.run());
            let agent = agent.await.context("agent task")??;
            let person = person.await.context("person task")??;
            anyhow::Ok((agent, person))
        });
        runs.push((note, run));
    }
    let reader = Direct::new(store.clone(), "lab");
    let mut r = RowResult::default();
    for (note, run) in runs {
        let ((edits, refused, bytes), (conflicts, person_refused, merged)) =
            run.await.context("lines task")??;
        r.agent_edits += edits;
        r.agent_refused += refused;
        r.agent_bytes += bytes;
        r.person_conflicts += conflicts;
        r.person_refused += person_refused;
        r.person_merged += merged;
        let (_, data) = reader.read_tab(&note, &TabId::new(TabId::MARKDOWN)).await?;
        let text = text_of(&data)?;
        let lines: Vec<&str> = text.split('\n').collect();
        r.lost += (0..p.edits)
            .filter(|&i| lines.get(agent_line(i) - 1) != Some(&agent_text(agent_line(i)).as_str()))
            .count();
        if lines.get(2) != Some(&person_text(p.edits).as_str()) {
            r.lost += 1;
        }
        if lines.len() != p.lines {
            r.lost += 1;
        }
    }
    server.stop().await?;
    Ok(r)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section =
        Section::new("12. One tab, different lines: precise against whole-text edits");
    section.setup(format!(
        "a {}-line Markdown tab; the agent changes one line per edit over MCP (lines 100 on), the \
         person types on line 3 through `quire_sync::Engine` (the app's engine), its editor \
         taking the engine's text every third keystroke; {} edits each, seeds {} run at once on \
         one real server (SQLite {}); think times as in the race (the agent's between its read \
         and its write); the agent re-reads and redoes on a refusal",
        p.lines,
        p.edits,
        slash(&p.seeds),
        harness::sync_name(p.synchronous)
    ));
    section.setup(
        "agent payload: the JSON of the tool calls' arguments and structured results, per edit \
         (reads included, refused attempts included)"
            .to_owned(),
    );
    let n = p.edits * p.seeds.len();
    let mut table = Table::new(&[
        "the agent writes with",
        &format!("agent refused (of {n} edits)"),
        "person: conflicts shown",
        "person: saves refused, merged by the app",
        "lost",
        "agent payload per edit",
    ]);
    for tool in [Tool::ReplaceText, Tool::EditText] {
        let r = row(p, tool).await?;
        let name = match tool {
            Tool::ReplaceText => "`read_note_tab` + `replace_text` (whole text)",
            Tool::EditText => "`read_note_lines` + `edit_note_text` (one line)",
        };
        table.row(vec![
            name.into(),
            r.agent_refused.to_string(),
            r.person_conflicts.to_string(),
            format!("{} / {}", r.person_refused, r.person_merged),
            r.lost.to_string(),
            format!("{} B", r.agent_bytes / r.agent_edits.max(1)),
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
            lines: 200,
            agent_think_ms: (4, 12),
            person_think_ms: (1, 6),
            synchronous: Synchronous::Normal,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn different_lines_of_one_tab_show_the_person_no_conflict() {
        for tool in [Tool::EditText, Tool::ReplaceText] {
            let r = row(&small(), tool).await.expect("row");
            assert_eq!(r.person_conflicts, 0, "{tool:?}: {r:?}");
            assert_eq!(r.lost, 0, "{tool:?}: {r:?}");
            assert_eq!(r.agent_edits, 12);
        }
    }
}
