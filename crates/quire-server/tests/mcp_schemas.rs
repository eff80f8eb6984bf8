//! Every tool says what it is and what it returns, and returns that: over real HTTP against the
//! real binary with rmcp's client, each tool declares a title, every hint and an
//! `outputSchema`, and each successful result, of every tool and every kind of answer
//! (each operation, each tab kind, replays, pages), validates against it with a real JSON
//! Schema validator.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use std::collections::{BTreeMap, BTreeSet};

use mcp_support::{Agent, Harness, agent_version, key, merged, ok, replace_text};
use serde_json::{Value, json};

#[tokio::test]
async fn every_tool_declares_a_title_its_hints_and_an_output_schema() {
    let h = Harness::start();
    let agent = h.agent().await;
    let mut missing = Vec::new();
    for tool in agent.list_all_tools().await.unwrap() {
        let name = tool.name.to_string();
        if tool.title.as_deref().is_none_or(str::is_empty) {
            missing.push(format!("{name}: title"));
        }
        match &tool.annotations {
            None => missing.push(format!("{name}: annotations")),
            Some(a) => {
                for (hint, value) in [
                    ("readOnlyHint", a.read_only_hint),
                    ("destructiveHint", a.destructive_hint),
                    ("idempotentHint", a.idempotent_hint),
                ] {
                    if value.is_none() {
                        missing.push(format!("{name}: {hint}"));
                    }
                }
                if a.open_world_hint != Some(false) {
                    missing.push(format!("{name}: openWorldHint false"));
                }
                if a.read_only_hint == Some(true) && a.destructive_hint != Some(false) {
                    missing.push(format!("{name}: a read that is not destructiveHint false"));
                }
            }
        }
        match &tool.output_schema {
            None => missing.push(format!("{name}: outputSchema")),
            Some(schema) => {
                let schema = Value::Object((**schema).clone());
                if schema["type"] != "object" {
                    missing.push(format!("{name}: outputSchema of type object"));
                }
                if let Err(e) = jsonschema::meta::validate(&schema) {
                    missing.push(format!("{name}: outputSchema is no JSON Schema: {e}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
    agent.cancel().await.unwrap();
}

/// The tools' output schemas, compiled; every result goes through [`Checked::ok`].
struct Checked {
    validators: BTreeMap<String, jsonschema::Validator>,
    /// One result of each tool called so far.
    seen: BTreeMap<String, Value>,
}

impl Checked {
    async fn new(agent: &Agent) -> Checked {
        let validators = agent
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| {
                let schema = Value::Object((*t.output_schema.clone().unwrap()).clone());
                let validator = jsonschema::validator_for(&schema)
                    .unwrap_or_else(|e| panic!("{}: {e}", t.name));
                (t.name.to_string(), validator)
            })
            .collect();
        Checked {
            validators,
            seen: BTreeMap::new(),
        }
    }

    /// A successful call whose structured result satisfies the tool's outputSchema.
    async fn ok(&mut self, agent: &Agent, name: &str, args: Value) -> Value {
        let out = ok(agent, name, args).await;
        let errors: Vec<String> = self.validators[name]
            .iter_errors(&out)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{name} answered what its outputSchema refuses: {errors:#?}\n{out}"
        );
        self.seen.entry(name.to_owned()).or_insert(out.clone());
        out
    }
}

#[tokio::test]
async fn every_result_satisfies_its_tools_output_schema() {
    let h = Harness::start();
    let agent = h.agent().await;
    let mut c = Checked::new(&agent).await;
    let note = h.approved_note("Schema check").await;
    let (status, patched) = h
        .patch(
            &note,
            1,
            json!([
                {"op": "add_source", "title": "Report", "url": "https://example.org/report"},
                {"op": "add_file", "name": "data.csv", "mime": "text/csv", "size": 12,
                 "sha256": "a".repeat(64)},
            ]),
        )
        .await;
    assert_eq!(status, 200, "{patched}");
    let v = agent_version(&agent, &note).await;

    // Writes: every operation, a replay, a replay that differs.
    let text = "# Schema check\n\nfirst line\nsecond line\n";
    let first = replace_text(&note, v, text);
    let v = c.ok(&agent, "edit_note_tab", first.clone()).await["version"]
        .as_u64()
        .unwrap();
    let replay = c.ok(&agent, "edit_note_tab", first.clone()).await;
    assert_eq!(replay["replayed"], true);
    let differs = merged(first, json!({"text": "another text"}));
    assert_eq!(
        c.ok(&agent, "edit_note_tab", differs).await["request_differs"],
        true
    );
    let guard = |v: u64| json!({"note_id": note, "expected_version": v, "idempotency_key": key()});
    let deck_made = c
        .ok(
            &agent,
            "create_note_tab",
            merged(
                guard(v),
                json!({"tab_type": "slides", "label": "Deck", "slides": [{"title": "One"}]}),
            ),
        )
        .await;
    let deck = deck_made["tab_id"].as_str().unwrap().to_owned();
    let sheet_args = merged(guard(v + 1), json!({"tab_type": "sheet"}));
    let sheet_made = c.ok(&agent, "create_note_tab", sheet_args.clone()).await;
    let sheet = sheet_made["tab_id"].as_str().unwrap().to_owned();
    let sheet_replay = c.ok(&agent, "create_note_tab", sheet_args).await;
    assert_eq!(
        (
            sheet_replay["replayed"].clone(),
            sheet_replay["tab_id"].as_str()
        ),
        (json!(true), Some(sheet.as_str()))
    );
    let mut v = sheet_made["version"].as_u64().unwrap();
    let tab_write =
        |v: u64, tab: &str, fields: Value| merged(merged(guard(v), json!({"tab_id": tab})), fields);
    let mut big: Vec<Vec<Value>> = (0..101)
        .map(|r| (0..100).map(|c| json!(r * 100 + c)).collect())
        .collect();
    // Formulas whose results are each kind `computed` holds: an error, a number, a text, a
    // boolean.
    big[0][..4].clone_from_slice(&[
        json!("=1/0"),
        json!("=SUM(A2:A3)"),
        json!("=\"t\""),
        json!("=1=1"),
    ]);
    for (tab, fields) in [
        (
            deck.as_str(),
            json!({"operation": "slide_add", "title": "Two", "body": "b", "notes": "n"}),
        ),
        (
            deck.as_str(),
            json!({"operation": "slides_add_outline", "slides": [{"title": "Three"}, {"title": "Four"}]}),
        ),
        (
            sheet.as_str(),
            json!({"operation": "sheet_set_range", "start_row": 0, "start_col": 0,
                   "values": [[1, "two", null], [true, 2.5, ""]]}),
        ),
    ] {
        v = c
            .ok(&agent, "edit_note_tab", tab_write(v, tab, fields))
            .await["version"]
            .as_u64()
            .unwrap();
    }
    let deck_data = c
        .ok(
            &agent,
            "read_note_tab",
            json!({"note_id": note, "tab_id": deck}),
        )
        .await["data"]
        .clone();
    let fields = json!({"operation": "replace_tab_data", "data": deck_data});
    v = c
        .ok(&agent, "edit_note_tab", tab_write(v, &deck, fields))
        .await["version"]
        .as_u64()
        .unwrap();
    let edited = c
        .ok(
            &agent,
            "edit_note_text",
            merged(
                guard(v),
                json!({"tab_id": "markdown",
                       "edits": [{"old_text": "second line", "new_text": "the second line"}]}),
            ),
        )
        .await;
    v = edited["version"].as_u64().unwrap();
    let source = |v: u64, url: &str| merged(guard(v), json!({"title": "Report", "url": url}));
    let added = c
        .ok(
            &agent,
            "add_note_source",
            source(v, "https://example.org/another"),
        )
        .await;
    assert_eq!(added["already_attached"], false);
    v = added["version"].as_u64().unwrap();
    let again = c
        .ok(
            &agent,
            "add_note_source",
            source(v, "https://www.example.org/report/"),
        )
        .await;
    assert_eq!(again["already_attached"], true);
    // A second sheet tab, too large to show inline.
    let big_sheet = c
        .ok(
            &agent,
            "create_note_tab",
            merged(guard(v), json!({"tab_type": "sheet", "label": "Big"})),
        )
        .await;
    let big_tab = big_sheet["tab_id"].as_str().unwrap().to_owned();
    let fields =
        json!({"operation": "sheet_set_range", "start_row": 0, "start_col": 0, "values": big});
    c.ok(
        &agent,
        "edit_note_tab",
        tab_write(big_sheet["version"].as_u64().unwrap(), &big_tab, fields),
    )
    .await;

    // Reads: every tab kind, windows, pages.
    c.ok(&agent, "list_notes", json!({})).await;
    let found = c
        .ok(&agent, "search_notes", json!({"query": "second line"}))
        .await;
    assert!(!found["results"].as_array().unwrap().is_empty(), "{found}");
    let tabs = c
        .ok(&agent, "list_note_tabs", json!({"note_id": note}))
        .await;
    for tab in tabs["tabs"].as_array().unwrap() {
        c.ok(
            &agent,
            "read_note_tab",
            json!({"note_id": note, "tab_id": tab["id"]}),
        )
        .await;
    }
    let omitted = c
        .ok(
            &agent,
            "read_note_tab",
            json!({"note_id": note, "tab_id": big_tab}),
        )
        .await;
    assert_eq!(omitted["cells_omitted"], true, "{omitted}");
    for (start, count) in [(None, None), (Some(2), Some(2)), (Some(4), Some(2000))] {
        let mut args = json!({"note_id": note, "tab_id": "markdown"});
        if let Some(start) = start {
            args["start_line"] = json!(start);
        }
        if let Some(count) = count {
            args["line_count"] = json!(count);
        }
        c.ok(&agent, "read_note_lines", args).await;
    }
    c.ok(
        &agent,
        "read_note_lines",
        json!({"note_id": note, "tab_id": "markdown", "find": "second"}),
    )
    .await;
    for (start, size) in [((0, 0), (2, 3)), ((99, 99), (5, 5))] {
        c.ok(
            &agent,
            "read_sheet_range",
            json!({"note_id": note, "tab_id": big_tab, "start_row": start.0,
                   "start_col": start.1, "rows": size.0, "cols": size.1}),
        )
        .await;
    }
    for args in [
        json!({"note_id": note}),
        json!({"note_id": note, "kind": "files"}),
        json!({"note_id": note, "kind": "sources", "limit": 1}),
    ] {
        c.ok(&agent, "list_note_attachments", args).await;
    }
    let made = json!({"title": "Made here", "idempotency_key": key()});
    c.ok(&agent, "create_note", made.clone()).await;
    assert_eq!(c.ok(&agent, "create_note", made).await["replayed"], true);

    // Every tool was called, and no schema is vacuous: a result without a field its schema
    // requires is refused.
    assert_eq!(
        c.seen.keys().collect::<BTreeSet<_>>(),
        c.validators.keys().collect::<BTreeSet<_>>(),
        "a tool was never called"
    );
    for (name, out) in &c.seen {
        let required = out.as_object().unwrap().keys().find(|k| {
            let mut less = out.clone();
            less.as_object_mut().unwrap().remove(*k);
            !c.validators[name].is_valid(&less)
        });
        assert!(
            required.is_some(),
            "{name}: its outputSchema requires none of {out}"
        );
    }
    agent.cancel().await.unwrap();
}
