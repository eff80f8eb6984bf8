//! Experiment 5: a create replaces nothing, so the version check alone cannot stop duplicates:
//! a resend after a lost answer is a new tab on the new version. The same idempotency key on
//! every resend returns the first tab instead.

use std::collections::HashSet;
use std::time::Instant;

use quire_model::{NewTabKind, Op, TabKind};
use quire_store_sqlite::Synchronous;
use rand::Rng;

use crate::client::{Client, Direct, Reply};
use crate::harness::{self, LabStore, rng};
use crate::report::{Section, Table, slash};

#[derive(Debug, Clone)]
pub struct Params {
    pub tabs: usize,
    /// Share of accepted writes whose answer never reaches the client.
    pub drop: f64,
    pub seeds: Vec<u64>,
}

impl Params {
    /// The article's: 50 Sheet tabs, 30% of answers dropped, 3 runs.
    pub fn article() -> Self {
        Params {
            tabs: 50,
            drop: 0.3,
            seeds: vec![1, 2, 3],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// No idempotency key (REST allows it; the write cannot be safely resent).
    None,
    /// One key per intended tab, resent unchanged.
    SameOnRetry,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunResult {
    pub calls: usize,
    pub created: usize,
    /// Distinct tab IDs the client was told about (a replay names the first tab).
    pub ids_seen: usize,
}

/// One run: create `tabs` Sheet tabs, resending (at the current version) whenever the answer
/// was lost, as a host does after a timeout.
pub async fn run_once(p: &Params, seed: u64, keys: Keys) -> anyhow::Result<RunResult> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let note = harness::create_note(&*store, &mut rng(seed, 0), "creates").await?;
    let client = Direct::new(store.clone(), "claude");
    let mut network = rng(seed, 1);
    let mut key_rng = rng(seed, 2);
    let mut result = RunResult::default();
    let mut ids = HashSet::new();
    for _ in 0..p.tabs {
        let key = match keys {
            Keys::None => None,
            Keys::SameOnRetry => Some(harness::key(&mut key_rng)),
        };
        loop {
            let (version, _) = client.list_tabs(&note).await?;
            result.calls += 1;
            let op = Op::CreateTab {
                tab_type: NewTabKind::Sheet,
                label: None,
                slides: None,
            };
            match client.write(&note, version, key.clone(), vec![op]).await? {
                Reply::Accepted(a) => {
                    if network.random_bool(p.drop) {
                        continue; // the answer was lost: send it again
                    }
                    if let Some(id) = a.created_tab {
                        ids.insert(id);
                    }
                    break;
                }
                Reply::Conflict { .. } => continue,
            }
        }
    }
    let (_, tabs) = client.list_tabs(&note).await?;
    result.created = tabs.iter().filter(|t| t.kind == TabKind::Sheet).count();
    result.ids_seen = ids.len();
    store.close().await?;
    Ok(result)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("5. Creating tabs with and without a key");
    section.setup(format!(
        "{} Sheet tabs per run, {:.0}% of the answers to accepted writes dropped after the commit \
         and the call resent at the version then current; seeds {}; in-process on the product's \
         `SqliteStore` (REST allows a write without a key; MCP does not)",
        p.tabs,
        p.drop * 100.0,
        slash(&p.seeds)
    ));
    let mut table = Table::new(&[
        "",
        "calls sent",
        "tabs created",
        "duplicates",
        "article: calls",
        "article: tabs",
        "article: duplicates",
    ]);
    for keys in [Keys::None, Keys::SameOnRetry] {
        let mut runs = Vec::new();
        for &seed in &p.seeds {
            runs.push(run_once(p, seed, keys).await?);
        }
        let calls: Vec<usize> = runs.iter().map(|r| r.calls).collect();
        let created: Vec<usize> = runs.iter().map(|r| r.created).collect();
        let dups: Vec<usize> = runs
            .iter()
            .map(|r| r.created - p.tabs.min(r.created))
            .collect();
        let (name, article) = match keys {
            Keys::None => ("no key", ["71 / 61 / 63", "71 / 61 / 63", "21 / 11 / 13"]),
            Keys::SameOnRetry => (
                "same key on every resend",
                ["71 / 61 / 63", "50 / 50 / 50", "0"],
            ),
        };
        table.row(vec![
            name.into(),
            slash(&calls),
            slash(&created),
            slash(&dups),
            article[0].into(),
            article[1].into(),
            article[2].into(),
        ]);
    }
    section.table(None, table);
    section.note(
        "both rows draw the same lost answers (one draw per accepted answer, replays included), \
         so they send the same calls, as in the article",
    );
    section.elapsed = started.elapsed();
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_key_makes_exactly_the_intended_tabs() {
        let p = Params {
            tabs: 12,
            drop: 0.3,
            seeds: vec![1],
        };
        let none = run_once(&p, 1, Keys::None).await.expect("no key");
        let same = run_once(&p, 1, Keys::SameOnRetry).await.expect("same key");
        assert_eq!(none.calls, same.calls, "same lost answers, same calls");
        assert!(none.calls > p.tabs, "some answers must be lost at 30%");
        assert_eq!(
            none.created, none.calls,
            "without a key every call is a tab"
        );
        assert_eq!(same.created, p.tabs);
        assert_eq!(same.ids_seen, p.tabs, "a replay names the first tab");
    }
}
