//! A one-line change of a 1 MiB Markdown Note over MCP: `edit_note_text` (the line quoted, its
//! new text) against `edit_note_tab` `replace_text` (the whole text with the line changed).
//! For each: the bytes of the JSON-RPC request and of the HTTP response body, and the round
//! trip on loopback (the server's time plus the transfer; median and p99), first for the write
//! alone, then for the whole change as an agent makes it: `read_note_tab` then `replace_text`,
//! against `read_note_lines` (20 lines from the one to change, found by its words with `find`)
//! then `edit_note_text`.
//!
//! The real server (SQLite, `synchronous=FULL` as `serve` runs it) on its own runtime and
//! threads; a bare HTTP client on one keep-alive connection speaks MCP 2026-07-28 (stateless),
//! so every byte of each body is counted as sent. The two kinds of change alternate on the
//! same Note, each on a different line.
//!
//! `cargo run --release -p quire-server --example bench_edit_text [-- --changes N --kib N]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use quire_model::AuthorKind;
use quire_server::ServeConfig;
use quire_testkit::bench::{Samples, arg, micros};
use serde_json::{Value, json};
use support::{Call, Mcp};

const WARMUP: usize = 3;
/// The Note's size unless `--kib` says otherwise.
const NOTE_KIB: usize = 1 << 10;
/// Lines `read_note_lines` fetches from the one to change.
const WINDOW: u64 = 20;

fn main() {
    let changes = arg("--changes", 30);
    let note_bytes = arg("--kib", NOTE_KIB) << 10;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let token = support::make_token(&db, "agent", AuthorKind::Agent);

    let config = ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0)));
    let server = support::serve(config);
    let addr = server.addr;

    let client_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let [write_text, write_whole, flow_text, flow_whole] =
        client_rt.block_on(measure(addr, token, changes, note_bytes));
    server.stop();

    println!(
        "A one-line change of a {} KiB Markdown Note over MCP, {changes} changes each, loopback",
        note_bytes >> 10
    );
    println!("| what | request | response | sent in all | round trip p50 | p99 |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (what, m) in [
        ("edit_note_text", &write_text),
        ("edit_note_tab replace_text", &write_whole),
        (
            "read_note_lines (find, 20 lines) + edit_note_text",
            &flow_text,
        ),
        ("read_note_tab + replace_text", &flow_whole),
    ] {
        m.print(what);
    }
    for (what, text, whole) in [
        ("the write", &write_text, &write_whole),
        ("read + write", &flow_text, &flow_whole),
    ] {
        let (t, w) = (text.clone().times.stats(), whole.clone().times.stats());
        println!(
            "{what}: bytes {:.3}% of replace_text's, round trip {:.3}x (p50)",
            100.0 * text.total() as f64 / whole.total() as f64,
            t.median.as_secs_f64() / w.median.as_secs_f64(),
        );
    }
}

/// The bytes of one call (the same for every call of a kind, within a few digits) and the
/// round trips of all of them.
#[derive(Clone, Default)]
struct Measured {
    request: usize,
    response: usize,
    times: Samples,
}

impl Measured {
    fn total(&self) -> usize {
        self.request + self.response
    }

    fn print(&self, what: &str) {
        let stats = self.times.clone().stats();
        println!(
            "| {what} | {} B | {} B | {} B | {:.0} us | {:.0} us |",
            self.request,
            self.response,
            self.total(),
            micros(stats.median),
            micros(stats.p99),
        );
    }

    /// Adds one call's bytes and time, unless it was a warm-up.
    fn add(&mut self, warm: bool, call: Call, elapsed: Duration) {
        if warm {
            self.request = self.request.max(call.request);
            self.response = self.response.max(call.response);
            self.times.push(elapsed);
        }
    }

    /// Adds the calls of one change, made one after the other.
    fn add_all(&mut self, warm: bool, calls: &[Call], elapsed: Duration) {
        let call = Call {
            request: calls.iter().map(|c| c.request).sum(),
            response: calls.iter().map(|c| c.response).sum(),
            result: Value::Null,
        };
        self.add(warm, call, elapsed);
    }
}

/// Line `n` (1-based) of the Note: unique, about 64 bytes.
fn line(n: usize, edit: Option<usize>) -> String {
    match edit {
        None => format!("Line {n:06}: the quick brown fox jumps over the lazy dog, again."),
        Some(i) => format!("Line {n:06}: changed by the agent's change number {i}."),
    }
}

async fn measure(
    addr: SocketAddr,
    token: String,
    changes: usize,
    note_bytes: usize,
) -> [Measured; 4] {
    let mut mcp = Mcp::new(addr, token);
    let made = mcp
        .call(
            "create_note",
            json!({"title": "Long", "idempotency_key": "bench-note"}),
        )
        .await
        .result;
    let note = made["note_id"].as_str().unwrap().to_owned();
    let count = note_bytes / (line(1, None).len() + 1);
    let mut lines: Vec<String> = (1..=count).map(|n| line(n, None)).collect();
    let text = |lines: &[String]| lines.join("\n") + "\n";
    let mut version = mcp
        .call(
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": 1,
                   "idempotency_key": "bench-fill", "operation": "replace_text",
                   "text": text(&lines)}),
        )
        .await
        .result["version"]
        .as_u64()
        .unwrap();

    let mut out: [Measured; 4] = Default::default();
    let [write_text, write_whole, flow_text, flow_whole] = &mut out;
    for i in 0..WARMUP + changes {
        let warm = i >= WARMUP;
        // Far apart, and a line no change touched before.
        let target = |k: usize| (k * 7919) % count + 1;

        // The write alone: edit_note_text, then replace_text, each on its own line.
        let n = target(4 * i);
        let edit = json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                          "idempotency_key": format!("text-{i}"),
                          "edits": [{"old_text": lines[n - 1], "new_text": line(n, Some(i))}]});
        let t = Instant::now();
        let call = mcp.call("edit_note_text", edit).await;
        write_text.add(warm, call.take_version(&mut version), t.elapsed());
        lines[n - 1] = line(n, Some(i));

        let n = target(4 * i + 1);
        lines[n - 1] = line(n, Some(i));
        let whole = json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                           "idempotency_key": format!("whole-{i}"), "operation": "replace_text",
                           "text": text(&lines)});
        let t = Instant::now();
        let call = mcp.call("edit_note_tab", whole).await;
        write_whole.add(warm, call.take_version(&mut version), t.elapsed());

        // The whole change: read what is needed, then write.
        let n = target(4 * i + 2);
        let t = Instant::now();
        let read = mcp
            .call(
                "read_note_lines",
                json!({"note_id": note, "tab_id": "markdown", "find": format!("Line {n:06}:"),
                       "line_count": WINDOW}),
            )
            .await;
        let shown = read.result["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["number"] == n)
            .unwrap()["text"]
            .as_str()
            .unwrap()
            .to_owned();
        let edit = json!({"note_id": note, "tab_id": "markdown",
                          "expected_version": read.result["version"],
                          "idempotency_key": format!("flow-text-{i}"),
                          "edits": [{"old_text": shown, "new_text": line(n, Some(i))}]});
        let write = mcp.call("edit_note_text", edit).await;
        let elapsed = t.elapsed();
        let write = write.take_version(&mut version);
        flow_text.add_all(warm, &[read, write], elapsed);
        lines[n - 1] = line(n, Some(i));

        let n = target(4 * i + 3);
        let t = Instant::now();
        let read = mcp
            .call(
                "read_note_tab",
                json!({"note_id": note, "tab_id": "markdown"}),
            )
            .await;
        let mut read_lines: Vec<String> = read.result["data"]
            .as_str()
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        read_lines[n - 1] = line(n, Some(i));
        let whole = json!({"note_id": note, "tab_id": "markdown",
                           "expected_version": read.result["version"],
                           "idempotency_key": format!("flow-whole-{i}"),
                           "operation": "replace_text", "text": text(&read_lines)});
        let write = mcp.call("edit_note_tab", whole).await;
        let elapsed = t.elapsed();
        let write = write.take_version(&mut version);
        flow_whole.add_all(warm, &[read, write], elapsed);
        lines = read_lines;
    }
    out
}

impl Call {
    /// Keeps the Note's new version for the next write.
    fn take_version(self, version: &mut u64) -> Call {
        *version = self.result["version"].as_u64().unwrap();
        self
    }
}
