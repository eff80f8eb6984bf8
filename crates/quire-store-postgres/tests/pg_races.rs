//! Races the SQLite store cannot have (it has one writer thread) and PostgreSQL must settle:
//! several stores (as several servers would hold) on one database, writing at once.

use std::sync::Arc;

use quire_api::WriteResult;
use quire_model::{AuthorKind, NoteId, Op, OpOutcome, TabId, Timestamp, Version};
use quire_store::conformance::create_note;
use quire_store::{Change, Store, StoreError, WriteRequest};
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::{Cluster, TestDatabase};
use tokio::task::JoinSet;

const T0: Timestamp = Timestamp(1_796_019_881_000);

/// `n` stores on one fresh database, all connecting (and migrating) at once.
async fn stores(n: usize) -> (Vec<Arc<PgStore>>, TestDatabase) {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster
        .fresh_database()
        .await
        .unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
    let mut opening = JoinSet::new();
    for _ in 0..n {
        let url = db.url().to_owned();
        opening.spawn(async move { PgStore::connect(&url, PgOptions::default()).await });
    }
    let mut out = Vec::new();
    while let Some(store) = opening.join_next().await {
        out.push(Arc::new(
            store.expect("connect task").expect("connect and migrate"),
        ));
    }
    (out, db)
}

async fn create(store: &PgStore) -> NoteId {
    create_note(store, "Race", "person", AuthorKind::Person, T0).await
}

/// The Note's current version, as `store` reads it.
async fn version(store: &PgStore, id: &NoteId) -> Version {
    store.get_note(id).await.expect("get_note").note.version
}

/// The text of the Note's markdown tab.
fn markdown(note: &quire_model::Note) -> &str {
    let quire_model::TabData::Markdown(text) = &note
        .tab(&TabId::new(TabId::MARKDOWN))
        .expect("markdown")
        .data
    else {
        panic!("markdown tab");
    };
    text
}

fn request(id: &NoteId, expected: u64, key: &str, op: Op) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: Some(key.to_owned()),
        author: "agent".to_owned(),
        author_kind: AuthorKind::Agent,
        change: Change::Ops(vec![op]),
        now: T0,
    }
}

/// Runs `req` on every store, `per_store` times each, all at once.
async fn race(stores: &[Arc<PgStore>], per_store: usize, req: WriteRequest) -> Vec<WriteResult> {
    let mut racers = JoinSet::new();
    for store in stores {
        for _ in 0..per_store {
            let store = Arc::clone(store);
            let req = req.clone();
            racers.spawn(async move { store.write(req).await });
        }
    }
    let mut out = Vec::new();
    while let Some(r) = racers.join_next().await {
        out.push(r.expect("racer task").expect("a resend is never refused"));
    }
    out
}

/// The same keyed request sent many times at once through three stores (a lost answer resent
/// to another server, while the first is still working): one write, every other a replay of it.
/// For a new deck: exactly one deck, and every answer names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_key_sent_everywhere_at_once_writes_once() {
    let (stores, _db) = stores(3).await;
    let id = create(&stores[0]).await;
    let op = Op::CreateTab {
        tab_type: quire_model::NewTabKind::Slides,
        label: None,
        slides: None,
    };
    let results = race(&stores, 8, request(&id, 1, "deck-1", op)).await;
    let first: Vec<&WriteResult> = results.iter().filter(|r| !r.replayed).collect();
    assert_eq!(first.len(), 1, "exactly one write: {results:?}");
    for r in &results {
        assert_eq!(r.version, Version(2));
        assert_eq!(r.outcomes, first[0].outcomes);
        assert!(!r.request_differs);
    }
    let note = stores[1].get_note(&id).await.expect("get_note").note;
    assert_eq!(note.version, Version(2));
    let decks: Vec<&TabId> = note
        .tabs
        .iter()
        .filter(|t| t.kind() == quire_model::TabKind::Slides)
        .map(|t| &t.id)
        .collect();
    let OpOutcome::TabCreated { tab_id } = &first[0].outcomes[0] else {
        panic!("{:?}", first[0].outcomes);
    };
    assert_eq!(decks, vec![tab_id]);
    assert_eq!(stores[2].history(&id).await.expect("history").len(), 2);
}

/// The same, for a write that changes nothing (citing a page already attached): its key is
/// stored once, every resend replays it, and no version is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_noop_key_sent_everywhere_at_once_is_stored_once() {
    let (stores, _db) = stores(3).await;
    let id = create(&stores[0]).await;
    let cite = |url: &str| Op::AddSource {
        title: "The report".to_owned(),
        url: url.to_owned(),
    };
    stores[0]
        .write(request(&id, 1, "first", cite("https://example.org/r")))
        .await
        .expect("cite");
    let results = race(&stores, 8, request(&id, 2, "again", cite("example.org/r/"))).await;
    assert_eq!(results.iter().filter(|r| !r.replayed).count(), 1);
    for r in &results {
        assert_eq!(r.version, Version(2));
        assert!(r.changed_tab_ids.is_empty());
    }
    assert_eq!(version(&stores[2], &id).await, Version(2));
}

/// Writers on three stores, each re-reading and redoing its change on a conflict (the seeds'
/// rule): every change lands exactly once, and the versions count them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn re_read_and_redo_across_stores_loses_nothing() {
    let (stores, _db) = stores(3).await;
    let id = create(&stores[0]).await;
    const PER_WRITER: usize = 10;
    let mut writers = JoinSet::new();
    for (w, store) in stores.iter().cycle().take(6).enumerate() {
        let store = Arc::clone(store);
        let id = id.clone();
        writers.spawn(async move {
            let mut conflicts = 0;
            for i in 0..PER_WRITER {
                let line = format!("writer {w} line {i}");
                let key = format!("w{w}-{i}");
                loop {
                    let note = store.get_note(&id).await.expect("get_note").note;
                    let text = markdown(&note);
                    let op = Op::ReplaceText {
                        tab_id: TabId::new(TabId::MARKDOWN),
                        text: format!("{text}{line}\n"),
                    };
                    match store.write(request(&id, note.version.0, &key, op)).await {
                        Ok(_) => break,
                        Err(StoreError::Conflict(_)) => conflicts += 1,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
            conflicts
        });
    }
    let mut conflicts = 0;
    while let Some(c) = writers.join_next().await {
        conflicts += c.expect("writer task");
    }
    let note = stores[0].get_note(&id).await.expect("get_note").note;
    let text = markdown(&note);
    for w in 0..6 {
        for i in 0..PER_WRITER {
            let line = format!("writer {w} line {i}\n");
            assert_eq!(text.matches(&line).count(), 1, "{line:?} in {text:?}");
        }
    }
    assert_eq!(note.version, Version(1 + 6 * PER_WRITER as u64));
    assert!(
        conflicts > 0,
        "the writers never raced: the test proves nothing"
    );
}

/// Two servers migrating one empty database at once both come up, on one schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stores_starting_together_migrate_once() {
    let (stores, db) = stores(4).await;
    let id = create(&stores[3]).await;
    assert_eq!(version(&stores[0], &id).await, Version(1));
    // A later start finds the schema in place.
    let again = PgStore::connect(db.url(), PgOptions::default())
        .await
        .expect("reconnect");
    assert_eq!(again.list_notes().await.expect("list_notes").len(), 1);
}

/// After `close`, writes are refused and nothing is half done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_store_refuses_writes() {
    let (stores, _db) = stores(2).await;
    let id = create(&stores[0]).await;
    stores[0].close().await.expect("close");
    let refused = stores[0]
        .write(request(
            &id,
            1,
            "k",
            Op::SetTitle {
                title: "x".to_owned(),
            },
        ))
        .await;
    assert!(matches!(refused, Err(StoreError::Closed)), "{refused:?}");
    assert_eq!(version(&stores[1], &id).await, Version(1));
}

/// A store hears of every write another store commits, once, at commit, with what the history
/// says; not of its own writes, nor of replays, conflicts or no-ops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_stores_hear_of_each_commit_and_not_of_their_own() {
    let (stores, _db) = stores(2).await;
    let mut heard = stores[0].others().await.expect("listen");
    let id = create(&stores[0]).await;
    let text = |t: &str| Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: t.to_owned(),
    };
    let next = async |heard: &mut tokio::sync::mpsc::Receiver<quire_api::WriteEvent>| {
        tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
            .await
            .expect("an announcement within 10 s")
            .expect("the listener runs")
    };

    stores[1]
        .write(request(&id, 1, "b1", text("from b")))
        .await
        .expect("write");
    let first = next(&mut heard).await;
    let history = stores[0].history(&id).await.expect("history");
    assert_eq!(
        (
            &first.note_id,
            first.version,
            first.author.as_str(),
            &first.changed_tab_ids,
            &first.at
        ),
        (
            &id,
            Version(2),
            "agent",
            &history[1].changed_tab_ids,
            &history[1].created_at
        )
    );

    stores[0]
        .write(request(&id, 2, "a1", text("from a")))
        .await
        .expect("own write");
    let replay = stores[1]
        .write(request(&id, 1, "b1", text("from b")))
        .await
        .expect("replay");
    assert!(replay.replayed);
    assert!(matches!(
        stores[1].write(request(&id, 1, "b2", text("stale"))).await,
        Err(StoreError::Conflict(_))
    ));
    stores[1]
        .write(request(
            &id,
            3,
            "noop",
            Op::SetTitle {
                title: "Race".to_owned(),
            },
        ))
        .await
        .expect("no-op");
    stores[1]
        .write(request(&id, 3, "b3", text("from b again")))
        .await
        .expect("write");
    assert_eq!(next(&mut heard).await.version, Version(4));
}

/// An announcement too long for NOTIFY (its 8000-byte payload limit) goes out thin and the
/// listener reads the details from the history: nothing is lost or cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_announcement_arrives_whole() {
    let (stores, _db) = stores(2).await;
    let mut heard = stores[0].others().await.expect("listen");
    let id = create(&stores[0]).await;
    let author = "a".repeat(9_000);
    stores[1]
        .write(WriteRequest {
            author: author.clone(),
            author_kind: AuthorKind::Person,
            ..request(
                &id,
                1,
                "long",
                Op::ReplaceText {
                    tab_id: TabId::new(TabId::MARKDOWN),
                    text: "x".to_owned(),
                },
            )
        })
        .await
        .expect("write");
    let write = tokio::time::timeout(std::time::Duration::from_secs(10), heard.recv())
        .await
        .expect("an announcement within 10 s")
        .expect("the listener runs");
    assert_eq!(write.version, Version(2));
    assert_eq!(write.author, author);
    assert_eq!(write.changed_tab_ids, vec![TabId::new(TabId::MARKDOWN)]);
}
