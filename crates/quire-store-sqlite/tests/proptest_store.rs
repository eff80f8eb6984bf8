//! A state-machine model of the store: random sequences of fresh writes, replays of earlier
//! keys, stale writes and restarts (close, reopen the file), checked against a reference model
//! after every step:
//! - the version is always 1 + the number of accepted writes that changed something;
//! - a replay returns the first result, byte for byte (but for the replay flag);
//! - a stale write is refused with the current version and changes nothing;
//! - the content and the history survive a restart.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use proptest::prelude::*;
use quire_api::WriteResult;
use quire_model::{AuthorKind, NoteId, Op, TabData, TabId, Timestamp, Version, normalize_url};
use quire_store::conformance::create_note;
use quire_store::{Change, Store, StoreError, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};

#[derive(Debug, Clone)]
enum Action {
    /// A write at the current version under a fresh key.
    Write(Edit),
    /// The same, without a key.
    Unkeyed(Edit),
    /// Resend the n-th keyed write (modulo how many there were), with its old version.
    Replay(usize),
    /// A write whose expected version is `current - back` (or `current + 1` when `back` is 0).
    Stale { back: u64, edit: Edit },
    /// Close the store and open the file again.
    Restart,
}

#[derive(Debug, Clone)]
enum Edit {
    Text(String),
    /// Cite one of a few pages, in one of several spellings: often already attached (a no-op).
    Cite {
        page: usize,
        spelling: usize,
    },
}

const PAGES: [&str; 3] = [
    "example.org/report",
    "example.org/data",
    "news.example.com/a",
];

fn spell(page: usize, spelling: usize) -> String {
    let page = PAGES[page % PAGES.len()];
    match spelling % 4 {
        0 => format!("https://{page}"),
        1 => format!("http://www.{page}/"),
        2 => format!("{page}?utm_source=x#top"),
        _ => page.to_owned(),
    }
}

impl Edit {
    fn op(&self) -> Op {
        match self {
            Edit::Text(t) => Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: t.clone(),
            },
            Edit::Cite { page, spelling } => Op::AddSource {
                title: "A page".to_owned(),
                url: spell(*page, *spelling),
            },
        }
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        "[a-z ]{0,24}".prop_map(Edit::Text),
        (0..PAGES.len(), 0..4usize).prop_map(|(page, spelling)| Edit::Cite { page, spelling }),
    ]
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => edit().prop_map(Action::Write),
        1 => edit().prop_map(Action::Unkeyed),
        2 => any::<usize>().prop_map(Action::Replay),
        2 => (0..3u64, edit()).prop_map(|(back, edit)| Action::Stale { back, edit }),
        1 => Just(Action::Restart),
    ]
}

/// What the store must hold, computed without it.
#[derive(Default)]
struct Model {
    version: u64,
    accepted_changes: u64,
    text: String,
    cited: Vec<String>,
    /// Every keyed write accepted so far: its request and its first result, serialised.
    keyed: Vec<(WriteRequest, String)>,
}

impl Model {
    /// Whether `edit` changes the Note (citing an attached page does not).
    fn changes(&self, edit: &Edit) -> bool {
        match edit {
            Edit::Text(t) => *t != self.text,
            Edit::Cite { page, spelling } => {
                let url = normalize_url(&spell(*page, *spelling)).expect("valid url");
                !self.cited.contains(&url)
            }
        }
    }

    fn accept(&mut self, edit: &Edit) {
        if !self.changes(edit) {
            return;
        }
        self.version += 1;
        self.accepted_changes += 1;
        match edit {
            Edit::Text(t) => self.text = t.clone(),
            Edit::Cite { page, spelling } => self
                .cited
                .push(normalize_url(&spell(*page, *spelling)).expect("valid url")),
        }
    }
}

fn open(path: &Path) -> SqliteStore {
    SqliteStore::open(path, SqliteOptions::default()).expect("open the store")
}

fn request(
    id: &NoteId,
    expected: u64,
    key: Option<String>,
    edit: &Edit,
    step: i64,
) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: Version(expected),
        idempotency_key: key,
        author: "agent".to_owned(),
        author_kind: AuthorKind::Agent,
        change: Change::Ops(vec![edit.op()]),
        now: Timestamp(1_796_019_881_000 + step),
    }
}

async fn check(store: &SqliteStore, id: &NoteId, model: &Model) {
    let note = store.get_note(id).await.expect("get_note").note;
    assert_eq!(note.version, Version(model.version));
    assert_eq!(model.version, model.accepted_changes + 1);
    let Some(TabData::Markdown(text)) = note.tab(&TabId::new(TabId::MARKDOWN)).map(|t| &t.data)
    else {
        panic!("no markdown tab");
    };
    assert_eq!(text, &model.text);
    let Some(TabData::Sources(sources)) = note.tab(&TabId::new(TabId::SOURCES)).map(|t| &t.data)
    else {
        panic!("no sources tab");
    };
    let urls: Vec<&String> = sources.iter().map(|s| &s.normalized_url).collect();
    assert_eq!(urls, model.cited.iter().collect::<Vec<_>>());
    let history = store.history(id).await.expect("history");
    assert_eq!(history.len() as u64, model.version);
}

fn serialized(result: &WriteResult) -> String {
    serde_json::to_string(&WriteResult {
        replayed: false,
        ..result.clone()
    })
    .expect("serialize")
}

async fn run(actions: Vec<Action>) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("quire.db");
    let mut store = open(&path);
    let id = create_note(
        &store,
        "Model",
        "person",
        AuthorKind::Person,
        Timestamp(1_796_019_881_000),
    )
    .await;
    let mut model = Model {
        version: 1,
        ..Model::default()
    };

    for (step, action) in actions.into_iter().enumerate() {
        let at = step as i64;
        match action {
            Action::Write(edit) => {
                let key = format!("key-{step}");
                let req = request(&id, model.version, Some(key), &edit, at);
                let result = store.write(req.clone()).await.expect("write");
                model.accept(&edit);
                assert_eq!(result.version, Version(model.version));
                assert!(!result.replayed);
                model.keyed.push((req, serialized(&result)));
            }
            Action::Unkeyed(edit) => {
                let req = request(&id, model.version, None, &edit, at);
                let result = store.write(req).await.expect("write");
                model.accept(&edit);
                assert_eq!(result.version, Version(model.version));
            }
            Action::Replay(n) => {
                if model.keyed.is_empty() {
                    continue;
                }
                let (req, first) = &model.keyed[n % model.keyed.len()];
                let replay = store.write(req.clone()).await.expect("replay");
                assert!(replay.replayed);
                assert!(!replay.request_differs);
                assert_eq!(&serialized(&replay), first);
            }
            Action::Stale { back, edit } => {
                let expected = if back == 0 {
                    model.version + 1
                } else {
                    model.version.saturating_sub(back)
                };
                if expected == model.version {
                    continue;
                }
                let req = request(&id, expected, Some(format!("stale-{step}")), &edit, at);
                match store.write(req).await {
                    Err(StoreError::Conflict(c)) => {
                        assert_eq!(c.current_version, Version(model.version));
                    }
                    other => panic!("stale write at {expected}: {other:?}"),
                }
            }
            Action::Restart => {
                store.close().await.expect("close");
                drop(store);
                store = open(&path);
            }
        }
        check(&store, &id, &model).await;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn the_store_follows_the_model(actions in proptest::collection::vec(action(), 1..120)) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(run(actions));
    }
}
