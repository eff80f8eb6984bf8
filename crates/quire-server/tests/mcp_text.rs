//! `edit_note_text` through a real MCP client against the real binary: quoted edits of a
//! Markdown tab, all or none; a quote not found once is an `isError` result naming the edit and
//! how often its text occurs, and writes nothing; the same key replays; what it answers fits
//! its advertised `outputSchema`. `read_note_lines`: a long tab read in numbered pages, the
//! line found there changed with `edit_note_text`, and each refusal by the field it names.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use mcp_support::{Harness, key, merged, ok, refused, replace_text};
use serde_json::{Value, json};

#[tokio::test]
async fn quoted_edits_change_the_text_or_nothing() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Log").await;
    let v = h.version(&note).await;
    ok(
        &agent,
        "edit_note_tab",
        replace_text(&note, v, "Day 1: rain.\nDay 2: rain.\nDay 3: sun."),
    )
    .await;
    let v = v + 1;
    let edit = |version: u64, key: &str, edits: Value| {
        json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
               "idempotency_key": key, "edits": edits})
    };
    let text = |n: Value| n["tabs"][0]["data"].as_str().unwrap().to_owned();

    let before = h.note(&note).await;
    let out = refused(
        &agent,
        "edit_note_text",
        edit(
            v,
            &key(),
            json!([{"old_text": "Day 3: sun.", "new_text": "Day 3: clouds."},
                              {"old_text": "rain", "new_text": "snow"}]),
        ),
    )
    .await;
    assert_eq!(out["error"], "old_text_not_unique", "{out}");
    assert_eq!(
        (out["index"].as_u64(), out["occurrences"].as_u64()),
        (Some(1), Some(2)),
        "{out}"
    );
    assert_eq!(out["field"], "edits[1].old_text", "{out}");
    let out = refused(
        &agent,
        "edit_note_text",
        edit(v, &key(), json!([{"old_text": "Day 4", "new_text": "x"}])),
    )
    .await;
    assert_eq!(out["error"], "old_text_not_found", "{out}");
    assert_eq!(
        (out["index"].as_u64(), out["occurrences"].as_u64()),
        (Some(0), Some(0)),
        "{out}"
    );
    assert_eq!(h.note(&note).await, before, "a refused edit writes nothing");
    let out = refused(
        &agent,
        "edit_note_text",
        edit(v, &key(), json!([{"old_text": "", "new_text": "x"}])),
    )
    .await;
    assert_eq!(out["error"], "invalid_arguments", "{out}");

    let k = key();
    let edits = json!([{"old_text": "Day 2: rain.", "new_text": "Day 2: snow."},
                       {"old_text": "Day 3: sun.", "new_text": "Day 3: clouds."}]);
    let first = ok(&agent, "edit_note_text", edit(v, &k, edits.clone())).await;
    assert_eq!(first["version"], v + 1);
    assert_eq!(first["tab_id"], "markdown");
    assert_eq!(first["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(
        text(h.note(&note).await),
        "Day 1: rain.\nDay 2: snow.\nDay 3: clouds."
    );
    // The same call again: the first result, nothing applied twice.
    let again = ok(&agent, "edit_note_text", edit(v, &k, edits)).await;
    assert_eq!(
        (again["version"].clone(), again["replayed"].clone()),
        (json!(v + 1), json!(true))
    );
    assert_eq!(h.version(&note).await, v + 1);

    // The answer fits the advertised output schema: its required fields, of their types.
    let listed = agent.list_all_tools().await.unwrap();
    let tool = listed.iter().find(|t| t.name == "edit_note_text").unwrap();
    let schema = Value::Object((*tool.output_schema.clone().unwrap()).clone());
    for field in schema["required"].as_array().unwrap() {
        let field = field.as_str().unwrap();
        let want = schema["properties"][field]["type"].as_str().unwrap();
        let got = match &first[field] {
            Value::String(_) => "string",
            Value::Number(_) => "integer",
            Value::Bool(_) => "boolean",
            Value::Array(_) => "array",
            other => panic!("{field}: {other}"),
        };
        assert_eq!(got, want, "{field}");
    }
    let a = tool.annotations.clone().unwrap();
    assert_eq!(
        (
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint
        ),
        (Some(false), Some(true), Some(true), Some(false))
    );
    assert!(tool.title.is_some());
}

/// A Note the agent makes is approved for agents and in the person's list at once; its key is
/// the token's: the same key returns the same Note (not re-approved once the person withdrew
/// it), another token's same key makes another Note.
#[tokio::test]
async fn an_agent_makes_a_note_once_per_key() {
    let h = Harness::start();
    let agent = h.agent().await;
    let k = key();
    let made = ok(
        &agent,
        "create_note",
        json!({"title": "Findings", "idempotency_key": k}),
    )
    .await;
    let id = made["note_id"].as_str().unwrap().to_owned();
    assert_eq!(
        (
            made["title"].clone(),
            made["version"].clone(),
            made["replayed"].clone()
        ),
        (json!("Findings"), json!(1), json!(false))
    );
    assert_eq!(made["tabs"][0]["id"], "markdown", "{made}");
    // The person's list has it, approved; the agent sees it and writes to it.
    let (status, listed) = h.get("/notes").await;
    assert_eq!(status, 200);
    let row = listed["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id.as_str())
        .cloned();
    assert_eq!(
        row.as_ref().map(|r| r["agent_access"].clone()),
        Some(json!(true)),
        "{listed}"
    );
    let tabs = ok(&agent, "list_note_tabs", json!({"note_id": id})).await;
    assert_eq!(tabs["version"], 1);
    ok(&agent, "edit_note_tab", replace_text(&id, 1, "first line")).await;

    let again = ok(
        &agent,
        "create_note",
        json!({"title": "Findings", "idempotency_key": k}),
    )
    .await;
    assert_eq!(
        (again["note_id"].as_str(), again["replayed"].clone()),
        (Some(id.as_str()), json!(true))
    );
    let (_, listed) = h.get("/notes").await;
    assert_eq!(
        listed["notes"].as_array().unwrap().len(),
        1,
        "one Note for one key: {listed}"
    );

    let other = h.token_with("other-agent", &["notes:read", "notes:write"]);
    let other = h.agent_with(&other, mcp_support::Protocol::Stateless).await;
    let theirs = ok(
        &other,
        "create_note",
        json!({"title": "Findings", "idempotency_key": k}),
    )
    .await;
    assert_ne!(
        theirs["note_id"],
        id.as_str(),
        "another token's key is its own"
    );

    h.set_agent_access(&id, false).await;
    let withdrawn = refused(
        &agent,
        "create_note",
        json!({"title": "Findings", "idempotency_key": k}),
    )
    .await;
    assert_eq!(withdrawn["error"], "note_not_found", "{withdrawn}");
    let (_, access) = h.get(&format!("/notes/{id}/agent-access")).await;
    assert_eq!(
        access["agent_access"], false,
        "a resend does not approve it again: {access}"
    );
}

/// A 1,000-line tab read in part: numbered lines, pages that meet, the total; a line read there
/// is quoted to `edit_note_text` at the version the read gave.
#[tokio::test]
async fn a_long_tab_is_read_in_numbered_pages_and_a_line_read_there_is_edited() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Long").await;
    let text: String = (1..=1000)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    let v = h.version(&note).await;
    ok(&agent, "edit_note_tab", replace_text(&note, v, &text)).await;
    let read = |start: Option<u64>, count: Option<u64>| {
        let mut args = json!({"note_id": note, "tab_id": "markdown"});
        if let Some(start) = start {
            args["start_line"] = json!(start);
        }
        if let Some(count) = count {
            args["line_count"] = json!(count);
        }
        args
    };
    let numbers = |page: &Value| -> Vec<u64> {
        page["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["number"].as_u64().unwrap())
            .collect()
    };

    // Defaults: from line 1, 200 lines.
    let first = ok(&agent, "read_note_lines", read(None, None)).await;
    assert_eq!(numbers(&first), (1..=200).collect::<Vec<_>>());
    assert_eq!(
        (
            first["start_line"].clone(),
            first["total_lines"].clone(),
            first["truncated"].clone(),
            first["version"].clone(),
            first["lines"][0]["text"].clone(),
        ),
        (
            json!(1),
            json!(1000),
            json!(true),
            json!(v + 1),
            json!("line 1 of the log")
        )
    );
    let middle = ok(&agent, "read_note_lines", read(Some(500), Some(3))).await;
    assert_eq!(numbers(&middle), [500, 501, 502]);
    let last = ok(&agent, "read_note_lines", read(Some(801), Some(2000))).await;
    assert_eq!(numbers(&last), (801..=1000).collect::<Vec<_>>());
    assert_eq!(last["truncated"], false);

    // A line reached by its words, without paging: the window starts there; the next match
    // is found from its number + 1.
    let found = ok(
        &agent,
        "read_note_lines",
        merged(read(None, Some(2)), json!({"find": "line 77 "})),
    )
    .await;
    assert_eq!(numbers(&found), [77, 78]);
    assert_eq!(found["start_line"], 77);
    let next = ok(
        &agent,
        "read_note_lines",
        merged(read(Some(78), Some(1)), json!({"find": "line 70"})),
    )
    .await;
    assert_eq!(numbers(&next), [700]);

    // The line as read is the quote; the version as read is the guard.
    let line = middle["lines"][1]["text"].as_str().unwrap();
    let edited = ok(
        &agent,
        "edit_note_text",
        json!({"note_id": note, "tab_id": "markdown",
               "expected_version": middle["version"], "idempotency_key": key(),
               "edits": [{"old_text": format!("{line}\n"), "new_text": "line 501, changed\n"}]}),
    )
    .await;
    let after = ok(&agent, "read_note_lines", read(Some(500), Some(3))).await;
    assert_eq!(after["version"], edited["version"]);
    assert_eq!(
        after["lines"][1],
        json!({"number": 501, "text": "line 501, changed"})
    );
    assert_eq!(after["total_lines"], 1000);
}

/// Each refusal of `read_note_lines` is an `isError` result with its code and the field it
/// names; a Note the agent may not see, or one in the trash, is not found, as if it never was.
#[tokio::test]
async fn read_note_lines_refuses_by_field_and_hides_what_the_agent_may_not_see() {
    let h = Harness::start();
    let agent = h.agent().await;
    let note = h.approved_note("Three lines").await;
    let v = h.version(&note).await;
    ok(&agent, "edit_note_tab", replace_text(&note, v, "a\nb\nc\n")).await;
    let private = h.create_note("Private").await;
    let trashed = h.approved_note("Trashed").await;
    let res = h
        .http
        .delete(format!("{}/notes/{trashed}", h.url()))
        .bearer_auth(h.token())
        .header("if-match", format!("\"{}\"", h.version(&trashed).await))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "trash the Note");
    let missing = uuid::Uuid::now_v7().to_string();
    let args =
        |extra: Value| mcp_support::merged(json!({"note_id": note, "tab_id": "markdown"}), extra);

    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "a Note that never was",
            json!({"note_id": missing, "tab_id": "markdown"}),
            "note_not_found",
            "note_id",
        ),
        (
            "a Note the person did not approve",
            json!({"note_id": private, "tab_id": "markdown"}),
            "note_not_found",
            "note_id",
        ),
        (
            "a Note in the trash",
            json!({"note_id": trashed, "tab_id": "markdown"}),
            "note_not_found",
            "note_id",
        ),
        (
            "no note ID at all",
            json!({"note_id": "not-an-id", "tab_id": "markdown"}),
            "invalid_arguments",
            "note_id",
        ),
        (
            "an unknown tab",
            args(json!({"tab_id": "markdown-2"})),
            "invalid_arguments",
            "tab_id",
        ),
        (
            "a tab that is not Markdown",
            args(json!({"tab_id": "sources"})),
            "invalid_arguments",
            "tab_id",
        ),
        (
            "line 0",
            args(json!({"start_line": 0})),
            "invalid_arguments",
            "start_line",
        ),
        (
            "past the last line",
            args(json!({"start_line": 4})),
            "invalid_arguments",
            "start_line",
        ),
        (
            "a start that is not a number",
            args(json!({"start_line": "2"})),
            "invalid_arguments",
            "start_line",
        ),
        (
            "no lines",
            args(json!({"line_count": 0})),
            "invalid_arguments",
            "line_count",
        ),
        (
            "over the most lines",
            args(json!({"line_count": 2001})),
            "invalid_arguments",
            "line_count",
        ),
        (
            "a field the tool does not take",
            args(json!({"end_line": 3})),
            "invalid_arguments",
            "end_line",
        ),
        (
            "no tab",
            json!({"note_id": note}),
            "invalid_arguments",
            "tab_id",
        ),
        (
            "a text no line holds",
            args(json!({"find": "d"})),
            "invalid_arguments",
            "find",
        ),
        (
            "a text across lines",
            args(json!({"find": "a\nb"})),
            "invalid_arguments",
            "find",
        ),
        (
            "a text no line holds from the start asked",
            args(json!({"start_line": 2, "find": "a"})),
            "invalid_arguments",
            "find",
        ),
        (
            "nothing to find",
            args(json!({"find": ""})),
            "invalid_arguments",
            "find",
        ),
    ];
    for (case, args, code, field) in cases {
        let out = refused(&agent, "read_note_lines", args).await;
        assert_eq!(
            (out["error"].as_str(), out["field"].as_str()),
            (Some(code), Some(field)),
            "{case}: {out}"
        );
    }
    // The last line, and line 1 of an empty text, are not past the end.
    let last = ok(&agent, "read_note_lines", args(json!({"start_line": 3}))).await;
    assert_eq!(last["lines"], json!([{"number": 3, "text": "c"}]));
    let empty = h.approved_note("Empty").await;
    let none = ok(
        &agent,
        "read_note_lines",
        json!({"note_id": empty, "tab_id": "markdown"}),
    )
    .await;
    assert_eq!(
        (none["lines"].clone(), none["total_lines"].clone()),
        (json!([]), json!(0))
    );
}

/// The server's instructions tell the model when the precise tools beat the whole-text ones.
#[tokio::test]
async fn the_instructions_prefer_quoted_edits_and_partial_reads() {
    let h = Harness::start();
    let agent = h.agent().await;
    let instructions = agent
        .peer_info()
        .and_then(|info| info.instructions.clone())
        .expect("the server gives instructions");
    for rule in [
        "To change part of a Markdown text, use edit_note_text",
        "Use edit_note_tab replace_text only to write a text anew",
        "For a long Markdown tab, read the lines you need with read_note_lines",
        "A link to another Note is written [Its title](quire:note/NOTE_ID)",
        "![name](quire:file/FILE_ID)",
    ] {
        assert!(instructions.contains(rule), "the instructions lack: {rule}");
    }
}
