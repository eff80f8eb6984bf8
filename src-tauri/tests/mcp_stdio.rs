//! `quire-app mcp-stdio`: what the "Connect an agent" page's Claude Desktop snippet runs. The
//! snippet's own command, args and env are run against a real server, and an MCP host's first
//! messages go through it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use quire_api::Scope;
use quire_model::AuthorKind;
use quire_server::ServeConfig;
use quire_store_sqlite::Synchronous;
use serde_json::{Value, json};

/// One JSON-RPC message per line, as MCP's stdio transport frames them.
fn send(stdin: &mut impl Write, message: Value) {
    writeln!(stdin, "{message}").unwrap();
    stdin.flush().unwrap();
}

fn receive(stdout: &mut impl BufRead) -> Value {
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
}

#[test]
fn the_claude_desktop_snippet_runs_a_bridge_that_takes_its_token_from_env() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("server.db");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let token = runtime.block_on(async {
        let store = quire_server::open_store(&db, Synchronous::Normal)
            .await
            .unwrap();
        let made = quire_server::tokens::create(
            store.as_ref(),
            "claude",
            &[Scope::NotesRead],
            AuthorKind::Agent,
        )
        .await
        .unwrap();
        store.close().await.unwrap();
        made.token
    });
    let listen = SocketAddr::from(([127, 0, 0, 1], 0));
    let server = runtime
        .block_on(quire_server::serve(ServeConfig::new(&db, listen)))
        .unwrap();
    let mcp_url = quire_app::agent::mcp_url(&server.url().parse().unwrap());

    let snippets = quire_app::agent::snippets(&mcp_url, &token, env!("CARGO_BIN_EXE_quire-app"));
    let config: Value = serde_json::from_str(&snippets.claude_desktop).unwrap();
    let quire = &config["mcpServers"]["quire"];
    let args: Vec<&str> = quire["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(!args.contains(&token.as_str()), "{args:?}");
    let mut bridge = Command::new(quire["command"].as_str().unwrap());
    bridge.args(&args).env_remove("QUIRE_TOKEN");
    for (key, value) in quire["env"].as_object().unwrap() {
        bridge.env(key, value.as_str().unwrap());
    }
    let mut child = bridge
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "a host", "version": "1"}}}),
    );
    let initialized = receive(&mut stdout);
    assert_eq!(initialized["id"], 1, "{initialized}");
    assert!(
        initialized["result"]["serverInfo"].is_object(),
        "{initialized}"
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "list_notes", "arguments": {}}}),
    );
    let listed = receive(&mut stdout);
    assert_eq!(listed["id"], 2, "{listed}");
    assert_eq!(listed["result"]["isError"], false, "{listed}");
    assert_eq!(listed["result"]["structuredContent"]["notes"], json!([]));

    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    runtime.block_on(server.shutdown()).unwrap();
}

/// Without QUIRE_TOKEN or a token file, the bridge says what to do and serves nothing.
#[test]
fn the_apps_bridge_without_a_token_says_where_to_put_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_quire-app"))
        .args(["mcp-stdio", "--url", "http://127.0.0.1:9/mcp"])
        .env_remove("QUIRE_TOKEN")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("no token: set QUIRE_TOKEN"), "{stderr}");
    assert!(out.stdout.is_empty());
}
