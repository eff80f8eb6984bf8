//! The trash on the real binary over HTTP with a real SQLite file: `DELETE /notes/{id}`
//! (guarded by `If-Match`), the trash listing, `note_in_trash` for every other write,
//! `POST /notes/{id}/undelete`, the event feed, `DELETE /trash`, and `quire-server trash
//! empty` run as a process against a running server's database. What agents see of a trashed
//! Note (nothing: every MCP tool answers as for a missing one) is in `authz_matrix.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::process::{Command, Output};

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use support::{Api, SseReader, refused, server};

/// `DELETE /notes/{id}`, with `If-Match: "version"` when given.
async fn delete(api: &Api, id: &str, if_match: Option<&str>) -> Response {
    let mut req = api.req(Method::DELETE, &format!("/notes/{id}"));
    if let Some(tag) = if_match {
        req = req.header("if-match", tag);
    }
    req.send().await.unwrap()
}

/// `POST /notes/{id}/undelete` with `body`.
async fn undelete(api: &Api, id: &str, body: Value) -> Response {
    api.req(Method::POST, &format!("/notes/{id}/undelete"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// The IDs `GET path` lists.
async fn listed(api: &Api, path: &str) -> Vec<String> {
    let body = api.get_ok(path).await;
    body["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn summaries(api: &Api, id: &str) -> Vec<String> {
    let body = api.get_ok(&format!("/notes/{id}/versions")).await;
    body["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["summary"].as_str().unwrap().to_owned())
        .collect()
}

/// A Note holding `text` at version 2; its ID.
async fn note_with_text(api: &Api, title: &str, text: &str) -> String {
    let id = api.create_note(title).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = api.replace_text(&id, 1, text).await;
    assert_eq!(res.status(), StatusCode::OK);
    id
}

/// Moves the Note at `version` into the trash; the 200 body.
async fn trash(api: &Api, id: &str, version: u64) -> Value {
    let res = delete(api, id, Some(&format!("\"{version}\""))).await;
    assert_eq!(res.status(), StatusCode::OK);
    res.json().await.unwrap()
}

#[tokio::test]
async fn delete_is_guarded_by_if_match_and_moves_the_note_to_the_trash() {
    let server = server();
    let api = Api::new(&server);
    let id = note_with_text(&api, "Doomed", "keep me").await;
    let other = api.new_note().await;

    let (status, body) = refused(delete(&api, &id, None).await).await;
    assert_eq!(status, StatusCode::PRECONDITION_REQUIRED);
    assert_eq!(body["error"], "precondition_required");
    let (status, body) = refused(delete(&api, &id, Some("\"1\"")).await).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(body["error"], "version_conflict");
    assert_eq!(body["current_version"], 2);
    let (status, body) = refused(delete(&api, &id, Some("2")).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "invalid_if_match");
    assert_eq!(api.history_len(&id).await, 2, "refusals wrote nothing");
    assert_eq!(api.note(&id).await["deleted_at"], Value::Null);

    let res = delete(&api, &id, Some("\"2\"")).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["etag"], "\"3\"");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["id"], id.as_str());
    assert_eq!(body["version"], 3);
    let deleted_at = body["deleted_at"].as_str().unwrap().to_owned();
    assert!(
        deleted_at.ends_with('Z') && deleted_at.len() == 24,
        "{deleted_at}"
    );
    assert_eq!(
        body.as_object().unwrap().len(),
        3,
        "exactly id, version, deleted_at: {body}"
    );

    // Still readable by the person, with its content and deleted_at; listed apart.
    let note = api.note(&id).await;
    assert_eq!(note["deleted_at"], deleted_at.as_str());
    assert_eq!(note["version"], 3);
    assert_eq!(support::markdown(&note), "keep me");
    assert_eq!(listed(&api, "/notes").await, vec![other.clone()]);
    assert_eq!(
        listed(&api, "/notes?trash=false").await,
        vec![other.clone()]
    );
    let trash_list = api.get_ok("/notes?trash=true").await;
    assert_eq!(trash_list["notes"].as_array().unwrap().len(), 1);
    assert_eq!(trash_list["notes"][0]["id"], id.as_str());
    assert_eq!(trash_list["notes"][0]["deleted_at"], deleted_at.as_str());
    assert_eq!(trash_list["notes"][0]["title"], "Doomed");
    assert_eq!(
        summaries(&api, &id).await.last().map(String::as_str),
        Some("moved to trash")
    );

    let (status, body) = refused(api.get("/notes?trash=maybe").await).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["field"], "trash");

    // Deleting again: it is in the trash already.
    let (status, body) = refused(delete(&api, &id, Some("\"3\"")).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "note_in_trash");
    let (status, body) =
        refused(delete(&api, "01900000-0000-7000-8000-000000000000", Some("\"1\"")).await).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["error"], "note_not_found");
}

#[tokio::test]
async fn a_trashed_note_refuses_every_write_with_note_in_trash() {
    let server = server();
    let api = Api::new(&server);
    let id = note_with_text(&api, "Doomed", "keep me").await;
    trash(&api, &id, 2).await;

    let mut refusals = vec![
        ("PATCH", api.replace_text(&id, 3, "changed").await),
        // A stale version is told why no version would do.
        ("stale PATCH", api.replace_text(&id, 1, "changed").await),
        (
            "PATCH with If-Match",
            api.req(Method::PATCH, &format!("/notes/{id}"))
                .header("if-match", "\"3\"")
                .json(&json!({"changes": [{"op": "set_title", "title": "New"}]}))
                .send()
                .await
                .unwrap(),
        ),
        (
            "restore",
            api.req(Method::POST, &format!("/notes/{id}/restore"))
                .json(&json!({"version": 1, "expected_version": 3}))
                .send()
                .await
                .unwrap(),
        ),
        ("export", api.get(&format!("/notes/{id}/export")).await),
    ];
    for (what, res) in refusals.drain(..) {
        let (status, body) = refused(res).await;
        assert_eq!(status, StatusCode::CONFLICT, "{what}: {body}");
        assert_eq!(body["error"], "note_in_trash", "{what}: {body}");
        assert!(
            body["detail"].as_str().unwrap().contains("undelete"),
            "{what} says how to get it back: {body}"
        );
    }
    assert_eq!(api.history_len(&id).await, 3, "nothing written");
    assert_eq!(api.text(&id).await, (3, "keep me".to_owned()));
}

#[tokio::test]
async fn undelete_brings_the_note_back_with_its_history() {
    let server = server();
    let api = Api::new(&server);
    let id = note_with_text(&api, "Doomed", "keep me").await;

    let (status, body) = refused(undelete(&api, &id, json!({"expected_version": 2})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "note_not_in_trash");
    trash(&api, &id, 2).await;

    let (status, body) = refused(undelete(&api, &id, json!({})).await).await;
    assert_eq!(status, StatusCode::PRECONDITION_REQUIRED, "{body}");
    let (status, body) = refused(undelete(&api, &id, json!({"expected_version": 2})).await).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(body["error"], "version_conflict");
    assert_eq!(body["current_version"], 3);
    let stale = api
        .req(Method::POST, &format!("/notes/{id}/undelete"))
        .header("if-match", "\"2\"")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let (status, _) = refused(stale).await;
    assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    let (status, body) =
        refused(undelete(&api, &id, json!({"expected_version": 3, "version": 1})).await).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "unknown_field");
    assert_eq!(api.history_len(&id).await, 3, "refusals wrote nothing");

    let res = undelete(&api, &id, json!({"expected_version": 3})).await;
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["version"], 4);
    let note = api.note(&id).await;
    assert_eq!(note["deleted_at"], Value::Null);
    assert_eq!(support::markdown(&note), "keep me");
    assert_eq!(listed(&api, "/notes").await, vec![id.clone()]);
    assert!(listed(&api, "/notes?trash=true").await.is_empty());
    let history = summaries(&api, &id).await;
    assert_eq!(history.len(), 4, "{history:?}");
    assert_eq!(history[2..], ["moved to trash", "restored from trash"]);
    let res = api.replace_text(&id, 4, "edited again").await;
    assert_eq!(res.status(), StatusCode::OK, "writable again");
}

#[tokio::test]
async fn the_event_feed_announces_the_moves_in_and_out() {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let res = api.get(&format!("/notes/{id}/events")).await;
    let mut events = SseReader::new(res);
    trash(&api, &id, 1).await;
    let res = undelete(&api, &id, json!({"expected_version": 2})).await;
    assert_eq!(res.status(), StatusCode::OK);
    for version in [2, 3] {
        let event = loop {
            let event = events.next().await;
            if event.event == "write" {
                break event;
            }
        };
        assert_eq!(event.data["version"], version, "{:?}", event.data);
        assert_eq!(event.data["changed_tab_ids"], json!([]));
    }
}

#[tokio::test]
async fn emptying_the_trash_erases_only_trashed_notes_for_good() {
    let server = server();
    let api = Api::new(&server);
    let doomed = note_with_text(&api, "Doomed", "bye").await;
    let kept = note_with_text(&api, "Kept", "hello").await;
    trash(&api, &doomed, 2).await;

    let (status, body) = refused(
        api.req(Method::DELETE, "/trash?older_than_days=soon")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["field"], "older_than_days");
    // Trashed a moment ago: not older than a day.
    let res = api
        .req(Method::DELETE, "/trash?older_than_days=1")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"erased": []}));
    assert_eq!(api.history_len(&doomed).await, 3);

    let res = api.req(Method::DELETE, "/trash").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"erased": [doomed]})
    );
    for path in [
        format!("/notes/{doomed}"),
        format!("/notes/{doomed}/versions"),
    ] {
        let (status, body) = refused(api.get(&path).await).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(body["error"], "note_not_found");
    }
    assert!(listed(&api, "/notes?trash=true").await.is_empty());
    assert_eq!(listed(&api, "/notes").await, vec![kept.clone()]);
    assert_eq!(api.text(&kept).await, (2, "hello".to_owned()));
}

/// `quire-server ARGS...`, to its end.
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(args)
        .output()
        .expect("run quire-server")
}

/// `trash empty` against a running server's file: `--older-than-days` spares what went in
/// since; without it every trashed Note goes, and the server sees them gone at once.
#[tokio::test]
async fn trash_empty_on_the_command_line_erases_what_is_old_enough() {
    let server = server();
    let api = Api::new(&server);
    let db = server.db_path.to_str().unwrap().to_owned();
    let old = note_with_text(&api, "Old", "old").await;
    let recent = note_with_text(&api, "Recent", "recent").await;
    let kept = note_with_text(&api, "Kept", "kept").await;
    // Keyed writes enough that `old`'s keys are indexed (every 32 keyed versions).
    for v in 2..=41 {
        let res = api
            .req(Method::PATCH, &format!("/notes/{old}"))
            .header("idempotency-key", format!("old-{v}"))
            .json(&support::replace_text(v, &format!("old {v}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
    }
    trash(&api, &old, 42).await;
    trash(&api, &recent, 2).await;
    // As if `old` had gone to the trash three days ago.
    let conn = rusqlite::Connection::open(&server.db_path).unwrap();
    let indexed: i64 = conn
        .query_row("SELECT count(*) FROM version_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(indexed, 32);
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    let moved = conn
        .execute(
            "UPDATE notes SET deleted_at = deleted_at - 3 * 86400000 WHERE id = ?1",
            [old.as_str()],
        )
        .unwrap();
    assert_eq!(moved, 1);
    drop(conn);

    let out = cli(&["trash", "empty", "--db", &db, "--older-than-days", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{old}\n"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("erased 1 notes"));
    let (status, _) = refused(api.get(&format!("/notes/{old}")).await).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        listed(&api, "/notes?trash=true").await,
        vec![recent.clone()]
    );

    let out = cli(&["trash", "empty", "--db", &db]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{recent}\n")
    );
    assert!(listed(&api, "/notes?trash=true").await.is_empty());
    assert_eq!(listed(&api, "/notes").await, vec![kept.clone()]);
    assert_eq!(api.text(&kept).await, (2, "kept".to_owned()));
    // Nothing of the erased Notes is left in the file: only the kept Note's two versions.
    let conn = rusqlite::Connection::open(&server.db_path).unwrap();
    for (table, want) in [
        ("notes", 1),
        ("versions", 2),
        ("write_keys", 0),
        ("version_keys", 0),
    ] {
        let rows: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, want, "rows left in {table}");
    }
    drop(conn);

    // Bad input: a clear error, nothing done.
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let out = cli(&["trash", "empty", "--db", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database at"));
    assert!(!missing.exists(), "no database was made");
    let out = cli(&["trash", "empty", "--db", &db, "--older-than-days", "-1"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--older-than-days"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
