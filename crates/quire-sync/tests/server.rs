//! The engine against the real `quire-server` binary on port 0, over real HTTP, with real
//! SQLite files on both sides; the agent speaks MCP through rmcp's client.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use quire_model::{NewTabKind, NoteId, Op, OpOutcome, TabId, Version};
use quire_sync::merge::TabMerge;
use quire_sync::{
    ClashChoice, ConflictChoice, DraftPolicy, Engine, EngineError, LocalStore, TabState,
    WriteOutcome,
};
use serde_json::json;
use support::*;

const WAIT: Duration = Duration::from_secs(30);

fn md() -> TabId {
    TabId::new("markdown")
}

fn shown_text(engine: &Engine, note: &NoteId) -> String {
    engine
        .tab(note, &md())
        .unwrap()
        .data
        .as_str()
        .unwrap()
        .to_owned()
}

/// What an editor loads, as the app's does: the Markdown tab's text and the version it was read
/// at, from one view. An edit handed over with that version (`edit_tab_on`) is judged on it: a
/// change the engine merged in after the read is merged again, not overwritten.
fn editor_text(engine: &Engine, note: &NoteId) -> (String, Version) {
    let view = engine.view(note).unwrap();
    let tab = view.tabs.iter().find(|t| t.id == md()).unwrap();
    (tab.data.as_str().unwrap().to_owned(), view.version)
}

async fn settle(engine: &Engine, note: &NoteId) {
    engine.flush(note).await.unwrap();
    engine
        .wait_until(note, WAIT, "settled", |s| s.status.settled)
        .await
        .unwrap();
}

/// The person resolves every conflict by keeping both sides (merge; at each clash mine then
/// theirs). Returns how many decisions they made.
async fn decide(engine: &Engine, note: &NoteId) -> usize {
    let mut decisions = 0;
    loop {
        let status = engine.status(note).unwrap();
        let Some(tab) = status.tabs.iter().find(|t| t.state == TabState::Conflict) else {
            return decisions;
        };
        let view = engine.conflict(note, &tab.tab_id).unwrap();
        let Some(TabMerge::Markdown(merge)) = &view.merge else {
            panic!("expected a text merge: {view:?}")
        };
        let choices = vec![quire_sync::ClashChoice::MineThenTheirs; merge.clash_count()];
        match engine
            .resolve_conflict(note, &tab.tab_id, ConflictChoice::Merge { choices })
            .await
        {
            Ok(_) => decisions += 1,
            // Theirs moved while the person looked: look again.
            Err(EngineError::ConflictMoved { .. }) => {}
            Err(e) => panic!("resolve: {e}"),
        }
    }
}

/// Adds a Sheet tab through the engine; its ID.
async fn create_sheet(engine: &Engine, note: &NoteId, label: &str) -> TabId {
    let out = engine
        .apply_ops(
            note,
            vec![Op::CreateTab {
                tab_type: NewTabKind::Sheet,
                label: Some(label.to_owned()),
                slides: None,
            }],
            DraftPolicy::Refuse,
        )
        .await
        .unwrap();
    let WriteOutcome::Committed { result } = out else {
        panic!("create tab: {out:?}")
    };
    let [OpOutcome::TabCreated { tab_id }] = &result.outcomes[..] else {
        panic!("outcomes: {result:?}")
    };
    tab_id.clone()
}

/// Another writer replaces the Markdown tab's text over REST, on `version`.
async fn other_writes(
    server: &quire_testkit::ServerProcess,
    note: &NoteId,
    version: Version,
    text: &str,
) {
    rest(server)
        .patch(
            note,
            version,
            &[Op::ReplaceText {
                tab_id: md(),
                text: text.to_owned(),
            }],
            Some(&key()),
        )
        .await
        .unwrap();
}

fn lines_of(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.is_empty()).collect()
}

fn assert_each_once(text: &str, expected: &[String]) {
    let lines = lines_of(text);
    for want in expected {
        let n = lines.iter().filter(|l| **l == want).count();
        assert_eq!(n, 1, "{want:?} appears {n} times in:\n{text}");
    }
}

/// A person on the engine and an agent on MCP append lines to the same Markdown tab. Conflicts
/// go to the person (who merges); at the end not one line of either is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_tab_loses_nothing_and_conflicts_reach_the_person() {
    const EDITS: usize = 20;
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    // The person saves when they pause (flush); the debounce never fires on its own here, so the
    // first overlap below is certain, not a matter of timing.
    let engine = engine_with(
        &server.url(),
        &server.token,
        dir.path(),
        None,
        quire_sync::machine::Config {
            debounce: Duration::from_secs(600),
            ..timing()
        },
    );
    let view = engine.create_note("Same tab").await.unwrap();
    let note = view.note_id.clone();
    engine.set_agent_access(&note, true).await.unwrap();
    let agent = agent(&server, "claude").await;

    // A sure overlap first: the person types, the agent writes the same tab before the save.
    engine
        .edit_tab(&note, &md(), json!("person-start"))
        .await
        .unwrap();
    agent_append(&agent, &note, "agent-start").await;
    engine
        .wait_until(&note, WAIT, "the first conflict", |s| {
            s.sync.stats.conflicts_shown > 0
        })
        .await
        .unwrap();

    let agent_note = note.clone();
    let agent_task = tokio::spawn(async move {
        let mut rng = Rng(0xa9e47);
        for i in 0..EDITS {
            tokio::time::sleep(rng.ms(5, 30)).await;
            agent_append(&agent, &agent_note, &format!("agent-{i}")).await;
        }
    });
    let mut rng = Rng(0x9e750);
    let mut decisions = 0;
    for i in 0..EDITS {
        decisions += decide(&engine, &note).await;
        // The text and its version from one read: the engine may merge an agent line in
        // between this read and the edit (then the edit, on the older version, is merged again).
        let (shown, version) = editor_text(&engine, &note);
        let text = append(&shown, &format!("person-{i}"));
        engine
            .edit_tab_on(&note, &md(), json!(text), version)
            .await
            .unwrap();
        tokio::time::sleep(rng.ms(5, 25)).await;
        if i % 2 == 1 {
            engine.flush(&note).await.unwrap(); // a pause: save now
        }
    }
    agent_task.await.unwrap();
    // Until nothing is left to decide or to send.
    loop {
        decisions += decide(&engine, &note).await;
        engine.flush(&note).await.unwrap();
        let snap = engine
            .wait_until(&note, WAIT, "settled", |s| s.status.settled)
            .await
            .unwrap();
        if snap.sync.drafts.is_empty() {
            break;
        }
    }

    let text = markdown_on_server(&server, &note).await;
    let mut expected: Vec<String> = vec!["person-start".into(), "agent-start".into()];
    for i in 0..EDITS {
        expected.push(format!("person-{i}"));
        expected.push(format!("agent-{i}"));
    }
    assert_each_once(&text, &expected);
    assert_eq!(
        lines_of(&text).len(),
        expected.len(),
        "nothing but the intended lines:\n{text}"
    );
    let stats = engine.status(&note).unwrap().stats;
    eprintln!("same tab: {decisions} decisions, {stats:?}");
    assert!(stats.conflicts_shown > 0 && decisions > 0, "{stats:?}");
    assert!(engine.drafts().unwrap().is_empty(), "no draft left behind");
    engine.shutdown();
}

/// The person fills a Sheet while the agent writes the Markdown tab. The server refuses some of
/// the person's saves (the version is Note-wide) but the engine re-applies them on the new
/// version: the person sees no conflict, and nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn different_tabs_are_rebased_without_bothering_the_person() {
    const EDITS: usize = 20;
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let view = engine.create_note("Different tabs").await.unwrap();
    let note = view.note_id.clone();
    engine.set_agent_access(&note, true).await.unwrap();
    let sheet = create_sheet(&engine, &note, "Numbers").await;
    engine
        .wait_until(&note, WAIT, "the new tab", |s| {
            s.sync
                .server
                .as_ref()
                .is_some_and(|n| n.tab(&sheet).is_some())
        })
        .await
        .unwrap();
    let agent = agent(&server, "claude").await;

    let mut rng = Rng(0x51ee7);
    let mut person_rows = 0;
    let mut agent_lines = 0;
    // Race until the server has refused at least one of the person's saves (bounded).
    for round in 0..10 {
        let agent_note = note.clone();
        let agent_ref = &agent;
        let first = agent_lines;
        let agent_side = async move {
            for i in first..first + EDITS {
                agent_append(agent_ref, &agent_note, &format!("agent-{i}")).await;
            }
        };
        let person_side = async {
            for _ in 0..EDITS {
                let mut data = engine.tab(&note, &sheet).unwrap().data;
                let rows = data["sheets"][0]["rows"].as_array_mut().unwrap();
                rows.push(json!([format!("person-{person_rows}")]));
                person_rows += 1;
                engine.edit_tab(&note, &sheet, data).await.unwrap();
                tokio::time::sleep(rng.ms(20, 45)).await;
            }
        };
        tokio::join!(agent_side, person_side);
        agent_lines += EDITS;
        settle(&engine, &note).await;
        let stats = engine.status(&note).unwrap().stats;
        if stats.refused > 0 {
            eprintln!("round {round}: {stats:?}");
            break;
        }
    }
    settle(&engine, &note).await;

    let stats = engine.status(&note).unwrap().stats;
    eprintln!("different tabs: {agent_lines} agent lines, {person_rows} person rows, {stats:?}");
    assert!(
        stats.refused > 0,
        "the server never refused a save: {stats:?}"
    );
    assert!(stats.auto_rebased > 0, "{stats:?}");
    assert_eq!(
        stats.conflicts_shown, 0,
        "no conflict shown to the person: {stats:?}"
    );

    let server_note = rest(&server).get_note(&note).await.unwrap().note;
    let text = match &server_note.tab(&md()).unwrap().data {
        quire_model::TabData::Markdown(t) => t.clone(),
        other => panic!("{other:?}"),
    };
    let expected: Vec<String> = (0..agent_lines).map(|i| format!("agent-{i}")).collect();
    assert_each_once(&text, &expected);
    let sheet_data = server_note.tab(&sheet).unwrap().data.to_value();
    let cells: Vec<String> = sheet_data["sheets"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap_or_default().to_owned())
        .collect();
    let want: Vec<String> = (0..person_rows).map(|i| format!("person-{i}")).collect();
    assert_eq!(cells, want, "every row the person typed, in order");
    engine.shutdown();
}

/// The engine process is killed (SIGKILL) mid-save; started again on the same local store it
/// finds the draft and the guard, and the save lands exactly once — whether or not the server
/// had committed it before the crash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_engine_finishes_its_save_exactly_once() {
    for committed_before_crash in [true, false] {
        let server = server();
        let proxy = Proxy::start(server.addr).await;
        let mut proxy = proxy;
        let rest = rest(&server);
        let note = rest.create_note("Crash", None).await.unwrap().note.id;
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sync.db");

        let mut probe = Probe::spawn(&proxy.url(), &server.token, &db);
        probe.ok(json!({"cmd": "open", "note": note})).await;
        proxy.set(if committed_before_crash {
            Mode::HoldAnswer
        } else {
            Mode::HoldRequest
        });
        probe
            .ok(json!({"cmd": "edit", "note": note, "tab": "markdown", "data": "written before the crash"}))
            .await;
        let seen = tokio::time::timeout(WAIT, proxy.seen.recv())
            .await
            .unwrap()
            .unwrap();
        match (&seen, committed_before_crash) {
            (Seen::Committed { status_line, .. }, true) => {
                assert!(status_line.contains("200"), "{seen:?}")
            }
            (Seen::Held { .. }, false) => {}
            other => panic!("unexpected {other:?}"),
        }
        // The draft, with the key it was sent with, is on disk before the request left.
        let local = LocalStore::open(&db).unwrap().load(&note).unwrap();
        assert_eq!(local.drafts.len(), 1);
        let pending = local.drafts[0].pending.clone().expect("a pending save");
        assert_eq!(
            local.base.as_ref().unwrap().version,
            Version(1),
            "the guard"
        );
        probe.kill9().await;
        proxy.release();
        proxy.set(Mode::Pass);

        // After the crash: the same draft and guard are there.
        let store = LocalStore::open(&db).unwrap();
        let after = store.load(&note).unwrap();
        assert_eq!(after.drafts[0].pending.as_ref().unwrap().key, pending.key);
        assert_eq!(store.guard(&note).unwrap(), Some(Version(1)));
        let ledger = store.ledger().unwrap();
        assert_eq!(ledger.len(), 1, "the ledger shows it: {ledger:?}");
        drop(store);

        let mut probe = Probe::spawn(&proxy.url(), &server.token, &db);
        probe.ok(json!({"cmd": "open", "note": note})).await;
        let status = probe
            .ok(json!({"cmd": "wait_settled", "note": note, "timeout_ms": 30_000}))
            .await;
        assert_eq!(
            status["stats"]["replays"].as_u64(),
            Some(u64::from(committed_before_crash)),
            "a committed save is replayed, not applied again: {status}"
        );
        assert!(
            probe
                .ok(json!({"cmd": "drafts"}))
                .await
                .as_array()
                .unwrap()
                .is_empty()
        );
        probe.kill9().await;

        assert_eq!(
            markdown_on_server(&server, &note).await,
            "written before the crash"
        );
        let history = rest.history(&note).await.unwrap();
        let saves: Vec<_> = history.iter().filter(|v| v.version > Version(1)).collect();
        assert_eq!(saves.len(), 1, "saved exactly once: {history:?}");
    }
}

/// The server goes down in the middle of a save; the person keeps typing (Offline, the draft
/// kept, the save retried with its key); the server comes back on the same database: every
/// save lands once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_then_saved_exactly_once() {
    let mut server = server();
    // The proxy only lets the test stop the server while a save is on its way.
    let mut proxy = Proxy::start(server.addr).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(
        &proxy.url(),
        &server.token,
        dir.path(),
        Some(fresh_connections()),
    );
    let note = engine.create_note("Offline").await.unwrap().note_id;
    engine.edit_tab(&note, &md(), json!("one")).await.unwrap();
    settle(&engine, &note).await;

    proxy.set(Mode::HoldRequest);
    engine
        .edit_tab(&note, &md(), json!("one two"))
        .await
        .unwrap();
    let seen = tokio::time::timeout(WAIT, proxy.seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(seen, Seen::Held { .. }), "{seen:?}");
    server.kill9().unwrap();
    proxy.set(Mode::Pass);
    proxy.release(); // the held save gets no answer
    engine
        .wait_until(&note, WAIT, "offline with the save pending", |s| {
            s.status.offline
                && s.sync.tab_state(&md()) == TabState::Offline
                && s.sync
                    .drafts
                    .get(&md())
                    .is_some_and(|d| d.pending.is_some())
        })
        .await
        .unwrap();
    engine
        .edit_tab(&note, &md(), json!("one two three"))
        .await
        .unwrap();
    let ledger = engine.drafts().unwrap();
    assert_eq!(ledger.len(), 1, "the draft is in the ledger while offline");
    assert_eq!(ledger[0].state, TabState::Offline);

    server.restart().unwrap();
    settle(&engine, &note).await;
    assert_eq!(markdown_on_server(&server, &note).await, "one two three");

    // Every version after creation is one of the person's texts, each exactly once.
    let rest = rest(&server);
    let mut texts = Vec::new();
    for v in rest.history(&note).await.unwrap() {
        if v.version > Version(1) {
            let n = rest.note_at(&note, v.version).await.unwrap();
            texts.push(n.tab(&md()).unwrap().data.to_value());
        }
    }
    assert_eq!(
        texts,
        [json!("one"), json!("one two"), json!("one two three")]
    );
    assert!(engine.drafts().unwrap().is_empty());
    engine.shutdown();
}

/// The editor still shows an older version when the person types; the server is down and the
/// app was restarted meanwhile. The engine judges the edit on its own copy of that version: the
/// other writer's change becomes a conflict, and is still on the server when it comes back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_edit_made_offline_is_a_conflict_not_an_overwrite() {
    let mut server = server();
    let dir = tempfile::tempdir().unwrap();
    let first = engine(&server.url(), &server.token, dir.path(), None);
    let note = first.create_note("Stale").await.unwrap().note_id;
    first.edit_tab(&note, &md(), json!("one")).await.unwrap();
    settle(&first, &note).await;
    let editor_version = first.view(&note).unwrap().version;
    other_writes(&server, &note, editor_version, "one\ntheirs").await;
    first
        .wait_until(&note, WAIT, "the other writer's change", |s| {
            s.status.guard > Some(editor_version)
        })
        .await
        .unwrap();
    first.shutdown();
    drop(first);

    server.kill9().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let view = engine.open_note(&note).await.unwrap();
    assert!(engine.status(&note).unwrap().offline);
    assert!(view.version > editor_version, "{view:?}");
    let status = engine
        .edit_tab_on(&note, &md(), json!("one\nmine"), editor_version)
        .await
        .unwrap();
    assert_eq!(status.state, TabState::Conflict, "{status:?}");

    server.restart().unwrap();
    engine
        .wait_until(&note, WAIT, "back online", |s| {
            !s.status.offline && s.status.settled
        })
        .await
        .unwrap();
    assert_eq!(markdown_on_server(&server, &note).await, "one\ntheirs");
    let conflict = engine.conflict(&note, &md()).unwrap();
    let md_text = |c: &quire_sync::Content| c.0.to_value();
    assert_eq!(md_text(&conflict.base), json!("one"));
    assert_eq!(md_text(&conflict.mine), json!("one\nmine"));
    assert_eq!(
        conflict.theirs.as_ref().map(md_text),
        Some(json!("one\ntheirs"))
    );
    engine.shutdown();
}

/// The conflict review asks the engine what Merge will save: for the person's picks so far it
/// answers from the conflict it holds, sending nothing; once every clash is decided, what it
/// previewed is what Merge then saves on the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_merge_preview_is_what_merge_then_saves() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Preview").await.unwrap().note_id;
    engine
        .edit_tab(&note, &md(), json!("title\none\ntwo\nthree"))
        .await
        .unwrap();
    settle(&engine, &note).await;
    let base = engine.view(&note).unwrap().version;
    let theirs = "title\none (theirs)\ntwo\nthree (theirs)";
    other_writes(&server, &note, base, theirs).await;
    engine
        .wait_until(&note, WAIT, "the other writer's change", |s| {
            s.status.guard > Some(base)
        })
        .await
        .unwrap();
    engine
        .edit_tab_on(
            &note,
            &md(),
            json!("title\none (mine)\ntwo\nthree (mine)"),
            base,
        )
        .await
        .unwrap();
    let snap = engine
        .wait_until(&note, WAIT, "the conflict", |s| {
            s.status.settled && s.sync.tab_state(&md()) == TabState::Conflict
        })
        .await
        .unwrap();
    let sent = snap.sync.stats.saves_sent;

    let text = |p: &quire_sync::MergePreview| p.content.0.to_value();
    let undecided = engine
        .preview_resolution(&note, &md(), &[None, None])
        .unwrap();
    assert_eq!(undecided.undecided, 2);
    assert_eq!(
        text(&undecided),
        json!("title\none (mine)\none (theirs)\ntwo\nthree (mine)\nthree (theirs)"),
        "an undecided clash shows both sides"
    );
    let count = engine.preview_resolution(&note, &md(), &[None]);
    assert_eq!(
        count.map(|p| p.undecided).unwrap_err().code(),
        "invalid_merge",
        "one pick per clash"
    );

    let choices = vec![ClashChoice::Theirs, ClashChoice::MineThenTheirs];
    let picks: Vec<Option<ClashChoice>> = choices.iter().cloned().map(Some).collect();
    let preview = engine.preview_resolution(&note, &md(), &picks).unwrap();
    assert_eq!(preview.undecided, 0);
    let previewed = text(&preview);
    assert_eq!(
        previewed,
        json!("title\none (theirs)\ntwo\nthree (mine)\nthree (theirs)")
    );
    let status = engine.status(&note).unwrap();
    assert_eq!(
        status.tabs.iter().find(|t| t.tab_id == md()).unwrap().state,
        TabState::Conflict,
        "a preview decides nothing"
    );
    assert_eq!(engine.snapshot(&note).unwrap().sync.stats.saves_sent, sent);
    assert_eq!(markdown_on_server(&server, &note).await, theirs);

    engine
        .resolve_conflict(&note, &md(), ConflictChoice::Merge { choices })
        .await
        .unwrap();
    settle(&engine, &note).await;
    assert_eq!(json!(markdown_on_server(&server, &note).await), previewed);
    assert_eq!(json!(shown_text(&engine, &note)), previewed);
    let gone = engine.preview_resolution(&note, &md(), &[]);
    assert_eq!(gone.unwrap_err().code(), "no_conflict");
    engine.shutdown();
}

/// An app that holds no copy of the editor's version (a fresh local store) asks the server for
/// it before the draft may be saved, and the other writer's change becomes a conflict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_edit_on_a_version_not_held_locally_waits_for_the_server() {
    let server = server();
    let (first_dir, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = engine(&server.url(), &server.token, first_dir.path(), None);
    let note = first.create_note("Unknown base").await.unwrap().note_id;
    first.edit_tab(&note, &md(), json!("one")).await.unwrap();
    settle(&first, &note).await;
    let editor_version = first.view(&note).unwrap().version;
    first.shutdown();
    other_writes(&server, &note, editor_version, "one\ntheirs").await;

    let engine = engine(&server.url(), &server.token, dir.path(), None);
    assert!(engine.open_note(&note).await.unwrap().version > editor_version);
    engine
        .edit_tab_on(&note, &md(), json!("one\nmine"), editor_version)
        .await
        .unwrap();
    let snap = engine
        .wait_until(&note, WAIT, "settled", |s| s.status.settled)
        .await
        .unwrap();
    assert_eq!(snap.sync.tab_state(&md()), TabState::Conflict);
    assert_eq!(snap.sync.stats.saves_sent, 0);
    assert_eq!(markdown_on_server(&server, &note).await, "one\ntheirs");
    let conflict = engine.conflict(&note, &md()).unwrap();
    assert_eq!(conflict.base.0.to_value(), json!("one"));
    engine.shutdown();
}

/// The server commits a save but the answer is lost on the way back: the engine resends the
/// same write (same key) and the server replays its first answer; one version, not two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_is_replayed_not_applied_twice() {
    let server = server();
    let mut proxy = Proxy::start(server.addr).await;
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(
        &proxy.url(),
        &server.token,
        dir.path(),
        Some(fresh_connections()),
    );
    let note = rest(&server)
        .create_note("Lost answer", None)
        .await
        .unwrap()
        .note
        .id;
    engine.open_note(&note).await.unwrap();

    proxy.set(Mode::DropAnswer(1));
    engine
        .edit_tab(&note, &md(), json!("exactly once"))
        .await
        .unwrap();
    let seen = tokio::time::timeout(WAIT, proxy.seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(&seen, Seen::Committed { status_line, .. } if status_line.contains("200")),
        "{seen:?}"
    );
    settle(&engine, &note).await;

    let stats = engine.status(&note).unwrap().stats;
    assert_eq!(stats.replays, 1, "{stats:?}");
    assert!(stats.offline_failures >= 1, "{stats:?}");
    let history = rest(&server).history(&note).await.unwrap();
    assert_eq!(history.len(), 2, "created + one save: {history:?}");
    assert_eq!(markdown_on_server(&server, &note).await, "exactly once");
    engine.shutdown();
}

/// Tab links are instance IDs: a deleted tab says so and lists the tabs, even when another tab
/// has the same type and label. A draft on a tab deleted remotely stays (ledger) until the
/// person takes theirs, which archives it; deleting a tab with a draft needs confirmation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_by_id_drafts_ledger_and_archive() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    // A long debounce: the person's drafts stay drafts while the test acts around them.
    let engine = engine_with(
        &server.url(),
        &server.token,
        dir.path(),
        None,
        quire_sync::machine::Config {
            debounce: Duration::from_secs(60),
            ..timing()
        },
    );
    let note = engine.create_note("Tabs").await.unwrap().note_id;
    let mut ids = Vec::new();
    for _ in 0..2 {
        ids.push(create_sheet(&engine, &note, "Data").await);
    }
    let (a, b) = (ids[0].clone(), ids[1].clone());
    engine
        .wait_until(&note, WAIT, "both tabs", |s| {
            s.sync.server.as_ref().is_some_and(|n| n.tab(&b).is_some())
        })
        .await
        .unwrap();

    // A draft on `a`, then someone else deletes `a`.
    let mut data = engine.tab(&note, &a).unwrap().data;
    data["sheets"][0]["rows"] = json!([["mine"]]);
    engine.edit_tab(&note, &a, data).await.unwrap();
    let rest = rest(&server);
    let current = rest.get_note(&note).await.unwrap().note.version;
    rest.patch(
        &note,
        current,
        &[Op::DeleteTab { tab_id: a.clone() }],
        Some("del-a"),
    )
    .await
    .unwrap();
    engine
        .wait_until(&note, WAIT, "tab a gone", |s| {
            s.sync.server.as_ref().is_some_and(|n| n.tab(&a).is_none())
        })
        .await
        .unwrap();

    match engine.tab(&note, &a) {
        Err(EngineError::TabGone { tab_id, tabs }) => {
            assert_eq!(tab_id, a);
            let listed: BTreeSet<&str> = tabs.iter().map(|t| t.id.as_str()).collect();
            assert!(
                listed.contains(b.as_str()) && !listed.contains(a.as_str()),
                "{tabs:?}"
            );
        }
        other => panic!("expected TabGone, never the other \"Data\" sheet: {other:?}"),
    }
    let gone = engine.tab(&note, &TabId::new("slides-99-zzzz"));
    assert!(matches!(gone, Err(EngineError::TabGone { .. })), "{gone:?}");
    assert_eq!(gone.unwrap_err().code(), "tab_gone");

    // The draft of the deleted tab waits for the person, visible in the view and the ledger.
    let status = engine.status(&note).unwrap();
    let a_status = status.tabs.iter().find(|t| t.tab_id == a).unwrap();
    assert_eq!((a_status.state, a_status.gone), (TabState::Conflict, true));
    assert_eq!(engine.view(&note).unwrap().orphan_drafts.len(), 1);
    let ledger = engine.drafts().unwrap();
    assert!(ledger.iter().any(|e| e.tab_id == a), "{ledger:?}");
    let kept = engine
        .resolve_conflict(&note, &a, ConflictChoice::KeepMine)
        .await;
    assert!(
        matches!(kept, Err(EngineError::ChoiceUnavailable(_))),
        "{kept:?}"
    );
    engine
        .resolve_conflict(&note, &a, ConflictChoice::TakeTheirs)
        .await
        .unwrap();
    let archived = engine.archived(&note).unwrap();
    assert_eq!(archived.len(), 1, "taken theirs: archived, never deleted");
    assert_eq!(
        archived[0].draft.mine.0.to_value()["sheets"][0]["rows"],
        json!([["mine"]])
    );
    assert!(engine.drafts().unwrap().is_empty());

    // Deleting a tab that holds a draft asks first.
    let mut data = engine.tab(&note, &b).unwrap().data;
    data["sheets"][0]["rows"] = json!([["unsaved"]]);
    engine.edit_tab(&note, &b, data).await.unwrap();
    let refused = engine
        .apply_ops(
            &note,
            vec![Op::DeleteTab { tab_id: b.clone() }],
            DraftPolicy::Refuse,
        )
        .await;
    match refused {
        Err(EngineError::WouldDiscardDrafts { tab_ids }) => assert_eq!(tab_ids, vec![b.clone()]),
        other => panic!("deleted a tab whose draft was unsaved: {other:?}"),
    }
    assert!(engine.tab(&note, &b).is_ok(), "nothing was deleted");
    // Confirmed: the draft is archived, then the tab goes.
    let out = engine
        .apply_ops(
            &note,
            vec![Op::DeleteTab { tab_id: b.clone() }],
            DraftPolicy::ArchiveThem,
        )
        .await
        .unwrap();
    assert!(matches!(out, WriteOutcome::Committed { .. }), "{out:?}");
    assert_eq!(engine.archived(&note).unwrap().len(), 2);
    engine.shutdown();
}

/// A long text edited a little is saved as a splice of what changed (the history says so), and
/// the server ends with exactly the engine's text: across saves, another writer's change in
/// between (the engine saves on the new base), a text of other scripts, and a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_text_is_saved_by_what_changed() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Long").await.unwrap().note_id;
    let long: String = (0..400)
        .map(|i| format!("line {i}: café 😀 naïve\n"))
        .collect();
    engine.edit_tab(&note, &md(), json!(long)).await.unwrap();
    settle(&engine, &note).await;
    let mut text = long.clone();
    for (i, at) in [10usize, 3_000, 9_000].into_iter().enumerate() {
        let at = text.char_indices().nth(at).map(|(b, _)| b).unwrap();
        text.insert_str(at, &format!("[edit {i} é]"));
        engine.edit_tab(&note, &md(), json!(text)).await.unwrap();
        settle(&engine, &note).await;
        assert_eq!(markdown_on_server(&server, &note).await, text, "edit {i}");
    }
    // Another writer changes the end; the engine's next save is made on that.
    let version = engine.status(&note).unwrap().guard.unwrap();
    let theirs = format!("{text}their line\n");
    other_writes(&server, &note, version, &theirs).await;
    engine
        .wait_until(&note, WAIT, "their line shown", |s| {
            s.status.guard.is_some_and(|g| g > version)
        })
        .await
        .unwrap();
    let mine = shown_text(&engine, &note).replacen("line 1:", "LINE 1:", 1);
    engine.edit_tab(&note, &md(), json!(mine)).await.unwrap();
    settle(&engine, &note).await;
    assert_eq!(markdown_on_server(&server, &note).await, mine);
    assert!(mine.ends_with("their line\n"));

    let summaries: Vec<String> = rest(&server)
        .history(&note)
        .await
        .unwrap()
        .into_iter()
        .map(|v| v.summary)
        .collect();
    let spliced = summaries
        .iter()
        .filter(|s| s.contains("(1 splice)"))
        .count();
    assert_eq!(spliced, 4, "{summaries:?}");
}

/// The app's search goes to the server: a word saved a moment ago is found in its tab, and a
/// query without words is the server's refusal naming `q`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_searches_what_was_saved() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let view = engine.create_note("Field notes").await.unwrap();
    let note = view.note_id.clone();
    engine
        .edit_tab(&note, &md(), json!("a heron by the river"))
        .await
        .unwrap();
    settle(&engine, &note).await;
    let hits = engine.search("HERON riv", 20).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((&hits[0].note_id, &hits[0].tab_id), (&note, &md()));
    assert_eq!(hits[0].snippet, "a heron by the river");
    match engine.search("  \"\" ", 20).await {
        Err(EngineError::Client(quire_sync::ClientError::Server { status, code, .. })) => {
            assert_eq!((status, code.as_str()), (422, "invalid_field"));
        }
        other => panic!("expected the server's 422, got {other:?}"),
    }
}

/// The lab's race on one tab: the agent changes one line of a long Note at a time with
/// `edit_note_text` while the person types on another line of the same tab, their editor
/// taking the engine's text whenever it pauses (as the app's does). The engine merges every
/// refused save by lines: the person is never shown a conflict, and at the end the server holds
/// every one of the agent's lines and the person's last text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_on_other_lines_of_the_same_tab_never_makes_a_conflict() {
    const EDITS: usize = 25;
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine
        .create_note("One tab, two writers")
        .await
        .unwrap()
        .note_id;
    engine.set_agent_access(&note, true).await.unwrap();
    let long: String = (1..=500).map(|n| format!("line {n}\n")).collect();
    engine.edit_tab(&note, &md(), json!(long)).await.unwrap();
    settle(&engine, &note).await;
    let agent = agent(&server, "claude").await;

    let mut rng = Rng(0x1ea5e);
    let mut typed = String::new();
    let mut agent_edits = 0;
    for round in 0..10 {
        let agent_note = note.clone();
        let agent_ref = &agent;
        let first = agent_edits;
        let agent_side = async move {
            for i in first..first + EDITS {
                let line = 100 + i;
                loop {
                    let (version, _) = agent_read(agent_ref, &agent_note).await;
                    let (ok, out) = call(
                        agent_ref,
                        "edit_note_text",
                        json!({"note_id": agent_note, "tab_id": "markdown",
                               "expected_version": version, "idempotency_key": key(),
                               "edits": [{"old_text": format!("\nline {line}\n"),
                                          "new_text": format!("\nline {line} (agent)\n")}]}),
                    )
                    .await;
                    if ok {
                        break;
                    }
                    assert_eq!(out["error"], "version_conflict", "{out}");
                }
            }
        };
        let person_side = async {
            // The editor: its text and the version it was taken at.
            let (mut editor, mut base) = editor_text(&engine, &note);
            for _ in 0..EDITS {
                typed.push('x');
                let mut lines: Vec<String> = editor.split('\n').map(str::to_owned).collect();
                lines[2] = format!("line 3 {typed}");
                editor = lines.join("\n");
                let status = engine
                    .edit_tab_on(&note, &md(), json!(editor.clone()), base)
                    .await
                    .unwrap();
                assert_ne!(status.state, TabState::Conflict, "{status:?}");
                tokio::time::sleep(rng.ms(5, 30)).await;
                // A pause: the editor takes what the engine shows, as the app's does when the
                // person has not typed since it read it.
                if rng.next().is_multiple_of(3) {
                    (editor, base) = editor_text(&engine, &note);
                }
            }
        };
        tokio::join!(agent_side, person_side);
        agent_edits += EDITS;
        settle(&engine, &note).await;
        let stats = engine.status(&note).unwrap().stats;
        if stats.refused > 2 {
            eprintln!("round {round}: {stats:?}");
            break;
        }
    }
    settle(&engine, &note).await;
    let stats = engine.status(&note).unwrap().stats;
    eprintln!("one tab, other lines: {agent_edits} agent edits, {stats:?}");
    assert!(
        stats.refused > 0,
        "the server never refused a save: {stats:?}"
    );
    assert!(stats.auto_rebased > 0, "{stats:?}");
    assert_eq!(stats.conflicts_shown, 0, "no conflict shown: {stats:?}");
    let text = markdown_on_server(&server, &note).await;
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(
        lines[2],
        format!("line 3 {typed}"),
        "the person's last text"
    );
    for i in 0..agent_edits {
        let line = 100 + i;
        assert_eq!(
            lines[line - 1],
            format!("line {line} (agent)"),
            "agent's line {line}"
        );
    }
    assert_eq!(lines.len(), 501, "no line lost or doubled");
    engine.shutdown();
}

/// An editor hands a long text over whole once, then only what changed since its last
/// hand-over: the engine saves the text the change makes. A change on an older hand-over, or
/// with a range outside the text, is refused with nothing taken; the whole text is then taken as
/// ever, and the next change is made on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_handed_over_make_the_editors_text_and_stale_ones_are_refused() {
    use quire_sync::engine::{HandOver, TextChange};
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Log").await.unwrap().note_id;
    let text = "line \u{e9}\u{1F600}\n".repeat(20_000);
    let units = |s: &str| s.encode_utf16().count();

    let first = engine
        .hand_over(&note, &md(), HandOver::Whole(json!(text)), None)
        .await
        .unwrap();
    let change = |after: u64, at: usize, removed: usize, insert: &str| {
        HandOver::Change(TextChange {
            after,
            at,
            removed,
            insert: insert.to_owned(),
        })
    };
    // The emoji of the first line (two UTF-16 units) becomes a word.
    let second = engine
        .hand_over(&note, &md(), change(first.token, 6, 2, "smile"), None)
        .await
        .unwrap();
    let expected = text.replacen('\u{1F600}', "smile", 1);
    let end = units(&expected);
    let third = engine
        .hand_over(&note, &md(), change(second.token, end, 0, "the end"), None)
        .await
        .unwrap();
    let expected = format!("{expected}the end");
    settle(&engine, &note).await;
    assert_eq!(markdown_on_server(&server, &note).await, expected);

    // Made on an older hand-over, or out of the text: refused, nothing taken.
    for refused in [
        change(second.token, 0, 0, "stale "),
        change(third.token, units(&expected) + 1, 0, "past the end"),
        // The second line's emoji: the first line, "line \u{e9}smile\n", is 12 units.
        change(third.token, 18, 1, "half a pair"),
        change(third.token + 1000, 0, 0, "no such hand-over"),
    ] {
        let err = engine
            .hand_over(&note, &md(), refused.clone(), None)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "change_refused", "{refused:?}: {err}");
    }
    settle(&engine, &note).await;
    assert_eq!(markdown_on_server(&server, &note).await, expected);

    // The whole text again; the next change is made on that.
    let whole = engine
        .hand_over(&note, &md(), HandOver::Whole(json!("short now")), None)
        .await
        .unwrap();
    engine
        .hand_over(&note, &md(), change(whole.token, 5, 4, ""), None)
        .await
        .unwrap();
    settle(&engine, &note).await;
    assert_eq!(markdown_on_server(&server, &note).await, "short");
    engine.shutdown();
}

/// Opening a Note for one tab carries that tab's data and every small tab's; a large tab
/// (over `DEFER_OVER_BYTES`) comes without its data, with an outline, and is read apart: whole
/// with `tab`, a sheet in parts with `sheet_rows`, which refuses what is not there by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_tab_not_shown_comes_deferred_and_is_read_in_parts() {
    use quire_sync::engine::{DEFER_OVER_BYTES, SHEET_ROWS_MAX, SheetOutline, TabOutline};
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Large").await.unwrap().note_id;
    let text = "x".repeat(DEFER_OVER_BYTES + 1);
    engine.edit_tab(&note, &md(), json!(text)).await.unwrap();
    let big = create_sheet(&engine, &note, "Big").await;
    let small = create_sheet(&engine, &note, "Small").await;
    // 12,000 x 12 cells: 8 bytes a cell is over DEFER_OVER_BYTES, and more rows than one part.
    let rows: Vec<Vec<u64>> = (0..12_000u64)
        .map(|r| (0..12).map(|c| r * 12 + c).collect())
        .collect();
    let sheet =
        |rows: &[Vec<u64>]| json!({"sheets": [{"id": "s1", "name": "Numbers", "rows": rows}]});
    engine.edit_tab(&note, &big, sheet(&rows)).await.unwrap();
    engine
        .edit_tab(&note, &small, sheet(&rows[..10]))
        .await
        .unwrap();
    settle(&engine, &note).await;

    let tab = |view: &quire_sync::NoteView, id: &TabId| {
        view.tabs.iter().find(|t| &t.id == id).unwrap().clone()
    };
    let outline = TabOutline {
        sheets: vec![SheetOutline {
            id: "s1".into(),
            name: "Numbers".into(),
            rows: 12_000,
        }],
    };
    // Showing the small sheet: both large tabs are deferred.
    let view = engine
        .open_note_showing(&note, std::slice::from_ref(&small))
        .await
        .unwrap();
    assert_eq!(tab(&view, &small).data, sheet(&rows[..10]));
    assert_eq!(tab(&view, &small).deferred, None);
    assert_eq!(tab(&view, &big).data, serde_json::Value::Null);
    assert_eq!(tab(&view, &big).deferred, Some(outline.clone()));
    assert_eq!(tab(&view, &md()).data, serde_json::Value::Null);
    assert_eq!(
        tab(&view, &md()).deferred,
        Some(TabOutline { sheets: vec![] })
    );
    // On the wire a deferred tab says so; a tab with its data has no `deferred` at all.
    let wire = serde_json::to_value(&view).unwrap();
    let on_wire = |id: &TabId| {
        wire["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id.as_str())
            .unwrap()
            .clone()
    };
    assert_eq!(on_wire(&big)["deferred"]["sheets"][0]["rows"], 12_000);
    assert!(
        on_wire(&small).get("deferred").is_none(),
        "{}",
        on_wire(&small)
    );

    // Showing the large sheet: it comes whole.
    let view = engine
        .open_note_showing(&note, std::slice::from_ref(&big))
        .await
        .unwrap();
    assert_eq!(tab(&view, &big).data, sheet(&rows));
    assert!(tab(&view, &md()).deferred.is_some());
    // None of the tabs asked for is in the Note: the first tab would carry its data, but a long
    // text comes in parts all the same (below); the others stay deferred.
    let view = engine
        .open_note_showing(&note, &[TabId::new("slides-1-gone")])
        .await
        .unwrap();
    assert!(tab(&view, &big).deferred.is_some());
    assert!(tab(&view, &md()).deferred.is_some());
    // A long text comes in parts even when asked for.
    let view = engine
        .open_note_showing(&note, std::slice::from_ref(&md()))
        .await
        .unwrap();
    assert_eq!(tab(&view, &md()).data, serde_json::Value::Null);
    assert_eq!(
        tab(&view, &md()).deferred,
        Some(TabOutline { sheets: vec![] })
    );
    assert!(tab(&view, &big).deferred.is_some());
    // Without a list, every tab's data.
    let view = engine.open_note(&note).await.unwrap();
    assert!(view.tabs.iter().all(|t| t.deferred.is_none()));
    assert_eq!(tab(&view, &big).data, sheet(&rows));
    assert_eq!(engine.tab(&note, &big).unwrap().data, sheet(&rows));

    // The rows in parts: each part as the sheet has them, at most SHEET_ROWS_MAX a call.
    let part = engine.sheet_rows(&note, &big, "s1", 0, 3).unwrap();
    assert_eq!((part.total, part.version), (12_000, view.version));
    assert_eq!(serde_json::to_value(&part.rows).unwrap(), json!(rows[..3]));
    let part = engine.sheet_rows(&note, &big, "s1", 11_998, 10).unwrap();
    assert_eq!(
        serde_json::to_value(&part.rows).unwrap(),
        json!(rows[11_998..])
    );
    let part = engine.sheet_rows(&note, &big, "s1", 0, usize::MAX).unwrap();
    assert_eq!(part.rows.len(), SHEET_ROWS_MAX);
    assert!(
        engine
            .sheet_rows(&note, &big, "s1", 20_000, 5)
            .unwrap()
            .rows
            .is_empty()
    );
    let mut joined = Vec::new();
    while joined.len() < 12_000 {
        let part = engine
            .sheet_rows(&note, &big, "s1", joined.len(), 5_000)
            .unwrap();
        joined.extend(part.rows);
    }
    assert_eq!(serde_json::to_value(&joined).unwrap(), json!(rows));
    // The person's edit is what the parts show from the moment it is handed over (a draft
    // until saved), as every view does.
    let mut edited = rows.clone();
    edited[1][1] = 7;
    engine.edit_tab(&note, &big, sheet(&edited)).await.unwrap();
    let part = engine.sheet_rows(&note, &big, "s1", 1, 1).unwrap();
    assert_eq!(
        serde_json::to_value(&part.rows).unwrap(),
        json!([edited[1]])
    );

    match engine.sheet_rows(&note, &big, "s9", 0, 1) {
        Err(e @ EngineError::SheetGone { .. }) => {
            assert_eq!(e.code(), "sheet_gone");
            assert!(e.to_string().starts_with("sheet_id: "), "{e}");
        }
        other => panic!("{other:?}"),
    }
    match engine.sheet_rows(&note, &md(), "s1", 0, 1) {
        Err(e @ EngineError::NotASheet(_)) => assert!(e.to_string().starts_with("tab_id: "), "{e}"),
        other => panic!("{other:?}"),
    }
    match engine.sheet_rows(&note, &TabId::new("sheet-9-gone"), "s1", 0, 1) {
        Err(EngineError::TabGone { .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// A long text is read in parts with `text_part`: each part cut on a character boundary, the
/// person's edit shown, what is not a text or not a boundary refused by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_text_is_read_in_parts_on_character_boundaries() {
    use quire_sync::engine::TEXT_PART_MAX;
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Long").await.unwrap().note_id;
    // Two- and three-byte characters among one-byte ones, past the most a part gives.
    let text = "aé€\n".repeat(TEXT_PART_MAX / 7 + 10);
    engine.edit_tab(&note, &md(), json!(text)).await.unwrap();
    settle(&engine, &note).await;
    let version = engine.open_note(&note).await.unwrap().version;

    for max in [1, 2, 3, 1000, usize::MAX] {
        let mut joined = String::new();
        let mut start = 0;
        let mut calls = 0;
        loop {
            let part = engine.text_part(&note, &md(), start, max).unwrap();
            assert_eq!((part.total, part.version), (text.len(), version));
            assert_eq!((part.start, part.next), (start, start + part.text.len()));
            assert!(!part.text.is_empty() && part.text.len() <= max.clamp(3, TEXT_PART_MAX));
            joined.push_str(&part.text);
            start = part.next;
            calls += 1;
            if start == part.total || (max < 1000 && calls == 40) {
                break;
            }
        }
        assert_eq!(joined, text[..start], "parts of at most {max} bytes");
    }
    let part = engine.text_part(&note, &md(), 0, usize::MAX).unwrap();
    assert!(
        part.next <= TEXT_PART_MAX
            && part.next > TEXT_PART_MAX - 4
            && text.is_char_boundary(part.next),
        "a whole part ends at {}",
        part.next
    );
    // The end: an empty part.
    let end = engine.text_part(&note, &md(), text.len(), 10).unwrap();
    assert_eq!((end.next, end.text.as_str()), (text.len(), ""));

    // The person's edit, as every view shows it.
    engine
        .edit_tab(&note, &md(), json!(format!("b{text}")))
        .await
        .unwrap();
    assert_eq!(
        engine.text_part(&note, &md(), 0, 4).unwrap().text,
        "ba\u{e9}"
    );

    // "baé€\naé": bytes 3 and 10 are inside an "é": the part starts at the first one and ends
    // before the second.
    let part = engine.text_part(&note, &md(), 3, 7).unwrap();
    assert_eq!(
        (part.start, part.next, part.text.as_str()),
        (2, 9, "\u{e9}\u{20ac}\na")
    );
    // Parts asked for at multiples of one size, whatever the characters there, follow one
    // another exactly: the page asks for them at once.
    let edited = format!("b{text}");
    for size in [5, 4096, 1 << 20] {
        let mut joined = String::new();
        for k in 0..edited.len().div_ceil(size) {
            let part = engine.text_part(&note, &md(), k * size, size).unwrap();
            assert_eq!(part.start, joined.len(), "part {k} of {size} bytes");
            joined.push_str(&part.text);
            if k > 40 && size == 5 {
                break;
            }
        }
        assert_eq!(joined, edited[..joined.len()], "parts of {size} bytes");
        assert!(size == 5 || joined.len() == edited.len());
    }
    let sheet = create_sheet(&engine, &note, "Grid").await;
    settle(&engine, &note).await;
    match engine.text_part(&note, &sheet, 0, 10) {
        Err(e @ EngineError::NotAText(_)) => {
            assert_eq!(e.code(), "not_a_text");
            assert!(e.to_string().starts_with("tab_id: "), "{e}");
        }
        other => panic!("{other:?}"),
    }
    match engine.text_part(&note, &TabId::new("markdown-9-gone"), 0, 10) {
        Err(EngineError::TabGone { .. }) => {}
        other => panic!("{other:?}"),
    }
}
