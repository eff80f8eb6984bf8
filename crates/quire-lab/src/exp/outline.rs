//! Experiment 10: a 12-slide deck in one `create_note_tab` with `slides`, or an empty create
//! and 12 `slide_add` calls. Writes and request bytes are measured on Quire's live MCP
//! endpoint (every request accepted, so valid against the live schema); the conflicts per deck
//! are the article's model, simulated: a 4 s read-to-write window per write, a person saving
//! somewhere in the Note on average once a minute (exponential gaps), a conflict costing one
//! re-read and another window.

use std::time::Instant;

use anyhow::{Context, bail};
use quire_model::{NoteId, TabData, TabId};
use quire_store_sqlite::Synchronous;
use rand::Rng;
use serde_json::{Value, json};

use crate::client::{Client, Mcp};
use crate::harness::{self, LabRng, LabServer, LabStore, rng};
use crate::report::{Section, Table, int};

#[derive(Debug, Clone)]
pub struct Params {
    pub slides: usize,
    pub window_s: f64,
    pub mean_gap_s: f64,
    pub decks: usize,
    pub seed: u64,
}

impl Params {
    /// The article's: 12 slides, 4 s window, one save a minute, 2,000 simulated decks.
    pub fn article() -> Self {
        Params {
            slides: 12,
            window_s: 4.0,
            mean_gap_s: 60.0,
            decks: 2_000,
            seed: 10,
        }
    }
}

const TOPICS: [&str; 20] = [
    "Why this review",
    "What we asked",
    "How we searched",
    "Sources at a glance",
    "Finding 1: adoption",
    "Finding 2: cost",
    "Finding 3: risk",
    "What surprised us",
    "Open questions",
    "What we recommend",
    "Next steps",
    "Thanks",
    "Appendix A",
    "Appendix B",
    "Appendix C",
    "Appendix D",
    "Appendix E",
    "Appendix F",
    "Appendix G",
    "Appendix H",
];

/// The deck's slides: title, a two-line body, a short speaker note.
pub fn outline(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let topic = TOPICS[i % TOPICS.len()];
            json!({
                "title": topic,
                "body": format!("Point {} of the review\nSee the Sources tab", i + 1),
                "notes": format!("about {} minute", 1 + i % 2),
            })
        })
        .collect()
}

/// The bytes of the JSON-RPC request that carries a `tools/call`.
fn request_bytes(id: usize, tool: &str, arguments: &Value) -> anyhow::Result<usize> {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    Ok(serde_json::to_vec(&message)?.len())
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Built {
    pub writes: usize,
    /// JSON-RPC request bytes, and the `arguments` objects' bytes alone.
    pub request_bytes: usize,
    pub argument_bytes: usize,
    pub slides_in_deck: usize,
}

async fn call(
    agent: &Mcp,
    built: &mut Built,
    tool: &str,
    arguments: Value,
) -> anyhow::Result<Value> {
    built.writes += 1;
    built.request_bytes += request_bytes(built.writes, tool, &arguments)?;
    built.argument_bytes += serde_json::to_vec(&arguments)?.len();
    let answer = agent.call(tool, arguments).await?;
    if answer.is_error {
        bail!("{tool} refused: {}", answer.body);
    }
    Ok(answer.body)
}

fn version(body: &Value) -> anyhow::Result<u64> {
    body["version"].as_u64().context("answer without version")
}

/// Builds the deck both ways on a live server; the decks are read back from the store.
pub async fn build(p: &Params) -> anyhow::Result<(Built, Built)> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let note: NoteId = harness::create_note(&*store, &mut rng(p.seed, 0), "outline").await?;
    let server = LabServer::start(store.clone()).await?;
    let agent = Mcp::connect(&server.url(), &server.agent_token).await?;
    let mut keys = rng(p.seed, 1);
    let slides = outline(p.slides);

    let mut one = Built::default();
    let (v, _) = agent.list_tabs(&note).await?;
    let created = call(
        &agent,
        &mut one,
        "create_note_tab",
        json!({"note_id": note, "expected_version": v, "idempotency_key": harness::key(&mut keys),
               "tab_type": "slides", "label": "Review (outline)", "slides": slides}),
    )
    .await?;
    let outline_tab = created["tab_id"].as_str().context("no tab_id")?.to_owned();

    let mut per_slide = Built::default();
    let created = call(
        &agent,
        &mut per_slide,
        "create_note_tab",
        json!({"note_id": note, "expected_version": version(&created)?,
               "idempotency_key": harness::key(&mut keys),
               "tab_type": "slides", "label": "Review (per slide)"}),
    )
    .await?;
    let per_slide_tab = created["tab_id"].as_str().context("no tab_id")?.to_owned();
    let mut v = version(&created)?;
    for slide in &slides {
        let mut args = json!({"note_id": note, "tab_id": per_slide_tab, "expected_version": v,
                              "idempotency_key": harness::key(&mut keys),
                              "operation": "slide_add"});
        if let (Some(args), Some(slide)) = (args.as_object_mut(), slide.as_object()) {
            args.extend(slide.clone());
        }
        v = version(&call(&agent, &mut per_slide, "edit_note_tab", args).await?)?;
    }
    agent.close().await?;
    server.stop().await?;

    let stored = store.get_note(&note).await?.note;
    let count = |id: &str| match stored.tab(&TabId::new(id)).map(|t| &t.data) {
        Some(TabData::Slides(deck)) => deck.slides.len(),
        _ => 0,
    };
    one.slides_in_deck = count(&outline_tab);
    per_slide.slides_in_deck = count(&per_slide_tab);
    Ok((one, per_slide))
}

/// Conflicts per deck when a deck takes `writes` writes: each write waits `window_s` after its
/// read; a person's save inside the window refuses it, and the retry opens a new window.
pub fn simulate(p: &Params, writes: usize, rng: &mut LabRng) -> f64 {
    let mut conflicts = 0usize;
    for _ in 0..p.decks {
        let mut t = 0.0;
        let mut next_save = exponential(rng, p.mean_gap_s);
        for _ in 0..writes {
            loop {
                let window_end = t + p.window_s;
                let refused = next_save <= window_end;
                while next_save <= window_end {
                    next_save += exponential(rng, p.mean_gap_s);
                }
                t = window_end;
                if !refused {
                    break;
                }
                conflicts += 1;
            }
        }
    }
    conflicts as f64 / p.decks as f64
}

fn exponential(rng: &mut LabRng, mean: f64) -> f64 {
    let u: f64 = rng.random();
    -mean * (1.0 - u).ln()
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let (one, per_slide) = build(p).await?;
    let outline_conflicts = simulate(p, one.writes, &mut rng(p.seed, 2));
    let per_slide_conflicts = simulate(p, per_slide.writes, &mut rng(p.seed, 3));
    let q = 1.0 - (-p.window_s / p.mean_gap_s).exp();
    let mut section = Section::new("10. One outline call vs one call per slide");
    section.setup(format!(
        "a {}-slide deck (title, two-line body, short note per slide) built over MCP on a real \
         server; request bytes are the JSON-RPC `tools/call` messages (the `arguments` alone in \
         brackets); every request was accepted by the live schema and the decks read back hold \
         {} and {} slides",
        p.slides, one.slides_in_deck, per_slide.slides_in_deck
    ));
    section.setup(format!(
        "conflicts per deck: simulated, {} decks, {} s read-to-write window per write, a save \
         every {} s on average (exponential), each conflict a re-read and a new window; \
         analytically n·q/(1-q) with q = 1-e^(-{}/{}) = {:.4}",
        int(p.decks as i64),
        p.window_s,
        p.mean_gap_s,
        p.window_s,
        p.mean_gap_s,
        q
    ));
    let mut table = Table::new(&[
        "approach",
        "writes",
        "request bytes",
        "conflicts per deck (model)",
        "article: writes",
        "article: bytes",
        "article: conflicts per deck",
    ]);
    table.row(vec![
        "`create_note_tab` with `slides`".into(),
        one.writes.to_string(),
        format!(
            "{} ({})",
            int(one.request_bytes as i64),
            int(one.argument_bytes as i64)
        ),
        format!("{outline_conflicts:.3}"),
        "1".into(),
        "1,673".into(),
        "0.070".into(),
    ]);
    table.row(vec![
        format!("empty create + {} × `slide_add`", p.slides),
        per_slide.writes.to_string(),
        format!(
            "{} ({})",
            int(per_slide.request_bytes as i64),
            int(per_slide.argument_bytes as i64)
        ),
        format!("{per_slide_conflicts:.3}"),
        "13".into(),
        "5,237".into(),
        "0.817".into(),
    ]);
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_outline_call_is_one_write_and_fewer_bytes() {
        let p = Params {
            decks: 300,
            ..Params::article()
        };
        let (one, per_slide) = build(&p).await.expect("build");
        assert_eq!(one.writes, 1);
        assert_eq!(per_slide.writes, 13);
        assert_eq!((one.slides_in_deck, per_slide.slides_in_deck), (12, 12));
        assert!(one.request_bytes * 2 < per_slide.request_bytes);
        let a = simulate(&p, 1, &mut rng(1, 2));
        let b = simulate(&p, 13, &mut rng(1, 3));
        assert!(a < 0.2 && b > 0.5, "{a} {b}");
    }
}
