//! The engine and the trash, against the real `quire-server` binary over real HTTP: a draft of
//! a Note trashed elsewhere is kept (a draft, with `note_in_trash`) and goes out once the Note
//! is restored; the person's own delete sends waiting saves first; the trash is listed and
//! emptied.
#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use quire_model::{TabId, Version};
use quire_sync::NOTE_IN_TRASH;
use serde_json::json;
use support::*;

const WAIT: Duration = Duration::from_secs(30);

fn md() -> TabId {
    TabId::new("markdown")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_of_a_note_trashed_elsewhere_is_kept_and_saved_after_the_restore() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Doomed").await.unwrap().note_id;
    rest(&server).trash(&note, Version(1)).await.unwrap();

    engine
        .edit_tab(&note, &md(), json!("typed after the delete"))
        .await
        .unwrap();
    engine.flush(&note).await.unwrap();
    engine
        .wait_until(&note, WAIT, "the save refused by the trash", |s| {
            s.status.tabs.iter().any(|t| {
                t.tab_id == md()
                    && t.last_error
                        .as_ref()
                        .is_some_and(|e| e.code == NOTE_IN_TRASH)
            })
        })
        .await
        .unwrap();
    // Kept: shown, and in the drafts ledger; the server's Note is untouched.
    let shown = engine.tab(&note, &md()).unwrap().data;
    assert_eq!(shown, json!("typed after the delete"));
    assert!(
        engine
            .drafts()
            .unwrap()
            .iter()
            .any(|d| d.note_id == note && d.tab_id == md()),
        "the draft is in the ledger"
    );
    assert_eq!(markdown_on_server(&server, &note).await, "");

    let back = engine.undelete_note(&note).await.unwrap();
    assert_eq!(back.version, Version(3));
    engine
        .wait_until(&note, WAIT, "the draft saved", |s| s.status.settled)
        .await
        .unwrap();
    assert_eq!(
        markdown_on_server(&server, &note).await,
        "typed after the delete"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persons_delete_sends_waiting_saves_first_and_the_trash_empties() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let engine = engine(&server.url(), &server.token, dir.path(), None);
    let note = engine.create_note("Doomed").await.unwrap().note_id;
    let kept = engine.create_note("Kept").await.unwrap().note_id;
    engine
        .edit_tab(&note, &md(), json!("last words"))
        .await
        .unwrap();

    let trashed = engine.trash_note(&note).await.unwrap();
    assert_eq!(trashed.id, note);
    assert_eq!(trashed.version, Version(3), "the save, then the move");
    let stored = rest(&server).get_note(&note).await.unwrap();
    assert_eq!(
        stored.meta.deleted_at.as_deref(),
        Some(trashed.deleted_at.as_str())
    );
    assert_eq!(markdown_on_server(&server, &note).await, "last words");
    let listed: Vec<_> = engine.list_notes().await.unwrap();
    assert_eq!(listed.iter().map(|n| &n.id).collect::<Vec<_>>(), [&kept]);
    let trash = engine.list_trash().await.unwrap();
    assert_eq!(trash.len(), 1);
    assert_eq!(trash[0].id, note);
    assert_eq!(trash[0].deleted_at, Some(trashed.deleted_at.clone()));

    assert_eq!(engine.empty_trash().await.unwrap(), vec![note.clone()]);
    assert!(engine.list_trash().await.unwrap().is_empty());
    assert!(rest(&server).get_note(&note).await.is_err());
    assert_eq!(engine.list_notes().await.unwrap().len(), 1);
}
