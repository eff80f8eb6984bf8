//! "Undo this change" through the engine, against the real `quire-server` binary over real
//! HTTP, the agent on MCP: the agent's version taken back with the person's edits around it
//! kept; a revert under a draft is a conflict, never an overwrite; a clash names the tabs by
//! label and writes nothing.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use quire_model::{NoteId, Op, TabId, Version};
use quire_sync::{DraftPolicy, Engine, EngineError, TabState, WriteOutcome};
use serde_json::json;
use support::*;

const WAIT: Duration = Duration::from_secs(30);

fn md() -> TabId {
    TabId::new("markdown")
}

/// The person's text, saved: the version it was saved at.
async fn person_writes(engine: &Engine, note: &NoteId, text: &str) -> Version {
    engine.edit_tab(note, &md(), json!(text)).await.unwrap();
    engine.flush(note).await.unwrap();
    let snap = engine
        .wait_until(note, WAIT, "the person's text saved", |s| {
            s.status.settled
                && s.sync.server.as_ref().is_some_and(|n| {
                    n.tab(&md())
                        .is_some_and(|t| t.data == quire_model::TabData::Markdown(text.into()))
                })
        })
        .await
        .unwrap();
    snap.sync.server.as_ref().unwrap().version
}

/// The agent replaces the Markdown text (on the version it reads), and the engine has seen it:
/// the agent's version.
async fn agent_writes(agent: &Agent, engine: &Engine, note: &NoteId, text: &str) -> Version {
    let (version, _) = agent_read(agent, note).await;
    let (ok, out) = call(
        agent,
        "edit_note_tab",
        json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
               "idempotency_key": key(), "operation": "replace_text", "text": text}),
    )
    .await;
    assert!(ok, "the agent's write: {out}");
    let written = Version(out["version"].as_u64().unwrap());
    engine
        .wait_until(note, WAIT, "the agent's write seen", |s| {
            s.sync.guard().is_some_and(|g| g >= written)
        })
        .await
        .unwrap();
    written
}

async fn history_len(engine: &Engine, note: &NoteId) -> usize {
    engine.history(note).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undoing_the_agents_change_keeps_the_persons_edits_around_it() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Plan").await.unwrap().note_id;
    engine.set_agent_access(&note, true).await.unwrap();
    let agent = agent(&server, "claude").await;

    person_writes(&engine, &note, "intro\nbody\nend").await;
    let agents = agent_writes(&agent, &engine, &note, "intro\nBODY BY AGENT\nend").await;
    person_writes(
        &engine,
        &note,
        "intro, edited\nBODY BY AGENT\nend\nthe person's last line",
    )
    .await;

    let outcome = engine.revert(&note, agents).await.unwrap();
    let WriteOutcome::Committed { result } = outcome else {
        panic!("the revert was queued: {outcome:?}")
    };
    let want = "intro, edited\nbody\nend\nthe person's last line";
    assert_eq!(markdown_on_server(&server, &note).await, want);
    engine
        .wait_until(&note, WAIT, "the revert read back", |s| {
            s.sync.guard() == Some(result.version) && s.status.settled
        })
        .await
        .unwrap();
    assert_eq!(engine.tab(&note, &md()).unwrap().data, json!(want));
    let status = engine.status(&note).unwrap();
    assert!(
        status.tabs.iter().all(|t| t.state != TabState::Conflict),
        "no conflict: {status:?}"
    );
    let history = engine.history(&note).await.unwrap();
    let newest = history.last().unwrap();
    assert_eq!(newest.summary, format!("reverted version {agents}"));
    engine.shutdown();
}

/// The person's draft changes the very line the revert takes back: a conflict, never an
/// overwrite. (A draft on other lines merges with the revert, as with any other write.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revert_under_a_draft_is_a_conflict_never_an_overwrite() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    // The person's typing waits for a debounce longer than the test: it stays a draft.
    let slow = quire_sync::machine::Config {
        debounce: Duration::from_secs(600),
        ..timing()
    };
    let engine = engine_with(&server.url(), &server.token, dir.path(), None, slow);
    let note = engine.create_note("Plan").await.unwrap().note_id;
    engine.set_agent_access(&note, true).await.unwrap();
    let agent = agent(&server, "claude").await;

    person_writes(&engine, &note, "a\nb").await;
    let agents = agent_writes(&agent, &engine, &note, "a\nB").await;
    engine
        .edit_tab(&note, &md(), json!("a\nB, mine"))
        .await
        .unwrap();

    let outcome = engine.revert(&note, agents).await.unwrap();
    let WriteOutcome::Committed { result } = outcome else {
        panic!("the revert was queued: {outcome:?}")
    };
    assert_eq!(markdown_on_server(&server, &note).await, "a\nb");
    engine
        .wait_until(&note, WAIT, "the draft in conflict", |s| {
            s.status
                .tabs
                .iter()
                .any(|t| t.tab_id == md() && t.state == TabState::Conflict)
        })
        .await
        .unwrap();
    // The draft is kept and shown; the person decides against the reverted text.
    assert_eq!(engine.tab(&note, &md()).unwrap().data, json!("a\nB, mine"));
    let conflict = engine.conflict(&note, &md()).unwrap();
    assert_eq!(conflict.base_version, agents);
    assert_eq!(conflict.theirs_version, result.version);
    assert_eq!(
        conflict.theirs.map(|c| c.into_data()),
        Some(quire_model::TabData::Markdown("a\nb".into()))
    );
    engine.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revert_that_clashes_names_the_tabs_by_label_and_writes_nothing() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Plan").await.unwrap().note_id;
    engine.set_agent_access(&note, true).await.unwrap();
    engine
        .apply_ops(
            &note,
            vec![Op::RenameTab {
                tab_id: md(),
                label: "Essay".to_owned(),
            }],
            DraftPolicy::Refuse,
        )
        .await
        .unwrap();
    let agent = agent(&server, "claude").await;

    person_writes(&engine, &note, "a\nb").await;
    let agents = agent_writes(&agent, &engine, &note, "a\nB").await;
    // The person changes the very line the agent changed.
    person_writes(&engine, &note, "a\nBee").await;
    let before = history_len(&engine, &note).await;

    let refused = engine.revert(&note, agents).await.unwrap_err();
    let EngineError::RevertConflict { version, tabs } = &refused else {
        panic!("expected a revert conflict: {refused:?}")
    };
    let named: Vec<(&str, &str)> = tabs
        .iter()
        .map(|t| (t.id.as_str(), t.label.as_str()))
        .collect();
    assert_eq!((*version, named), (agents, vec![("markdown", "Essay")]));
    let body = refused.to_body();
    assert_eq!(body.code, "revert_conflict");
    assert!(
        body.message.contains("\u{201c}Essay\u{201d}"),
        "{}",
        body.message
    );
    assert_eq!(history_len(&engine, &note).await, before, "nothing written");
    assert_eq!(markdown_on_server(&server, &note).await, "a\nBee");

    // An unknown version and the first one are refused too, by code.
    let unknown = engine.revert(&note, Version(99)).await.unwrap_err();
    assert_eq!(unknown.code(), "version_not_found");
    let first = engine.revert(&note, Version(1)).await.unwrap_err();
    assert_eq!(first.code(), "invalid_field", "{first}");
    assert_eq!(history_len(&engine, &note).await, before, "nothing written");
    // The refused reverts leave nothing owed: the engine settles (it may still be reading the
    // Note the clash made it fetch).
    engine
        .wait_until(&note, WAIT, "settled after the refusals", |s| {
            s.status.settled
        })
        .await
        .unwrap();
    engine.shutdown();
}
