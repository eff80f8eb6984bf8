//! `splice_text` and `edit_text` over real HTTP (the binary, a SQLite file): a Markdown text
//! changed by what changed; an edit not found once is refused with 422 naming the edit and how
//! often its text occurs, and writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Api, server};

#[tokio::test]
async fn text_is_spliced_and_edited_by_quoting_it() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let write = |version: u64, op: Value| json!({"expected_version": version, "changes": [op]});
    let ok = api
        .patch(
            &id,
            write(
                1,
                json!({"op": "replace_text", "tab_id": "markdown", "text": "été: one two two"}),
            ),
        )
        .await;
    assert_eq!(ok.status(), StatusCode::OK);
    // Offsets in characters: "été" is three.
    let spliced = api
        .patch(
            &id,
            write(2, json!({"op": "splice_text", "tab_id": "markdown",
                "splices": [{"at": 3, "delete": 1, "insert": " —"}, {"at": 8, "delete": 0, "insert": "+"}]})),
        )
        .await;
    assert_eq!(
        spliced.status(),
        StatusCode::OK,
        "{}",
        spliced.text().await.unwrap()
    );
    assert_eq!(api.note(&id).await["tabs"][0]["data"], "été — one+ two two");

    let before = api.note(&id).await;
    let history = api.get_ok(&format!("/notes/{id}/versions")).await;
    let twice = api
        .patch(
            &id,
            write(3, json!({"op": "edit_text", "tab_id": "markdown",
                "edits": [{"old_text": "one", "new_text": "1"}, {"old_text": "two", "new_text": "2"}]})),
        )
        .await;
    assert_eq!(twice.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let problem: Value = twice.json().await.unwrap();
    assert_eq!(problem["error"], "old_text_not_unique", "{problem}");
    assert_eq!(
        problem["field"], "changes[0].edits[1].old_text",
        "{problem}"
    );
    assert_eq!(
        (problem["index"].as_u64(), problem["occurrences"].as_u64()),
        (Some(1), Some(2)),
        "{problem}"
    );
    let missing = api
        .patch(
            &id,
            write(
                3,
                json!({"op": "edit_text", "tab_id": "markdown",
                "edits": [{"old_text": "three", "new_text": "3"}]}),
            ),
        )
        .await;
    let problem: Value = missing.json().await.unwrap();
    assert_eq!(problem["error"], "old_text_not_found", "{problem}");
    assert_eq!(
        (problem["index"].as_u64(), problem["occurrences"].as_u64()),
        (Some(0), Some(0)),
        "{problem}"
    );
    // Refused: nothing written.
    assert_eq!(api.note(&id).await, before);
    assert_eq!(api.get_ok(&format!("/notes/{id}/versions")).await, history);

    let edited = api
        .patch(
            &id,
            write(
                3,
                json!({"op": "edit_text", "tab_id": "markdown",
                "edits": [{"old_text": "two two", "new_text": "2 2"}]}),
            ),
        )
        .await;
    assert_eq!(edited.status(), StatusCode::OK);
    assert_eq!(api.note(&id).await["tabs"][0]["data"], "été — one+ 2 2");
}
