//! Search over real HTTP (`GET /search`) and through a real MCP client (`search_notes`), on the
//! real binary with a SQLite file: what is found, what is refused (and how), and hostile query
//! text, which never makes a 5xx or a tool failure.
#![allow(clippy::unwrap_used)]

mod mcp_support;

use mcp_support::{Harness, ok, refused};
use serde_json::{Value, json};

/// `GET /search` with these query parameters (URL-encoded here), as the person.
async fn search(h: &Harness, params: &[(&str, &str)]) -> (u16, Value) {
    search_as(h, h.token(), params).await
}

async fn search_as(h: &Harness, token: &str, params: &[(&str, &str)]) -> (u16, Value) {
    let url = url::Url::parse_with_params(&format!("{}/search", h.url()), params).unwrap();
    let res = h.http.get(url).bearer_auth(token).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap())
}

/// The `(note_id, tab_id)` of each result.
fn found(body: &Value) -> Vec<(String, String)> {
    body["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {body}"))
        .iter()
        .map(|r| {
            (
                r["note_id"].as_str().unwrap().to_owned(),
                r["tab_id"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Replaces the Markdown text of Note `id` as the person, at its current version.
async fn write_text(h: &Harness, id: &str, text: &str) {
    let version = h.version(id).await;
    let (status, body) = h
        .patch(
            id,
            version,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": text}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
}

fn md(id: &str) -> (String, String) {
    (id.to_owned(), "markdown".to_owned())
}

#[tokio::test]
async fn the_person_finds_a_word_written_a_moment_ago_with_every_result_field() {
    let h = Harness::start();
    let id = h.create_note("Trip to Lisbon").await;
    write_text(&h, &id, "Pastéis de nata at the bakery").await;
    let (status, body) = search(&h, &[("q", "PASTEIS nat")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"results": [{
            "note_id": id, "title": "Trip to Lisbon", "tab_id": "markdown",
            "tab_label": "Note", "tab_type": "markdown",
            "snippet": "Pastéis de nata at the bakery", "version": 2,
        }]})
    );
    // The title alone finds the Markdown tab.
    let (_, body) = search(&h, &[("q", "lisbon")]).await;
    assert_eq!(found(&body), vec![md(&id)]);
    assert_eq!(body["results"][0]["snippet"], "Trip to Lisbon");
}

#[tokio::test]
async fn a_sheet_cell_is_found_in_its_tab() {
    let h = Harness::start();
    let id = h.create_note("Budget").await;
    let (_, created) = h
        .patch(
            &id,
            1,
            json!([{"op": "create_tab", "tab_type": "sheet", "label": "Numbers"}]),
        )
        .await;
    let sheet = created["outcomes"][0]["tab_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _) = h
        .patch(
            &id,
            2,
            json!([{"op": "sheet_set_range", "tab_id": sheet, "start_row": 3, "start_col": 2,
                    "values": [["quokka"]]}]),
        )
        .await;
    assert_eq!(status, 200);
    let (_, body) = search(&h, &[("q", "quokka")]).await;
    assert_eq!(found(&body), vec![(id, sheet)]);
    assert_eq!(body["results"][0]["tab_type"], "sheet");
    assert_eq!(body["results"][0]["tab_label"], "Numbers");
}

#[tokio::test]
async fn refusals_name_the_parameter_and_write_nothing() {
    let h = Harness::start();
    let id = h.create_note("Anything").await;
    let long = "x".repeat(200);
    for (params, field) in [
        (vec![], "q"),
        (vec![("q", "")], "q"),
        (vec![("q", "   \t ")], "q"),
        (vec![("q", "\"\" * - : 🎉")], "q"),
        (vec![("q", "a"), ("limit", "101")], "limit"),
        (vec![("q", "a"), ("limit", "0")], "limit"),
        (vec![("q", "a"), ("limit", "lots")], "limit"),
        (vec![("q", "a"), ("limit", long.as_str())], "limit"),
    ] {
        let (status, body) = search(&h, &params).await;
        assert_eq!(status, 422, "{params:?}: {body}");
        assert_eq!(body["error"], "invalid_field", "{params:?}");
        assert_eq!(body["field"], field, "{params:?}");
    }
    assert_eq!(h.version(&id).await, 1);

    // limit bounds the results; 100 is allowed.
    for n in 0..3 {
        h.create_note(&format!("Walrus {n}")).await;
    }
    let (status, body) = search(&h, &[("q", "walrus"), ("limit", "2")]).await;
    assert_eq!((status, found(&body).len()), (200, 2));
    let (status, body) = search(&h, &[("q", "walrus"), ("limit", "100")]).await;
    assert_eq!((status, found(&body).len()), (200, 3));
}

#[tokio::test]
async fn who_may_search() {
    let h = Harness::start();
    let agent = h
        .server
        .create_agent_token("claude", &["notes:read", "notes:write"])
        .unwrap();
    let writer_only = h.token_with("writer", &["notes:write"]);
    let (status, body) = search_as(&h, &agent, &[("q", "x")]).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("agent_token")));
    let (status, body) = search_as(&h, &writer_only, &[("q", "x")]).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")));
    let (status, body) = search_as(&h, "not-a-token", &[("q", "x")]).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthorized"))
    );
}

/// Hostile query text, as people and models write it: never a 5xx, never a refusal other than
/// "no words" (which the refusals test covers).
const HOSTILE: [&str; 22] = [
    "\"",
    "\"unbalanced quote",
    "a\"b\"c\"",
    "NEAR(flamingo, 2)",
    "flamingo OR",
    "NOT flamingo",
    "AND",
    "-flamingo",
    "flamingo*",
    "*",
    "title:flamingo",
    "{title body}: flamingo",
    "^flamingo",
    "flamingo:*",
    "'flamingo' & !x | y <-> z",
    "'); DROP TABLE notes; --",
    "🦩 flamingo 🦩",
    "flamingo\\",
    "(flamingo",
    "\u{0}flamingo",
    "ﬂamingo",
    "Ｆｌａｍｉｎｇｏ",
];

#[tokio::test]
async fn hostile_queries_never_fail_over_http() {
    let h = Harness::start();
    let id = h.create_note("Birds").await;
    write_text(&h, &id, "the flamingo stands on one leg near or not").await;
    let ten_kb = "flamingo NEAR( \" OR * - : 🦩 ".repeat(400);
    for q in HOSTILE.iter().copied().chain([ten_kb.as_str()]) {
        let (status, body) = search(&h, &[("q", q)]).await;
        assert!(
            status == 200 || (status == 422 && body["field"] == "q"),
            "{q:?}: {status} {body}"
        );
    }
    let (_, body) = search(&h, &[("q", "NEAR(flamingo, 2)")]).await;
    assert_eq!(
        found(&body),
        Vec::<(String, String)>::new(),
        "\"2\" is a word"
    );
    for q in [
        "flamingo OR",
        "NOT flamingo",
        "-flamingo",
        "(flamingo",
        "🦩 flamingo 🦩",
    ] {
        let (_, body) = search(&h, &[("q", q)]).await;
        assert_eq!(found(&body), vec![md(&id)], "{q:?}");
    }
}

#[tokio::test]
async fn the_agent_searches_approved_notes_only() {
    let h = Harness::start();
    let shared = h.approved_note("Shared pelican").await;
    write_text(&h, &shared, "pelican migration").await;
    let private = h.create_note("Private pelican").await;
    let agent = h.agent().await;

    let out = ok(&agent, "search_notes", json!({"query": "pelican"})).await;
    assert_eq!(found(&out), vec![md(&shared)]);
    let hit = &out["results"][0];
    assert_eq!(hit["title"], "Shared pelican");
    assert_eq!(hit["version"], 2);
    assert_eq!(hit["tab_type"], "markdown");
    assert_eq!(hit["snippet"], "pelican migration");

    // The person sees both.
    let (_, body) = search(&h, &[("q", "pelican")]).await;
    assert_eq!(found(&body).len(), 2);
    assert!(found(&body).contains(&md(&private)));
    agent.cancel().await.unwrap();
}

#[tokio::test]
async fn search_notes_refuses_bad_arguments_by_name() {
    let h = Harness::start();
    let agent = h.agent().await;
    for (args, field) in [
        (json!({}), "query"),
        (json!({"query": ""}), "query"),
        (json!({"query": "   "}), "query"),
        (json!({"query": "\"\" * 🎉"}), "query"),
        (json!({"query": 7}), "query"),
        (json!({"query": "a", "limit": 0}), "limit"),
        (json!({"query": "a", "limit": 51}), "limit"),
        (json!({"query": "a", "limit": "5"}), "limit"),
        (json!({"query": "a", "extra": 1}), "extra"),
    ] {
        let out = refused(&agent, "search_notes", args.clone()).await;
        assert_eq!(out["error"], "invalid_arguments", "{args}: {out}");
        assert_eq!(out["field"], field, "{args}: {out}");
    }
    agent.cancel().await.unwrap();
}

#[tokio::test]
async fn search_notes_limits_and_survives_hostile_queries() {
    let h = Harness::start();
    for n in 0..12 {
        let id = h.approved_note(&format!("Flamingo {n}")).await;
        write_text(&h, &id, "flamingo stands near or not").await;
    }
    let agent = h.agent().await;
    let out = ok(&agent, "search_notes", json!({"query": "flamingo"})).await;
    assert_eq!(found(&out).len(), 10, "the default limit");
    let out = ok(
        &agent,
        "search_notes",
        json!({"query": "flamingo", "limit": 3}),
    )
    .await;
    assert_eq!(found(&out).len(), 3);
    let ten_kb = "flamingo NEAR( \" OR * - : 🦩 ".repeat(400);
    for q in HOSTILE.iter().copied().chain([ten_kb.as_str()]) {
        let result = mcp_support::call(&agent, "search_notes", json!({"query": q})).await;
        let out = mcp_support::body(&result);
        if result.is_error == Some(true) {
            assert_eq!(out["field"], "query", "{q:?}: {out}");
        }
    }
    agent.cancel().await.unwrap();
}
