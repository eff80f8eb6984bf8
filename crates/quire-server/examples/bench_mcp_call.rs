//! What an MCP tool call costs over its REST twin, on a small Note: a read (`read_note_tab`
//! against `GET /notes/{id}`) and a one-line write (`edit_note_text` against a `PATCH` with
//! `edit_text`), alternated on one keep-alive connection each. The difference is the agent's
//! fixed cost per call: JSON-RPC parsing, rmcp's dispatch, the answer's framing.
//!
//! The real server (SQLite, `synchronous=FULL` as `serve` runs it) on its own runtime and
//! threads; the agent's calls speak MCP 2026-07-28 (stateless) as a bare HTTP client.
//!
//! `cargo run --release -p quire-server --example bench_mcp_call [-- --calls N --lines N]`
//! (the default 40 lines: 1,879 B; 22,310 lines: 1 MiB)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::time::Instant;

use quire_model::AuthorKind;
use quire_server::ServeConfig;
use quire_testkit::bench::{Samples, arg, micros};
use serde_json::{Value, json};
use support::Mcp;

const WARMUP: usize = 200;

fn main() {
    let calls = arg("--calls", 2000);
    let lines = arg("--lines", 40);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let agent = support::make_token(&db, "agent", AuthorKind::Agent);
    let person = support::make_token(&db, "person", AuthorKind::Person);
    let server = support::serve(ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0))));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ([mcp_read, rest_read, mcp_write, rest_write], bytes) =
        rt.block_on(measure(server.addr, agent, person, calls, lines));
    server.stop();

    println!(
        "An MCP tool call against its REST twin, a Note of {lines} lines ({bytes} B), {calls} calls each, loopback"
    );
    println!("| call | MCP p50 | p99 | REST p50 | p99 | MCP - REST (p50) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (what, mcp, rest) in [
        ("read: read_note_tab / GET /notes/{id}", mcp_read, rest_read),
        (
            "write: edit_note_text / PATCH edit_text",
            mcp_write,
            rest_write,
        ),
    ] {
        let (m, r) = (mcp.stats(), rest.stats());
        println!(
            "| {what} | {:.0} us | {:.0} us | {:.0} us | {:.0} us | {:.0} us |",
            micros(m.median),
            micros(m.p99),
            micros(r.median),
            micros(r.p99),
            micros(m.median) - micros(r.median),
        );
    }
}

struct Client {
    mcp: Mcp,
    http: reqwest::Client,
    base: String,
    person: String,
}

impl Client {
    async fn mcp(&mut self, name: &str, arguments: Value) -> Value {
        self.mcp.call(name, arguments).await.result
    }

    async fn rest(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<(String, Value)>,
    ) -> Value {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.person);
        if let Some((key, body)) = body {
            req = req.header("idempotency-key", key).json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status();
        let text = res.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap()
    }
}

/// Line `n`: unique, the same length whatever the edit.
fn line(n: usize, edit: usize) -> String {
    format!("Line {n:06}: the quick brown fox, edit {edit:06}.")
}

async fn measure(
    addr: SocketAddr,
    agent: String,
    person: String,
    calls: usize,
    count: usize,
) -> ([Samples; 4], usize) {
    let mut c = Client {
        mcp: Mcp::new(addr, agent),
        http: reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap(),
        base: format!("http://{addr}"),
        person,
    };
    let made = c
        .mcp(
            "create_note",
            json!({"title": "Small", "idempotency_key": "bench-note"}),
        )
        .await;
    let note = made["note_id"].as_str().unwrap().to_owned();
    let mut lines: Vec<String> = (0..count).map(|n| line(n, 0)).collect();
    let text = lines.join("\n");
    let bytes = text.len();
    let mut version = c
        .mcp(
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": 1,
                   "idempotency_key": "bench-fill", "operation": "replace_text",
                   "text": text}),
        )
        .await["version"]
        .as_u64()
        .unwrap();

    let mut out: [Samples; 4] = Default::default();
    for i in 0..WARMUP + calls {
        let warm = i >= WARMUP;
        // Each pair alternates which of the two goes first: a call runs after the heavier
        // kind as often as after the lighter one.
        let mut took = [std::time::Duration::ZERO; 4];
        for first in [i % 2 == 0, i % 2 == 1] {
            let t = Instant::now();
            if first {
                c.mcp(
                    "read_note_tab",
                    json!({"note_id": note, "tab_id": "markdown"}),
                )
                .await;
                took[0] = t.elapsed();
            } else {
                c.rest(reqwest::Method::GET, &format!("/notes/{note}"), None)
                    .await;
                took[1] = t.elapsed();
            }
        }
        for (k, mcp) in [i % 2 == 0, i % 2 == 1].into_iter().enumerate() {
            let n = (2 * i + k) % lines.len();
            let new = line(n, 2 * i + k + 1);
            let key = format!("{i}-{k}");
            let edits = json!([{"old_text": lines[n], "new_text": new}]);
            let t = Instant::now();
            let written = if mcp {
                let written = c
                    .mcp(
                        "edit_note_text",
                        json!({"note_id": note, "tab_id": "markdown",
                               "expected_version": version, "idempotency_key": key,
                               "edits": edits}),
                    )
                    .await;
                took[2] = t.elapsed();
                written
            } else {
                let written = c
                    .rest(
                        reqwest::Method::PATCH,
                        &format!("/notes/{note}"),
                        Some((
                            key,
                            json!({"expected_version": version, "changes": [
                                {"op": "edit_text", "tab_id": "markdown", "edits": edits}]}),
                        )),
                    )
                    .await;
                took[3] = t.elapsed();
                written
            };
            version = written["version"].as_u64().unwrap();
            lines[n] = new;
        }
        if warm {
            for (samples, d) in out.iter_mut().zip(took) {
                samples.push(d);
            }
        }
    }
    (out, bytes)
}
