//! The agent's contract, over real HTTP against the real binary with an rmcp client: the tool
//! list against the seeds' schemas, the seeds' eight payloads and their verdicts, refusals that
//! name the field and write nothing, scopes, approval, the HTTP layer, conflicts and replays,
//! paging, source keys, both protocol versions and the stdio bridge.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use std::collections::{BTreeSet, HashMap};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use mcp_support::{
    Harness, Protocol, agent_version, body, call, create_tab, initialize_message, key, merged, ok,
    refused, replace_text,
};
use rmcp::model::{ClientConfig, ProtocolVersion, Tool};
use rmcp::{ServiceExt, model::CallToolRequestParams};
use serde_json::{Value, json};

const READ_TOOLS: [&str; 7] = [
    "list_notes",
    "search_notes",
    "list_note_tabs",
    "read_note_tab",
    "read_note_lines",
    "read_sheet_range",
    "list_note_attachments",
];
const WRITE_TOOLS: [&str; 4] = [
    "edit_note_tab",
    "create_note_tab",
    "add_note_source",
    "edit_note_text",
];
/// Writes that destroy nothing: a new Note.
const CREATE_TOOLS: [&str; 1] = ["create_note"];

/// `None`: accepted; else the (field, message) of the refusal.
type Verdict = Option<(&'static str, &'static str)>;

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect()
}

fn schema_of(tools: &HashMap<String, Tool>, name: &str) -> Value {
    Value::Object((*tools[name].input_schema).clone())
}

#[tokio::test]
async fn tools_list_is_the_seeds_contract() {
    let h = Harness::start();
    let agent = h.agent().await;
    let listed = agent.list_all_tools().await.unwrap();

    // Advertised verbatim: exactly the data the validator checks against.
    let advertised: Value = serde_json::to_value(&listed).unwrap();
    let data: Value = serde_json::from_str(include_str!("../src/mcp/tools.json")).unwrap();
    assert_eq!(advertised, data);

    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names.iter().copied().collect::<BTreeSet<_>>(),
        READ_TOOLS
            .iter()
            .chain(WRITE_TOOLS.iter())
            .chain(CREATE_TOOLS.iter())
            .copied()
            .collect::<BTreeSet<_>>()
    );
    let tools: HashMap<String, Tool> = listed
        .into_iter()
        .map(|t| (t.name.to_string(), t))
        .collect();

    // Required fields, as the seeds quote them.
    let required = [
        (
            "edit_note_tab",
            vec![
                "note_id",
                "tab_id",
                "expected_version",
                "idempotency_key",
                "operation",
            ],
        ),
        (
            "create_note_tab",
            vec!["note_id", "expected_version", "idempotency_key", "tab_type"],
        ),
        (
            "add_note_source",
            vec![
                "note_id",
                "expected_version",
                "idempotency_key",
                "title",
                "url",
            ],
        ),
        ("list_note_tabs", vec!["note_id"]),
        ("read_note_tab", vec!["note_id", "tab_id"]),
        (
            "read_sheet_range",
            vec![
                "note_id",
                "tab_id",
                "start_row",
                "start_col",
                "rows",
                "cols",
            ],
        ),
        ("list_note_attachments", vec!["note_id"]),
        ("search_notes", vec!["query"]),
        ("read_note_lines", vec!["note_id", "tab_id"]),
    ];
    for (name, want) in required {
        assert_eq!(
            strings(&schema_of(&tools, name)["required"]),
            want,
            "{name}"
        );
    }
    for name in READ_TOOLS {
        let props = schema_of(&tools, name)["properties"].clone();
        assert!(
            props.get("expected_version").is_none() && props.get("idempotency_key").is_none(),
            "{name}: a read tool takes no version or key"
        );
    }

    // Enums.
    let edit = schema_of(&tools, "edit_note_tab");
    assert_eq!(
        strings(&edit["properties"]["operation"]["enum"]),
        [
            "replace_text",
            "replace_tab_data",
            "slide_add",
            "slides_add_outline",
            "sheet_set_range"
        ]
    );
    let create = schema_of(&tools, "create_note_tab");
    assert_eq!(
        strings(&create["properties"]["tab_type"]["enum"]),
        ["slides", "sheet"]
    );
    let attachments = schema_of(&tools, "list_note_attachments");
    assert_eq!(
        strings(&attachments["properties"]["kind"]["enum"]),
        ["sources", "files"]
    );

    // The seeds' edit_note_tab properties for sheets.
    assert_eq!(edit["properties"]["sheet_id"]["type"], "string");
    assert_eq!(edit["properties"]["start_row"]["type"], "integer");
    assert_eq!(edit["properties"]["start_col"]["type"], "integer");
    assert_eq!(edit["properties"]["values"]["type"], "array");
    assert_eq!(edit["properties"]["values"]["items"]["type"], "array");

    // The slide shape: title, body, notes; title required; nothing else; 1 to 20 per call.
    for (name, schema) in [("create_note_tab", &create), ("edit_note_tab", &edit)] {
        let slides = &schema["properties"]["slides"];
        assert_eq!(slides["type"], "array", "{name}");
        assert_eq!(slides["minItems"], 1, "{name}");
        assert_eq!(slides["maxItems"], 20, "{name}");
        assert_eq!(strings(&slides["items"]["required"]), ["title"], "{name}");
        assert_eq!(slides["items"]["additionalProperties"], false, "{name}");
        let keys: Vec<&String> = slides["items"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            keys.iter().map(|k| k.as_str()).collect::<BTreeSet<_>>(),
            BTreeSet::from(["title", "body", "notes"]),
            "{name}"
        );
    }
    for name in READ_TOOLS
        .iter()
        .chain(WRITE_TOOLS.iter())
        .chain(CREATE_TOOLS.iter())
    {
        assert_eq!(
            schema_of(&tools, name)["additionalProperties"],
            false,
            "{name}"
        );
    }

    // Limits.
    assert_eq!(attachments["properties"]["limit"]["maximum"], 50);
    let search = schema_of(&tools, "search_notes");
    assert_eq!(search["properties"]["limit"]["minimum"], 1);
    assert_eq!(search["properties"]["limit"]["maximum"], 50);
    let range = schema_of(&tools, "read_sheet_range");
    assert_eq!(range["properties"]["rows"]["maximum"], 100);
    assert_eq!(range["properties"]["cols"]["maximum"], 100);
    let lines = schema_of(&tools, "read_note_lines");
    assert_eq!(lines["properties"]["start_line"]["minimum"], 1);
    assert_eq!(lines["properties"]["line_count"]["minimum"], 1);
    assert_eq!(lines["properties"]["line_count"]["maximum"], 2000);

    // Annotations: a read changes nothing; every write is keyed, so a resend changes nothing
    // more; no tool reaches past this server.
    for name in READ_TOOLS {
        let a = tools[name].annotations.clone().unwrap();
        assert_eq!(a.read_only_hint, Some(true), "{name}");
        assert_eq!(a.destructive_hint, Some(false), "{name}");
    }
    for name in READ_TOOLS
        .iter()
        .chain(WRITE_TOOLS.iter())
        .chain(CREATE_TOOLS.iter())
    {
        let a = tools[*name].annotations.clone().unwrap();
        assert_eq!(
            (a.idempotent_hint, a.open_world_hint),
            (Some(true), Some(false)),
            "{name}"
        );
    }
    for name in WRITE_TOOLS {
        let a = tools[name].annotations.clone().unwrap();
        assert_eq!(a.read_only_hint, Some(false), "{name}");
        assert_eq!(a.destructive_hint, Some(true), "{name}");
    }
    for name in CREATE_TOOLS {
        let a = tools[name].annotations.clone().unwrap();
        assert_eq!(a.read_only_hint, Some(false), "{name}");
        assert_eq!(a.destructive_hint, Some(false), "{name}");
    }

    // The seeds' descriptions, then the rules the agent must follow.
    let description = |name: &str| tools[name].description.clone().unwrap().to_string();
    for (name, seed) in [
        (
            "edit_note_tab",
            "Use an exact tab ID and version from read_note_tab. Use replace_text for Note/Markdown, slide_add or slides_add_outline for Slides, sheet_set_range for Sheet, or replace_tab_data for supported content tabs. File and Source attachments cannot be edited through this tool. A repeated idempotency key returns the first result.",
        ),
        (
            "create_note_tab",
            "Create a new Slides or Sheet tab in an approved Note. Use the version from list_note_tabs; returns the exact new tab ID for later edits. An optional outline fills a Slides tab. A repeated idempotency key returns the first tab.",
        ),
        (
            "add_note_source",
            "Add an HTTP or HTTPS citation to the Sources tab of an approved Note. Uses the Note version and an idempotency key; returns the new source ID.",
        ),
        (
            "list_note_tabs",
            "List every tab instance and its type. A Note may have multiple Slides or Sheet tabs; use the exact tab ID returned here.",
        ),
    ] {
        assert!(description(name).starts_with(seed), "{name}");
    }
    let edit_rules = description("edit_note_tab");
    for rule in [
        "call read_note_tab again, redo your change on the content that is there now",
        "a NEW idempotency_key",
        "Never resend your old text with only the version refreshed",
        "Resend the same idempotency_key only to repeat the very same call after a lost",
    ] {
        assert!(edit_rules.contains(rule), "edit_note_tab lacks: {rule}");
    }
    assert!(description("add_note_source").contains("\"this URL in this Note\""));

    agent.cancel().await.unwrap();
}

#[tokio::test]
async fn both_protocol_versions_are_served() {
    let h = Harness::start();
    let note = h.approved_note("Versions").await;
    for (protocol, version) in [
        (Protocol::Session, ProtocolVersion::V_2025_11_25),
        (Protocol::Stateless, ProtocolVersion::V_2026_07_28),
    ] {
        let agent = h.agent_with(h.token(), protocol).await;
        assert_eq!(
            agent.peer_info().unwrap().protocol_version,
            version,
            "{protocol:?}"
        );
        assert_eq!(agent.list_all_tools().await.unwrap().len(), 12);
        let listed = ok(&agent, "list_notes", json!({})).await;
        assert_eq!(listed["notes"][0]["note_id"], note.as_str(), "{protocol:?}");
        let v = agent_version(&agent, &note).await;
        let written = ok(
            &agent,
            "edit_note_tab",
            replace_text(&note, v, &format!("written over {protocol:?}")),
        )
        .await;
        assert_eq!(written["version"], v + 1);
        agent.cancel().await.unwrap();
    }
}

/// The seeds' eight payloads (their abbreviations filled in with a real note, tab, version and
/// key): each gets its verdict, and no refused one writes anything.
#[tokio::test]
async fn the_eight_payloads_get_their_verdicts() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Payloads").await;
    let v = agent_version(&agent, &note).await;
    let deck = create_tab(
        &agent,
        &note,
        v,
        json!({"tab_type": "slides", "label": "Deck"}),
    )
    .await;

    let slide = |extra: Value| {
        merged(
            json!({"note_id": note, "tab_id": deck, "idempotency_key": key()}),
            extra,
        )
    };
    let guarded = |extra: Value| merged(json!({"note_id": note, "idempotency_key": key()}), extra);
    let many: Vec<Value> = (0..21).map(|i| json!({"title": format!("s{i}")})).collect();
    let cases: Vec<(&str, Value, Verdict)> = vec![
        (
            "edit_note_tab",
            slide(json!({"operation": "slide_add", "title": "Sources", "body": "3 links"})),
            None,
        ),
        (
            "edit_note_tab",
            slide(json!({"operation": "slide_add", "title": "Sources", "index": 0})),
            Some(("index", "unexpected index")),
        ),
        (
            "edit_note_tab",
            slide(json!({"operation": "slides_add", "slides": [{"title": "a"}]})),
            Some(("operation", "operation: not in enum")),
        ),
        (
            "edit_note_tab",
            slide(json!({"operation": "slides_add_outline",
                         "slides": [{"title": "a", "bullets": ["x", "y"]}]})),
            Some(("slides[0].bullets", "slides: [0] unexpected bullets")),
        ),
        (
            "create_note_tab",
            guarded(json!({"tab_type": "slides", "slides": many})),
            Some(("slides", "slides: maxItems 20")),
        ),
        (
            "create_note_tab",
            guarded(json!({"tab_type": "markdown"})),
            Some(("tab_type", "tab_type: not in enum")),
        ),
        (
            "add_note_source",
            guarded(json!({"url": "https://example.org/report"})),
            Some(("title", "missing title")),
        ),
        (
            "list_note_attachments",
            json!({"note_id": note, "kind": "sources", "limit": 100}),
            Some(("limit", "limit: maximum 50")),
        ),
    ];
    for (tool, mut args, verdict) in cases {
        let before = h.note(&note).await;
        let version = before["version"].as_u64().unwrap();
        if WRITE_TOOLS.contains(&tool) {
            args["expected_version"] = json!(version);
        }
        match verdict {
            None => {
                let out = ok(&agent, tool, args.clone()).await;
                assert_eq!(out["version"], version + 1, "{tool} {args}");
                assert_eq!(out["slide_ids"].as_array().unwrap().len(), 1);
            }
            Some((field, message)) => {
                let out = refused(&agent, tool, args.clone()).await;
                assert_eq!(out["error"], "invalid_arguments", "{tool} {args}");
                assert_eq!(out["message"], message, "{tool} {args}");
                assert_eq!(out["field"], field, "{tool} {args}");
                assert_eq!(h.note(&note).await, before, "{tool} {args} wrote something");
            }
        }
    }
    let deck_tab = ok(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": deck}),
    )
    .await;
    let slides = deck_tab["data"]["slides"].as_array().unwrap();
    assert_eq!(slides.len(), 1);
    assert_eq!(slides[0]["title"], "Sources");
    assert_eq!(slides[0]["body"], "3 links");
}

/// Refusals past the schema name their field too: URLs that are not web pages, a tab type used
/// as a tab ID, arguments an operation does not take or lacks. None writes anything.
#[tokio::test]
async fn bad_urls_tab_types_and_operation_arguments_are_refused_by_name() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Refusals").await;
    let v = agent_version(&agent, &note).await;
    let deck = create_tab(&agent, &note, v, json!({"tab_type": "slides"})).await;
    let before = h.note(&note).await;
    let v = before["version"].as_u64().unwrap();

    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "add_note_source",
            json!({"title": "x", "url": "javascript:alert(1)"}),
            "url",
            "invalid_url",
        ),
        (
            "add_note_source",
            json!({"title": "x", "url": "ftp://example.org/report.pdf"}),
            "url",
            "invalid_url",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "slides", "operation": "slide_add", "title": "t"}),
            "tab_id",
            "tab_not_found",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "Deck", "operation": "slide_add", "title": "t"}),
            "tab_id",
            "tab_not_found",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "markdown", "operation": "replace_text"}),
            "text",
            "invalid_arguments",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": deck, "operation": "slide_add", "title": "t", "values": [[1]]}),
            "values",
            "invalid_arguments",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": deck, "operation": "sheet_set_range", "start_row": 0,
                   "start_col": 0}),
            "values",
            "invalid_arguments",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "markdown", "operation": "slide_add", "title": "t"}),
            "tab_id",
            "invalid_op",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "sources", "operation": "replace_tab_data", "data": []}),
            "tab_id",
            "invalid_op",
        ),
        (
            "edit_note_tab",
            json!({"tab_id": "markdown", "operation": "replace_text", "text": 7}),
            "text",
            "invalid_arguments",
        ),
    ];
    for (tool, extra, field, code) in cases {
        let args = merged(
            json!({"note_id": note, "expected_version": v, "idempotency_key": key()}),
            extra,
        );
        let out = refused(&agent, tool, args.clone()).await;
        assert_eq!(out["field"], field, "{tool} {args}: {out}");
        assert_eq!(out["error"], code, "{tool} {args}: {out}");
        let message = out["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("{field}: ")),
            "{tool} {args}: the message names the field: {message}"
        );
    }
    // A type is not an ID: the refusal lists the real IDs.
    let read = refused(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "slides"}),
    )
    .await;
    assert_eq!(read["field"], "tab_id");
    assert!(read["message"].as_str().unwrap().contains(&deck));
    assert_eq!(
        h.note(&note).await,
        before,
        "a refused call wrote something"
    );
}

#[tokio::test]
async fn scopes_and_approval_decide_what_exists_and_what_may_be_written() {
    let h = Harness::start();
    let writer = h.agent().await;
    let approved = h.approved_note("Approved").await;
    let private = h.create_note("Private").await;

    // A read-only token reads, and every write is refused naming the scope, writing nothing.
    let reader_token = h.token_with("reader", &["notes:read"]);
    let reader = h.agent_with(&reader_token, Protocol::Session).await;
    let listed = ok(&reader, "list_notes", json!({})).await;
    assert_eq!(listed["notes"].as_array().unwrap().len(), 1);
    let before = h.note(&approved).await;
    let v = before["version"].as_u64().unwrap();
    for (tool, extra) in [
        (
            "edit_note_tab",
            json!({"tab_id": "markdown", "operation": "replace_text", "text": "x"}),
        ),
        ("create_note_tab", json!({"tab_type": "sheet"})),
        (
            "add_note_source",
            json!({"title": "x", "url": "https://example.org"}),
        ),
    ] {
        let args = merged(
            json!({"note_id": approved, "expected_version": v, "idempotency_key": key()}),
            extra,
        );
        let out = refused(&reader, tool, args).await;
        assert_eq!(out["error"], "insufficient_scope", "{tool}");
        assert_eq!(out["scope"], "notes:write", "{tool}");
        assert!(out["message"].as_str().unwrap().contains("notes:write"));
    }
    assert_eq!(h.note(&approved).await, before, "a read-only token wrote");

    // A write-only token cannot read.
    let scribe_token = h.token_with("scribe", &["notes:write"]);
    let scribe = h.agent_with(&scribe_token, Protocol::Stateless).await;
    let out = refused(&scribe, "list_note_tabs", json!({"note_id": approved})).await;
    assert_eq!(out["scope"], "notes:read");

    // An unapproved Note is indistinguishable from a missing one.
    let listed = ok(&writer, "list_notes", json!({})).await;
    let ids: Vec<&str> = listed["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["note_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [approved.as_str()]);
    let missing = uuid::Uuid::now_v7().to_string();
    let unapproved_answer = refused(&writer, "list_note_tabs", json!({"note_id": private})).await;
    let missing_answer = refused(&writer, "list_note_tabs", json!({"note_id": missing})).await;
    assert_eq!(unapproved_answer["error"], "note_not_found");
    assert_eq!(unapproved_answer["field"], "note_id");
    assert_eq!(
        unapproved_answer.to_string().replace(&private, "ID"),
        missing_answer.to_string().replace(&missing, "ID")
    );
    let private_before = h.note(&private).await;
    let out = refused(
        &writer,
        "add_note_source",
        json!({"note_id": private, "expected_version": 1, "idempotency_key": key(),
               "title": "x", "url": "https://example.org"}),
    )
    .await;
    assert_eq!(out["error"], "note_not_found");
    assert_eq!(h.note(&private).await, private_before);

    // Approval can be withdrawn.
    h.set_agent_access(&approved, false).await;
    let out = refused(
        &writer,
        "read_note_tab",
        json!({"note_id": approved, "tab_id": "markdown"}),
    )
    .await;
    assert_eq!(out["error"], "note_not_found");
    assert_eq!(
        ok(&writer, "list_notes", json!({})).await["notes"],
        json!([])
    );
    // A note ID that is not one is refused by name.
    let out = refused(&writer, "list_note_tabs", json!({"note_id": "note-1"})).await;
    assert_eq!(out["field"], "note_id");
}

/// The HTTP layer: bearer token (401 with a challenge), Origin and Host checks.
#[tokio::test]
async fn the_http_layer_checks_token_origin_and_host() {
    let h = Harness::start();
    let initialize = initialize_message();
    for token in [None, Some("qk_not-a-token")] {
        let mut req = h
            .http
            .post(h.mcp_url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(initialize.to_string());
        if let Some(token) = token {
            req = req.bearer_auth(token);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 401, "{token:?}");
        let challenge = res.headers()["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    let res = h.post_mcp(&initialize, &[]).await;
    assert_eq!(res.status(), 200, "no Origin: a desktop host or CLI");
    let res = h
        .post_mcp(&initialize, &[("origin", "http://localhost:6274")])
        .await;
    assert_eq!(res.status(), 200, "a local browser tool");
    let res = h
        .post_mcp(&initialize, &[("origin", "https://evil.example")])
        .await;
    assert_eq!(res.status(), 403, "a foreign Origin");
    for host in ["evil.example", "notes.lan"] {
        let res = h.post_mcp(&initialize, &[("host", host)]).await;
        assert_eq!(res.status(), 403, "a foreign Host (DNS rebinding): {host}");
    }
    assert!(
        mcp_support::connect(&h.mcp_url(), "qk_wrong", Protocol::Stateless)
            .await
            .is_err(),
        "the MCP client is refused without a valid token"
    );
    // An unknown tool is a malformed call: a JSON-RPC error.
    let agent = h.agent().await;
    let err = agent
        .call_tool(CallToolRequestParams::new("delete_note"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("delete_note"), "{err}");
}

/// `--allowed-host`: a server reached by its LAN name accepts that name (with any port, or
/// the one given) besides loopback, and still no other.
#[tokio::test]
async fn an_allowed_host_is_accepted_besides_loopback() {
    let h = Harness::start_with(&[
        "--allowed-host",
        "notes.lan",
        "--allowed-host",
        "192.168.1.20:7878",
    ]);
    let initialize = initialize_message();
    for host in [
        "notes.lan",
        "notes.lan:7878",
        "NOTES.LAN",
        "192.168.1.20:7878",
        "127.0.0.1",
    ] {
        let res = h.post_mcp(&initialize, &[("host", host)]).await;
        assert_eq!(res.status(), 200, "{host}");
    }
    for host in ["evil.example", "192.168.1.20", "192.168.1.20:80", "lan"] {
        let res = h.post_mcp(&initialize, &[("host", host)]).await;
        assert_eq!(res.status(), 403, "{host}");
    }
    // REST is not behind the Host check; the agent sees what it saw before.
    let agent = h.agent().await;
    assert_eq!(
        ok(&agent, "list_notes", json!({})).await["notes"],
        json!([])
    );
}

/// A flag value that is not a host name stops `serve` before it listens, naming the flag.
#[test]
fn a_malformed_allowed_host_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["http://notes.lan", "notes.lan/mcp", "me@notes.lan", ""] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_quire-server"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--allowed-host",
                bad,
                "--db",
            ])
            .arg(dir.path().join("quire.db"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bad:?} was accepted");
        assert!(out.stdout.is_empty(), "{bad:?}: it listened");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--allowed-host"), "{bad:?}: {stderr}");
    }
}

/// `/mcp` has the REST body limit (`--body-limit`): under it a write lands, over it the
/// request gets 413 and writes nothing.
#[tokio::test]
async fn the_body_limit_holds_for_mcp() {
    let h = Harness::start_with(&["--body-limit", "65536"]);
    let note = h.approved_note("Limit").await;
    let agent = h.agent().await;
    let written = ok(
        &agent,
        "edit_note_tab",
        replace_text(&note, 1, &"x".repeat(60_000)),
    )
    .await;
    assert_eq!(written["version"], 2);

    let session = h.raw_session().await;
    let args = replace_text(&note, 2, &"y".repeat(70_000));
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "edit_note_tab", "arguments": args}});
    let res = h.post_mcp(&call, &[("mcp-session-id", &session)]).await;
    assert_eq!(res.status(), 413);
    let after = h.note(&note).await;
    assert_eq!(after["version"], 2, "nothing written");
    assert_eq!(after["tabs"][0]["data"], "x".repeat(60_000));
}

/// The default limit is REST's 16 MiB on `/mcp` too (not the MCP library's own 4 MiB).
#[tokio::test]
async fn mcp_takes_bodies_up_to_the_default_limit() {
    let h = Harness::start();
    let note = h.approved_note("Large").await;
    let agent = h.agent().await;
    let text = "z".repeat(5 * 1024 * 1024);
    let written = ok(&agent, "edit_note_tab", replace_text(&note, 1, &text)).await;
    assert_eq!(written["version"], 2);
}

#[tokio::test]
async fn a_stale_write_is_a_conflict_result_and_a_resend_is_a_replay() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Conflict").await;
    let read = ok(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "markdown"}),
    )
    .await;
    let v = read["version"].as_u64().unwrap();
    assert_eq!(read["data"], "");
    assert_eq!(read["type"], "markdown");

    let (status, _) = h
        .patch(
            &note,
            v,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": "person's line"}]),
        )
        .await;
    assert_eq!(status, 200);

    let stale = replace_text(&note, v, "agent's line");
    let conflict = refused(&agent, "edit_note_tab", stale).await;
    assert_eq!(conflict["error"], "version_conflict");
    assert_eq!(conflict["current_version"], v + 1);
    assert_eq!(conflict["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(h.note(&note).await["tabs"][0]["data"], "person's line");

    // Re-read and redo, with a new key.
    let fresh = ok(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "markdown"}),
    )
    .await;
    let redo = replace_text(
        &note,
        fresh["version"].as_u64().unwrap(),
        &format!("{}\nagent's line", fresh["data"].as_str().unwrap()),
    );
    let first = ok(&agent, "edit_note_tab", redo.clone()).await;
    assert_eq!(first["version"], v + 2);
    assert_eq!(first["replayed"], false);
    assert_eq!(first["changed_tab_ids"], json!(["markdown"]));

    // The same call again (a lost response): the first result, flagged, nothing written.
    let again = ok(&agent, "edit_note_tab", redo).await;
    assert_eq!(again["replayed"], true);
    assert_eq!(again["version"], first["version"]);
    let now = h.note(&note).await;
    assert_eq!(now["version"], v + 2);
    assert_eq!(now["tabs"][0]["data"], "person's line\nagent's line");
}

#[tokio::test]
async fn read_tools_show_tabs_and_sheet_windows() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Reads").await;
    let v = agent_version(&agent, &note).await;
    let sheet_id = create_tab(
        &agent,
        &note,
        v,
        json!({"tab_type": "sheet", "label": "Budget"}),
    )
    .await;
    assert!(sheet_id.starts_with("sheet-"), "{sheet_id}");
    let tabs = ok(&agent, "list_note_tabs", json!({"note_id": note})).await;
    assert_eq!(tabs["version"], v + 1);
    assert_eq!(
        tabs["tabs"],
        json!([
            {"id": "markdown", "type": "markdown", "label": "Note"},
            {"id": "files", "type": "files", "label": "Files"},
            {"id": "sources", "type": "sources", "label": "Sources"},
            {"id": sheet_id, "type": "sheet", "label": "Budget"},
        ])
    );
    ok(
        &agent,
        "edit_note_tab",
        json!({"note_id": note, "tab_id": sheet_id, "expected_version": v + 1,
               "idempotency_key": key(), "operation": "sheet_set_range",
               "start_row": 1, "start_col": 1, "values": [["a", 1], ["b", 2.5]]}),
    )
    .await;
    let window = ok(
        &agent,
        "read_sheet_range",
        json!({"note_id": note, "tab_id": sheet_id, "start_row": 0, "start_col": 0,
               "rows": 3, "cols": 4}),
    )
    .await;
    assert_eq!(
        window["values"],
        json!([
            [null, null, null, null],
            [null, "a", 1, null],
            [null, "b", 2.5, null]
        ])
    );
    assert_eq!(window["version"], v + 2);
    // No formula: what is computed is what is stored.
    assert_eq!(window["computed"], window["values"]);
    let out = refused(
        &agent,
        "read_sheet_range",
        json!({"note_id": note, "tab_id": sheet_id, "start_row": 0, "start_col": 0,
               "rows": 101, "cols": 1}),
    )
    .await;
    assert_eq!(out["message"], "rows: maximum 100");
    let out = refused(
        &agent,
        "read_sheet_range",
        json!({"note_id": note, "tab_id": "markdown", "start_row": 0, "start_col": 0,
               "rows": 1, "cols": 1}),
    )
    .await;
    assert_eq!(out["field"], "tab_id");
}

/// A formula is stored as its text and read back both ways: `values` as stored, `computed` as
/// the person sees it, over the whole tab (a formula reading cells outside the window, or
/// another sheet), errors as `{"error": code}`; a change of an input changes the result.
#[tokio::test]
async fn read_sheet_range_shows_formulas_and_their_results() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Formulas").await;
    let v = agent_version(&agent, &note).await;
    let sheet_id = create_tab(
        &agent,
        &note,
        v,
        json!({"tab_type": "sheet", "label": "Sums"}),
    )
    .await;
    let set = |version: u64, start_row: u64, values: Value| {
        json!({"note_id": note, "tab_id": sheet_id, "expected_version": version,
               "idempotency_key": key(), "operation": "sheet_set_range",
               "start_row": start_row, "start_col": 0, "values": values})
    };
    ok(
        &agent,
        "edit_note_tab",
        set(
            v + 1,
            0,
            json!([
                [1, "=SUM(A1:A3)", "=1/0"],
                [2, "=A9", "=B1*"],
                [3, "=C1+1", "=B1&\" total\""],
                ["12", "=IF(B1>5,\"big\",\"small\")", "=COUNT(A1:A4)"]
            ]),
        ),
    )
    .await;
    let read = |start_row: u64, rows: u64| {
        json!({"note_id": note, "tab_id": sheet_id, "start_row": start_row, "start_col": 0,
               "rows": rows, "cols": 3})
    };
    let window = ok(&agent, "read_sheet_range", read(0, 4)).await;
    assert_eq!(window["values"][0], json!([1, "=SUM(A1:A3)", "=1/0"]));
    assert_eq!(
        window["computed"],
        json!([
            [1, 6.0, {"error": "#DIV/0!"}],
            [2, 0.0, {"error": "#ERROR!"}],
            [3, {"error": "#DIV/0!"}, "6 total"],
            ["12", "big", 3.0]
        ])
    );
    // A window that does not hold the formula's inputs.
    let lower = ok(&agent, "read_sheet_range", read(3, 2)).await;
    assert_eq!(
        lower["computed"],
        json!([["12", "big", 3.0], [null, null, null]])
    );
    // An input changes: the results that depend on it follow.
    ok(&agent, "edit_note_tab", set(v + 2, 0, json!([[-10]]))).await;
    let window = ok(&agent, "read_sheet_range", read(0, 4)).await;
    assert_eq!(window["computed"][0][1], json!(-5.0));
    assert_eq!(window["computed"][3][1], json!("small"));
}

/// 120 sources at `limit` 50: three calls, every source once, metadata only.
#[tokio::test]
async fn attachments_page_by_cursor_with_metadata_only() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Attachments").await;
    let mut changes: Vec<Value> = (0..120)
        .map(|i| {
            json!({"op": "add_source", "title": format!("Page {i}"),
                        "url": format!("https://example.org/page/{i}")})
        })
        .collect();
    changes.push(
        json!({"op": "add_file", "name": "data.csv", "mime": "text/csv", "size": 12,
                        "sha256": "a".repeat(64)}),
    );
    let (status, body) = h.patch(&note, 1, Value::Array(changes)).await;
    assert_eq!(status, 200, "{body}");

    let mut seen = Vec::new();
    let mut calls = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"note_id": note, "kind": "sources", "limit": 50});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = ok(&agent, "list_note_attachments", args).await;
        calls += 1;
        assert_eq!(page["total"], 120);
        for item in page["items"].as_array().unwrap() {
            let keys: BTreeSet<&str> = item
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                keys,
                BTreeSet::from(["kind", "id", "title", "url", "added_by", "added_at"])
            );
            seen.push(item["url"].as_str().unwrap().to_owned());
        }
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
        assert!(calls < 10, "paging does not end");
    }
    assert_eq!(calls, 3);
    let want: Vec<String> = (0..120)
        .map(|i| format!("https://example.org/page/{i}"))
        .collect();
    assert_eq!(seen, want);

    let files = ok(
        &agent,
        "list_note_attachments",
        json!({"note_id": note, "kind": "files"}),
    )
    .await;
    let items = files["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    let keys: BTreeSet<&str> = items[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "kind", "id", "name", "mime", "size", "sha256", "added_by", "added_at"
        ]),
        "metadata only: no content, no link"
    );
    let all = ok(&agent, "list_note_attachments", json!({"note_id": note})).await;
    assert_eq!(all["total"], 121);
    assert_eq!(all["items"].as_array().unwrap().len(), 50);
}

/// The seeds' seven spellings of one page: one source, whatever key each call used.
#[tokio::test]
async fn one_page_under_seven_spellings_is_one_source() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Sources").await;
    let spellings = [
        "https://example.org/report",
        "https://example.org/report/",
        "https://www.example.org/report",
        "https://example.org/report?utm_source=newsletter&utm_medium=email",
        "https://example.org/report#methods",
        "http://example.org/report",
        "example.org/report",
    ];
    let mut ids = Vec::new();
    for (i, url) in spellings.iter().enumerate() {
        let v = agent_version(&agent, &note).await;
        let out = ok(
            &agent,
            "add_note_source",
            json!({"note_id": note, "expected_version": v, "idempotency_key": key(),
                   "title": "The report", "url": url}),
        )
        .await;
        assert_eq!(out["already_attached"], i > 0, "{url}");
        assert_eq!(out["replayed"], false);
        ids.push(out["source_id"].as_str().unwrap().to_owned());
    }
    assert!(ids.iter().all(|id| id == &ids[0]), "{ids:?}");
    let sources = ok(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "sources"}),
    )
    .await;
    let stored = sources["data"].as_array().unwrap();
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0]["normalized_url"], "https://example.org/report");
}

/// `quire-server mcp-stdio --url URL`, with `args` and `env` added, stdin and stdout piped to
/// an rmcp client, stderr kept to read once it exits. QUIRE_TOKEN is not inherited.
async fn bridge(
    h: &Harness,
    args: &[&str],
    env: &[(&str, &str)],
) -> (tokio::process::Child, mcp_support::Agent) {
    let mut child = bridge_command(h, args, env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let agent = ClientConfig::default()
        .serve((stdout, stdin))
        .await
        .unwrap();
    (child, agent)
}

fn bridge_command(h: &Harness, args: &[&str], env: &[(&str, &str)]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_quire-server"));
    cmd.args(["mcp-stdio", "--url", &h.mcp_url()])
        .args(args)
        .env_remove("QUIRE_TOKEN")
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied());
    cmd
}

/// Closes the bridge's stdin (the host going away); it exits cleanly. Returns its stderr.
async fn close_bridge(mut child: tokio::process::Child, agent: mcp_support::Agent) -> String {
    agent.cancel().await.unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the bridge exits when stdin closes")
        .unwrap();
    assert!(status.success(), "{status}: {stderr}");
    stderr
}

/// `quire-server mcp-stdio`: a host that only launches commands gets the same tools. The token
/// comes in the environment (what Claude Desktop's `env` block sets), so it is not in the
/// process's command line, which every local user can read.
#[tokio::test]
async fn the_stdio_bridge_relays_to_the_server() {
    let h = Harness::start();
    let note = h.approved_note("Over stdio").await;
    let (child, agent) = bridge(&h, &[], &[("QUIRE_TOKEN", h.token())]).await;
    #[cfg(target_os = "linux")]
    {
        let pid = child.id().unwrap();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        assert!(cmdline.contains("mcp-stdio"), "{cmdline}");
        assert!(!cmdline.contains(h.token()), "the token is in {cmdline:?}");
    }

    let tools = agent.list_all_tools().await.unwrap();
    let direct = h.agent().await;
    assert_eq!(
        serde_json::to_value(&tools).unwrap(),
        serde_json::to_value(direct.list_all_tools().await.unwrap()).unwrap()
    );
    let listed = ok(&agent, "list_notes", json!({})).await;
    assert_eq!(listed["notes"][0]["note_id"], note.as_str());
    let v = agent_version(&agent, &note).await;
    let written = ok(&agent, "edit_note_tab", replace_text(&note, v, "via stdio")).await;
    assert_eq!(written["version"], v + 1);
    let refusal = call(
        &agent,
        "list_note_attachments",
        json!({"note_id": note, "limit": 100}),
    )
    .await;
    assert_eq!(refusal.is_error, Some(true));
    assert_eq!(body(&refusal)["message"], "limit: maximum 50");
    assert_eq!(h.note(&note).await["tabs"][0]["data"], "via stdio");

    let stderr = close_bridge(child, agent).await;
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// `--token-file` takes a file only its owner can read (as ssh does with a private key);
/// `--token` still works but says on stderr why it should not be used; no token at all is a
/// clear refusal.
#[cfg(unix)]
#[tokio::test]
async fn the_stdio_bridge_reads_a_private_token_file_and_warns_about_a_token_argument() {
    use std::os::unix::fs::PermissionsExt;
    let h = Harness::start();
    let note = h.approved_note("Token sources").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("quire-token");
    std::fs::write(&file, format!("{}\n", h.token())).unwrap();
    let file_arg = file.display().to_string();

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (child, agent) = bridge(&h, &["--token-file", &file_arg], &[]).await;
    let listed = ok(&agent, "list_notes", json!({})).await;
    assert_eq!(listed["notes"][0]["note_id"], note.as_str());
    let stderr = close_bridge(child, agent).await;
    assert!(!stderr.contains("warning"), "{stderr}");

    let (child, agent) = bridge(&h, &["--token", h.token()], &[]).await;
    let listed = ok(&agent, "list_notes", json!({})).await;
    assert_eq!(listed["notes"][0]["note_id"], note.as_str());
    let stderr = close_bridge(child, agent).await;
    assert!(
        stderr.contains("warning: --token puts the token in the process list")
            && stderr.contains("QUIRE_TOKEN"),
        "{stderr}"
    );

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refusals = [
        (
            vec!["--token-file", file_arg.as_str()],
            "permissions 0644 are too open",
        ),
        (vec![], "no token: set QUIRE_TOKEN"),
        (
            vec!["--token-file", file_arg.as_str(), "--token", h.token()],
            "not both",
        ),
    ];
    for (args, message) in refusals {
        let out = bridge_command(&h, &args, &[])
            .stdin(Stdio::null())
            .output()
            .await
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing on the MCP channel"
        );
    }
}

/// Note text in a tool call's arguments or answer never reaches a log, also with
/// RUST_LOG=trace, neither the server's nor the bridge's (rmcp logs whole messages at debug).
#[tokio::test]
async fn tool_calls_leave_no_content_in_the_logs() {
    let options =
        quire_testkit::Options::new(env!("CARGO_BIN_EXE_quire-server")).env("RUST_LOG", "trace");
    let h = Harness {
        server: quire_testkit::ServerProcess::spawn_with(options).unwrap(),
        http: reqwest::Client::new(),
    };
    let note = h.approved_note("Logged").await;
    let secret = "the person's private paragraph 7f3a9c";
    let (child, agent) = bridge(
        &h,
        &[],
        &[("QUIRE_TOKEN", h.token()), ("RUST_LOG", "trace")],
    )
    .await;
    let v = agent_version(&agent, &note).await;
    ok(&agent, "edit_note_tab", replace_text(&note, v, secret)).await;
    let read = ok(
        &agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "markdown"}),
    )
    .await;
    assert_eq!(read["data"], secret);
    let bridge_log = close_bridge(child, agent).await;

    let server_log = h.server.log();
    assert!(
        server_log.contains("tool call") && server_log.contains("edit_note_tab"),
        "debug logging is on: {server_log}"
    );
    for (who, log) in [("server", &server_log), ("bridge", &bridge_log)] {
        assert!(
            !log.contains("7f3a9c"),
            "the {who} logged Note text:\n{log}"
        );
        assert!(!log.contains(h.token()), "the {who} logged the token");
    }
}

/// A tool call's answer is not held back by Nagle's algorithm waiting for the client's delayed
/// ACK: the answer goes out in two writes (its head, then its event), and a plain client on a
/// keep-alive connection (as Python's httpx is) saw every call take 40 ms or more on loopback
/// until the server set TCP_NODELAY. The bound leaves room for a debug build on a loaded
/// machine.
#[tokio::test]
async fn tool_calls_are_not_held_by_delayed_acks() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let h = Harness::start();
    let note = h.approved_note("Latency").await;
    let session = h.raw_session().await;
    let mut conn = tokio::net::TcpStream::connect(h.server.addr).await.unwrap();
    let mut took = Vec::new();
    for i in 0..40 {
        let body = json!({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": {
            "name": "read_note_tab", "arguments": {"note_id": note, "tab_id": "markdown"}}})
        .to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
             Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\
             Content-Length: {}\r\n\r\n",
            h.token(),
            body.len()
        );
        let start = std::time::Instant::now();
        conn.write_all(format!("{head}{body}").as_bytes())
            .await
            .unwrap();
        // The answer is one event in a chunked stream that ends with the empty chunk.
        let mut answer = Vec::new();
        let mut buf = [0u8; 8192];
        while !answer.ends_with(b"0\r\n\r\n") {
            let n = conn.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed: {}", String::from_utf8_lossy(&answer));
            answer.extend_from_slice(&buf[..n]);
        }
        took.push(start.elapsed());
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains("\"result\""), "{answer}");
    }
    took.sort();
    let median = quire_testkit::bench::percentile(&took, 0.5);
    assert!(
        median < Duration::from_millis(20),
        "median tool call {median:?}"
    );
}
