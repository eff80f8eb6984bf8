//! The bounds of one write, over real HTTP (the binary, a SQLite file): a request past a limit
//! is refused with 422 naming it and writes nothing, and it does not hold other Notes' saves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Api, refused, server};

/// The requests of the finding, each past a limit: the Note's version, content and history stay
/// as they were, and the problem names the field and the limit.
#[tokio::test]
async fn a_write_past_a_limit_is_refused_whole_and_stores_nothing() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let created = api
        .patch(
            &id,
            json!({"expected_version": 1, "changes": [
                {"op": "replace_text", "tab_id": "markdown", "text": "kept"},
                {"op": "create_tab", "tab_type": "sheet"}
            ]}),
        )
        .await;
    assert_eq!(created.status(), StatusCode::OK);
    let created: Value = created.json().await.unwrap();
    let sheet = created["outcomes"][1]["tab_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let many_tabs: Vec<Value> = (0..60_000)
        .map(|_| json!({"op": "create_tab", "tab_type": "sheet"}))
        .collect();
    let padded_rows: Vec<Value> = (0..30_000).map(|_| json!([1])).collect();
    let tabs_past: Vec<Value> = (0..198)
        .map(|_| json!({"op": "create_tab", "tab_type": "slides"}))
        .collect();
    let cases = [
        (json!(many_tabs), "changes", "60000 operations"),
        (
            json!([{"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 999, "values": padded_rows}]),
            "changes[0].start_col",
            "30000000 cells",
        ),
        (
            json!([{"op": "add_source", "title": "long", "url": format!("https://example.org/{}", "a".repeat(15 << 20))}]),
            "changes[0].url",
            "at most 8192",
        ),
        (json!(tabs_past), "changes[196].tab_type", "at most 200"),
    ];
    let before = api.note(&id).await;
    let history = api.get_ok(&format!("/notes/{id}/versions")).await;
    for (changes, field, says) in cases {
        let resp = api
            .patch(&id, json!({"expected_version": 2, "changes": changes}))
            .await;
        let (status, problem) = refused(resp).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{problem}");
        assert_eq!(problem["error"], "limit_exceeded", "{problem}");
        assert_eq!(problem["field"], field, "{problem}");
        let detail = problem["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{detail}");
        assert!(detail.len() < 300, "a short detail: {} bytes", detail.len());
        assert_eq!(api.note(&id).await, before, "{field}: the Note changed");
        assert_eq!(
            api.get_ok(&format!("/notes/{id}/versions")).await,
            history,
            "{field}: the history changed"
        );
    }
}

/// While a request past a limit is on its way (a 2.4 MB PATCH of 60,000 operations), saves to
/// another Note keep being answered at once: the refusal costs the writer nothing to speak of.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn saves_to_other_notes_are_not_held_behind_a_request_past_a_limit() {
    let server = server();
    let api = Api::new(&server);
    let (big, small) = (api.new_note().await, api.new_note().await);
    let many_tabs: Vec<Value> = (0..60_000)
        .map(|_| json!({"op": "create_tab", "tab_type": "sheet"}))
        .collect();
    let body = json!({"expected_version": 1, "changes": many_tabs});
    let sender = api.clone();
    let in_flight = tokio::spawn(async move { sender.patch(&big, body).await.status() });

    let mut version = 1;
    let mut slowest = Duration::ZERO;
    loop {
        let start = Instant::now();
        let resp = (api.replace_text(&small, version, &format!("save {version}"))).await;
        slowest = slowest.max(start.elapsed());
        assert_eq!(resp.status(), StatusCode::OK, "save {version}");
        assert!(
            slowest < Duration::from_secs(2),
            "a small save waited {slowest:?} behind the request"
        );
        version += 1;
        if in_flight.is_finished() {
            break;
        }
    }
    assert_eq!(in_flight.await.unwrap(), StatusCode::UNPROCESSABLE_ENTITY);
}
