//! Tokens people can manage, on the real binary over HTTP: `token list` (never a secret),
//! `token revoke` against a server already running (REST, MCP and an open event stream all
//! refuse the token from then on), `--expires-in-days` and the expired token's own refusal,
//! and the last use recorded without a write per request.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod mcp_support;
mod support;

use std::process::{Command, Output};

use mcp_support::{Protocol, connect};
use quire_api::Scope;
use quire_model::{AuthorKind, Timestamp};
use quire_store::Store;
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use quire_testkit::ServerProcess;
use reqwest::{Method, StatusCode};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use support::{Api, SseReader, refused};

/// `quire-server ARGS...`, to its end.
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(args)
        .output()
        .expect("run quire-server")
}

fn db(server: &ServerProcess) -> String {
    server.db_path.to_str().unwrap().to_owned()
}

/// `token revoke --name NAME` on the server's database; its stdout.
fn revoke(server: &ServerProcess, name: &str) -> String {
    let out = cli(&["token", "revoke", "--db", &db(server), "--name", name]);
    assert!(
        out.status.success(),
        "token revoke: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `token list --json`: every token by name.
fn listed(server: &ServerProcess) -> Vec<Value> {
    let out = cli(&["token", "list", "--db", &db(server), "--json"]);
    assert!(
        out.status.success(),
        "token list: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn entry(list: &[Value], name: &str) -> Value {
    list.iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list:?}"))
        .clone()
}

/// A JSON-RPC `tools/call` of `list_notes` POSTed by hand with `token`.
async fn post_mcp(server: &ServerProcess, token: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/mcp", server.url()))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "list_notes", "arguments": {}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap()
}

fn list_notes() -> CallToolRequestParams {
    CallToolRequestParams::new("list_notes".to_owned()).with_arguments(serde_json::Map::new())
}

#[tokio::test]
async fn a_token_revoked_while_the_server_runs_is_refused_at_once_everywhere() {
    let server = support::server();
    let person = Api::new(&server);
    let other = Api::with_token(
        &server,
        &server.create_token("other", &["notes:read"]).unwrap(),
    );
    let agent_token = server
        .create_agent_token("claude", &["notes:read", "notes:write"])
        .unwrap();
    let id = person.new_note().await;

    // In use: an event stream open, an MCP session calling tools.
    let mut events = SseReader::new(person.get(&format!("/notes/{id}/events")).await);
    assert_eq!(events.next().await.event, "hello");
    let agent = connect(
        &format!("{}/mcp", server.url()),
        &agent_token,
        Protocol::Stateless,
    )
    .await
    .expect("connect the MCP client");
    agent
        .call_tool(list_notes())
        .await
        .expect("list_notes before");

    // The CLI writes the database file the running server reads.
    assert_eq!(
        revoke(&server, "test"),
        "revoked the token named \"test\"\n"
    );
    assert_eq!(
        revoke(&server, "claude"),
        "revoked the token named \"claude\"\n"
    );

    // REST: the very next request.
    let (status, body) = refused(person.get("/notes").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "token_revoked", "{body}");
    // The open stream ends, and cannot be opened again.
    events.end().await;
    let (status, body) = refused(person.get(&format!("/notes/{id}/events")).await).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::UNAUTHORIZED, json!("token_revoked"))
    );
    // MCP: the client's next call is refused, and so is any request with the token.
    agent
        .call_tool(list_notes())
        .await
        .expect_err("a call with a revoked token");
    let (status, body) = refused(post_mcp(&server, &agent_token).await).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::UNAUTHORIZED, json!("token_revoked"))
    );

    // Other names are untouched.
    assert_eq!(other.get("/notes").await.status(), StatusCode::OK);
    // Revoking again changes nothing and says so.
    assert_eq!(
        revoke(&server, "test"),
        "every token named \"test\" was already revoked\n"
    );
    let list = listed(&server);
    assert_eq!(entry(&list, "test")["state"], "revoked");
    assert_eq!(entry(&list, "claude")["state"], "revoked");
    assert_eq!(entry(&list, "other")["state"], "active");
}

#[tokio::test]
async fn revoking_an_unknown_name_is_an_error_naming_it() {
    let server = support::server();
    let before = listed(&server);
    let out = cli(&["token", "revoke", "--db", &db(&server), "--name", "nobody"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no token named \"nobody\""), "{stderr}");
    // Names are exact: `Test` is not `test`.
    let out = cli(&["token", "revoke", "--db", &db(&server), "--name", "Test"]);
    assert!(!out.status.success());
    assert_eq!(listed(&server), before);
    assert_eq!(
        Api::new(&server).get("/notes").await.status(),
        StatusCode::OK
    );
    // No database there: said, and none made.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let out = cli(&[
        "token",
        "revoke",
        "--db",
        missing.to_str().unwrap(),
        "--name",
        "test",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database at"));
    assert!(!missing.exists());
}

#[tokio::test]
async fn an_expired_token_is_refused_with_its_own_code() {
    let server = support::server();
    // Made with an end already past, through the same store the CLI uses, on the file the
    // server is serving.
    let store = SqliteStore::open(&server.db_path, SqliteOptions::default()).unwrap();
    let now = quire_api::Clock::now(&quire_api::SystemClock);
    let past = Some(Timestamp(now.millis() - 1));
    let ended = async |name: &str, kind: AuthorKind| {
        quire_server::tokens::create_until(&store, name, &[Scope::NotesRead], kind, past)
            .await
            .unwrap()
    };
    let expired = ended("yesterday", AuthorKind::Person).await;
    let agent = ended("old-agent", AuthorKind::Agent).await;
    store.close().await.unwrap();

    let (status, body) =
        refused(Api::with_token(&server, &expired.token).get("/notes").await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "token_expired", "{body}");
    let (status, body) = refused(post_mcp(&server, &agent.token).await).await;
    assert_eq!(
        (status, body["error"].clone()),
        (StatusCode::UNAUTHORIZED, json!("token_expired"))
    );
    assert_eq!(entry(&listed(&server), "yesterday")["state"], "expired");
}

#[tokio::test]
async fn expires_in_days_sets_the_end_and_zero_days_is_refused() {
    let server = support::server();
    let before = quire_api::Clock::now(&quire_api::SystemClock);
    let out = cli(&[
        "token",
        "create",
        "--db",
        &db(&server),
        "--name",
        "week",
        "--scope",
        "notes:read",
        "--expires-in-days",
        "7",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = quire_api::Clock::now(&quire_api::SystemClock);
    let token = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(String::from_utf8_lossy(&out.stderr).contains("it expires at"));
    assert_eq!(
        Api::with_token(&server, &token)
            .get("/notes")
            .await
            .status(),
        StatusCode::OK
    );
    let week = entry(&listed(&server), "week");
    assert_eq!(week["state"], "active");
    let end = week["expires_at"].as_str().unwrap();
    let day = 86_400_000;
    let (lo, hi) = (
        Timestamp(before.millis() + 7 * day).to_rfc3339(),
        Timestamp(after.millis() + 7 * day).to_rfc3339(),
    );
    assert!(
        lo.as_str() <= end && end <= hi.as_str(),
        "{lo} <= {end} <= {hi}"
    );

    let before = listed(&server);
    for days in ["0", "3651", "-1", "soon"] {
        let out = cli(&[
            "token",
            "create",
            "--db",
            &db(&server),
            "--name",
            "never",
            "--scope",
            "notes:read",
            "--expires-in-days",
            days,
        ]);
        assert!(!out.status.success(), "{days}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--expires-in-days"), "{days}: {stderr}");
        assert!(out.stdout.is_empty(), "{days}");
    }
    assert_eq!(listed(&server), before);
}

#[tokio::test]
async fn token_list_shows_every_token_and_never_a_secret() {
    let server = support::server();
    let agent = server
        .create_agent_token("claude", &["notes:read"])
        .unwrap();
    let table = cli(&["token", "list", "--db", &db(&server)]);
    assert!(table.status.success());
    let json = cli(&["token", "list", "--db", &db(&server), "--json"]);
    for out in [&table, &json] {
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        for secret in [&server.token, &agent] {
            assert!(!text.contains(secret.as_str()), "{text}");
            assert!(
                !text.contains(&quire_server::tokens::hash(secret)),
                "{text}"
            );
        }
        assert!(!text.contains("qk_") && !text.contains("hash"), "{text}");
    }
    let table = String::from_utf8(table.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME", "KIND", "SCOPES", "STATE", "CREATED", "EXPIRES", "LAST", "USED"
        ]
    );
    // Columns line up: each row's state starts where the header's does.
    let at = lines[0].find("STATE").unwrap();
    assert!(
        lines[1..].iter().all(|l| l[at..].starts_with("active")),
        "{table}"
    );
    let test: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        (test[0], test[1], test[2], test[3]),
        ("test", "person", "notes:read,notes:write", "active")
    );
    assert_eq!(test.last(), Some(&"never"));
    let claude: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(
        (claude[0], claude[1], claude[2]),
        ("claude", "agent", "notes:read")
    );

    let list = listed(&server);
    assert_eq!(list.len(), 2);
    let mut keys: Vec<&String> = list[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "created_at",
            "expires_at",
            "kind",
            "last_used_at",
            "name",
            "revoked_at",
            "scopes",
            "state"
        ]
    );
    assert_eq!(list[1]["scopes"], json!(["notes:read"]));
}

#[tokio::test]
async fn the_last_use_is_recorded_once_a_minute_not_on_every_request() {
    let server = support::server();
    let person = Api::new(&server);
    assert_eq!(entry(&listed(&server), "test")["last_used_at"], Value::Null);
    let before = quire_api::Clock::now(&quire_api::SystemClock).to_rfc3339();
    assert_eq!(person.get("/notes").await.status(), StatusCode::OK);
    let first = entry(&listed(&server), "test")["last_used_at"].clone();
    let at = first.as_str().expect("a last use");
    assert!(before.as_str() <= at, "{before} <= {at}");
    // More requests within the minute: nothing more is written.
    for _ in 0..5 {
        let resp = person
            .req(Method::POST, "/notes")
            .json(&json!({"title": "t"}))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::CREATED);
    }
    assert_eq!(entry(&listed(&server), "test")["last_used_at"], first);
    // A refused request is no use of the token it does not carry.
    assert_eq!(
        Api::with_token(&server, "qk_nope")
            .get("/notes")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
}
