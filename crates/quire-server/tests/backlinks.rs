//! `GET /notes/{id}/backlinks` on the real binary with a SQLite file: the Notes whose text
//! links to a Note (`[title](quire:note/ID)`), each once, by title; the Note itself, Notes in
//! the trash and mere mentions of the ID left out; renaming the target keeps the links; and
//! the refusals (no token, no `notes:read`, an agent's token, a bad or unknown ID).
#![allow(clippy::unwrap_used)]

mod mcp_support;

use mcp_support::Harness;
use serde_json::{Value, json};

async fn backlinks_as(h: &Harness, token: &str, id: &str) -> (u16, Value) {
    let res = h
        .http
        .get(format!("{}/notes/{id}/backlinks", h.url()))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn titles(h: &Harness, id: &str) -> Vec<String> {
    let (status, body) = backlinks_as(h, h.token(), id).await;
    assert_eq!(status, 200, "{body}");
    body["backlinks"]
        .as_array()
        .unwrap_or_else(|| panic!("no backlinks in {body}"))
        .iter()
        .map(|b| b["title"].as_str().unwrap().to_owned())
        .collect()
}

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

#[tokio::test]
async fn backlinks_name_each_linking_note_once_by_title() {
    let h = Harness::start();
    let target = h.create_note("Target").await;
    let zebra = h.create_note("Zebra notes").await;
    let apple = h.create_note("Apple notes").await;
    let mention = h.create_note("Mention").await;
    let link = format!("[Target](quire:note/{target})");
    write_text(&h, &zebra, &format!("{link} and again {link}")).await;
    write_text(&h, &apple, &format!("# Plan\n\nSee {link}.")).await;
    write_text(&h, &mention, &format!("the id is {target}")).await;
    // A link to itself is no backlink.
    write_text(&h, &target, &format!("this Note: {link}")).await;

    let (status, body) = backlinks_as(&h, h.token(), &target).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"backlinks": [
            {"note_id": apple, "title": "Apple notes"},
            {"note_id": zebra, "title": "Zebra notes"},
        ]})
    );

    // Renaming the target changes nothing: the links hold its ID.
    let version = h.version(&target).await;
    let (status, _) = h
        .patch(
            &target,
            version,
            json!([{"op": "set_title", "title": "Renamed"}]),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(titles(&h, &target).await, ["Apple notes", "Zebra notes"]);
    // Renaming a linking Note shows its new title; removing the link removes it.
    let version = h.version(&zebra).await;
    let (status, _) = h
        .patch(
            &zebra,
            version,
            json!([{"op": "set_title", "title": "Banana"}]),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(titles(&h, &target).await, ["Apple notes", "Banana"]);
    write_text(&h, &apple, "no link any more").await;
    assert_eq!(titles(&h, &target).await, ["Banana"]);
}

#[tokio::test]
async fn a_note_in_the_trash_is_no_backlink() {
    let h = Harness::start();
    let target = h.create_note("Target").await;
    let linking = h.create_note("Linking").await;
    write_text(&h, &linking, &format!("[T](quire:note/{target})")).await;
    assert_eq!(titles(&h, &target).await, ["Linking"]);
    let version = h.version(&linking).await;
    let res = h
        .http
        .delete(format!("{}/notes/{linking}", h.url()))
        .bearer_auth(h.token())
        .header("If-Match", format!("\"{version}\""))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert!(titles(&h, &target).await.is_empty());
}

#[tokio::test]
async fn who_may_read_backlinks() {
    let h = Harness::start();
    let target = h.create_note("Target").await;
    let agent = h
        .server
        .create_agent_token("claude", &["notes:read", "notes:write"])
        .unwrap();
    let writer_only = h.token_with("writer", &["notes:write"]);
    let (status, body) = backlinks_as(&h, &agent, &target).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("agent_token")));
    let (status, body) = backlinks_as(&h, &writer_only, &target).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("forbidden")));
    let (status, body) = backlinks_as(&h, "not-a-token", &target).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("unauthorized"))
    );
    let (status, body) = backlinks_as(&h, h.token(), "not-an-id").await;
    assert_eq!(status, 404, "{body}");
    let unknown = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
    let (status, body) = backlinks_as(&h, h.token(), unknown).await;
    assert_eq!(status, 404, "{body}");
}
