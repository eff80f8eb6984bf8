//! Experiment 8: where the key is checked. A resend after a lost answer carries the version
//! from before its own commit. Checked key-first (Quire) it replays the first tab; checked
//! version-first (the lab's control) it is a conflict, and a client that treats the next
//! attempt as a new intent makes a second tab.

use std::sync::Arc;
use std::time::Instant;

use quire_model::{NewTabKind, NoteId, Op, TabKind};
use quire_store::Store;
use quire_store_sqlite::Synchronous;
use rand::Rng;

use crate::client::{Client, Mcp, Reply};
use crate::controls::VersionThenKey;
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table, slash};

/// The same as the creates experiment's: 50 creates, 30% of answers lost, seeds 1-3.
pub use super::creates::Params;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Quire: the key, then the version.
    KeyThenVersion,
    /// The lab's control.
    VersionThenKey,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    NewKeyPerCall,
    SameKeyOnRetry,
    NewKeyAfterConflict,
}

impl Policy {
    pub const ALL: [Policy; 3] = [
        Policy::NewKeyPerCall,
        Policy::SameKeyOnRetry,
        Policy::NewKeyAfterConflict,
    ];

    fn label(self) -> &'static str {
        match self {
            Policy::NewKeyPerCall => "new key per call",
            Policy::SameKeyOnRetry => "same key on retry",
            Policy::NewKeyAfterConflict => "new key after a conflict",
        }
    }
}

/// The article's "tabs created (calls sent)" for seeds 1-3.
fn article(order: Order, policy: Policy) -> &'static str {
    match (order, policy) {
        (Order::KeyThenVersion, Policy::NewKeyPerCall)
        | (Order::VersionThenKey, Policy::NewKeyPerCall) => "63 (76) / 75 (100) / 62 (74)",
        (Order::KeyThenVersion, _) => "50 (67) / 50 (81) / 50 (62)",
        (Order::VersionThenKey, Policy::SameKeyOnRetry) => "50 (79) / 50 (98) / 50 (72)",
        (Order::VersionThenKey, Policy::NewKeyAfterConflict) => "72 (94) / 73 (96) / 61 (72)",
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunResult {
    pub created: usize,
    pub calls: usize,
    pub conflicts: usize,
}

/// One run of the client against `client`: `tabs` creates, each answer lost with `drop`.
pub async fn run_once(
    client: &dyn Client,
    note: &NoteId,
    p: &Params,
    seed: u64,
    policy: Policy,
) -> anyhow::Result<RunResult> {
    let mut network = rng(seed, 1);
    let mut keys = rng(seed, 2);
    let mut result = RunResult::default();
    for _ in 0..p.tabs {
        let (mut version, _) = client.list_tabs(note).await?;
        let mut key = harness::key(&mut keys);
        loop {
            result.calls += 1;
            let op = Op::CreateTab {
                tab_type: NewTabKind::Sheet,
                label: None,
                slides: None,
            };
            match client
                .write(note, version, Some(key.clone()), vec![op])
                .await?
            {
                Reply::Accepted(_) => {
                    if !network.random_bool(p.drop) {
                        break;
                    }
                    // Lost: the same call again (same version), its key as the policy says.
                    if policy == Policy::NewKeyPerCall {
                        key = harness::key(&mut keys);
                    }
                }
                Reply::Conflict { .. } => {
                    result.conflicts += 1;
                    version = client.list_tabs(note).await?.0;
                    if policy != Policy::SameKeyOnRetry {
                        key = harness::key(&mut keys);
                    }
                }
            }
        }
    }
    let (_, tabs) = client.list_tabs(note).await?;
    result.created = tabs.iter().filter(|t| t.kind == TabKind::Sheet).count();
    Ok(result)
}

/// Every seed of one (order, policy) row over MCP on a real server.
pub async fn row(p: &Params, order: Order, policy: Policy) -> anyhow::Result<Vec<RunResult>> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let product = lab.dyn_store();
    let store: Arc<dyn Store> = match order {
        Order::KeyThenVersion => product.clone(),
        Order::VersionThenKey => Arc::new(VersionThenKey::new(product.clone())),
    };
    let server = LabServer::start(store).await?;
    let agent = Mcp::connect(&server.url(), &server.agent_token).await?;
    let mut runs = Vec::new();
    for &seed in &p.seeds {
        let note = harness::create_note(&*product, &mut rng(seed, 0), "order").await?;
        runs.push(run_once(&agent, &note, p, seed, policy).await?);
    }
    agent.close().await?;
    server.stop().await?;
    Ok(runs)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("8. Key-then-version vs version-then-key");
    section.setup(format!(
        "{} `create_note_tab` calls per run over MCP on a real server, {:.0}% of the answers to \
         accepted calls lost after the commit and the same call resent; on a conflict the client \
         re-lists for the version; seeds {}",
        p.tabs,
        p.drop * 100.0,
        slash(&p.seeds)
    ));
    section.setup(
        "version-then-key is the lab's `VersionThenKey` wrapper served by the same server: it \
         compares the version under a lock, then hands the write to the product's guarded write"
            .to_owned(),
    );
    let mut table = Table::new(&[
        "server checks",
        "client's key policy",
        "tabs created (calls sent)",
        "conflicts",
        "article",
    ]);
    for order in [Order::KeyThenVersion, Order::VersionThenKey] {
        for policy in Policy::ALL {
            let runs = row(p, order, policy).await?;
            let cells: Vec<String> = runs
                .iter()
                .map(|r| format!("{} ({})", r.created, r.calls))
                .collect();
            let conflicts: Vec<usize> = runs.iter().map(|r| r.conflicts).collect();
            table.row(vec![
                match order {
                    Order::KeyThenVersion => "key, then version (Quire)".into(),
                    Order::VersionThenKey => "version, then key (lab control)".into(),
                },
                policy.label().into(),
                cells.join(" / "),
                slash(&conflicts),
                article(order, policy).into(),
            ]);
        }
    }
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn key_first_creates_exactly_the_intended_tabs_over_mcp() {
        let p = Params {
            tabs: 10,
            drop: 0.3,
            seeds: vec![2],
        };
        for policy in [Policy::SameKeyOnRetry, Policy::NewKeyAfterConflict] {
            let runs = row(&p, Order::KeyThenVersion, policy).await.expect("row");
            assert_eq!(runs[0].created, p.tabs, "{policy:?}: {runs:?}");
            assert_eq!(runs[0].conflicts, 0, "a resend replays, never conflicts");
        }
        let control = row(&p, Order::VersionThenKey, Policy::NewKeyAfterConflict)
            .await
            .expect("control row");
        let key_first = row(&p, Order::KeyThenVersion, Policy::NewKeyAfterConflict)
            .await
            .expect("key-first row");
        assert!(key_first[0].calls > p.tabs, "some answers must be lost");
        assert!(
            control[0].created > p.tabs,
            "version-first plus a new key after the conflict duplicates: {control:?}"
        );
    }
}
