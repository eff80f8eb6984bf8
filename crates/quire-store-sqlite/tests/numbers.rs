//! Numbers in cells read back exactly as they were written: at every version, through the
//! history's splices, after the store is opened again. Operations are parsed from JSON text, as
//! the server parses a request, so what is tested is the path a number really takes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use proptest::prelude::*;
use quire_api::WriteResult;
use quire_model::{ApplyCtx, AuthorKind, Note, NoteId, Op, OpOutcome, TabId, Timestamp, Version};
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore};

const NOW: Timestamp = Timestamp(1_796_019_881_000);

fn open(path: &Path) -> SqliteStore {
    SqliteStore::open(path, SqliteOptions::default()).expect("open the store")
}

/// The operation spelled in JSON, parsed as a request body is.
fn op(json: &str) -> Op {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

/// A Note's JSON text: two spellings of one number (`0.0` and `-0.0`) differ here.
fn exact(note: &Note) -> String {
    serde_json::to_string(note).expect("a note serialises")
}

/// Panics, showing where the two texts part, unless they are equal.
fn assert_same(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let at = got
        .bytes()
        .zip(want.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let around = |s: &str| {
        let mut start = at.saturating_sub(40).min(s.len());
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + 80).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s[start..end].to_owned()
    };
    panic!(
        "{what}: differs at byte {at}\n  got:  ...{}...\n  want: ...{}...",
        around(got),
        around(want)
    );
}

/// A store, a Note in it, and the Note as the model says it must be at every version.
struct Story {
    dir: tempfile::TempDir,
    store: SqliteStore,
    id: NoteId,
    versions: Vec<Note>,
}

impl Story {
    async fn new() -> Story {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = open(&dir.path().join("quire.db"));
        let (created, _) = store
            .create_note(NewNote {
                id: NoteId::from_uuid(uuid::Uuid::now_v7()),
                title: "Numbers".to_owned(),
                author: "person".to_owned(),
                author_kind: AuthorKind::Person,
                now: NOW,
                idempotency_key: None,
            })
            .await
            .expect("create");
        Story {
            dir,
            store,
            id: created.note.id.clone(),
            versions: vec![created.note],
        }
    }

    fn newest(&self) -> &Note {
        self.versions.last().expect("a first version")
    }

    /// Writes `ops` at the newest version; the model applies them too.
    async fn write(&mut self, ops: Vec<Op>) -> WriteResult {
        let current = self.newest().clone();
        let ctx = ApplyCtx {
            now: NOW,
            author: "person",
        };
        let applied = quire_model::apply(&current, &ops, &ctx).expect("the model accepts it");
        let result = self
            .store
            .write(WriteRequest {
                note_id: self.id.clone(),
                expected_version: current.version,
                idempotency_key: None,
                author: "person".to_owned(),
                author_kind: AuthorKind::Person,
                change: Change::Ops(ops),
                now: NOW,
            })
            .await
            .expect("the store accepts it");
        if !applied.is_noop() {
            let mut next = applied.note;
            next.version = result.version;
            self.versions.push(next);
        }
        assert_eq!(result.version, self.newest().version);
        result
    }

    /// Every version, and the current Note, read back exactly as the model has them.
    async fn check(&self, when: &str) {
        let current = self.store.get_note(&self.id).await.expect("get_note").note;
        assert_same(
            &exact(&current),
            &exact(self.newest()),
            &format!("{when}: current"),
        );
        for want in &self.versions {
            let got = self
                .store
                .note_at(&self.id, want.version)
                .await
                .unwrap_or_else(|e| panic!("{when}: version {}: {e}", want.version));
            assert_same(
                &exact(&got),
                &exact(want),
                &format!("{when}: version {}", want.version),
            );
        }
    }

    /// Closes the store and opens its file again.
    async fn reopen(&mut self) {
        self.store.close().await.expect("close");
        self.store = open(&self.dir.path().join("quire.db"));
    }

    async fn sheet(&mut self) -> TabId {
        let result = self
            .write(vec![op(r#"{"op": "create_tab", "tab_type": "sheet"}"#)])
            .await;
        match &result.outcomes[0] {
            OpOutcome::TabCreated { tab_id } => tab_id.clone(),
            other => panic!("{other:?}"),
        }
    }
}

fn set_range(tab: &TabId, row: u64, values: &str) -> Op {
    op(&format!(
        r#"{{"op": "sheet_set_range", "tab_id": "{tab}", "start_row": {row}, "start_col": 0, "values": {values}}}"#
    ))
}

/// The outside testers' reproduction: a long sheet (stored as splices of its JSON text) with a
/// number whose text did not survive a read and a write; every version must read back exactly,
/// before and after a restart, and the Note must still take writes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_sheet_with_hard_numbers_reads_back_at_every_version() {
    let long = "x".repeat(5_000);
    for number in [
        "1e-30",
        "3.899603970996924e76",
        "1.6356324386913733e-228",
        "1e-24",
        "5e32",
        "0.21000000000000002",
    ] {
        let mut story = Story::new().await;
        let tab = story.sheet().await;
        story
            .write(vec![set_range(
                &tab,
                0,
                &format!(r#"[[{number}, "{long}"]]"#),
            )])
            .await;
        story.write(vec![set_range(&tab, 1, "[[1]]")]).await;
        story.check(number).await;
        story.reopen().await;
        story.check(&format!("{number}, reopened")).await;
        story.write(vec![set_range(&tab, 2, "[[2]]")]).await;
        story
            .check(&format!("{number}, written after reopening"))
            .await;
    }
}

/// A splice is applied only to the very bytes it was made on: a base whose text changed under
/// it (here a number respelled in the file, same length) makes the versions built on it fail
/// loudly instead of reading back as another content.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_splice_on_other_bytes_is_a_loud_error_not_another_content() {
    let long = "x".repeat(5_000);
    let mut story = Story::new().await;
    let tab = story.sheet().await;
    let base = story
        .write(vec![set_range(&tab, 0, &format!(r#"[[1e-30, "{long}"]]"#))])
        .await
        .version;
    let spliced = story.write(vec![set_range(&tab, 1, "[[1]]")]).await.version;
    story.check("before tampering").await;
    story.store.close().await.expect("close");

    let file = rusqlite::Connection::open(story.dir.path().join("quire.db")).expect("the file");
    let nid: i64 = file
        .query_row(
            "SELECT nid FROM notes WHERE id = ?1",
            [story.id.as_str()],
            |r| r.get(0),
        )
        .expect("the note's row");
    let deltas: Option<String> = file
        .query_row(
            "SELECT deltas FROM versions WHERE key = ?1",
            [(nid << 32) | spliced.0 as i64],
            |r| r.get(0),
        )
        .expect("the spliced version's row");
    assert!(
        deltas.is_some_and(|d| d.contains(r#""hash""#)),
        "version {spliced} is a splice"
    );
    let changed = file
        .execute(
            "UPDATE versions SET data = replace(data, '1e-30', '2e-30') WHERE key = ?1",
            [(nid << 32) | base.0 as i64],
        )
        .expect("respell the base");
    assert_eq!(changed, 1);
    drop(file);

    story.store = open(&story.dir.path().join("quire.db"));
    let base_now = story
        .store
        .note_at(&story.id, base)
        .await
        .expect("the base reads");
    assert!(exact(&base_now).contains("2e-30"));
    for read in [
        story.store.note_at(&story.id, spliced).await.map(|_| ()),
        story.store.get_note(&story.id).await.map(|_| ()),
    ] {
        let error = read
            .expect_err("a version on a changed base must not read")
            .to_string();
        assert!(error.contains("cannot be rebuilt"), "{error}");
    }
}

/// `-0.0` is not `0.0`: writing one over the other is a change, and it reads back as written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn negative_zero_is_written_and_read_back() {
    let mut story = Story::new().await;
    let tab = story.sheet().await;
    let zero = story.write(vec![set_range(&tab, 0, "[[0.0]]")]).await;
    let negative = story.write(vec![set_range(&tab, 0, "[[-0.0]]")]).await;
    assert_eq!(
        negative.version,
        zero.version.next(),
        "-0.0 over 0.0 is a change"
    );
    assert_eq!(negative.changed_tab_ids, vec![tab.clone()]);
    story.check("-0.0").await;
    story.reopen().await;
    story.check("-0.0, reopened").await;
}

/// A finite number as JSON text: any double (subnormals, both zeros, the extremes), integers
/// past 2^53, and spellings that once lost their last digit.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::to_string(&f).expect("finite")),
        any::<i64>().prop_map(|i| i.to_string()),
        any::<u64>().prop_map(|u| u.to_string()),
        prop::sample::select(vec![
            "-0.0",
            "0.0",
            "5e-324",
            "2.2250738585072014e-308",
            "1.7976931348623157e308",
            "9007199254740993",
            "-9223372036854775808",
            "18446744073709551615",
            "0.21000000000000002",
            "1e-30",
            "3.899603970996924e76",
            "1.6356324386913733e-228",
        ])
        .prop_map(str::to_owned),
    ]
}

fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => number(),
        1 => "[a-z €é\"\\\\]{0,12}".prop_map(|s| serde_json::to_string(&s).expect("a string")),
        1 => Just("null".to_owned()),
        1 => Just("true".to_owned()),
    ]
}

#[derive(Debug, Clone)]
enum Step {
    /// A small block of cells at (row, col) of the sheet.
    Cells {
        row: u64,
        col: u64,
        cells: Vec<Vec<String>>,
    },
    /// The sheet's whole content replaced (keeps it long: a long string in the first row).
    Sheet {
        rows: Vec<Vec<String>>,
    },
    /// The deck's slide text.
    Slide {
        title: String,
        body: String,
    },
    Reopen,
}

fn step() -> impl Strategy<Value = Step> {
    let block = prop::collection::vec(prop::collection::vec(cell(), 1..4), 1..4);
    prop_oneof![
        6 => (0..40u64, 0..6u64, block).prop_map(|(row, col, cells)| Step::Cells { row, col, cells }),
        1 => prop::collection::vec(prop::collection::vec(cell(), 0..5), 0..30)
            .prop_map(|rows| Step::Sheet { rows }),
        2 => ("[a-z ]{0,20}", "[a-z €\n]{0,60}").prop_map(|(title, body)| Step::Slide { title, body }),
        1 => Just(Step::Reopen),
    ]
}

fn grid(rows: &[Vec<String>]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| format!("[{}]", r.join(","))).collect();
    format!("[{}]", rows.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random numbers in a sheet long enough to be stored as splices, and a deck beside it;
    /// random small edits and restarts: every version reads back equal to the model's `apply`.
    #[test]
    fn every_version_reads_back_as_the_model_applied_it(steps in prop::collection::vec(step(), 1..24)) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let mut story = Story::new().await;
            let sheet = story.sheet().await;
            let deck = match &story
                .write(vec![op(r#"{"op": "create_tab", "tab_type": "slides", "slides": [{"title": "One"}]}"#)])
                .await
                .outcomes[0]
            {
                OpOutcome::TabCreated { tab_id } => tab_id.clone(),
                other => panic!("{other:?}"),
            };
            let long = serde_json::to_string(&"y".repeat(4_200)).expect("a string");
            story.write(vec![set_range(&sheet, 0, &format!("[[{long}]]"))]).await;
            for step in &steps {
                match step {
                    Step::Cells { row, col, cells } => {
                        story.write(vec![op(&format!(
                            r#"{{"op": "sheet_set_range", "tab_id": "{sheet}", "start_row": {}, "start_col": {col}, "values": {}}}"#,
                            row + 1,
                            grid(cells)
                        ))]).await;
                    }
                    Step::Sheet { rows } => {
                        let mut rows = rows.clone();
                        rows.insert(0, vec![long.clone()]);
                        story.write(vec![op(&format!(
                            r#"{{"op": "replace_tab_data", "tab_id": "{sheet}", "data": {{"sheets": [{{"id": "s1", "name": "Sheet 1", "rows": {}}}]}}}}"#,
                            grid(&rows)
                        ))]).await;
                    }
                    Step::Slide { title, body } => {
                        story.write(vec![Op::SlideAdd {
                            tab_id: deck.clone(),
                            title: title.clone(),
                            body: body.clone(),
                            notes: String::new(),
                        }]).await;
                    }
                    Step::Reopen => story.reopen().await,
                }
            }
            story.check("after the steps").await;
            story.reopen().await;
            story.check("reopened").await;
            // The Note still takes writes after all that.
            story.write(vec![set_range(&sheet, 0, "[[1]]")]).await;
            story.check("one more write").await;
        });
    }
}

/// The first and last versions of the story hold what they should: guards against a test that
/// compares nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_story_compares_real_contents() {
    let mut story = Story::new().await;
    let tab = story.sheet().await;
    story
        .write(vec![set_range(&tab, 0, "[[1.5, \"a\"]]")])
        .await;
    let json = exact(story.newest());
    assert!(json.contains("[[1.5,\"a\"]]"), "{json}");
    assert_eq!(story.versions.len(), 3);
    assert_eq!(story.newest().version, Version(3));
}
