//! How an experiment's editors reach a Note: straight through the store (in-process), over
//! REST as the desktop app does, or over MCP as an agent does. The same editor code runs on
//! each, so a table can say which transport it measured.

use std::sync::Arc;

use anyhow::{Context, anyhow, bail};
use async_trait::async_trait;
use quire_api::WriteResult;
use quire_model::{AuthorKind, NoteId, Op, OpOutcome, TabId, TabKind, Version};
use quire_store::{Change, Store, StoreError, WriteRequest};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Map, Value, json};

use crate::harness;

/// A tab as a listing shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TabRef {
    pub id: TabId,
    pub kind: TabKind,
    pub label: String,
}

/// The server's answer to a write.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Accepted(Accepted),
    /// Stale: the Note is at `current_version`.
    Conflict {
        current_version: Version,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub version: Version,
    pub replayed: bool,
    /// For a create: the new tab's exact ID.
    pub created_tab: Option<TabId>,
    /// For a source: its ID and whether the page was attached already (any spelling).
    pub source: Option<(String, bool)>,
}

#[async_trait]
pub trait Client: Send + Sync {
    /// The Note's version and its tab strip, in order.
    async fn list_tabs(&self, note: &NoteId) -> anyhow::Result<(Version, Vec<TabRef>)>;
    /// One tab's `data` (wire form: a Markdown tab's is its text) and the Note's version.
    async fn read_tab(&self, note: &NoteId, tab: &TabId) -> anyhow::Result<(Version, Value)>;
    /// One guarded write. A refusal other than a conflict is an error.
    async fn write(
        &self,
        note: &NoteId,
        expected: Version,
        key: Option<String>,
        ops: Vec<Op>,
    ) -> anyhow::Result<Reply>;
}

/// A Markdown tab's text from its wire `data`.
pub fn text_of(data: &Value) -> anyhow::Result<String> {
    data.as_str()
        .map(str::to_owned)
        .ok_or_else(|| anyhow!("expected a Markdown tab's text, got {data}"))
}

fn accepted(result: &WriteResult) -> Accepted {
    let mut created_tab = None;
    let mut source = None;
    for outcome in &result.outcomes {
        match outcome {
            OpOutcome::TabCreated { tab_id } => created_tab = Some(tab_id.clone()),
            OpOutcome::SourceAdded {
                source_id,
                already_attached,
            } => source = Some((source_id.clone(), *already_attached)),
            _ => {}
        }
    }
    Accepted {
        version: result.version,
        replayed: result.replayed,
        created_tab,
        source,
    }
}

/// Straight through a [`Store`]: the product's, or one of the lab's controls around it.
pub struct Direct {
    store: Arc<dyn Store>,
    author: String,
}

impl Direct {
    pub fn new(store: Arc<dyn Store>, author: &str) -> Self {
        Direct {
            store,
            author: author.to_owned(),
        }
    }
}

#[async_trait]
impl Client for Direct {
    async fn list_tabs(&self, note: &NoteId) -> anyhow::Result<(Version, Vec<TabRef>)> {
        let stored = self.store.get_note(note).await?;
        let tabs = stored
            .note
            .tabs
            .iter()
            .map(|t| TabRef {
                id: t.id.clone(),
                kind: t.kind(),
                label: t.label.clone(),
            })
            .collect();
        Ok((stored.note.version, tabs))
    }

    async fn read_tab(&self, note: &NoteId, tab: &TabId) -> anyhow::Result<(Version, Value)> {
        let stored = self.store.get_note(note).await?;
        let data = stored
            .note
            .tab(tab)
            .ok_or_else(|| anyhow!("no tab {tab}"))?
            .data
            .to_value();
        Ok((stored.note.version, data))
    }

    async fn write(
        &self,
        note: &NoteId,
        expected: Version,
        key: Option<String>,
        ops: Vec<Op>,
    ) -> anyhow::Result<Reply> {
        let request = WriteRequest {
            note_id: note.clone(),
            expected_version: expected,
            idempotency_key: key,
            author: self.author.clone(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(ops),
            now: harness::now(),
        };
        match self.store.write(request).await {
            Ok(result) => Ok(Reply::Accepted(accepted(&result))),
            Err(StoreError::Conflict(c)) => Ok(Reply::Conflict {
                current_version: c.current_version,
            }),
            Err(e) => Err(e.into()),
        }
    }
}

/// The desktop app's route: REST on a real server.
pub struct Rest {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Rest {
    pub fn new(base: &str, token: &str) -> Self {
        Rest {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        }
    }
}

/// The tabs of a strip as REST and MCP both list them (`[{id, type, label}]`).
fn tab_refs(tabs: &Value, what: &str) -> anyhow::Result<Vec<TabRef>> {
    tabs.as_array()
        .with_context(|| format!("{what}: no tabs"))?
        .iter()
        .map(|t| {
            Ok(TabRef {
                id: TabId::new(t["id"].as_str().context("tab without id")?),
                kind: serde_json::from_value(t["type"].clone())?,
                label: t["label"].as_str().unwrap_or_default().to_owned(),
            })
        })
        .collect()
}

#[async_trait]
impl Client for Rest {
    async fn list_tabs(&self, note: &NoteId) -> anyhow::Result<(Version, Vec<TabRef>)> {
        let note = self.get(note).await?;
        let version = Version(note["version"].as_u64().context("GET: no version")?);
        Ok((version, tab_refs(&note["tabs"], "GET")?))
    }

    async fn read_tab(&self, note: &NoteId, tab: &TabId) -> anyhow::Result<(Version, Value)> {
        let note = self.get(note).await?;
        let version = Version(note["version"].as_u64().context("GET: no version")?);
        let data = note["tabs"]
            .as_array()
            .context("GET: no tabs")?
            .iter()
            .find(|t| t["id"].as_str() == Some(tab.as_str()))
            .map(|t| t["data"].clone())
            .ok_or_else(|| anyhow!("no tab {tab}"))?;
        Ok((version, data))
    }

    async fn write(
        &self,
        note: &NoteId,
        expected: Version,
        key: Option<String>,
        ops: Vec<Op>,
    ) -> anyhow::Result<Reply> {
        let mut request = self
            .http
            .patch(format!("{}/notes/{note}", self.base))
            .bearer_auth(&self.token)
            .json(&json!({"expected_version": expected, "changes": ops}));
        if let Some(key) = key {
            request = request.header("Idempotency-Key", key);
        }
        let response = request.send().await.context("PATCH")?;
        let status = response.status();
        let body: Value = response.json().await.context("PATCH: reading the answer")?;
        match status.as_u16() {
            200 => Ok(Reply::Accepted(accepted(&serde_json::from_value(body)?))),
            409 | 412 => Ok(Reply::Conflict {
                current_version: Version(
                    body["current_version"]
                        .as_u64()
                        .context("conflict without current_version")?,
                ),
            }),
            other => bail!("PATCH /notes/{note}: {other} {body}"),
        }
    }
}

impl Rest {
    async fn get(&self, note: &NoteId) -> anyhow::Result<Value> {
        let response = self
            .http
            .get(format!("{}/notes/{note}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .context("GET")?;
        let status = response.status();
        let body: Value = response.json().await.context("GET: reading the answer")?;
        if !status.is_success() {
            bail!("GET /notes/{note}: {status} {body}");
        }
        Ok(body)
    }
}

/// The agent's route: MCP tools over streamable HTTP, through rmcp's client.
pub struct Mcp {
    service: RunningService<RoleClient, ()>,
}

/// What a tool call answered: its structured content, and whether it is an error result.
#[derive(Debug, Clone)]
pub struct ToolAnswer {
    pub is_error: bool,
    pub body: Value,
}

impl Mcp {
    pub async fn connect(base: &str, token: &str) -> anyhow::Result<Self> {
        let config = StreamableHttpClientTransportConfig::with_uri(format!(
            "{}/mcp",
            base.trim_end_matches('/')
        ))
        .auth_header(token);
        let transport = StreamableHttpClientTransport::from_config(config);
        let service = ().serve(transport).await.context("cannot start an MCP session")?;
        Ok(Mcp { service })
    }

    /// Calls a tool with `arguments` (an object).
    pub async fn call(&self, tool: &str, arguments: Value) -> anyhow::Result<ToolAnswer> {
        let Value::Object(arguments) = arguments else {
            bail!("tool arguments must be an object");
        };
        let result: CallToolResult = self
            .service
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
            .await
            .with_context(|| format!("tools/call {tool}"))?;
        let body = match result.structured_content {
            Some(v) => v,
            None => Value::Null,
        };
        Ok(ToolAnswer {
            is_error: result.is_error == Some(true),
            body,
        })
    }

    pub async fn close(self) -> anyhow::Result<()> {
        self.service
            .cancel()
            .await
            .map(|_reason| ())
            .context("closing the MCP session")
    }
}

/// The MCP tool call that carries `op`: its tool name and arguments (without the guard).
pub fn tool_call_for(op: &Op) -> anyhow::Result<(&'static str, Map<String, Value>)> {
    let Value::Object(mut fields) = serde_json::to_value(op)? else {
        bail!("an op serialises to an object");
    };
    let name = op.name();
    match op {
        Op::ReplaceText { .. }
        | Op::ReplaceTabData { .. }
        | Op::SlideAdd { .. }
        | Op::SlidesAddOutline { .. }
        | Op::SheetSetRange { .. } => {
            fields.remove("op");
            fields.insert("operation".to_owned(), json!(name));
            // `sheet_id: null` is the model's default; the tool wants it absent.
            if fields.get("sheet_id") == Some(&Value::Null) {
                fields.remove("sheet_id");
            }
            Ok(("edit_note_tab", fields))
        }
        Op::CreateTab { .. } => {
            fields.remove("op");
            fields.retain(|_, v| !v.is_null());
            Ok(("create_note_tab", fields))
        }
        Op::AddSource { .. } => {
            fields.remove("op");
            Ok(("add_note_source", fields))
        }
        other => bail!(
            "{} is the person's operation, not an agent tool",
            other.name()
        ),
    }
}

fn version_of(body: &Value) -> anyhow::Result<Version> {
    body["version"]
        .as_u64()
        .map(Version)
        .ok_or_else(|| anyhow!("answer without version: {body}"))
}

#[async_trait]
impl Client for Mcp {
    async fn list_tabs(&self, note: &NoteId) -> anyhow::Result<(Version, Vec<TabRef>)> {
        let answer = self
            .call("list_note_tabs", json!({"note_id": note}))
            .await?;
        if answer.is_error {
            bail!("list_note_tabs: {}", answer.body);
        }
        Ok((
            version_of(&answer.body)?,
            tab_refs(&answer.body["tabs"], "list_note_tabs")?,
        ))
    }

    async fn read_tab(&self, note: &NoteId, tab: &TabId) -> anyhow::Result<(Version, Value)> {
        let answer = self
            .call("read_note_tab", json!({"note_id": note, "tab_id": tab}))
            .await?;
        if answer.is_error {
            bail!("read_note_tab: {}", answer.body);
        }
        Ok((version_of(&answer.body)?, answer.body["data"].clone()))
    }

    async fn write(
        &self,
        note: &NoteId,
        expected: Version,
        key: Option<String>,
        ops: Vec<Op>,
    ) -> anyhow::Result<Reply> {
        let [op] = ops.as_slice() else {
            bail!("an MCP tool call carries exactly one operation");
        };
        let key = key.context("every MCP write tool requires an idempotency_key")?;
        let (tool, mut arguments) = tool_call_for(op)?;
        arguments.insert("note_id".to_owned(), json!(note));
        arguments.insert("expected_version".to_owned(), json!(expected));
        arguments.insert("idempotency_key".to_owned(), json!(key));
        let answer = self.call(tool, Value::Object(arguments)).await?;
        let body = &answer.body;
        if answer.is_error {
            if body["error"] == "version_conflict" {
                return Ok(Reply::Conflict {
                    current_version: version_of(&json!({"version": body["current_version"]}))?,
                });
            }
            bail!("{tool}: {body}");
        }
        Ok(Reply::Accepted(Accepted {
            version: version_of(body)?,
            replayed: body["replayed"].as_bool().unwrap_or(false),
            created_tab: body["tab_id"]
                .as_str()
                .filter(|_| tool == "create_note_tab")
                .map(TabId::new),
            source: body["source_id"].as_str().map(|id| {
                (
                    id.to_owned(),
                    body["already_attached"].as_bool().unwrap_or(false),
                )
            }),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_map_to_the_agent_tools() {
        let (tool, args) = tool_call_for(&Op::ReplaceText {
            tab_id: TabId::new("markdown"),
            text: "x".into(),
        })
        .expect("agent op");
        assert_eq!(tool, "edit_note_tab");
        assert_eq!(
            Value::Object(args),
            json!({"operation": "replace_text", "tab_id": "markdown", "text": "x"})
        );
        let (tool, args) = tool_call_for(&Op::CreateTab {
            tab_type: quire_model::NewTabKind::Sheet,
            label: None,
            slides: None,
        })
        .expect("agent op");
        assert_eq!(tool, "create_note_tab");
        assert_eq!(Value::Object(args), json!({"tab_type": "sheet"}));
        assert!(tool_call_for(&Op::SetTitle { title: "t".into() }).is_err());
    }
}
