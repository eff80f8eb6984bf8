//! `POST /notes/{id}/revert` on the real binary over HTTP with a real SQLite file: one version
//! taken back and every later change elsewhere kept, a guarded write like any other (stale,
//! replayed, refused with nothing written), and each refusal: a clash, an unknown version, the
//! first version, an agent's token. The merge itself is table-tested in quire-model.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use support::{Api, refused, server};

async fn revert(api: &Api, id: &str, body: Value, key: Option<&str>) -> Response {
    let mut req = api
        .req(Method::POST, &format!("/notes/{id}/revert"))
        .json(&body);
    if let Some(key) = key {
        req = req.header("idempotency-key", key);
    }
    req.send().await.unwrap()
}

/// A Note whose text went "a b c d" (v2), "a B c d" (v3: the change to take back), then
/// "a B c D" (v4: a later change of another line).
async fn three_edits(api: &Api) -> String {
    let id = api.new_note().await;
    for (v, text) in [(1, "a\nb\nc\nd"), (2, "a\nB\nc\nd"), (3, "a\nB\nc\nD")] {
        assert_eq!(
            api.replace_text(&id, v, text).await.status(),
            StatusCode::OK
        );
    }
    id
}

#[tokio::test]
async fn a_revert_takes_one_version_back_and_keeps_later_changes() {
    let server = server();
    let api = Api::new(&server);
    let id = three_edits(&api).await;
    let res = revert(
        &api,
        &id,
        json!({"version": 3, "expected_version": 4}),
        Some("undo-1"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["version"], 5);
    assert_eq!(body["changed_tab_ids"], json!(["markdown"]));
    assert_eq!(api.text(&id).await, (5, "a\nb\nc\nD".to_owned()));
    let history = api.get_ok(&format!("/notes/{id}/versions")).await;
    let newest = history["versions"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(newest["summary"], "reverted version 3");
    assert_eq!(newest["author_kind"], "person");

    // Resent with its key: the first answer again, nothing applied twice.
    let again = revert(
        &api,
        &id,
        json!({"version": 3, "expected_version": 4}),
        Some("undo-1"),
    )
    .await;
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.unwrap();
    assert_eq!(
        (again["version"].clone(), again["replayed"].clone()),
        (json!(5), json!(true))
    );
    assert_ne!(again["request_differs"], json!(true), "the same request");
    assert_eq!(api.history_len(&id).await, 5);

    // Stale: refused like any write.
    let (status, problem) = refused(
        revert(
            &api,
            &id,
            json!({"version": 2, "expected_version": 4}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, problem["error"].as_str()),
        (StatusCode::CONFLICT, Some("version_conflict"))
    );
    assert_eq!(problem["current_version"], 5);
}

#[tokio::test]
async fn a_revert_that_clashes_writes_nothing_and_names_the_tab() {
    let server = server();
    let api = Api::new(&server);
    let id = three_edits(&api).await;
    // v5 changes the very line v3 changed.
    assert_eq!(
        api.replace_text(&id, 4, "a\nBee\nc\nD").await.status(),
        StatusCode::OK
    );
    let (status, problem) = refused(
        revert(
            &api,
            &id,
            json!({"version": 3, "expected_version": 5}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(problem["error"], "revert_conflict");
    assert_eq!(problem["tab_ids"], json!(["markdown"]));
    assert_eq!(api.history_len(&id).await, 5);
    assert_eq!(api.text(&id).await, (5, "a\nBee\nc\nD".to_owned()));
}

#[tokio::test]
async fn unknown_and_first_versions_and_bad_bodies_are_refused() {
    let server = server();
    let api = Api::new(&server);
    let id = three_edits(&api).await;
    let (status, problem) = refused(
        revert(
            &api,
            &id,
            json!({"version": 9, "expected_version": 4}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, problem["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("version_not_found"))
    );
    let (status, problem) = refused(
        revert(
            &api,
            &id,
            json!({"version": 1, "expected_version": 4}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(problem["field"], "version");
    let (status, problem) = refused(revert(&api, &id, json!({"version": 3}), None).await).await;
    assert_eq!(
        (status, problem["field"].as_str()),
        (StatusCode::PRECONDITION_REQUIRED, Some("expected_version"))
    );
    let (status, problem) = refused(
        revert(
            &api,
            &id,
            json!({"version": "3", "expected_version": 4}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
    let missing = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
    let (status, _) = refused(
        revert(
            &api,
            missing,
            json!({"version": 2, "expected_version": 2}),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(api.history_len(&id).await, 4);
}
