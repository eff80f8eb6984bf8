//! The REST API over real HTTP against the real binary on port 0 with a real SQLite file:
//! every route and status code, every kind of bad input (and that it wrote nothing), auth,
//! the body limit, idempotency, If-Match, history, restore and the event stream.
#![allow(clippy::unwrap_used)]

mod support;

use quire_testkit::ServerProcess;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::{Api, SseReader, markdown, refused, replace_text, server, version};

#[tokio::test]
async fn healthz_needs_no_token() {
    let server = server();
    let resp = reqwest::get(format!("{}/healthz", server.url()))
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        resp.json::<Value>().await.unwrap(),
        json!({ "status": "ok" })
    );
}

/// The database holds every Note and the tokens' hashes: its owner's alone, and so are the
/// write-ahead log and the shared-memory file SQLite makes beside it.
#[cfg(unix)]
#[tokio::test]
async fn the_database_is_created_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let server = server();
    let api = Api::new(&server);
    api.new_note().await;
    let db = server.db_path.display().to_string();
    for path in [db.clone(), format!("{db}-wal"), format!("{db}-shm")] {
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{path}: {mode:o}");
    }
}

#[tokio::test]
async fn create_get_and_list_notes() {
    let server = server();
    let api = Api::new(&server);

    let resp = api
        .req(Method::POST, "/notes")
        .json(&json!({ "title": "Trip plan" }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::CREATED);
    assert_eq!(resp.headers()["etag"], "\"1\"");
    let note: Value = resp.json().await.unwrap();
    let id = note["id"].as_str().unwrap();
    assert_eq!(note["title"], "Trip plan");
    assert_eq!(note["version"], 1);
    assert_eq!(note["agent_access"], false);
    assert!(note["created_at"].is_string() && note["updated_at"].is_string());
    let tabs: Vec<(&str, &str)> = note["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].as_str().unwrap(), t["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        tabs,
        [
            ("markdown", "markdown"),
            ("files", "files"),
            ("sources", "sources")
        ]
    );
    assert_eq!(markdown(&note), "");

    let resp = api.get(&format!("/notes/{id}")).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["etag"], "\"1\"");
    assert_eq!(resp.json::<Value>().await.unwrap(), note);

    let other = api.new_note().await;
    let list = api.get_ok("/notes").await;
    let mut ids: Vec<&str> = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut want = vec![id, other.as_str()];
    want.sort_unstable();
    assert_eq!(ids, want);
}

#[tokio::test]
async fn create_with_an_idempotency_key_creates_once() {
    let server = server();
    let api = Api::new(&server);
    let create = || {
        api.req(Method::POST, "/notes")
            .header("Idempotency-Key", "create-1")
            .json(&json!({ "title": "Once" }))
            .send()
    };
    let first = create().await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    let again = create().await.unwrap();
    assert_eq!(again.status(), StatusCode::OK, "a replay is not a creation");
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["id"], first["id"]);
    let list = api.get_ok("/notes").await;
    assert_eq!(list["notes"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn guarded_write_with_the_version_in_the_body() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;

    let resp = api.replace_text(&id, 1, "hello").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["etag"], "\"2\"");
    let result: Value = resp.json().await.unwrap();
    assert_eq!(result["note_id"], id.as_str());
    assert_eq!(result["version"], 2);
    assert_eq!(result["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(result["replayed"], false);
    assert!(result["outcomes"].is_array());
    assert_eq!(api.text(&id).await, (2, "hello".to_owned()));

    // A second editor still at version 1: refused, told where the Note is and what changed.
    let (status, body) = refused(api.replace_text(&id, 1, "stale").await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "version_conflict");
    assert_eq!(body["current_version"], 2);
    assert_eq!(body["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(api.text(&id).await, (2, "hello".to_owned()));
}

#[tokio::test]
async fn if_match_carries_the_version() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let path = format!("/notes/{id}");
    let changes =
        json!({ "changes": [{ "op": "replace_text", "tab_id": "markdown", "text": "a" }] });
    let patch = |if_match: Option<&'static str>, body: &Value| {
        let mut req = api.req(Method::PATCH, &path).json(body);
        if let Some(version) = if_match {
            req = req.header("If-Match", version);
        }
        req.send()
    };

    let resp = patch(Some("\"1\""), &changes).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.json::<Value>().await.unwrap()["version"], 2);

    // Stale If-Match: 412 with the conflict's body.
    let resp = patch(Some("\"1\""), &changes).await.unwrap();
    let (status, body) = refused(resp).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(body["error"], "version_conflict");
    assert_eq!(body["current_version"], 2);
    assert_eq!(body["changed_tab_ids"], json!(["markdown"]));

    // Neither: 428.
    let resp = patch(None, &changes).await.unwrap();
    let (status, body) = refused(resp).await;
    assert_eq!(status, StatusCode::PRECONDITION_REQUIRED);
    assert_eq!(body["error"], "precondition_required");

    // Both, disagreeing: 400.
    let mut both = changes.clone();
    both["expected_version"] = json!(2);
    let resp = patch(Some("\"1\""), &both).await.unwrap();
    let (status, body) = refused(resp).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "conflicting_preconditions");

    // Not a quoted version: 400.
    let resp = patch(Some("*"), &changes).await.unwrap();
    let (status, body) = refused(resp).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_if_match");
    assert_eq!(body["field"], "If-Match");

    // Both, agreeing: accepted.
    both["changes"][0]["text"] = json!("b");
    let resp = patch(Some("\"2\""), &both).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(api.text(&id).await.0, 3, "only the accepted writes count");
}

#[tokio::test]
async fn a_repeated_idempotency_key_replays_the_first_result() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let send = |expected: u64, text: &'static str| {
        api.req(Method::PATCH, &format!("/notes/{id}"))
            .header("Idempotency-Key", "edit-1")
            .json(&replace_text(expected, text))
            .send()
    };
    let first = send(1, "first").await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["replayed"], false);

    // The response was "lost"; the client resends the very same request.
    let again = send(1, "first").await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["replayed"], true);
    assert_eq!(again["version"], first["version"]);
    assert_eq!(again["changed_tab_ids"], first["changed_tab_ids"]);
    assert_eq!(again["outcomes"], first["outcomes"]);
    assert_eq!(api.text(&id).await, (2, "first".to_owned()));

    // The key is checked before the version: after someone else wrote, the resend (still
    // carrying the old version) is a replay, not a conflict.
    assert_eq!(
        api.replace_text(&id, 2, "someone else").await.status(),
        StatusCode::OK
    );
    let late = send(1, "first").await.unwrap();
    assert_eq!(late.status(), StatusCode::OK);
    let late: Value = late.json().await.unwrap();
    assert_eq!(late["replayed"], true);
    assert_eq!(late["version"], 2);
    assert_eq!(api.text(&id).await, (3, "someone else".to_owned()));
}

/// Each bad request: its status, code and field; the Note is untouched afterwards.
#[tokio::test]
async fn bad_input_is_refused_by_name_and_writes_nothing() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    assert_eq!(
        api.replace_text(&id, 1, "kept").await.status(),
        StatusCode::OK
    );

    let op = |op: Value| json!({ "expected_version": 2, "changes": [op] });
    let bad = StatusCode::BAD_REQUEST;
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    // (what, body, status, error code, field)
    type Case = (
        &'static str,
        Vec<u8>,
        StatusCode,
        &'static str,
        Option<&'static str>,
    );
    let cases: Vec<Case> = vec![
        ("not JSON", b"{\"expected_version\": 2,".to_vec(), bad, "malformed_json", None),
        ("empty body", Vec::new(), bad, "malformed_json", None),
        ("invalid UTF-8", b"{\"expected_version\": 2, \"changes\": [\xff]}".to_vec(), bad, "malformed_json", None),
        (
            "lone surrogate",
            br#"{"expected_version": 2, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "\ud800"}]}"#.to_vec(),
            bad,
            "malformed_json",
            Some("changes[0].text"),
        ),
        (
            "two values",
            b"{\"expected_version\": 2, \"changes\": []} {}".to_vec(),
            bad,
            "malformed_json",
            None,
        ),
        (
            "unknown op",
            op(json!({ "op": "rewrite_everything", "tab_id": "markdown" })).to_string().into_bytes(),
            unprocessable,
            "invalid_op",
            Some("changes[0].op"),
        ),
        (
            "unknown top-level field",
            json!({ "expected_version": 2, "changes": [], "force": true }).to_string().into_bytes(),
            unprocessable,
            "unknown_field",
            Some("force"),
        ),
        (
            "unknown field in an op",
            op(json!({ "op": "replace_text", "tab_id": "markdown", "text": "x", "mode": "append" })).to_string().into_bytes(),
            unprocessable,
            "unknown_field",
            Some("changes[0].mode"),
        ),
        (
            "wrong type in an op",
            json!({ "expected_version": 2, "changes": [
                { "op": "replace_text", "tab_id": "markdown", "text": "x" },
                { "op": "replace_text", "tab_id": "markdown", "text": 42 },
            ] }).to_string().into_bytes(),
            unprocessable,
            "invalid_op",
            Some("changes[1].text"),
        ),
        (
            "wrong type for the version",
            json!({ "expected_version": "2", "changes": [] }).to_string().into_bytes(),
            unprocessable,
            "invalid_field",
            Some("expected_version"),
        ),
        (
            "missing changes",
            json!({ "expected_version": 2 }).to_string().into_bytes(),
            unprocessable,
            "invalid_field",
            Some("changes"),
        ),
        (
            "a tab addressed by type",
            op(json!({ "op": "replace_text", "tab_id": "slides", "text": "x" })).to_string().into_bytes(),
            unprocessable,
            "tab_not_found",
            Some("changes[0].tab_id"),
        ),
        (
            "not a web URL",
            op(json!({ "op": "add_source", "title": "t", "url": "ftp://example.com/x" })).to_string().into_bytes(),
            unprocessable,
            "invalid_url",
            Some("changes[0].url"),
        ),
        (
            "no such source",
            op(json!({ "op": "remove_source", "source_id": "source-99-zz" })).to_string().into_bytes(),
            unprocessable,
            "item_not_found",
            Some("changes[0].source_id"),
        ),
        (
            "text into the sources tab",
            op(json!({ "op": "replace_text", "tab_id": "sources", "text": "x" })).to_string().into_bytes(),
            unprocessable,
            "invalid_op",
            Some("changes[0].tab_id"),
        ),
        (
            "a good op then a bad one: all or nothing",
            json!({ "expected_version": 2, "changes": [
                { "op": "replace_text", "tab_id": "markdown", "text": "lost" },
                { "op": "rename_tab", "tab_id": "nope", "label": "x" },
            ] }).to_string().into_bytes(),
            unprocessable,
            "tab_not_found",
            Some("changes[1].tab_id"),
        ),
    ];
    for (name, body, status, code, field) in cases {
        let resp = api
            .req(Method::PATCH, &format!("/notes/{id}"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let (got_status, problem) = refused(resp).await;
        assert_eq!(
            (got_status, problem["error"].as_str().unwrap()),
            (status, code),
            "{name}: {problem}"
        );
        assert_eq!(problem["field"].as_str(), field, "{name}: {problem}");
        assert_eq!(api.text(&id).await, (2, "kept".to_owned()), "{name} wrote");
    }

    // Idempotency keys: empty, too long, not ASCII.
    let long = "k".repeat(256);
    let keys: [&[u8]; 3] = [b"", long.as_bytes(), b"caf\xe9"];
    for key in keys {
        let resp = api
            .req(Method::PATCH, &format!("/notes/{id}"))
            .header(
                "Idempotency-Key",
                reqwest::header::HeaderValue::from_bytes(key).unwrap(),
            )
            .json(&replace_text(2, "keyed"))
            .send()
            .await
            .unwrap();
        let (status, problem) = refused(resp).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{problem}");
        assert_eq!(problem["error"], "bad_idempotency_key");
        assert_eq!(problem["field"], "Idempotency-Key");
    }
    assert_eq!(api.text(&id).await, (2, "kept".to_owned()));
    assert_eq!(
        api.history_len(&id).await,
        2,
        "no refused request left a version"
    );

    // And the server still serves.
    assert_eq!(
        api.replace_text(&id, 2, "after").await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn unknown_notes_versions_and_routes() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let missing = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";

    let cases = [
        (
            Method::GET,
            format!("/notes/{missing}"),
            None,
            StatusCode::NOT_FOUND,
            "note_not_found",
        ),
        (
            Method::GET,
            "/notes/not-a-uuid".to_owned(),
            None,
            StatusCode::NOT_FOUND,
            "note_not_found",
        ),
        (
            Method::PATCH,
            format!("/notes/{missing}"),
            Some(replace_text(1, "x")),
            StatusCode::NOT_FOUND,
            "note_not_found",
        ),
        (
            Method::GET,
            format!("/notes/{missing}/versions"),
            None,
            StatusCode::NOT_FOUND,
            "note_not_found",
        ),
        (
            Method::GET,
            format!("/notes/{missing}/events"),
            None,
            StatusCode::NOT_FOUND,
            "note_not_found",
        ),
        (
            Method::GET,
            format!("/notes/{id}/versions/9"),
            None,
            StatusCode::NOT_FOUND,
            "version_not_found",
        ),
        (
            Method::GET,
            format!("/notes/{id}/versions/latest"),
            None,
            StatusCode::NOT_FOUND,
            "version_not_found",
        ),
        (
            Method::GET,
            "/nowhere".to_owned(),
            None,
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        (
            Method::PUT,
            format!("/notes/{id}"),
            None,
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
        ),
    ];
    for (method, path, body, status, code) in cases {
        let mut req = api.req(method.clone(), &path);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let (got, problem) = refused(req.send().await.unwrap()).await;
        assert_eq!(
            (got, problem["error"].as_str().unwrap()),
            (status, code),
            "{method} {path}"
        );
    }
}

#[tokio::test]
async fn history_and_restore() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    for (expected, text) in [(1, "one"), (2, "two"), (3, "three")] {
        assert_eq!(
            api.replace_text(&id, expected, text).await.status(),
            StatusCode::OK
        );
    }

    let history = api.get_ok(&format!("/notes/{id}/versions")).await;
    let versions = history["versions"].as_array().unwrap();
    let numbers: Vec<u64> = versions
        .iter()
        .map(|v| v["version"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    for v in versions {
        assert_eq!(v["author"], "test", "the token's name is the author");
        assert!(v["created_at"].is_string() && v["summary"].is_string());
    }

    // Pages: the newest `limit` before `before`, oldest first; a bad parameter is named.
    let page = |q: &'static str| {
        let api = &api;
        let id = &id;
        async move {
            let body = api.get_ok(&format!("/notes/{id}/versions?{q}")).await;
            body["versions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["version"].as_u64().unwrap())
                .collect::<Vec<u64>>()
        }
    };
    assert_eq!(page("limit=2").await, [3, 4]);
    assert_eq!(page("before=3&limit=5").await, [1, 2]);
    assert_eq!(page("before=4").await, [1, 2, 3]);
    assert_eq!(page("before=1").await, Vec::<u64>::new());
    for (q, field) in [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("before=0", "before"),
    ] {
        let resp = api
            .req(Method::GET, &format!("/notes/{id}/versions?{q}"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::UNPROCESSABLE_ENTITY, "{q}");
        let problem: Value = resp.json().await.unwrap();
        assert_eq!(problem["field"], field, "{q}: {problem}");
    }

    let at = |v: u64| {
        api.req(Method::GET, &format!("/notes/{id}/versions/{v}"))
            .send()
    };
    let resp = at(2).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let old: Value = resp.json().await.unwrap();
    assert_eq!((version(&old), markdown(&old)), (2, "one".to_owned()));

    let restore = |body: Value, key: Option<&'static str>| {
        let mut req = api
            .req(Method::POST, &format!("/notes/{id}/restore"))
            .json(&body);
        if let Some(key) = key {
            req = req.header("Idempotency-Key", key);
        }
        req.send()
    };

    // Stale: refused, nothing written.
    let (status, body) = refused(
        restore(json!({ "version": 2, "expected_version": 3 }), None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["current_version"], 4);
    // A version that never was: refused, nothing written.
    let (status, body) = refused(
        restore(json!({ "version": 40, "expected_version": 4 }), None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str().unwrap()),
        (StatusCode::NOT_FOUND, "version_not_found")
    );
    // No version at all: 428.
    let (status, _) = refused(restore(json!({ "version": 2 }), None).await.unwrap()).await;
    assert_eq!(status, StatusCode::PRECONDITION_REQUIRED);
    assert_eq!(api.text(&id).await, (4, "three".to_owned()));

    // Restore version 2: a new version 5 equal to it; history kept.
    let resp = restore(
        json!({ "version": 2, "expected_version": 4 }),
        Some("restore-1"),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let result: Value = resp.json().await.unwrap();
    assert_eq!(result["version"], 5);
    assert_eq!(result["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(api.text(&id).await, (5, "one".to_owned()));
    assert_eq!(api.history_len(&id).await, 5);
    let resp = at(4).await.unwrap();
    assert_eq!(markdown(&resp.json::<Value>().await.unwrap()), "three");

    // A resent restore replays.
    let resp = restore(
        json!({ "version": 2, "expected_version": 4 }),
        Some("restore-1"),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let replay: Value = resp.json().await.unwrap();
    assert_eq!(
        (replay["version"].as_u64(), replay["replayed"].as_bool()),
        (Some(5), Some(true))
    );
    assert_eq!(api.history_len(&id).await, 5);

    // Restore with If-Match, stale: 412.
    let resp = api
        .req(Method::POST, &format!("/notes/{id}/restore"))
        .header("If-Match", "\"4\"")
        .json(&json!({ "version": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused(resp).await.0, StatusCode::PRECONDITION_FAILED);

    // Bad restore bodies.
    for (body, code, field) in [
        (
            json!({ "version": "two", "expected_version": 5 }),
            "invalid_field",
            "version",
        ),
        (json!({ "expected_version": 5 }), "invalid_field", "version"),
        (
            json!({ "version": 2, "expected_version": 5, "force": true }),
            "unknown_field",
            "force",
        ),
    ] {
        let (status, refusal) = refused(restore(body, None).await.unwrap()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            (refusal["error"].as_str(), refusal["field"].as_str()),
            (Some(code), Some(field))
        );
    }
    assert_eq!(api.text(&id).await, (5, "one".to_owned()));
}

#[tokio::test]
async fn agent_access_is_set_by_put() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let put = |body: Value| {
        api.req(Method::PUT, &format!("/notes/{id}/agent-access"))
            .json(&body)
            .send()
    };
    let resp = put(json!({ "approved": true })).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        (body["id"].as_str(), body["agent_access"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    let note = api.note(&id).await;
    assert_eq!(note["agent_access"], true);
    assert_eq!(version(&note), 1, "approval is not a content change");

    let (status, problem) = refused(put(json!({ "approved": "yes" })).await.unwrap()).await;
    assert_eq!(
        (status, problem["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("approved"))
    );
    assert_eq!(
        put(json!({ "approved": false })).await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(api.note(&id).await["agent_access"], false);
}

#[tokio::test]
async fn tokens_and_scopes() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let note_path = format!("/notes/{id}");

    // No token, an unknown token, another scheme: 401 with the challenge.
    let anonymous = reqwest::Client::new();
    let url = format!("{}{note_path}", server.url());
    let requests = [
        anonymous.get(&url),
        anonymous.get(&url).bearer_auth("qk_0000"),
        anonymous.get(&url).basic_auth("test", Some(&server.token)),
        anonymous.patch(&url).json(&replace_text(1, "x")),
    ];
    for req in requests {
        let resp = req.send().await.unwrap();
        assert_eq!(
            resp.headers()["www-authenticate"].to_str().unwrap(),
            "Bearer realm=\"quire\""
        );
        let (status, problem) = refused(resp).await;
        assert_eq!(
            (status, problem["error"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("unauthorized"))
        );
    }

    // Read-only: reads work, writes are 403 naming the scope.
    let reader = Api::with_token(
        &server,
        &server.create_token("reader", &["notes:read"]).unwrap(),
    );
    assert_eq!(reader.note(&id).await["version"], 1);
    let writes = [
        reader
            .req(Method::PATCH, &note_path)
            .json(&replace_text(1, "x")),
        reader
            .req(Method::POST, "/notes")
            .json(&json!({ "title": "x" })),
        reader
            .req(Method::POST, &format!("{note_path}/restore"))
            .json(&json!({ "version": 1, "expected_version": 1 })),
        reader
            .req(Method::PUT, &format!("{note_path}/agent-access"))
            .json(&json!({ "approved": true })),
    ];
    for req in writes {
        let (status, problem) = refused(req.send().await.unwrap()).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(problem["error"], "forbidden");
        assert_eq!(problem["scope"], "notes:write");
        assert!(problem["detail"].as_str().unwrap().contains("notes:write"));
    }

    // Write-only: reads are 403.
    let writer = Api::with_token(
        &server,
        &server.create_token("writer", &["notes:write"]).unwrap(),
    );
    for path in [
        note_path.clone(),
        "/notes".to_owned(),
        format!("{note_path}/versions"),
        format!("{note_path}/events"),
    ] {
        let (status, problem) = refused(writer.req(Method::GET, &path).send().await.unwrap()).await;
        assert_eq!(
            (status, problem["scope"].as_str()),
            (StatusCode::FORBIDDEN, Some("notes:read")),
            "{path}"
        );
    }
    let resp = writer.replace_text(&id, 1, "by writer").await;
    assert_eq!(resp.status(), StatusCode::OK);
    let history = api.get_ok(&format!("{note_path}/versions")).await;
    assert_eq!(history["versions"][1]["author"], "writer");
    assert_eq!(api.text(&id).await, (2, "by writer".to_owned()));
}

/// A page in a browser may POST a `text/plain` (or form) body to any address without a CORS
/// preflight; such a body is never taken as JSON, on any route that takes one.
#[tokio::test]
async fn bodies_not_sent_as_json_get_415_and_write_nothing() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let note_path = format!("/notes/{id}");
    let routes = [
        (Method::POST, "/notes".to_owned(), json!({ "title": "x" })),
        (Method::PATCH, note_path.clone(), replace_text(1, "x")),
        (
            Method::POST,
            format!("{note_path}/restore"),
            json!({ "version": 1, "expected_version": 1 }),
        ),
        (
            Method::PUT,
            format!("{note_path}/agent-access"),
            json!({ "approved": true }),
        ),
    ];
    let media_types = [
        Some("text/plain"),
        Some("text/plain;charset=UTF-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ];
    for (method, path, body) in &routes {
        for media_type in media_types {
            let mut req = api.req(method.clone(), path).body(body.to_string());
            if let Some(media_type) = media_type {
                req = req.header("content-type", media_type);
            }
            let (status, problem) = refused(req.send().await.unwrap()).await;
            let case = format!("{method} {path} as {media_type:?}: {problem}");
            assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{case}");
            assert_eq!(problem["error"], "unsupported_media_type", "{case}");
            assert_eq!(problem["field"], "Content-Type", "{case}");
            let detail = problem["detail"].as_str().unwrap();
            assert!(detail.contains("Content-Type: application/json"), "{case}");
        }
    }
    assert_eq!(api.text(&id).await, (1, String::new()));
    assert_eq!(api.history_len(&id).await, 1);
    assert_eq!(
        api.get_ok("/notes").await["notes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(api.note(&id).await["agent_access"], false);

    // application/json with parameters, and a +json type, are JSON.
    for media_type in [
        "application/json; charset=utf-8",
        "application/merge-patch+json",
    ] {
        let resp = api
            .req(Method::POST, "/notes")
            .header("content-type", media_type)
            .body(json!({ "title": media_type }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::CREATED, "{media_type}");
    }
}

#[tokio::test]
async fn bodies_over_the_limit_get_413_and_write_nothing() {
    let server = ServerProcess::spawn_with(support::options().arg("--body-limit").arg("4096"))
        .expect("start quire-server");
    let api = Api::new(&server);
    let id = api.new_note().await;

    let resp = api.replace_text(&id, 1, &"x".repeat(5000)).await;
    let (status, problem) = refused(resp).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(problem["error"], "payload_too_large");
    assert_eq!(api.text(&id).await, (1, String::new()));

    // Chunked, without a Content-Length: the same.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![
        Ok(br#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": ""#.to_vec()),
        Ok(vec![b'y'; 5000]),
        Ok(br#""}]}"#.to_vec()),
    ];
    let resp = api
        .req(Method::PATCH, &format!("/notes/{id}"))
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .send()
        .await
        .unwrap();
    assert_eq!(refused(resp).await.0, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(api.text(&id).await, (1, String::new()));

    // Under the limit: fine, and the server kept serving.
    assert_eq!(
        api.replace_text(&id, 1, &"x".repeat(3000)).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_default_body_limit_is_16_mib() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let over = api
        .replace_text(&id, 1, &"x".repeat(16 * 1024 * 1024))
        .await;
    assert_eq!(refused(over).await.0, StatusCode::PAYLOAD_TOO_LARGE);
    let under = api
        .replace_text(&id, 1, &"x".repeat(15 * 1024 * 1024))
        .await;
    assert_eq!(under.status(), StatusCode::OK);
}

#[tokio::test]
async fn events_announce_each_accepted_write_once() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    assert_eq!(
        api.replace_text(&id, 1, "before").await.status(),
        StatusCode::OK
    );

    let resp = api.get(&format!("/notes/{id}/events")).await;
    let mut events = SseReader::new(resp);
    let hello = events.next().await;
    assert_eq!(hello.event, "hello");
    assert_eq!(hello.data, json!({ "note_id": id, "version": 2 }));

    // Accepted, replayed, refused, accepted: two events, nothing for the replay or the refusal.
    let keyed = || {
        api.req(Method::PATCH, &format!("/notes/{id}"))
            .header("Idempotency-Key", "k1")
            .json(&replace_text(2, "one"))
            .send()
    };
    assert_eq!(keyed().await.unwrap().status(), StatusCode::OK);
    let replay: Value = keyed().await.unwrap().json().await.unwrap();
    assert_eq!(replay["replayed"], true);
    assert_eq!(
        api.replace_text(&id, 2, "stale").await.status(),
        StatusCode::CONFLICT
    );
    let add_source = json!({ "expected_version": 3, "changes": [
        { "op": "add_source", "title": "Example", "url": "https://www.example.com/a/" },
    ] });
    assert_eq!(api.patch(&id, add_source).await.status(), StatusCode::OK);

    let first = events.next().await;
    assert_eq!(
        (first.event.as_str(), first.id.as_deref()),
        ("write", Some("3"))
    );
    assert_eq!(first.data["note_id"], id.as_str());
    assert_eq!(first.data["version"], 3);
    assert_eq!(first.data["author"], "test");
    assert_eq!(first.data["changed_tab_ids"], json!(["markdown"]));
    assert!(first.data["at"].is_string());
    let second = events.next().await;
    assert_eq!(
        second.data["version"], 4,
        "the replay and the conflict sent nothing"
    );
    assert_eq!(second.data["changed_tab_ids"], json!(["sources"]));

    // Writes to another Note are not announced on this stream.
    let other = api.new_note().await;
    assert_eq!(
        api.replace_text(&other, 1, "elsewhere").await.status(),
        StatusCode::OK
    );
    assert_eq!(
        api.replace_text(&id, 4, "five").await.status(),
        StatusCode::OK
    );
    assert_eq!(events.next().await.data["version"], 5);

    // Back after a disconnect: Last-Event-ID 3 first gets 4 and 5, then goes on live.
    let resp = api
        .req(Method::GET, &format!("/notes/{id}/events"))
        .header("Last-Event-ID", "3")
        .send()
        .await
        .unwrap();
    let mut resumed = SseReader::new(resp);
    assert_eq!(
        resumed.next().await.data["version"],
        5,
        "hello: the current version"
    );
    let missed: Vec<u64> = [resumed.next().await, resumed.next().await]
        .iter()
        .map(|e| e.data["version"].as_u64().unwrap())
        .collect();
    assert_eq!(missed, [4, 5]);
    assert_eq!(
        api.replace_text(&id, 5, "six").await.status(),
        StatusCode::OK
    );
    assert_eq!(resumed.next().await.data["version"], 6);
    assert_eq!(events.next().await.data["version"], 6);
}

#[tokio::test]
async fn a_subscriber_misses_nothing_under_concurrent_writers() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let resp = api.get(&format!("/notes/{id}/events")).await;
    let mut events = SseReader::new(resp);
    assert_eq!(events.next().await.event, "hello");

    let writers: Vec<_> = (0..4)
        .map(|w| {
            let api = api.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let mut accepted = 0;
                while accepted < 25 {
                    let (v, text) = api.text(&id).await;
                    let resp = api.replace_text(&id, v, &format!("{text}w{w}\n")).await;
                    if resp.status() == StatusCode::OK {
                        accepted += 1;
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen.push(events.next().await.data["version"].as_u64().unwrap());
    }
    let want: Vec<u64> = (2..=101).collect();
    assert_eq!(seen, want, "every accepted write, once, in version order");
}

/// The library entry point the desktop app uses: in-process, port 0, graceful stop.
#[tokio::test]
async fn the_server_embeds_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("embedded.db");
    let store =
        quire_store_sqlite::SqliteStore::open(&db, quire_store_sqlite::SqliteOptions::default())
            .unwrap();
    let scopes = [quire_api::Scope::NotesRead, quire_api::Scope::NotesWrite];
    let made =
        quire_server::tokens::create(&store, "app", &scopes, quire_model::AuthorKind::Person)
            .await
            .unwrap();
    quire_store::Store::close(&store).await.unwrap();
    drop(store);

    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let running = quire_server::serve(quire_server::ServeConfig::new(&db, loopback))
        .await
        .unwrap();
    assert_ne!(running.addr().port(), 0);
    let api = Api {
        http: reqwest::Client::new(),
        base: running.url(),
        token: made.token,
    };
    let id = api.new_note().await;
    assert_eq!(
        api.replace_text(&id, 1, "embedded").await.status(),
        StatusCode::OK
    );
    let url = running.url();
    running.shutdown().await.unwrap();
    assert!(
        reqwest::get(format!("{url}/healthz")).await.is_err(),
        "stopped"
    );

    // The same file, served again: the write is there.
    let running = quire_server::serve(quire_server::ServeConfig::new(&db, loopback))
        .await
        .unwrap();
    let api = Api {
        base: running.url(),
        ..api
    };
    assert_eq!(api.text(&id).await, (2, "embedded".to_owned()));
    running.shutdown().await.unwrap();
}
