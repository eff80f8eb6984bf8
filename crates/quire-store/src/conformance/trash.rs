//! The trash section of the conformance suite: moves in and out are guarded writes, a trashed
//! Note takes no other write, and emptying the trash erases trashed Notes only, all of them.

use std::sync::Arc;

use quire_model::{NoteId, Timestamp, Version};

use super::{at, create, markdown, request, text, version, write};
use crate::trash::{RESTORED, TRASHED};
use crate::{Change, Store, StoreError, WriteRequest};

fn moving(
    id: &NoteId,
    expected: u64,
    key: Option<&str>,
    change: Change,
    now: Timestamp,
) -> WriteRequest {
    WriteRequest {
        change,
        now,
        ..request(id, expected, key, Vec::new())
    }
}

fn in_trash(outcome: crate::Result<quire_api::WriteResult>, id: &NoteId) {
    match outcome {
        Err(StoreError::NoteInTrash(m)) if &m == id => {}
        other => panic!("expected note_in_trash, got {other:?}"),
    }
}

async fn summaries(store: &dyn Store, id: &NoteId) -> Vec<String> {
    let history = store.history(id).await.expect("history");
    history.into_iter().map(|v| v.summary).collect()
}

fn listed(list: &[quire_model::NoteSummary]) -> Vec<NoteId> {
    list.iter().map(|n| n.id.clone()).collect()
}

/// Into the trash and back: each a new version with the content as it was, its summary in
/// history, checked against the version like every write; the trash listing and the ordinary
/// one each show the Note exactly when they should, with `deleted_at`.
pub async fn trash_and_undelete_are_guarded_writes(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Doomed").await;
    let other = create(store, "Kept").await;
    write(store, request(&id, 1, None, vec![text("still here")])).await;

    let stale = store
        .write(moving(&id, 1, None, Change::Trash, at(50)))
        .await;
    assert!(matches!(stale, Err(StoreError::Conflict(c)) if c.current_version == Version(2)));
    assert_eq!(
        store.get_note(&id).await.expect("get").meta.deleted_at,
        None
    );

    let trashed = write(store, moving(&id, 2, None, Change::Trash, at(50))).await;
    assert_eq!(trashed.version, Version(3));
    assert!(trashed.changed_tab_ids.is_empty());
    let got = store
        .get_note(&id)
        .await
        .expect("a trashed note is still read");
    assert_eq!(got.note.version, Version(3));
    assert_eq!(
        got.meta.deleted_at.as_deref(),
        Some(at(50).to_rfc3339().as_str())
    );
    assert_eq!(
        store.note_meta(&id).await.expect("meta").deleted_at,
        got.meta.deleted_at
    );
    assert_eq!(markdown(store, &id).await, "still here");
    assert_eq!(
        summaries(store, &id).await.last().map(String::as_str),
        Some(TRASHED)
    );
    assert_eq!(
        listed(&store.list_notes().await.expect("list")),
        vec![other.clone()]
    );
    let trash = store.list_trash().await.expect("trash");
    assert_eq!(listed(&trash), vec![id.clone()]);
    assert_eq!(trash[0].version, Version(3));
    assert_eq!(trash[0].deleted_at, got.meta.deleted_at);

    let stale = store
        .write(moving(&id, 2, None, Change::Undelete, at(60)))
        .await;
    assert!(matches!(stale, Err(StoreError::Conflict(c)) if c.current_version == Version(3)));
    let back = write(store, moving(&id, 3, None, Change::Undelete, at(60))).await;
    assert_eq!(back.version, Version(4));
    let got = store.get_note(&id).await.expect("get");
    assert_eq!(got.meta.deleted_at, None);
    assert_eq!(markdown(store, &id).await, "still here");
    assert_eq!(
        summaries(store, &id).await.last().map(String::as_str),
        Some(RESTORED)
    );
    assert!(store.list_trash().await.expect("trash").is_empty());
    let mut all = listed(&store.list_notes().await.expect("list"));
    all.sort();
    let mut want = vec![id.clone(), other];
    want.sort();
    assert_eq!(all, want);

    match store
        .write(moving(&id, 4, None, Change::Undelete, at(70)))
        .await
    {
        Err(StoreError::NotInTrash(m)) if m == id => {}
        other => panic!("expected not_in_trash, got {other:?}"),
    }
    write(store, request(&id, 4, None, vec![text("edited again")])).await;
    assert_eq!(version(store, &id).await, Version(5));
}

/// A trashed Note refuses every write but the undelete, at the current version or a stale one,
/// and stores nothing; a key used before the Note went to the trash still replays (the key
/// comes first), and a move resent with its key replays too.
pub async fn a_trashed_note_takes_no_write_but_undelete(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Doomed").await;
    let first = write(store, request(&id, 1, Some("before"), vec![text("one")])).await;
    let trashed = write(store, moving(&id, 2, Some("bin"), Change::Trash, at(9))).await;
    assert_eq!(trashed.version, Version(3));
    let again = write(store, moving(&id, 2, Some("bin"), Change::Trash, at(9))).await;
    assert!(again.replayed);
    assert_eq!(again.version, Version(3));

    in_trash(
        store.write(request(&id, 3, None, vec![text("two")])).await,
        &id,
    );
    in_trash(
        store
            .write(request(&id, 3, Some("new"), vec![text("two")]))
            .await,
        &id,
    );
    in_trash(
        store.write(request(&id, 1, None, vec![text("two")])).await,
        &id,
    );
    in_trash(
        store
            .write(moving(
                &id,
                3,
                None,
                Change::Restore {
                    version: Version(1),
                },
                at(10),
            ))
            .await,
        &id,
    );
    in_trash(
        store
            .write(moving(&id, 3, None, Change::Trash, at(10)))
            .await,
        &id,
    );

    let replay = write(store, request(&id, 1, Some("before"), vec![text("one")])).await;
    assert!(replay.replayed);
    assert_eq!(replay.version, first.version);

    assert_eq!(version(store, &id).await, Version(3));
    assert_eq!(markdown(store, &id).await, "one");
    assert_eq!(store.history(&id).await.expect("history").len(), 3);
    // The refused key was not stored: after the undelete it is a fresh write.
    write(store, moving(&id, 3, None, Change::Undelete, at(11))).await;
    let fresh = write(store, request(&id, 4, Some("new"), vec![text("two")])).await;
    assert!(!fresh.replayed);
    assert_eq!(fresh.version, Version(5));
}

/// Emptying the trash erases the trashed Notes moved there before the limit (all without one)
/// with their whole history, and nothing else; a Note created afterwards starts clean.
pub async fn emptying_the_trash_erases_only_trashed_notes(store: Arc<dyn Store>) {
    let store = store.as_ref();
    // Kept first: the erased Notes are the newest, so a store that numbers its Notes may give
    // their numbers to the next one, which must then start clean.
    let kept = create(store, "Kept").await;
    let old = create(store, "Old").await;
    let recent = create(store, "Recent").await;
    write(store, request(&old, 1, Some("k"), vec![text("old text")])).await;
    write(store, moving(&old, 2, None, Change::Trash, at(100))).await;
    write(store, moving(&recent, 1, None, Change::Trash, at(200))).await;
    write(store, request(&kept, 1, None, vec![text("kept text")])).await;

    let erased = store.empty_trash(Some(at(150))).await.expect("empty older");
    assert_eq!(erased, vec![old.clone()]);
    for outcome in [
        store.get_note(&old).await.map(|_| ()),
        store.history(&old).await.map(|_| ()),
        store.note_at(&old, Version(1)).await.map(|_| ()),
        store
            .write(request(&old, 1, Some("k"), vec![text("old text")]))
            .await
            .map(|_| ()),
    ] {
        assert!(matches!(outcome, Err(StoreError::NoteNotFound(m)) if m == old));
    }
    assert_eq!(
        listed(&store.list_trash().await.expect("trash")),
        vec![recent.clone()]
    );

    // A limit at the very time it was trashed spares it (strictly older only).
    assert!(
        store
            .empty_trash(Some(at(200)))
            .await
            .expect("none")
            .is_empty()
    );
    assert_eq!(
        store.empty_trash(None).await.expect("empty all"),
        vec![recent.clone()]
    );
    assert!(store.list_trash().await.expect("trash").is_empty());
    assert!(
        store
            .empty_trash(None)
            .await
            .expect("empty again")
            .is_empty()
    );
    assert_eq!(
        listed(&store.list_notes().await.expect("list")),
        vec![kept.clone()]
    );
    assert_eq!(markdown(store, &kept).await, "kept text");

    let fresh = create(store, "Fresh").await;
    write(store, request(&fresh, 1, None, vec![text("fresh")])).await;
    assert_eq!(store.history(&fresh).await.expect("history").len(), 2);
    assert_eq!(markdown(store, &fresh).await, "fresh");
}

/// A Note in the trash is never found by a search (the person's nor an agent's), found again
/// once it is out, and its index goes with it when the trash is emptied.
pub async fn a_trashed_note_is_not_found(store: Arc<dyn Store>) {
    use crate::search::{SearchQuery, SearchScope};
    let store = store.as_ref();
    let id = create(store, "Trip").await;
    store
        .set_agent_access(&id, true, "person", at(1))
        .await
        .unwrap_or_else(|e| panic!("approve: {e}"));
    write(
        store,
        request(&id, 1, None, vec![text("the kestrel hovers")]),
    )
    .await;
    let query = SearchQuery::parse("kestrel").unwrap_or_else(|e| panic!("{e}"));
    let found = async |store: &dyn Store| -> Vec<(NoteId, SearchScope)> {
        let mut out = Vec::new();
        for scope in [SearchScope::AllNotes, SearchScope::AgentApproved] {
            let hits = store
                .search(&query, 20, scope)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            out.extend(hits.into_iter().map(|h| (h.note_id, scope)));
        }
        out
    };
    assert_eq!(
        found(store).await.len(),
        2,
        "found by the person and the agent"
    );
    write(store, moving(&id, 2, None, Change::Trash, at(50))).await;
    assert!(found(store).await.is_empty(), "a trashed Note is not found");
    write(store, moving(&id, 3, None, Change::Undelete, at(60))).await;
    assert_eq!(found(store).await.len(), 2, "found again once restored");
    write(store, moving(&id, 4, None, Change::Trash, at(70))).await;
    let erased = store
        .empty_trash(None)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(erased, vec![id.clone()]);
    assert!(found(store).await.is_empty());
}
