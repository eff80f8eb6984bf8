//! Shared by the scenarios: the agent (a real MCP client, rmcp over streamable HTTP) and a
//! remote quire-server in the test process (real HTTP, a real SQLite file).
#![allow(dead_code, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use quire_api::Scope;
use quire_e2e::{App, tid};
use quire_model::AuthorKind;
use quire_server::{RunningServer, ServeConfig};
use quire_store_sqlite::Synchronous;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

pub type Agent = RunningService<RoleClient, ClientConfig>;

/// An agent connected to the app's embedded server: a token made through the app's
/// `create_agent_token` (as the "Connect an agent" panel does), the Note approved for agents.
pub async fn agent_for(app: &App, note: &str) -> Result<Agent> {
    let made = app
        .invoke(
            "create_agent_token",
            json!({"name": "claude", "scopes": ["notes:read", "notes:write"]}),
        )
        .await?;
    app.invoke(
        "set_agent_access",
        json!({"noteId": note, "approved": true}),
    )
    .await?;
    let url = made["mcp_url"].as_str().context("mcp_url")?;
    let token = made["token"].as_str().context("token")?;
    connect(url, token).await
}

/// Opens "Connect an agent" and makes a token there, as the person does; returns the token.
pub async fn token_from_agent_panel(app: &App) -> Result<String> {
    app.click("agent-open").await?;
    app.wait_for(&tid("agent-panel")).await?;
    app.click("agent-token-create").await?;
    app.wait_text(&tid("agent-token"), "the new token", |t| {
        t.starts_with("qk_")
    })
    .await
}

pub async fn connect(url: &str, token: &str) -> Result<Agent> {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    Ok(ClientConfig::default()
        .serve_with_lifecycle(transport, lifecycle)
        .await?)
}

/// Calls a tool and returns its structured content; `Err` if the tool refused.
pub async fn call(agent: &Agent, name: &str, args: Value) -> Result<Value> {
    let Value::Object(args) = args else {
        bail!("arguments must be an object")
    };
    let result: CallToolResult = agent
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .with_context(|| format!("{name}: JSON-RPC error"))?;
    let out = result.structured_content.clone().unwrap_or(Value::Null);
    if result.is_error == Some(true) {
        bail!("{name} refused: {out}");
    }
    Ok(out)
}

/// A fresh idempotency key: one per intended change.
pub fn key() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The agent reads a tab: (version, data).
pub async fn read_tab(agent: &Agent, note: &str, tab: &str) -> Result<(u64, Value)> {
    let out = call(
        agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": tab}),
    )
    .await?;
    Ok((
        out["version"].as_u64().context("version")?,
        out["data"].clone(),
    ))
}

/// A remote quire-server in this process on a fixed loopback port, with its SQLite file in a
/// temporary directory: stopped and started again on the same port and file.
pub struct Remote {
    dir: tempfile::TempDir,
    addr: SocketAddr,
    server: Option<RunningServer>,
    pub token: String,
}

impl Remote {
    pub async fn start() -> Result<Self> {
        let dir = tempfile::tempdir()?;
        let db = dir.path().join("remote.db");
        let store = quire_server::open_store(&db, Synchronous::Normal).await?;
        let made = quire_server::tokens::create(
            store.as_ref(),
            "remote person",
            &[Scope::NotesRead, Scope::NotesWrite],
            AuthorKind::Person,
        )
        .await?;
        store.close().await?;
        let server = quire_server::serve(ServeConfig::new(&db, "127.0.0.1:0".parse()?)).await?;
        Ok(Remote {
            addr: server.addr(),
            server: Some(server),
            token: made.token,
            dir,
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("remote.db")
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Stops the server: the address refuses connections from now on.
    pub async fn stop(&mut self) -> Result<()> {
        if let Some(server) = self.server.take() {
            server.shutdown().await?;
        }
        Ok(())
    }

    /// Starts it again on the same address and database.
    pub async fn restart(&mut self) -> Result<()> {
        self.stop().await?;
        self.server = Some(quire_server::serve(ServeConfig::new(self.db(), self.addr)).await?);
        Ok(())
    }
}
