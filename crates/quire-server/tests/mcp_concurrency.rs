//! The seeds' two concurrency experiments against the real server, small and fast:
//! creates with lost answers (the key is checked before the version), and a person on REST
//! racing an agent on MCP (re-read and redo loses nothing; refreshing only the version does).
#![allow(clippy::unwrap_used)]

mod mcp_support;

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_support::{Agent, Harness, body, call, key, ok, replace_text};
use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so a run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// True with probability `percent`%.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn between_ms(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_millis(lo + self.next() % (hi - lo + 1))
    }
}

/// 50 intended Sheet tabs, 30% of the answers lost after the server committed. The client
/// resends the very same call (same key, now stale version): it must get the first result,
/// never a conflict and never a second tab.
#[tokio::test]
async fn creates_with_lost_answers_make_exactly_the_intended_tabs() {
    const INTENDED: usize = 50;
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Lost answers").await;
    let mut rng = Rng(0x5eed_0001);
    let mut sent = 0;
    let mut created = Vec::new();
    for i in 0..INTENDED {
        let v = mcp_support::agent_version(&agent, &note).await;
        let args = json!({"note_id": note, "expected_version": v, "idempotency_key": key(),
                          "tab_type": "sheet", "label": format!("Sheet {i}")});
        let mut answer = call(&agent, "create_note_tab", args.clone()).await;
        sent += 1;
        let mut first: Option<Value> = None;
        while rng.chance(30) {
            // The answer is lost (the host timed out): remember what the server said, resend.
            first.get_or_insert_with(|| body(&answer));
            answer = call(&agent, "create_note_tab", args.clone()).await;
            sent += 1;
        }
        let out = body(&answer);
        assert_eq!(answer.is_error, Some(false), "resend {i}: {out}");
        if let Some(first) = first {
            assert_eq!(out["replayed"], true, "resend {i}");
            assert_eq!(
                out["tab_id"], first["tab_id"],
                "a resend names the first tab"
            );
        }
        created.push(out["tab_id"].as_str().unwrap().to_owned());
    }
    assert!(
        sent > INTENDED,
        "no answer was lost: the test proved nothing"
    );
    let note_now = h.note(&note).await;
    let sheets: Vec<&str> = note_now["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "sheet")
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(sheets.len(), INTENDED, "{sent} calls sent");
    assert_eq!(sheets, created);
    assert_eq!(
        created.iter().collect::<BTreeSet<_>>().len(),
        INTENDED,
        "tab IDs are unique"
    );
    eprintln!(
        "create with lost answers: {sent} calls sent, {} tabs",
        sheets.len()
    );
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnConflict {
    /// Read the tab again and append the line to what is there now (what the tools teach).
    Redo,
    /// Refresh the version only and resend the text computed from the old read.
    RefreshVersionOnly,
}

struct Outcome {
    lost: Vec<String>,
    agent_conflicts: usize,
    person_conflicts: usize,
}

/// Each editor appends `EDITS` unique lines to the Markdown tab: read, think, write. The agent
/// thinks longer (its window between read and write is the widest, as with a real model).
async fn race(policy: OnConflict, seed: u64) -> Outcome {
    const EDITS: usize = 30;
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Race").await;

    let agent_side = agent_edits(&agent, &note, EDITS, policy, seed);
    let person_side = person_edits(&h, &note, EDITS, seed ^ 0xabcdef);
    let (agent_conflicts, person_conflicts) = tokio::join!(agent_side, person_side);

    let text = h.note(&note).await["tabs"][0]["data"]
        .as_str()
        .unwrap()
        .to_owned();
    let lines: BTreeSet<&str> = text.lines().collect();
    let lost = (0..EDITS)
        .flat_map(|i| [format!("claude-{i}"), format!("human-{i}")])
        .filter(|l| !lines.contains(l.as_str()))
        .collect();
    agent.cancel().await.unwrap();
    Outcome {
        lost,
        agent_conflicts,
        person_conflicts,
    }
}

fn append(text: &str, line: &str) -> String {
    if text.is_empty() {
        line.to_owned()
    } else {
        format!("{text}\n{line}")
    }
}

async fn read_markdown(agent: &Agent, note: &str) -> (u64, String) {
    let tab = ok(
        agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "markdown"}),
    )
    .await;
    (
        tab["version"].as_u64().unwrap(),
        tab["data"].as_str().unwrap().to_owned(),
    )
}

async fn agent_edits(
    agent: &Agent,
    note: &str,
    edits: usize,
    policy: OnConflict,
    seed: u64,
) -> usize {
    let mut rng = Rng(seed);
    let mut conflicts = 0;
    for i in 0..edits {
        let line = format!("claude-{i}");
        let (mut version, text) = read_markdown(agent, note).await;
        tokio::time::sleep(rng.between_ms(4, 16)).await; // thinking
        let mut payload = append(&text, &line);
        loop {
            let result = call(
                agent,
                "edit_note_tab",
                replace_text(note, version, &payload),
            )
            .await;
            let out = body(&result);
            if result.is_error == Some(false) {
                break;
            }
            assert_eq!(out["error"], "version_conflict", "{out}");
            conflicts += 1;
            let (fresh_version, fresh_text) = read_markdown(agent, note).await;
            version = fresh_version;
            if policy == OnConflict::Redo {
                payload = append(&fresh_text, &line);
            }
        }
    }
    conflicts
}

async fn person_edits(h: &Harness, note: &str, edits: usize, seed: u64) -> usize {
    let mut rng = Rng(seed);
    let mut conflicts = 0;
    for i in 0..edits {
        let line = format!("human-{i}");
        loop {
            let current = h.note(note).await;
            let version = current["version"].as_u64().unwrap();
            let text = current["tabs"][0]["data"].as_str().unwrap().to_owned();
            tokio::time::sleep(rng.between_ms(1, 8)).await; // typing
            let (status, answer) = h
                .patch(
                    note,
                    version,
                    json!([{"op": "replace_text", "tab_id": "markdown",
                            "text": append(&text, &line)}]),
                )
                .await;
            match status {
                200 => break,
                409 => {
                    assert_eq!(answer["error"], "version_conflict");
                    conflicts += 1;
                }
                other => panic!("PATCH answered {other}: {answer}"),
            }
        }
    }
    conflicts
}

#[tokio::test]
async fn person_on_rest_and_agent_on_mcp_lose_nothing_when_the_agent_redoes() {
    let outcome = race(OnConflict::Redo, 7).await;
    eprintln!(
        "re-read and redo: {} lost, conflicts agent {} / person {}",
        outcome.lost.len(),
        outcome.agent_conflicts,
        outcome.person_conflicts
    );
    assert!(
        outcome.agent_conflicts > 0,
        "the editors never collided: the race proved nothing"
    );
    assert_eq!(outcome.lost, Vec::<String>::new());
}

/// The check alone is not the protection: refreshing only the version passes it and still
/// overwrites the person. (This is why the tool descriptions say "redo the change".)
#[tokio::test]
async fn refreshing_only_the_version_loses_the_persons_lines() {
    let outcome = race(OnConflict::RefreshVersionOnly, 7).await;
    eprintln!(
        "refresh the version only: {} lost, conflicts agent {} / person {}",
        outcome.lost.len(),
        outcome.agent_conflicts,
        outcome.person_conflicts
    );
    assert!(outcome.agent_conflicts > 0, "the editors never collided");
    assert!(
        outcome.lost.iter().any(|l| l.starts_with("human-")),
        "a stale resend after a conflict should have overwritten the person"
    );
}
