//! Who did what, as the server records it, over real HTTP against the real binary: each
//! approval of a Note for agents and each withdrawal (by whom, when), and each version's author
//! kind (the person on REST, an agent on MCP, whoever's token the MCP call carries).
#![allow(clippy::unwrap_used)]

mod mcp_support;

use mcp_support::{Harness, Protocol, connect, ok, replace_text};
use serde_json::{Value, json};

/// `PUT /notes/{id}/agent-access` with `token`: (status, body).
async fn put_access(h: &Harness, token: &str, id: &str, approved: bool) -> (u16, Value) {
    let res = h
        .http
        .put(format!("{}/notes/{id}/agent-access", h.url()))
        .bearer_auth(token)
        .json(&json!({ "approved": approved }))
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// The (approved, by) of each recorded change, and each change's time.
fn changes(access: &Value) -> (Vec<(bool, String)>, Vec<String>) {
    let list = access["changes"].as_array().unwrap();
    let who = list
        .iter()
        .map(|c| {
            (
                c["approved"].as_bool().unwrap(),
                c["by"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let at = list
        .iter()
        .map(|c| c["at"].as_str().unwrap().to_owned())
        .collect();
    (who, at)
}

#[tokio::test]
async fn approvals_and_withdrawals_are_recorded_with_who_and_when() {
    let h = Harness::start();
    let id = h.create_note("Shared").await;
    let (status, access) = h.get(&format!("/notes/{id}/agent-access")).await;
    assert_eq!(status, 200);
    assert_eq!(access["id"], id.as_str());
    assert_eq!(access["agent_access"], false);
    assert_eq!(access["changes"], json!([]));

    let started = now_rfc3339();
    let (status, access) = put_access(&h, h.token(), &id, true).await;
    assert_eq!(status, 200, "{access}");
    assert_eq!(access["agent_access"], true);
    // The PUT still answers what it always did (the Note's metadata), with the record added.
    assert!(access["created_at"].is_string() && access["updated_at"].is_string());
    let (who, at) = changes(&access);
    assert_eq!(who, [(true, "test".to_owned())]);
    assert!(at[0] >= started, "{} is before {started}", at[0]);

    // Setting what is set records nothing; a withdrawal is recorded.
    put_access(&h, h.token(), &id, true).await;
    let (_, access) = put_access(&h, h.token(), &id, false).await;
    assert_eq!(access["agent_access"], false);
    let (who, at) = changes(&access);
    assert_eq!(who, [(true, "test".to_owned()), (false, "test".to_owned())]);
    assert!(at[0] <= at[1]);

    // Neither an agent's token nor a read-only one changes it, and nothing is recorded.
    let agent = h
        .server
        .create_agent_token("claude", &["notes:read", "notes:write"])
        .unwrap();
    let (status, refused) = put_access(&h, &agent, &id, true).await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (403, Some("agent_token"))
    );
    let reader = h.token_with("reader", &["notes:read"]);
    let (status, refused) = put_access(&h, &reader, &id, true).await;
    assert_eq!(
        (status, refused["error"].as_str()),
        (403, Some("forbidden"))
    );
    let (_, now) = h.get(&format!("/notes/{id}/agent-access")).await;
    assert_eq!(now["agent_access"], false);
    assert_eq!(changes(&now).0.len(), 2);

    let missing = uuid::Uuid::now_v7();
    let (status, body) = h.get(&format!("/notes/{missing}/agent-access")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("note_not_found"))
    );
}

#[tokio::test]
async fn history_says_whether_the_person_or_an_agent_wrote_each_version() {
    let h = Harness::start();
    let id = h.approved_note("Plans").await;
    let (status, _) = h
        .patch(
            &id,
            1,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": "the person's"}]),
        )
        .await;
    assert_eq!(status, 200);

    let agent_token = h
        .server
        .create_agent_token("claude", &["notes:read", "notes:write"])
        .unwrap();
    let agent = connect(&h.mcp_url(), &agent_token, Protocol::Stateless)
        .await
        .unwrap();
    ok(&agent, "edit_note_tab", replace_text(&id, 2, "the agent's")).await;
    // The person's own token through MCP: an agent is writing (an MCP host holds it).
    let host = h.agent().await;
    ok(&host, "edit_note_tab", replace_text(&id, 3, "through MCP")).await;
    let (status, _) = h
        .patch(
            &id,
            4,
            json!([{"op": "set_title", "title": "Plans, renamed"}]),
        )
        .await;
    assert_eq!(status, 200);

    let (status, history) = h.get(&format!("/notes/{id}/versions")).await;
    assert_eq!(status, 200);
    let got: Vec<(String, String)> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["author"].as_str().unwrap().to_owned(),
                v["author_kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = [
        ("test", "person"),
        ("test", "person"),
        ("claude", "agent"),
        ("test", "agent"),
        ("test", "person"),
    ];
    assert_eq!(got, want.map(|(a, k)| (a.to_owned(), k.to_owned())));
    agent.cancel().await.unwrap();
    host.cancel().await.unwrap();
}

/// Now, as the server writes times (RFC 3339, UTC, milliseconds): comparable as text.
fn now_rfc3339() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    quire_model::Timestamp(i64::try_from(ms).unwrap()).to_rfc3339()
}
