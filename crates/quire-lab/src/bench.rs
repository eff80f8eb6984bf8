//! Benchmarks beyond the articles, on the real server over loopback and on the real store:
//! guarded writes and reads under load (wrk, a standard HTTP load tool, with a Lua script that
//! keeps each connection's version), `read_sheet_range` at its 100 x 100 maximum over MCP,
//! opening a large Note, reading an old version out of a long history, and what history costs
//! per write on a large Note.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use quire_model::{AuthorKind, NewTabKind, NoteId, Op, TabId, Version};
use quire_store_sqlite::Synchronous;
use quire_testkit::bench::Samples;
use serde_json::{Value, json};

use crate::client::{Client, Direct, Mcp, Reply};
use crate::harness::{self, LabServer, LabStore, rng};
use crate::report::{Section, Table, int, us};

pub(crate) const PATCH_LUA: &str = include_str!("../wrk/patch.lua");
const GET_LUA: &str = include_str!("../wrk/get.lua");

#[derive(Debug, Clone)]
pub struct Params {
    /// Seconds per wrk run; 0 skips the load runs.
    pub wrk_seconds: u64,
    pub connections: Vec<usize>,
    pub samples: usize,
    pub history_versions: usize,
    pub big_markdown_bytes: usize,
    pub big_note_sheets: usize,
    pub history_writes: usize,
}

impl Params {
    pub fn full() -> Self {
        Params {
            wrk_seconds: 5,
            connections: vec![1, 16],
            samples: 50,
            history_versions: 10_000,
            big_markdown_bytes: 1 << 20,
            big_note_sheets: 20,
            history_writes: 50,
        }
    }
}

/// One wrk run's figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Load {
    pub requests: u64,
    pub seconds: f64,
    pub p50: Duration,
    pub p99: Duration,
    pub non_2xx: u64,
    pub socket_errors: u64,
}

impl Load {
    pub fn per_second(&self) -> f64 {
        if self.seconds == 0.0 {
            0.0
        } else {
            self.requests as f64 / self.seconds
        }
    }
}

fn parse_wrk(output: &str) -> anyhow::Result<Load> {
    let line = output
        .lines()
        .find(|l| l.starts_with("QUIRE "))
        .with_context(|| format!("wrk printed no QUIRE line:\n{output}"))?;
    let field = |name: &str| -> anyhow::Result<u64> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .with_context(|| format!("no {name} in {line}"))?
            .parse()
            .with_context(|| format!("{name} in {line}"))
    };
    Ok(Load {
        requests: field("requests")?,
        seconds: field("duration_us")? as f64 / 1e6,
        p50: Duration::from_micros(field("p50_us")?),
        p99: Duration::from_micros(field("p99_us")?),
        non_2xx: field("non2xx")?,
        socket_errors: field("socket_errors")?,
    })
}

/// `wrk` on the PATH (Debian's package), if any.
pub(crate) fn wrk_binary() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("wrk"))
        .find(|p| p.is_file())
}

pub(crate) async fn run_wrk(
    wrk: &Path,
    script: &Path,
    url: &str,
    connections: usize,
    seconds: u64,
    notes: &[NoteId],
    token: &str,
) -> anyhow::Result<Load> {
    let ids: Vec<&str> = notes.iter().map(NoteId::as_str).collect();
    let output = tokio::process::Command::new(wrk)
        .arg(format!("-t{connections}"))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{seconds}s"))
        .arg("-s")
        .arg(script)
        .arg(url)
        .env("QUIRE_NOTES", ids.join(","))
        .env("QUIRE_TOKEN", token)
        .output()
        .await
        .context("cannot run wrk")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}): {stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    parse_wrk(&stdout)
}

/// wrk against a real server on loopback: guarded writes (each connection on its own Note)
/// and reads, with 1 and 16 connections, under FULL and NORMAL.
pub async fn http_load(p: &Params, wrk: &Path) -> anyhow::Result<Vec<(String, Load)>> {
    let scripts = tempfile::tempdir()?;
    let patch = scripts.path().join("patch.lua");
    let get = scripts.path().join("get.lua");
    std::fs::write(&patch, PATCH_LUA)?;
    std::fs::write(&get, GET_LUA)?;
    let mut out = Vec::new();
    for synchronous in [Synchronous::Full, Synchronous::Normal] {
        for &c in &p.connections {
            let lab = LabStore::open(synchronous)?;
            let store = lab.dyn_store();
            let mut ids = rng(c as u64, 0);
            let mut notes = Vec::new();
            for _ in 0..c {
                notes.push(harness::create_note(&*store, &mut ids, "load").await?);
            }
            let server = LabServer::start(store.clone()).await?;
            let load = run_wrk(
                wrk,
                &patch,
                &server.url(),
                c,
                p.wrk_seconds,
                &notes,
                &server.person_token,
            )
            .await?;
            server.stop().await?;
            out.push((
                format!(
                    "PATCH (guarded `replace_text`, 200 chars), {c} connection{}, {}",
                    if c == 1 { "" } else { "s" },
                    harness::sync_name(synchronous)
                ),
                load,
            ));
        }
    }
    let lab = LabStore::open(Synchronous::Full)?;
    let store = lab.dyn_store();
    let note = harness::create_note(&*store, &mut rng(0, 0), "load").await?;
    let server = LabServer::start(store.clone()).await?;
    for &c in &p.connections {
        let load = run_wrk(
            wrk,
            &get,
            &server.url(),
            c,
            p.wrk_seconds,
            std::slice::from_ref(&note),
            &server.person_token,
        )
        .await?;
        out.push((
            format!(
                "GET /notes/{{id}} (small Note), {c} connection{}",
                if c == 1 { "" } else { "s" }
            ),
            load,
        ));
    }
    server.stop().await?;
    Ok(out)
}

/// Times `n` calls of `f`.
async fn time_calls<F, Fut>(n: usize, mut f: F) -> anyhow::Result<(Duration, Duration)>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let mut samples = Samples::with_capacity(n);
    for _ in 0..n {
        let started = Instant::now();
        f().await?;
        samples.push(started.elapsed());
    }
    let stats = samples.stats();
    Ok((stats.median, stats.p99))
}

async fn write_ok(client: &dyn Client, note: &NoteId, ops: Vec<Op>) -> anyhow::Result<Version> {
    let (version, _) = client.list_tabs(note).await?;
    match client.write(note, version, None, ops).await? {
        Reply::Accepted(a) => Ok(a.version),
        Reply::Conflict { current_version } => {
            bail!("a lone writer got a conflict at {current_version}")
        }
    }
}

async fn new_tab(client: &dyn Client, note: &NoteId, label: &str) -> anyhow::Result<TabId> {
    let (version, _) = client.list_tabs(note).await?;
    let op = Op::CreateTab {
        tab_type: NewTabKind::Sheet,
        label: Some(label.to_owned()),
        slides: None,
    };
    match client.write(note, version, None, vec![op]).await? {
        Reply::Accepted(a) => a.created_tab.context("no tab created"),
        Reply::Conflict { .. } => bail!("a lone writer got a conflict"),
    }
}

fn grid(rows: usize, cols: usize) -> Vec<Vec<Value>> {
    (0..rows)
        .map(|r| (0..cols).map(|c| json!(r * 1000 + c)).collect())
        .collect()
}

/// A Markdown text of about `bytes` bytes, in lines of ~80 characters.
fn big_text(bytes: usize) -> String {
    let line = "Quire keeps every version of a Note; this line is filler for the benchmark.\n";
    line.repeat(bytes / line.len() + 1)[..bytes].to_owned()
}

/// Logical size of the database: pages in use, as a reader sees them (WAL included). Schema
/// agnostic: the store's tables are its own business.
fn db_bytes(path: &Path) -> anyhow::Result<u64> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let pages: u64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    let size: u64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
    Ok(pages * size)
}

/// The non-load benchmarks: each a (what, figure, detail) row.
pub async fn latencies(p: &Params) -> anyhow::Result<Vec<[String; 3]>> {
    let mut rows = Vec::new();
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let server = LabServer::start(store.clone()).await?;
    let person = Direct::new(store.clone(), "person");
    let http = reqwest::Client::new();
    let agent = Mcp::connect(&server.url(), &server.agent_token).await?;

    // read_sheet_range at its maximum, over MCP.
    let note = harness::create_note(&*store, &mut rng(1, 0), "sheet").await?;
    let sheet = new_tab(&person, &note, "Grid").await?;
    write_ok(
        &person,
        &note,
        vec![Op::SheetSetRange {
            tab_id: sheet.clone(),
            sheet_id: None,
            start_row: 0,
            start_col: 0,
            values: grid(200, 120),
        }],
    )
    .await?;
    let args = json!({"note_id": note, "tab_id": sheet, "start_row": 50, "start_col": 10,
                      "rows": 100, "cols": 100});
    let answer = agent.call("read_sheet_range", args.clone()).await?;
    let cells: usize = answer.body["values"]
        .as_array()
        .map(|rows| rows.iter().filter_map(Value::as_array).map(Vec::len).sum())
        .unwrap_or(0);
    if answer.is_error || cells != 100 * 100 {
        bail!("read_sheet_range returned {cells} cells: {}", answer.body);
    }
    let bytes = serde_json::to_vec(&answer.body)?.len();
    let (p50, p99) = time_calls(p.samples, || {
        let agent = &agent;
        let args = args.clone();
        async move {
            let a = agent.call("read_sheet_range", args).await?;
            if a.is_error {
                bail!("read_sheet_range: {}", a.body);
            }
            Ok(())
        }
    })
    .await?;
    rows.push([
        "`read_sheet_range` 100 x 100 over MCP (a 200 x 120 sheet)".to_owned(),
        format!("p50 {} µs, p99 {} µs", us(p50), us(p99)),
        format!(
            "{} KiB of structured content per call, {} calls",
            bytes / 1024,
            p.samples
        ),
    ]);

    // Opening a large Note.
    let note = harness::create_note(&*store, &mut rng(2, 0), "large").await?;
    write_ok(
        &person,
        &note,
        vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: big_text(p.big_markdown_bytes),
        }],
    )
    .await?;
    for i in 0..p.big_note_sheets {
        let tab = new_tab(&person, &note, &format!("Sheet {i}")).await?;
        write_ok(
            &person,
            &note,
            vec![Op::SheetSetRange {
                tab_id: tab,
                sheet_id: None,
                start_row: 0,
                start_col: 0,
                values: grid(100, 10),
            }],
        )
        .await?;
    }
    let url = format!("{}/notes/{note}", server.url());
    let body_bytes = http
        .get(&url)
        .bearer_auth(&server.person_token)
        .send()
        .await?
        .error_for_status()?
        .bytes()
        .await?
        .len();
    let (p50, p99) = time_calls(p.samples, || {
        let request = http.get(&url).bearer_auth(&server.person_token);
        async move {
            let body = request.send().await?.error_for_status()?.bytes().await?;
            if body.len() != body_bytes {
                bail!("the Note changed size");
            }
            Ok(())
        }
    })
    .await?;
    rows.push([
        format!(
            "open a Note: `GET /notes/{{id}}`, {} MiB Markdown + {} Sheets of 100 x 10",
            p.big_markdown_bytes >> 20,
            p.big_note_sheets
        ),
        format!("p50 {} µs, p99 {} µs", us(p50), us(p99)),
        format!("{} KiB response, {} calls", body_bytes / 1024, p.samples),
    ]);
    let (p50, p99) = time_calls(p.samples, || {
        let store = &store;
        let note = &note;
        async move {
            store.get_note(note).await?;
            Ok(())
        }
    })
    .await?;
    rows.push([
        "the same Note, in-process `Store::get_note`".to_owned(),
        format!("p50 {} µs, p99 {} µs", us(p50), us(p99)),
        format!("{} calls", p.samples),
    ]);

    // An old version out of a long history.
    let note = harness::create_note(&*store, &mut rng(3, 0), "history").await?;
    let mut version = Version(1);
    let mut keys = rng(3, 1);
    for i in 0..p.history_versions {
        let result = store
            .write(quire_store::WriteRequest {
                note_id: note.clone(),
                expected_version: version,
                idempotency_key: Some(harness::key(&mut keys)),
                author: "lab".to_owned(),
                author_kind: AuthorKind::Person,
                change: quire_store::Change::Ops(vec![Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: format!("line one\nedit {i}\nline three"),
                }]),
                now: harness::now(),
            })
            .await?;
        version = result.version;
    }
    for at in [2, version.0 / 2, version.0] {
        let url = format!("{}/notes/{note}/versions/{at}", server.url());
        let (p50, p99) = time_calls(p.samples, || {
            let request = http.get(&url).bearer_auth(&server.person_token);
            async move {
                let note: Value = request.send().await?.error_for_status()?.json().await?;
                if note["version"] != json!(at) {
                    bail!("asked for version {at}, got {}", note["version"]);
                }
                Ok(())
            }
        })
        .await?;
        rows.push([
            format!(
                "`GET /notes/{{id}}/versions/{}` with {} versions of history",
                int(at as i64),
                int(version.0 as i64)
            ),
            format!("p50 {} µs, p99 {} µs", us(p50), us(p99)),
            format!("{} calls", p.samples),
        ]);
    }
    let url = format!("{}/notes/{note}/versions", server.url());
    let (p50, p99) = time_calls(5, || {
        let request = http.get(&url).bearer_auth(&server.person_token);
        async move {
            request.send().await?.error_for_status()?.bytes().await?;
            Ok(())
        }
    })
    .await?;
    rows.push([
        format!(
            "`GET /notes/{{id}}/versions` (the list, {} entries)",
            int(version.0 as i64)
        ),
        format!("p50 {} µs, p99 {} µs", us(p50), us(p99)),
        "5 calls".to_owned(),
    ]);
    agent.close().await?;
    server.stop().await?;

    // History bytes per one-line edit of a large Note.
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let person = Direct::new(store.clone(), "person");
    let note = harness::create_note(&*store, &mut rng(4, 0), "large history").await?;
    let text = big_text(p.big_markdown_bytes);
    write_ok(
        &person,
        &note,
        vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: text.clone(),
        }],
    )
    .await?;
    let size_before = db_bytes(&lab.path)?;
    for i in 0..p.history_writes {
        let edited = format!("{text}edit {i}\n");
        write_ok(
            &person,
            &note,
            vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: edited,
            }],
        )
        .await?;
    }
    let size_after = db_bytes(&lab.path)?;
    let n = p.history_writes as u64;
    rows.push([
        format!(
            "history per one-line edit of a {} MiB Markdown tab ({} edits)",
            p.big_markdown_bytes >> 20,
            p.history_writes
        ),
        format!(
            "{} KiB of database per write",
            int(((size_after.saturating_sub(size_before)) / n / 1024) as i64)
        ),
        format!(
            "the database grew from {} to {} KiB (page count x page size, WAL included)",
            int((size_before / 1024) as i64),
            int((size_after / 1024) as i64)
        ),
    ]);
    store.close().await?;
    Ok(rows)
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("Benchmarks beyond the articles");
    section.setup(
        "one real Quire server on loopback (`quire_server::serve_store` over `SqliteStore`, the \
         code the binary runs), on this 2-core machine shared with the load generator"
            .to_owned(),
    );
    match wrk_binary() {
        Some(wrk) if p.wrk_seconds > 0 => {
            section.setup(format!(
                "HTTP load: wrk ({}), {} s per run, as many threads as connections; PATCH runs \
                 give each connection its own Note and keep its version from each answer \
                 (crates/quire-lab/wrk/patch.lua), so every write is an accepted guarded write",
                wrk.display(),
                p.wrk_seconds
            ));
            let mut table = Table::new(&[
                "load",
                "requests/s",
                "p50 µs",
                "p99 µs",
                "non-2xx",
                "socket errors",
            ]);
            for (name, load) in http_load(p, &wrk).await? {
                table.row(vec![
                    name,
                    int(load.per_second().round() as i64),
                    us(load.p50),
                    us(load.p99),
                    load.non_2xx.to_string(),
                    load.socket_errors.to_string(),
                ]);
            }
            section.table(Some("HTTP load (wrk)"), table);
        }
        _ => section
            .note("wrk not found on the PATH (Debian: apt-get install wrk): HTTP load skipped"),
    }
    let mut table = Table::new(&["what", "figure", "detail"]);
    for row in latencies(p).await? {
        table.row(row.to_vec());
    }
    section.table(Some("Reads, history"), table);
    section.elapsed = started.elapsed();
    Ok(section)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrk_summaries_are_parsed() {
        let load = parse_wrk(
            "Running 1s test\nQUIRE requests=5000 duration_us=1000000 p50_us=180 p99_us=900 non2xx=0 socket_errors=0\n",
        )
        .expect("parse");
        assert_eq!(load.requests, 5000);
        assert_eq!(load.p50, Duration::from_micros(180));
        assert!((load.per_second() - 5000.0).abs() < 1e-9);
        assert!(parse_wrk("no summary").is_err());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn small_benchmarks_run_against_the_real_server() {
        let p = Params {
            wrk_seconds: 1,
            connections: vec![1, 2],
            samples: 3,
            history_versions: 30,
            big_markdown_bytes: 64 * 1024,
            big_note_sheets: 2,
            history_writes: 3,
        };
        let rows = latencies(&p).await.expect("latencies");
        assert_eq!(rows.len(), 8);
        match wrk_binary() {
            None => eprintln!("wrk not on the PATH: the load part of this test did not run"),
            Some(wrk) => {
                let loads = http_load(&p, &wrk).await.expect("wrk");
                assert_eq!(loads.len(), 6);
                for (name, load) in &loads {
                    assert!(load.requests > 0, "{name}");
                    assert_eq!(load.non_2xx, 0, "{name}: every write must be accepted");
                }
            }
        }
    }
}
