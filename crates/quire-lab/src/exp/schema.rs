//! Experiment 6: the eight payloads a model might send, each sent to Quire's live MCP endpoint
//! (the guard fields filled in with valid values) and answered by its validator, which checks
//! every argument against the very schema `tools/list` advertises. A refused call must write
//! nothing: the Note's version is compared before and after.

use std::time::Instant;

use anyhow::Context;
use quire_model::{NoteId, Version};
use quire_store_sqlite::Synchronous;
use serde_json::{Value, json};

use crate::client::{Client, Mcp};
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table};

/// One payload: the tool, the part the article shows, and the article's verdict.
struct Payload {
    tool: &'static str,
    shown: Value,
    article: &'static str,
}

fn payloads() -> Vec<Payload> {
    let slides21: Vec<Value> = (1..=21)
        .map(|i| json!({"title": format!("Slide {i}")}))
        .collect();
    vec![
        Payload {
            tool: "edit_note_tab",
            shown: json!({"operation": "slide_add", "title": "Sources", "body": "3 links"}),
            article: "ok",
        },
        Payload {
            tool: "edit_note_tab",
            shown: json!({"operation": "slide_add", "title": "Sources", "index": 0}),
            article: "unexpected index",
        },
        Payload {
            tool: "edit_note_tab",
            shown: json!({"operation": "slides_add", "slides": [{"title": "a"}]}),
            article: "operation: not in enum",
        },
        Payload {
            tool: "edit_note_tab",
            shown: json!({"operation": "slides_add_outline",
                          "slides": [{"title": "a", "bullets": ["x", "y"]}]}),
            article: "slides: [0] unexpected bullets",
        },
        Payload {
            tool: "create_note_tab",
            shown: json!({"tab_type": "slides", "slides": slides21}),
            article: "slides: maxItems 20",
        },
        Payload {
            tool: "create_note_tab",
            shown: json!({"tab_type": "markdown"}),
            article: "tab_type: not in enum",
        },
        Payload {
            tool: "add_note_source",
            shown: json!({"url": "https://example.org/report"}),
            article: "missing title",
        },
        Payload {
            tool: "list_note_attachments",
            shown: json!({"kind": "sources", "limit": 100}),
            article: "ok (the rebuild's validator did not check `maximum`; the live schema says 50)",
        },
    ]
}

/// How the article prints a payload (long arrays shortened).
fn shown(p: &Payload) -> String {
    let mut v = p.shown.clone();
    if let Some(slides) = v.get_mut("slides")
        && let Some(items) = slides.as_array()
        && items.len() > 3
    {
        *slides = json!(format!("[{} items]", items.len()));
    }
    v.to_string()
}

/// The payload with the fields every call of that tool requires, filled in validly.
fn full_arguments(p: &Payload, note: &NoteId, deck: &str, version: Version, n: usize) -> Value {
    let mut args = json!({"note_id": note});
    match p.tool {
        "edit_note_tab" => {
            args["tab_id"] = json!(deck);
            args["expected_version"] = json!(version);
            args["idempotency_key"] = json!(format!("schema-payload-{n}"));
        }
        "create_note_tab" | "add_note_source" => {
            args["expected_version"] = json!(version);
            args["idempotency_key"] = json!(format!("schema-payload-{n}"));
        }
        _ => {}
    }
    if let (Some(args), Some(shown)) = (args.as_object_mut(), p.shown.as_object()) {
        for (k, v) in shown {
            args.insert(k.clone(), v.clone());
        }
    }
    args
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub tool: &'static str,
    pub payload: String,
    pub article: &'static str,
    /// `ok`, or the refusal's message.
    pub quire: String,
    pub field: Option<String>,
    /// Whether the Note's version moved.
    pub wrote: bool,
}

pub async fn verdicts() -> anyhow::Result<Vec<Verdict>> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let note = harness::create_note(&*store, &mut rng(6, 0), "schema").await?;
    let server = LabServer::start(store.clone()).await?;
    let agent = Mcp::connect(&server.url(), &server.agent_token).await?;
    let (version, _) = agent.list_tabs(&note).await?;
    let deck = agent
        .call(
            "create_note_tab",
            json!({"note_id": note, "expected_version": version,
                   "idempotency_key": "schema-deck", "tab_type": "slides", "label": "Deck"}),
        )
        .await?;
    let deck = deck.body["tab_id"]
        .as_str()
        .context("create_note_tab returned no tab_id")?
        .to_owned();
    let mut out = Vec::new();
    for (n, p) in payloads().iter().enumerate() {
        let (before, _) = agent.list_tabs(&note).await?;
        let args = full_arguments(p, &note, &deck, before, n);
        let answer = agent.call(p.tool, args).await?;
        let (after, _) = agent.list_tabs(&note).await?;
        let (quire, field) = if answer.is_error {
            (
                answer.body["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                answer.body["field"].as_str().map(str::to_owned),
            )
        } else {
            ("ok".to_owned(), None)
        };
        out.push(Verdict {
            tool: p.tool,
            payload: shown(p),
            article: p.article,
            quire,
            field,
            wrote: after != before,
        });
    }
    agent.close().await?;
    server.stop().await?;
    Ok(out)
}

pub async fn run() -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("6. Schema verdicts");
    section.setup(
        "each payload sent as a `tools/call` to a real Quire server over MCP (rmcp client), \
         with `note_id`, `tab_id` (a Slides deck), `expected_version` and `idempotency_key` filled \
         in validly; the verdict is the server's (its validator checks arguments against the \
         advertised schema, then the operation's fields)"
            .to_owned(),
    );
    let mut table = Table::new(&[
        "tool",
        "payload (as the article shows it)",
        "article's verdict",
        "Quire's verdict",
        "field",
        "wrote anything",
    ]);
    for v in verdicts().await? {
        table.row(vec![
            format!("`{}`", v.tool),
            format!("`{}`", v.payload),
            v.article.into(),
            v.quire,
            v.field.unwrap_or_else(|| "—".into()),
            if v.wrote { "yes" } else { "no" }.into(),
        ]);
    }
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_live_validator_gives_each_payload_its_verdict() {
        let v = verdicts().await.expect("verdicts");
        assert_eq!(v.len(), 8);
        let ok: Vec<bool> = v.iter().map(|v| v.quire == "ok").collect();
        assert_eq!(
            ok,
            [true, false, false, false, false, false, false, false],
            "{v:#?}"
        );
        assert!(v[0].wrote, "the valid slide_add writes");
        assert!(v[1..].iter().all(|v| !v.wrote), "a refusal writes nothing");
        let fields: Vec<Option<&str>> = v[1..].iter().map(|v| v.field.as_deref()).collect();
        assert_eq!(
            fields,
            [
                Some("index"),
                Some("operation"),
                Some("slides[0].bullets"),
                Some("slides"),
                Some("tab_type"),
                Some("title"),
                Some("limit"),
            ],
            "{v:#?}"
        );
        assert!(v[7].quire.contains("maximum 50"), "{}", v[7].quire);
    }
}
