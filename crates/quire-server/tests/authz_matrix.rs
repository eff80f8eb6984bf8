//! Who may do what, as one table: every REST route and every MCP tool, called by the person's
//! read+write token, an agent's read+write token (`token create --agent`), a read-only person
//! token and no token at all, against the real binary on port 0 over real HTTP (MCP through
//! the rmcp client). Each cell names the status (REST) or the result (MCP) expected, and every
//! refusal is checked to have written nothing.
//!
//! The rules the table holds: the holder of the token decides, not the endpoint. An agent's
//! token is refused by every REST route (403 `agent_token`) and works on `/mcp`; MCP shows every
//! token only the Notes the person approved; scopes hold on both doors; `/healthz` is open.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use mcp_support::{Agent, Harness, Protocol, body, call, connect, key};
use reqwest::Method;
use serde_json::{Value, json};

/// The callers, in the order of each row's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Person,
    AgentToken,
    Reader,
    Nobody,
}

const WHO: [Who; 4] = [Who::Person, Who::AgentToken, Who::Reader, Who::Nobody];

/// What a REST call must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rest {
    /// Success with this status.
    Ok(u16),
    /// A problem+json refusal with this status and `error` code.
    No(u16, &'static str),
}

impl std::fmt::Display for Rest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rest::Ok(status) => write!(f, "{status}"),
            Rest::No(status, code) => write!(f, "{status} {code}"),
        }
    }
}

const AGENT_TOKEN: Rest = Rest::No(403, "agent_token");
const NEEDS_WRITE: Rest = Rest::No(403, "forbidden");
const NO_TOKEN: Rest = Rest::No(401, "unauthorized");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    CreateNote,
    ListNotes,
    GetNote,
    PatchNote,
    GetAgentAccess,
    PutAgentAccess,
    History,
    NoteAt,
    Restore,
    Revert,
    Events,
    Export,
    TrashNote,
    ListTrash,
    Undelete,
    EmptyTrash,
    Search,
    Healthz,
}

/// Every REST route: the person's read+write token, an agent's read+write token, a read-only
/// person token, no token.
const REST_TABLE: [(Route, [Rest; 4]); 18] = {
    use Rest::Ok;
    [
        (
            Route::CreateNote,
            [Ok(201), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (Route::ListNotes, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (Route::GetNote, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (
            Route::PatchNote,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (
            Route::GetAgentAccess,
            [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN],
        ),
        (
            Route::PutAgentAccess,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (Route::History, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (Route::NoteAt, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (
            Route::Restore,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (Route::Revert, [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN]),
        (Route::Events, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (Route::Export, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        // The person's row moves the Note into the trash; the next row's brings it back.
        (
            Route::TrashNote,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (Route::ListTrash, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (
            Route::Undelete,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (
            Route::EmptyTrash,
            [Ok(200), AGENT_TOKEN, NEEDS_WRITE, NO_TOKEN],
        ),
        (Route::Search, [Ok(200), AGENT_TOKEN, Ok(200), NO_TOKEN]),
        (Route::Healthz, [Ok(200), Ok(200), Ok(200), Ok(200)]),
    ]
};

/// What an MCP tool call must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mcp {
    /// A result without `isError`.
    Ok,
    /// A tool result with `isError` and this `error` code.
    No(&'static str),
    /// Refused by the HTTP layer with 401 before MCP sees it.
    Unauthorized,
}

impl std::fmt::Display for Mcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mcp::Ok => write!(f, "ok"),
            Mcp::No(code) => write!(f, "isError {code}"),
            Mcp::Unauthorized => write!(f, "HTTP 401"),
        }
    }
}

/// Which Note a tool is called on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    /// One the person approved for agents.
    Approved,
    /// One the person did not approve: as if missing, whoever's token the call carries.
    Private,
    /// One the person approved, then moved to the trash: as if missing too.
    Trashed,
}

const MISSING: Mcp = Mcp::No("note_not_found");
const SCOPE: Mcp = Mcp::No("insufficient_scope");

/// Every MCP tool, on an approved and on a private Note.
const MCP_TABLE: [(&str, On, [Mcp; 4]); 33] = {
    use Mcp::{Ok, Unauthorized as U};
    use On::{Approved as A, Private as P, Trashed as T};
    [
        ("list_notes", A, [Ok, Ok, Ok, U]),
        ("list_notes", P, [Ok, Ok, Ok, U]),
        ("search_notes", A, [Ok, Ok, Ok, U]),
        ("search_notes", P, [Ok, Ok, Ok, U]),
        ("list_note_tabs", A, [Ok, Ok, Ok, U]),
        ("list_note_tabs", P, [MISSING, MISSING, MISSING, U]),
        ("read_note_tab", A, [Ok, Ok, Ok, U]),
        ("read_note_tab", P, [MISSING, MISSING, MISSING, U]),
        ("read_note_lines", A, [Ok, Ok, Ok, U]),
        ("read_note_lines", P, [MISSING, MISSING, MISSING, U]),
        ("read_sheet_range", A, [Ok, Ok, Ok, U]),
        ("read_sheet_range", P, [MISSING, MISSING, MISSING, U]),
        ("list_note_attachments", A, [Ok, Ok, Ok, U]),
        ("list_note_attachments", P, [MISSING, MISSING, MISSING, U]),
        ("edit_note_tab", A, [Ok, Ok, SCOPE, U]),
        ("edit_note_tab", P, [MISSING, MISSING, SCOPE, U]),
        ("create_note_tab", A, [Ok, Ok, SCOPE, U]),
        ("create_note_tab", P, [MISSING, MISSING, SCOPE, U]),
        ("add_note_source", A, [Ok, Ok, SCOPE, U]),
        ("add_note_source", P, [MISSING, MISSING, SCOPE, U]),
        ("edit_note_text", A, [Ok, Ok, SCOPE, U]),
        ("edit_note_text", P, [MISSING, MISSING, SCOPE, U]),
        ("list_notes", T, [Ok, Ok, Ok, U]),
        ("list_note_tabs", T, [MISSING, MISSING, MISSING, U]),
        ("read_note_tab", T, [MISSING, MISSING, MISSING, U]),
        ("read_note_lines", T, [MISSING, MISSING, MISSING, U]),
        ("read_sheet_range", T, [MISSING, MISSING, MISSING, U]),
        ("list_note_attachments", T, [MISSING, MISSING, MISSING, U]),
        ("edit_note_tab", T, [MISSING, MISSING, SCOPE, U]),
        ("create_note_tab", T, [MISSING, MISSING, SCOPE, U]),
        ("add_note_source", T, [MISSING, MISSING, SCOPE, U]),
        ("edit_note_text", T, [MISSING, MISSING, SCOPE, U]),
        // Last: the Notes it makes would be in every list_notes after it.
        ("create_note", A, [Ok, Ok, SCOPE, U]),
    ]
};

/// A Note and the ID of its Sheet tab.
struct TestNote {
    id: String,
    sheet: String,
}

struct World {
    h: Harness,
    tokens: [Option<String>; 4],
    approved: TestNote,
    private: TestNote,
    trashed: TestNote,
}

impl World {
    async fn new() -> World {
        let h = Harness::start();
        let agent = h
            .server
            .create_agent_token("claude", &["notes:read", "notes:write"])
            .unwrap();
        let reader = h.token_with("reader", &["notes:read"]);
        let tokens = [Some(h.token().to_owned()), Some(agent), Some(reader), None];
        let approved = note_with_sheet(&h, "Shared").await;
        h.set_agent_access(&approved.id, true).await;
        let private = note_with_sheet(&h, "Private").await;
        let trashed = note_with_sheet(&h, "Trashed").await;
        h.set_agent_access(&trashed.id, true).await;
        let res = h
            .http
            .delete(format!("{}/notes/{}", h.url(), trashed.id))
            .bearer_auth(h.token())
            .header("if-match", "\"3\"")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "trash the Trashed note");
        World {
            h,
            tokens,
            approved,
            private,
            trashed,
        }
    }

    fn token(&self, who: Who) -> Option<&str> {
        self.tokens[who as usize].as_deref()
    }

    fn note(&self, on: On) -> &TestNote {
        match on {
            On::Approved => &self.approved,
            On::Private => &self.private,
            On::Trashed => &self.trashed,
        }
    }

    /// What the person sees of everything: refused calls must leave it as it was.
    async fn everything(&self) -> Value {
        let mut seen = Vec::new();
        for path in ["/notes".to_owned(), "/notes?trash=true".to_owned()]
            .into_iter()
            .chain(
                [&self.approved.id, &self.private.id, &self.trashed.id]
                    .into_iter()
                    .flat_map(|id| {
                        [
                            format!("/notes/{id}"),
                            format!("/notes/{id}/versions"),
                            format!("/notes/{id}/agent-access"),
                        ]
                    }),
            )
        {
            let (status, body) = self.h.get(&path).await;
            assert_eq!(status, 200, "GET {path}");
            seen.push(body);
        }
        Value::Array(seen)
    }
}

async fn note_with_sheet(h: &Harness, title: &str) -> TestNote {
    let id = h.create_note(title).await;
    let (status, result) = h
        .patch(
            &id,
            1,
            json!([{"op": "create_tab", "tab_type": "sheet", "label": "Numbers"}]),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    let sheet = result["outcomes"][0]["tab_id"].as_str().unwrap().to_owned();
    let (status, result) = h
        .patch(
            &id,
            2,
            json!([{"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0,
                    "values": [[1, 2], [3, 4]]}]),
        )
        .await;
    assert_eq!(status, 200, "{result}");
    TestNote { id, sheet }
}

/// The request a row makes, on Note `note` at version `version`.
fn rest_request(route: Route, note: &str, version: u64) -> (Method, String, Option<Value>) {
    let at = |tail: &str| format!("/notes/{note}{tail}");
    match route {
        Route::CreateNote => (Method::POST, "/notes".into(), Some(json!({"title": "New"}))),
        Route::ListNotes => (Method::GET, "/notes".into(), None),
        Route::GetNote => (Method::GET, at(""), None),
        Route::PatchNote => (
            Method::PATCH,
            at(""),
            Some(json!({"expected_version": version, "changes": [
                {"op": "replace_text", "tab_id": "markdown", "text": format!("v{version}")}]})),
        ),
        Route::GetAgentAccess => (Method::GET, at("/agent-access"), None),
        Route::PutAgentAccess => (
            Method::PUT,
            at("/agent-access"),
            Some(json!({"approved": true})),
        ),
        Route::History => (Method::GET, at("/versions"), None),
        Route::NoteAt => (Method::GET, at("/versions/1"), None),
        Route::Restore => (
            Method::POST,
            at("/restore"),
            // Version 3 is the Note as set up (with its sheet): restoring it keeps the sheet.
            Some(json!({"version": 3, "expected_version": version})),
        ),
        // The newest version taken back: nothing since can clash.
        Route::Revert => (
            Method::POST,
            at("/revert"),
            Some(json!({"version": version, "expected_version": version})),
        ),
        Route::Events => (Method::GET, at("/events"), None),
        Route::Export => (Method::GET, at("/export"), None),
        // Guarded by `If-Match` (see `if_match`), no body.
        Route::TrashNote => (Method::DELETE, at(""), None),
        Route::ListTrash => (Method::GET, "/notes?trash=true".into(), None),
        Route::Undelete => (
            Method::POST,
            at("/undelete"),
            Some(json!({"expected_version": version})),
        ),
        // Only what went in over a day ago: the trashed Note the MCP rows need stays.
        Route::EmptyTrash => (Method::DELETE, "/trash?older_than_days=1".into(), None),
        Route::Search => (Method::GET, "/search?q=shared".into(), None),
        Route::Healthz => (Method::GET, "/healthz".into(), None),
    }
}

/// The `If-Match` a row sends: the trash's DELETE takes its version there only.
fn if_match(route: Route, version: u64) -> Option<String> {
    (route == Route::TrashNote).then(|| format!("\"{version}\""))
}

/// The arguments of a tool call on `note` at `version`, whose Markdown text is `text`.
fn tool_args(tool: &str, note: &TestNote, version: u64, text: &str) -> Value {
    let guard = |extra: Value| {
        mcp_support::merged(
            json!({"note_id": note.id, "expected_version": version, "idempotency_key": key()}),
            extra,
        )
    };
    match tool {
        "list_notes" => json!({}),
        // Both Notes' sheets hold the number 1: only the approved one may be found.
        "search_notes" => json!({"query": "1"}),
        "list_note_tabs" | "list_note_attachments" => json!({"note_id": note.id}),
        "read_note_tab" | "read_note_lines" => json!({"note_id": note.id, "tab_id": "markdown"}),
        "read_sheet_range" => json!({"note_id": note.id, "tab_id": note.sheet,
                                     "start_row": 0, "start_col": 0, "rows": 2, "cols": 2}),
        "edit_note_tab" => guard(json!({"tab_id": "markdown", "operation": "replace_text",
                                        "text": format!("agent v{version}")})),
        "create_note_tab" => guard(json!({"tab_type": "slides"})),
        "add_note_source" => guard(json!({"title": "Report",
                                          "url": format!("https://example.org/{}", key())})),
        // The whole text occurs once in itself (a Note the caller may not see is refused
        // before its text is looked at).
        "edit_note_text" => {
            let quote = if text.is_empty() { "(empty)" } else { text };
            guard(json!({"tab_id": "markdown",
                         "edits": [{"old_text": quote, "new_text": format!("{text}.")}]}))
        }
        "create_note" => json!({"title": "Made by an agent", "idempotency_key": key()}),
        other => panic!("no arguments for {other}"),
    }
}

#[tokio::test]
async fn every_route_and_tool_answers_each_kind_of_token_as_the_table_says() {
    let world = World::new().await;
    let http = reqwest::Client::new();
    let mut failures = Vec::new();

    for (route, cells) in REST_TABLE {
        for (who, want) in WHO.into_iter().zip(cells) {
            let note = &world.approved.id;
            let version = world.h.version(note).await;
            let (method, path, body) = rest_request(route, note, version);
            let before = world.everything().await;
            let mut req = http.request(method.clone(), format!("{}{path}", world.h.url()));
            if let Some(token) = world.token(who) {
                req = req.bearer_auth(token);
            }
            if let Some(body) = body {
                req = req.json(&body);
            }
            if let Some(tag) = if_match(route, version) {
                req = req.header("if-match", tag);
            }
            let res = req.send().await.unwrap();
            let status = res.status().as_u16();
            let got = if status < 400 {
                status.to_string()
            } else {
                assert_eq!(
                    res.headers()["content-type"],
                    "application/problem+json",
                    "{method} {path} as {who:?}"
                );
                let problem: Value = res.json().await.unwrap();
                let code = problem["error"].as_str().unwrap_or("(none)");
                let detail = problem["detail"].as_str().unwrap_or_default();
                if want == AGENT_TOKEN && !detail.contains("/mcp") {
                    failures.push(format!(
                        "{method} {path} as {who:?} does not point the agent to /mcp: {detail}"
                    ));
                }
                format!("{status} {code}")
            };
            if got != want.to_string() {
                failures.push(format!(
                    "{method} {path} as {who:?}: want {want:?}, got {got:?}"
                ));
            }
            if matches!(want, Rest::No(..)) && world.everything().await != before {
                failures.push(format!("{method} {path} as {who:?} was refused but wrote"));
            }
        }
    }

    let mut agents: Vec<Option<Agent>> = Vec::new();
    for who in WHO {
        agents.push(match world.token(who) {
            Some(token) => Some(
                connect(&world.h.mcp_url(), token, Protocol::Stateless)
                    .await
                    .unwrap(),
            ),
            None => None,
        });
    }
    for (tool, on, cells) in MCP_TABLE {
        for (who, want) in WHO.into_iter().zip(cells) {
            let note = world.note(on);
            let version = world.h.version(&note.id).await;
            let tabs = world.h.note(&note.id).await["tabs"].clone();
            let text = (tabs.as_array().into_iter().flatten())
                .find(|t| t["id"] == "markdown")
                .and_then(|t| t["data"].as_str().map(str::to_owned))
                .unwrap_or_default();
            let args = tool_args(tool, note, version, &text);
            let before = world.everything().await;
            let got = match &agents[who as usize] {
                Some(agent) => {
                    let result = call(agent, tool, args.clone()).await;
                    let out = body(&result);
                    if result.is_error == Some(true) {
                        let code = out["error"].as_str().unwrap_or("(none)");
                        if !matches!(want, Mcp::No(c) if c == code) {
                            failures.push(format!("{tool} as {who:?} answered {out}"));
                        }
                        format!("isError {code}")
                    } else {
                        if tool == "list_notes" {
                            // Whoever's token it is: only the Notes the person approved.
                            let listed: Vec<&str> = out["notes"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|n| n["note_id"].as_str().unwrap())
                                .collect();
                            if listed != [world.approved.id.as_str()] {
                                failures.push(format!("list_notes as {who:?} listed {listed:?}"));
                            }
                        }
                        if tool == "search_notes" {
                            let hits: Vec<&str> = out["results"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|n| n["note_id"].as_str().unwrap())
                                .collect();
                            if hits != [world.approved.id.as_str()] {
                                failures.push(format!("search_notes as {who:?} found {hits:?}"));
                            }
                        }
                        Mcp::Ok.to_string()
                    }
                }
                None => {
                    let res = http
                        .post(world.h.mcp_url())
                        .header("accept", "application/json, text/event-stream")
                        .header("content-type", "application/json")
                        .body(
                            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                   "params": {"name": tool, "arguments": args}})
                            .to_string(),
                        )
                        .send()
                        .await
                        .unwrap();
                    format!("HTTP {}", res.status().as_u16())
                }
            };
            if got != want.to_string() {
                failures.push(format!(
                    "{tool} on the {on:?} Note as {who:?}: want {want:?}, got {got:?}"
                ));
            }
            if want != Mcp::Ok && world.everything().await != before {
                failures.push(format!(
                    "{tool} on the {on:?} Note as {who:?} was refused but wrote"
                ));
            }
        }
    }
    for agent in agents.into_iter().flatten() {
        agent.cancel().await.unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
