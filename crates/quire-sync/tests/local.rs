//! The local store: what the engine writes survives a reopen; the ledger spans Notes; the
//! archive only grows.
#![allow(clippy::unwrap_used)]

use quire_model::{Note, NoteId, Op, TabData, TabId, Timestamp, Version};
use quire_sync::Content;
use quire_sync::LocalStore;
use quire_sync::machine::{
    ArchiveReason, Draft, OnConflict, Outgoing, PendingSave, Persist, SyncError, SyncErrorKind,
    TabState, WriteBody,
};

fn note_id(n: u8) -> NoteId {
    format!("01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f5{n}")
        .parse()
        .unwrap()
}

fn draft(note: &NoteId, tab: &str, mine: &str, pending: Option<&str>) -> Draft {
    let text = |s: &str| Content::new(TabData::Markdown(s.into()));
    Draft {
        note_id: note.clone(),
        tab_id: TabId::new(tab),
        base_version: Version(3),
        base: text("base"),
        mine: text(mine),
        pending: pending.map(|k| PendingSave {
            key: k.to_owned(),
            expected_version: Version(3),
            content: text(mine),
        }),
        theirs: None,
        last_error: None,
        state: TabState::Dirty,
        updated_at: Timestamp(10),
        base_missing: false,
        held: None,
    }
}

/// A draft of another Note, `b`, with no pending save.
fn other_draft(store: &mut LocalStore, b: &NoteId) {
    let d = draft(b, "markdown", "other", None);
    store.apply(b, &[&Persist::Draft(Box::new(d))]).unwrap();
}

/// The ledger reads columns of their own (migration 3), not the drafts' and bases' JSON. A store
/// written before those columns lists the same drafts once opened: the migration fills them in.
#[test]
fn the_ledger_lists_the_same_drafts_from_a_store_written_before_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.db");
    let (a, b) = (note_id(0), note_id(1));
    let mut base = Note::new(a.clone(), "Alpha".to_owned());
    base.version = Version(3);
    base.tabs[0].label = "Research log".to_owned();
    let mut failed = draft(&a, "markdown", "mine", Some("k-1"));
    failed.state = TabState::Offline;
    failed.updated_at = Timestamp(30);
    failed.last_error = Some(SyncError {
        kind: SyncErrorKind::Offline,
        code: "offline".to_owned(),
        message: "the server did not answer".to_owned(),
    });
    let before = {
        let mut store = LocalStore::open(&path).unwrap();
        store
            .apply(
                &a,
                &[
                    &Persist::Base(std::sync::Arc::new(base)),
                    &Persist::Draft(Box::new(failed.clone())),
                ],
            )
            .unwrap();
        other_draft(&mut store, &b);
        store.ledger().unwrap()
    };
    assert_eq!(before.len(), 2);
    assert_eq!(before[0].note_id, a, "most recently edited first");
    assert_eq!(before[0].tab_label.as_deref(), Some("Research log"));
    assert_eq!(before[0].last_error, failed.last_error);
    assert_eq!(before[0].state, TabState::Offline);
    assert!(before[0].has_pending_save);
    assert_eq!(before[1].tab_label, None, "b's base was never seen");
    assert!(!before[1].has_pending_save);

    // The store as the release before wrote it: schema 2, no ledger columns (and no long
    // texts apart: none is this long here).
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE text_refs;
             DROP TABLE texts;
             ALTER TABLE drafts DROP COLUMN last_error_json;
             ALTER TABLE notes DROP COLUMN labels_json;
             PRAGMA user_version = 2;",
        )
        .unwrap();
    }
    let store = LocalStore::open(&path).unwrap();
    assert_eq!(store.ledger().unwrap(), before);
}

#[test]
fn what_is_written_comes_back_after_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.db");
    let (a, b) = (note_id(0), note_id(1));
    let mut base = Note::new(a.clone(), "Alpha".to_owned());
    base.version = Version(3);
    {
        let mut store = LocalStore::open(&path).unwrap();
        let d = draft(&a, "markdown", "mine", Some("k-1"));
        let out = Outgoing {
            id: "w1".to_owned(),
            body: WriteBody::Ops {
                changes: vec![Op::SetTitle {
                    title: "Beta".to_owned(),
                }],
            },
            key: Some("k-2".to_owned()),
            expected_version: Some(Version(3)),
            on_conflict: OnConflict::Reapply,
        };
        store
            .apply(
                &a,
                &[
                    &Persist::Base(std::sync::Arc::new(base.clone())),
                    &Persist::Draft(Box::new(d)),
                    &Persist::Outgoing(Box::new(out)),
                ],
            )
            .unwrap();
        other_draft(&mut store, &b);
    }
    // Reopening runs the migrations again: nothing changes, nothing is lost.
    let mut store = LocalStore::open(&path).unwrap();
    let loaded = store.load(&a).unwrap();
    assert_eq!(loaded.base, Some(base));
    assert_eq!(store.guard(&a).unwrap(), Some(Version(3)));
    assert_eq!(store.guard(&b).unwrap(), None, "never connected to b");
    assert_eq!(
        loaded.drafts,
        vec![draft(&a, "markdown", "mine", Some("k-1"))]
    );
    assert_eq!(loaded.outbox.len(), 1);
    assert_eq!(loaded.outbox[0].key.as_deref(), Some("k-2"));

    // The ledger lists every draft of every Note.
    let ledger = store.ledger().unwrap();
    let notes: Vec<&NoteId> = ledger.iter().map(|e| &e.note_id).collect();
    assert_eq!(ledger.len(), 2);
    assert!(notes.contains(&&a) && notes.contains(&&b));
    let alpha = ledger.iter().find(|e| e.note_id == a).unwrap();
    assert_eq!(alpha.note_title, "Alpha");
    assert_eq!(alpha.tab_label.as_deref(), Some("Note"));
    assert!(alpha.has_pending_save);

    // Taking theirs archives the draft: it leaves the ledger, never the file.
    let d = loaded.drafts[0].clone();
    store
        .apply(
            &a,
            &[
                &Persist::Archive {
                    draft: Box::new(d.clone()),
                    reason: ArchiveReason::TookTheirs,
                    at: Timestamp(20),
                },
                &Persist::DropDraft(TabId::new("markdown")),
                &Persist::DropOutgoing("w1".to_owned()),
            ],
        )
        .unwrap();
    assert_eq!(store.ledger().unwrap().len(), 1);
    let archived = store.archived(&a).unwrap();
    assert_eq!(archived.len(), 1);
    assert_eq!(archived[0].draft, d);
    assert_eq!(archived[0].reason, ArchiveReason::TookTheirs);
    assert!(store.load(&a).unwrap().outbox.is_empty());
    assert!(store.archived(&b).unwrap().is_empty());
}

/// Every base written is remembered per version (the newest `SEEN_KEPT` of them), across a
/// reopen: an edit made on an older version is judged without the network.
#[test]
fn the_tabs_of_recent_bases_are_kept_by_version() {
    use quire_sync::local::SEEN_KEPT;
    use quire_sync::machine::BaseAt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.db");
    let a = note_id(0);
    let md = TabId::new("markdown");
    let at = |version: u64, text: &str| {
        let mut n = Note::new(a.clone(), "Alpha".to_owned());
        n.version = Version(version);
        n.tabs[0].data = TabData::Markdown(text.into());
        n
    };
    let text = |s: &str| BaseAt::Known(Content::new(TabData::Markdown(s.into())));
    {
        let mut store = LocalStore::open(&path).unwrap();
        for n in [at(2, "one"), at(3, "one"), at(5, "two")] {
            store
                .apply(&a, &[&Persist::Base(std::sync::Arc::new(n))])
                .unwrap();
        }
        let mut gone = at(6, "two");
        gone.tabs.clear();
        store
            .apply(&a, &[&Persist::Base(std::sync::Arc::new(gone))])
            .unwrap();
    }
    let store = LocalStore::open(&path).unwrap();
    let tab_at = |v: u64| store.tab_at(&a, &md, Version(v)).unwrap();
    assert_eq!(tab_at(2), text("one"));
    assert_eq!(tab_at(3), text("one"), "unchanged since the version before");
    assert_eq!(tab_at(4), BaseAt::Unknown, "never seen here");
    assert_eq!(tab_at(5), text("two"));
    assert_eq!(tab_at(6), BaseAt::Absent, "the tab was gone then");
    assert_eq!(
        store.tab_at(&note_id(1), &md, Version(2)).unwrap(),
        BaseAt::Unknown
    );
    drop(store);

    let mut store = LocalStore::open(&path).unwrap();
    let newest = 6 + SEEN_KEPT as u64;
    for v in 7..=newest {
        store
            .apply(&a, &[&Persist::Base(std::sync::Arc::new(at(v, "three")))])
            .unwrap();
    }
    let tab_at = |v: u64| store.tab_at(&a, &md, Version(v)).unwrap();
    assert_eq!(
        tab_at(6),
        BaseAt::Unknown,
        "older than the newest {SEEN_KEPT}"
    );
    assert_eq!(tab_at(7), text("three"));
    assert_eq!(tab_at(newest), text("three"));
}

/// A long text (a 10 MiB tab) is written once however many rows hold it: the draft's base and
/// the Note's base and the seen version share one, the person's text and the pending save's
/// another; an acknowledged save writes no text; a text close to one written before is kept as
/// its change.
#[test]
fn long_texts_are_kept_once_and_come_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sync.db");
    let a = note_id(0);
    let long = |n: usize| format!("{n}: {}", "line of a long research log\n".repeat(4096));
    let markdown = |s: String| Content::new(TabData::Markdown(s.into()));
    let note_at = |version: u64, text: String| {
        let mut note = Note::new(a.clone(), "Log".to_owned());
        note.version = Version(version);
        note.tabs[0].data = TabData::Markdown(text.into());
        note
    };
    let texts = |path: &std::path::Path| -> i64 {
        rusqlite::Connection::open(path)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM texts", [], |r| r.get(0))
            .unwrap()
    };
    let mut d = draft(&a, "markdown", "", Some("k-1"));
    d.base = markdown(long(0));
    d.mine = markdown(long(1));
    d.pending.as_mut().unwrap().content = markdown(long(1));
    {
        let mut store = LocalStore::open(&path).unwrap();
        store
            .apply(
                &a,
                &[
                    &Persist::Base(std::sync::Arc::new(note_at(3, long(0)))),
                    &Persist::Draft(Box::new(d.clone())),
                ],
            )
            .unwrap();
    }
    assert_eq!(texts(&path), 2, "five places, two texts");

    let mut store = LocalStore::open(&path).unwrap();
    let loaded = store.load(&a).unwrap();
    assert_eq!(loaded.base, Some(note_at(3, long(0))));
    assert_eq!(loaded.drafts, vec![d]);
    let tab = TabId::new("markdown");
    assert_eq!(
        store.tab_at(&a, &tab, Version(3)).unwrap(),
        quire_sync::machine::BaseAt::Known(markdown(long(0)))
    );

    // The save is acknowledged: the base is the person's text, which is stored already.
    store
        .apply(
            &a,
            &[
                &Persist::Base(std::sync::Arc::new(note_at(4, long(1)))),
                &Persist::DropDraft(tab.clone()),
            ],
        )
        .unwrap();
    assert_eq!(texts(&path), 2, "version 3's text stays as seen");
    assert_eq!(
        store.tab_at(&a, &tab, Version(4)).unwrap(),
        quire_sync::machine::BaseAt::Known(markdown(long(1)))
    );

    // Each version seen is its change, not its size; the newest 64 read back whole.
    let kept = quire_sync::local::SEEN_KEPT as usize;
    for v in 5..(5 + kept as u64 + 10) {
        store
            .apply(
                &a,
                &[&Persist::Base(std::sync::Arc::new(note_at(
                    v,
                    long(v as usize),
                )))],
            )
            .unwrap();
    }
    let (whole, bytes): (i64, i64) = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FILTER (WHERE base IS NULL), SUM(length(body)) FROM texts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let size = long(0).len() as i64;
    assert!(
        whole <= 6 && bytes < 7 * size,
        "{whole} whole texts, {bytes} bytes for {kept} versions of {size} bytes"
    );
    for v in (5 + 10)..(5 + kept as u64 + 10) {
        assert_eq!(
            store.tab_at(&a, &tab, Version(v)).unwrap(),
            quire_sync::machine::BaseAt::Known(markdown(long(v as usize))),
            "version {v}"
        );
    }
    let newest = 4 + kept as u64 + 10;
    assert_eq!(
        store.load(&a).unwrap().base,
        Some(note_at(newest, long(newest as usize)))
    );
}
