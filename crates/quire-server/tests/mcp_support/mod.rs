//! Shared by the `mcp_*` tests: the real `quire-server` binary on port 0 with a temporary
//! SQLite file (quire-testkit), the person on REST (reqwest) and the agent on MCP (rmcp's
//! client over streamable HTTP).
#![allow(clippy::unwrap_used, dead_code)]

use quire_testkit::{Options, ServerProcess};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

pub type Agent = RunningService<RoleClient, ClientConfig>;

/// A running server, a REST client for the person and the server's read+write token.
pub struct Harness {
    pub server: ServerProcess,
    pub http: reqwest::Client,
}

impl Harness {
    pub fn start() -> Harness {
        Self::start_with(&[])
    }

    /// A server started with extra `serve` arguments, e.g. `["--body-limit", "1024"]`.
    pub fn start_with(serve_args: &[&str]) -> Harness {
        let options = serve_args
            .iter()
            .fold(Options::new(env!("CARGO_BIN_EXE_quire-server")), |o, a| {
                o.arg(*a)
            });
        let server = ServerProcess::spawn_with(options).expect("start quire-server");
        Harness {
            server,
            http: reqwest::Client::new(),
        }
    }

    pub fn url(&self) -> String {
        self.server.url()
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.server.url())
    }

    pub fn token(&self) -> &str {
        &self.server.token
    }

    pub fn token_with(&self, name: &str, scopes: &[&str]) -> String {
        self.server
            .create_token(name, scopes)
            .expect("create token")
    }

    /// The agent with the read+write token, on the newest protocol (2026-07-28, stateless).
    pub async fn agent(&self) -> Agent {
        self.agent_with(self.token(), Protocol::Stateless).await
    }

    pub async fn agent_with(&self, token: &str, protocol: Protocol) -> Agent {
        connect(&self.mcp_url(), token, protocol)
            .await
            .expect("connect the MCP client")
    }

    /// A JSON-RPC message POSTed to `/mcp` as a bare HTTP client would, with the read+write
    /// token and any extra headers (`host`, `origin`, `mcp-session-id`...).
    pub async fn post_mcp(&self, message: &Value, headers: &[(&str, &str)]) -> reqwest::Response {
        self.post_mcp_text(&message.to_string(), headers).await
    }

    /// [`Harness::post_mcp`] with the body's text as given (a number a `Value` cannot hold).
    pub async fn post_mcp_text(
        &self,
        message: &str,
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut req = self
            .authed(self.http.post(self.mcp_url()))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(message.to_owned());
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req.send().await.unwrap()
    }

    /// A session opened by hand (`initialize`, then `notifications/initialized`): its ID.
    pub async fn raw_session(&self) -> String {
        let res = self.post_mcp(&initialize_message(), &[]).await;
        assert_eq!(res.status(), 200, "initialize");
        let session = res.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let res = self
            .post_mcp(&initialized, &[("mcp-session-id", &session)])
            .await;
        assert!(res.status().is_success(), "initialized: {}", res.status());
        session
    }

    // The person, on REST.

    fn authed(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        req.bearer_auth(self.token())
    }

    /// A new Note; returns its ID.
    pub async fn create_note(&self, title: &str) -> String {
        let res = self
            .authed(self.http.post(format!("{}/notes", self.url())))
            .json(&json!({ "title": title }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 201, "create note");
        let note: Value = res.json().await.unwrap();
        note["id"].as_str().unwrap().to_owned()
    }

    pub async fn set_agent_access(&self, id: &str, approved: bool) {
        let res = self
            .authed(
                self.http
                    .put(format!("{}/notes/{id}/agent-access", self.url())),
            )
            .json(&json!({ "approved": approved }))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "agent access");
    }

    /// A new Note the person approved for agents.
    pub async fn approved_note(&self, title: &str) -> String {
        let id = self.create_note(title).await;
        self.set_agent_access(&id, true).await;
        id
    }

    /// `PATCH /notes/{id}` with the body's text as given. Returns (status, body).
    pub async fn patch_text(&self, id: &str, body: &str) -> (u16, Value) {
        let res = self
            .authed(self.http.patch(format!("{}/notes/{id}", self.url())))
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// `GET {path}` as the person: (status, body).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let res = self
            .authed(self.http.get(format!("{}{path}", self.url())))
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// The Note as the person sees it.
    pub async fn note(&self, id: &str) -> Value {
        let res = self
            .authed(self.http.get(format!("{}/notes/{id}", self.url())))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "get note");
        res.json().await.unwrap()
    }

    pub async fn version(&self, id: &str) -> u64 {
        self.note(id).await["version"].as_u64().unwrap()
    }

    /// `PATCH /notes/{id}`: the person's guarded write. Returns (status, body).
    pub async fn patch(&self, id: &str, expected_version: u64, changes: Value) -> (u16, Value) {
        let res = self
            .authed(self.http.patch(format!("{}/notes/{id}", self.url())))
            .json(&json!({ "expected_version": expected_version, "changes": changes }))
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }
}

/// The JSON-RPC message of a response, whether it came as JSON or as one server-sent event.
pub async fn json_rpc(res: reqwest::Response) -> Value {
    let text = res.text().await.unwrap();
    // An event stream may open with a priming event whose data is empty.
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:").map(str::trim))
        .find(|data| !data.is_empty())
        .unwrap_or(text.as_str());
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `initialize` on the 2025-11-25 protocol, as a bare JSON-RPC message.
pub fn initialize_message() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// Which MCP lifecycle the client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// 2025-11-25: `initialize`, a session.
    Session,
    /// 2026-07-28: `server/discover`, no session.
    Stateless,
}

pub async fn connect(
    url: &str,
    token: &str,
    protocol: Protocol,
) -> Result<Agent, rmcp::service::ClientInitializeError> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let lifecycle = match protocol {
        Protocol::Session => ClientLifecycleMode::Initialize,
        Protocol::Stateless => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let mut config = ClientConfig::default();
    if protocol == Protocol::Session {
        config.protocol_version = ProtocolVersion::V_2025_11_25;
    }
    config.serve_with_lifecycle(transport, lifecycle).await
}

/// Calls a tool; a JSON-RPC error fails the test (tool errors come back as results).
pub async fn call(agent: &Agent, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    agent
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The structured content of a result, after checking the text copy says the same.
pub fn body(result: &CallToolResult) -> Value {
    let structured = result
        .structured_content
        .clone()
        .expect("structured content");
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .expect("a text copy");
    let copy: Value = serde_json::from_str(&text).expect("the text copy is JSON");
    assert_eq!(copy, structured, "text copy and structured content differ");
    structured
}

/// A successful call's structured content.
pub async fn ok(agent: &Agent, name: &str, args: Value) -> Value {
    let result = call(agent, name, args.clone()).await;
    let out = body(&result);
    assert_eq!(
        result.is_error,
        Some(false),
        "{name} {args} was refused: {out}"
    );
    out
}

/// A refused call's structured content (`isError: true`).
pub async fn refused(agent: &Agent, name: &str, args: Value) -> Value {
    let result = call(agent, name, args.clone()).await;
    let out = body(&result);
    assert_eq!(
        result.is_error,
        Some(true),
        "{name} {args} was accepted: {out}"
    );
    out
}

/// The Note's current version as the agent reads it.
pub async fn agent_version(agent: &Agent, note_id: &str) -> u64 {
    ok(agent, "list_note_tabs", json!({ "note_id": note_id })).await["version"]
        .as_u64()
        .unwrap()
}

/// A fresh idempotency key: one per intended change.
pub fn key() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// `edit_note_tab` arguments: `replace_text` on the Markdown tab, with a fresh key.
pub fn replace_text(note_id: &str, expected_version: u64, text: &str) -> Value {
    json!({"note_id": note_id, "tab_id": "markdown", "expected_version": expected_version,
           "idempotency_key": key(), "operation": "replace_text", "text": text})
}

/// `base` with the members of `extra` added (both JSON objects).
pub fn merged(mut base: Value, extra: Value) -> Value {
    let Value::Object(extra) = extra else {
        panic!("not an object: {extra}")
    };
    base.as_object_mut()
        .expect("the base is an object")
        .extend(extra);
    base
}

/// `create_note_tab` with these `fields` (`tab_type`, `label`...): the new tab's ID.
pub async fn create_tab(
    agent: &Agent,
    note_id: &str,
    expected_version: u64,
    fields: Value,
) -> String {
    let args = merged(
        json!({"note_id": note_id, "expected_version": expected_version, "idempotency_key": key()}),
        fields,
    );
    ok(agent, "create_note_tab", args).await["tab_id"]
        .as_str()
        .expect("a tab ID")
        .to_owned()
}
