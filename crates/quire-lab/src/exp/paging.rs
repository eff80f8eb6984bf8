//! Experiment 11: `list_note_attachments` caps `limit` at 50, so a Note with 120 sources takes
//! three calls to list. Measured on Quire's live MCP endpoint, following `next_cursor`.

use std::collections::HashSet;
use std::time::Instant;

use anyhow::{Context, bail};
use quire_model::{Op, Version};
use quire_store_sqlite::Synchronous;
use serde_json::{Value, json};

use crate::client::{Client, Direct, Mcp, Reply};
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table};

#[derive(Debug, Clone)]
pub struct Params {
    pub sources: usize,
    pub limit: u64,
}

impl Params {
    /// The article's: 120 sources, `limit` 50.
    pub fn article() -> Self {
        Params {
            sources: 120,
            limit: 50,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    pub calls: usize,
    pub items: usize,
    pub distinct: usize,
    /// The answer to `limit` 100: refused naming `limit`?
    pub over_limit_refused: bool,
}

pub async fn list(p: &Params) -> anyhow::Result<Listed> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let note = harness::create_note(&*store, &mut rng(11, 0), "paging").await?;
    let sources: Vec<Op> = (0..p.sources)
        .map(|i| Op::AddSource {
            title: format!("Source {i}"),
            url: format!("https://example.org/library/item-{i}"),
        })
        .collect();
    let person = Direct::new(store.clone(), "person");
    if let Reply::Conflict { .. } = person.write(&note, Version(1), None, sources).await? {
        bail!("a fresh Note is at version 1");
    }
    let server = LabServer::start(store.clone()).await?;
    let agent = Mcp::connect(&server.url(), &server.agent_token).await?;
    let mut listed = Listed::default();
    let mut seen = HashSet::new();
    let mut cursor = Value::Null;
    loop {
        let mut args = json!({"note_id": note, "kind": "sources", "limit": p.limit});
        if !cursor.is_null() {
            args["cursor"] = cursor.clone();
        }
        let answer = agent.call("list_note_attachments", args).await?;
        if answer.is_error {
            bail!("list_note_attachments: {}", answer.body);
        }
        listed.calls += 1;
        let items = answer.body["items"].as_array().context("no items")?;
        listed.items += items.len();
        seen.extend(
            items
                .iter()
                .filter_map(|i| i["id"].as_str().map(str::to_owned)),
        );
        cursor = answer.body["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    listed.distinct = seen.len();
    let over = agent
        .call(
            "list_note_attachments",
            json!({"note_id": note, "kind": "sources", "limit": 100}),
        )
        .await?;
    listed.over_limit_refused = over.is_error && over.body["field"] == "limit";
    agent.close().await?;
    server.stop().await?;
    // The store saw one source per item.
    let (_, data) = person
        .read_tab(&note, &quire_model::TabId::new(quire_model::TabId::SOURCES))
        .await?;
    if data.as_array().map(Vec::len) != Some(p.sources) {
        bail!("the Sources tab does not hold {} sources", p.sources);
    }
    Ok(listed)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let listed = list(p).await?;
    let mut section = Section::new("11. Paging attachments");
    section.setup(format!(
        "a Note with {} sources, listed over MCP on a real server with `list_note_attachments` \
         `kind: sources`, `limit: {}`, following `next_cursor` until it is null",
        p.sources, p.limit
    ));
    let mut table = Table::new(&[
        "sources",
        "limit",
        "calls needed",
        "items returned (distinct)",
        "limit 100",
        "article: calls",
    ]);
    table.row(vec![
        p.sources.to_string(),
        p.limit.to_string(),
        listed.calls.to_string(),
        format!("{} ({})", listed.items, listed.distinct),
        if listed.over_limit_refused {
            "refused: `limit`, maximum 50".into()
        } else {
            "accepted".into()
        },
        "3".into(),
    ]);
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_hundred_and_twenty_sources_take_three_calls() {
        let listed = list(&Params::article()).await.expect("list");
        assert_eq!(listed.calls, 3);
        assert_eq!((listed.items, listed.distinct), (120, 120));
        assert!(listed.over_limit_refused);
    }
}
