//! Whether timing tells an agent that a Note it may not see exists: MCP `read_note_tab` on a
//! Note the person did not approve (12 MiB of Markdown) against an ID no Note has, over real
//! HTTP with the rmcp client, p50 / p99 of each. Both answer `note_not_found`; the times should
//! be alike too.
//!
//! `cargo run --release -p quire-server --example hidden_note_timing [-- CALLS]`
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::time::Instant;

use quire_api::Scope;
use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::Synchronous;
use quire_testkit::bench::{Samples, micros};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const WARMUP: usize = 20;
const HIDDEN_BYTES: usize = 12 << 20;

#[tokio::main]
async fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("CALLS is a number"))
        .unwrap_or(200);
    let dir = tempfile::tempdir().unwrap();
    let store = quire_server::open_store(&dir.path().join("timing.db"), Synchronous::Normal)
        .await
        .unwrap();
    let token = quire_server::tokens::create(
        store.as_ref(),
        "agent",
        &[Scope::NotesRead, Scope::NotesWrite],
        AuthorKind::Agent,
    )
    .await
    .unwrap()
    .token;
    let hidden = hidden_note(store.as_ref()).await;
    let server = quire_server::serve_store(
        store,
        SocketAddr::from(([127, 0, 0, 1], 0)),
        quire_server::DEFAULT_BODY_LIMIT,
    )
    .await
    .unwrap();

    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.url()))
            .auth_header(token),
    );
    let agent = ClientConfig::default().serve(transport).await.unwrap();
    let missing = NoteId::from_uuid(uuid::Uuid::now_v7()).to_string();
    let mut times = [Samples::with_capacity(calls), Samples::with_capacity(calls)];
    // Interleaved, so that both see the same machine.
    for i in 0..WARMUP + calls {
        for (note_id, samples) in [&hidden, &missing].into_iter().zip(times.iter_mut()) {
            let args = json!({ "note_id": note_id, "tab_id": "markdown" });
            let Value::Object(args) = args else {
                unreachable!()
            };
            let t = Instant::now();
            let result = agent
                .call_tool(CallToolRequestParams::new("read_note_tab").with_arguments(args))
                .await
                .unwrap();
            let elapsed = t.elapsed();
            let body = result.structured_content.unwrap();
            assert_eq!(body["error"], "note_not_found", "{body}");
            if i >= WARMUP {
                samples.push(elapsed);
            }
        }
    }
    agent.cancel().await.unwrap();
    server.shutdown().await.unwrap();

    println!("MCP read_note_tab, {calls} calls each, one client, loopback");
    println!("| note | p50 | p99 |");
    println!("| --- | --- | --- |");
    let [hidden_times, missing_times] = times;
    for (what, samples) in [
        ("unapproved, 12 MiB of Markdown", hidden_times),
        ("no such note", missing_times),
    ] {
        let stats = samples.stats();
        println!(
            "| {what} | {:.0} us | {:.0} us |",
            micros(stats.median),
            micros(stats.p99)
        );
    }
}

/// A Note nobody approved for agents, its Markdown tab 12 MiB long.
async fn hidden_note(store: &dyn Store) -> String {
    let id = NoteId::from_uuid(uuid::Uuid::now_v7());
    let now = Timestamp(1_796_019_881_000);
    store
        .create_note(NewNote {
            id: id.clone(),
            title: "Private".to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now,
            idempotency_key: None,
        })
        .await
        .unwrap();
    let line = "A private paragraph the agent must not learn anything about.\n";
    let text = line.repeat(HIDDEN_BYTES / line.len());
    store
        .write(WriteRequest {
            note_id: id.clone(),
            expected_version: Version(1),
            idempotency_key: None,
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text,
            }]),
            now,
        })
        .await
        .unwrap();
    id.to_string()
}
