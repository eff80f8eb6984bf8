//! Every bound of `quire_model::limits`, one row each: a write that reaches the limit is
//! accepted, one a step past it is refused with the field named and nothing produced, and what
//! is counted is what would be stored (the padding a range brings in), not what was sent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use quire_model::{
    Applied, NewTabKind, Note, Op, OpError, OpOutcome, SlideInput, TabData, TabId, apply, limits,
};
use serde_json::{Value, json};

mod common;
use common::{ctx, note};

/// The refusal of `ops` on `n` (an acceptance fails the test without printing the Note).
fn refusal(n: &Note, ops: &[Op]) -> OpError {
    match apply(n, ops, &ctx()) {
        Ok(a) => panic!("accepted: {}", a.summary),
        Err(e) => e,
    }
}

fn applied(n: &Note, ops: &[Op]) -> Applied {
    apply(n, ops, &ctx()).unwrap_or_else(|e| panic!("refused: {} {e}", e.code.as_str()))
}

/// `n` with one more tab of `kind`, and that tab's ID.
fn with_tab(n: &Note, kind: NewTabKind) -> (Note, TabId) {
    let a = applied(
        n,
        &[Op::CreateTab {
            tab_type: kind,
            label: None,
            slides: None,
        }],
    );
    let OpOutcome::TabCreated { tab_id } = &a.outcomes[0] else {
        panic!("{:?}", a.outcomes)
    };
    (a.note.clone(), tab_id.clone())
}

fn set_range(tab: &TabId, sheet: Option<&str>, row: u64, col: u64, values: Value) -> Op {
    Op::SheetSetRange {
        tab_id: tab.clone(),
        sheet_id: sheet.map(str::to_owned),
        start_row: row,
        start_col: col,
        values: serde_json::from_value(values).unwrap(),
    }
}

/// `rows` rows of one cell each, written at column `col`: padded to `col + 1` cells each.
fn column_at(tab: &TabId, col: u64, rows: usize) -> Op {
    set_range(tab, None, 0, col, Value::Array(vec![json!([1]); rows]))
}

fn add_source(i: usize) -> Op {
    Op::AddSource {
        title: format!("Page {i}"),
        url: format!("https://example.org/{i}"),
    }
}

fn add_file(i: usize) -> Op {
    Op::AddFile {
        name: format!("f{i}.txt"),
        mime: "text/plain".into(),
        size: 1,
        sha256: "a".repeat(64),
    }
}

/// `n` after `ops`, applied `chunk` at a time (each write holds at most `limits::OPS`).
fn in_writes(n: Note, ops: Vec<Op>, chunk: usize) -> Note {
    ops.chunks(chunk)
        .fold(n, |n, batch| applied(&n, batch).note)
}

fn slides(n: usize) -> Vec<SlideInput> {
    (0..n)
        .map(|i| SlideInput {
            title: format!("s{i}"),
            body: String::new(),
            notes: String::new(),
        })
        .collect()
}

fn sheets(n: usize) -> Value {
    let sheets: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("s{i}"), "name": format!("Sheet {i}")}))
        .collect();
    json!({ "sheets": sheets })
}

/// The bytes of text of a Note as `limits::NOTE_TEXT_BYTES` counts them, for a Note with no
/// content but its title, tab IDs and labels.
fn frame_bytes(n: &Note) -> usize {
    n.title.len()
        + n.tabs
            .iter()
            .map(|t| t.id.as_str().len() + t.label.len())
            .sum::<usize>()
}

/// One bound: `base`, a write that reaches the limit, a write one step past it, and the field
/// (as REST reports it) and code of the refusal.
struct Case {
    limit: &'static str,
    base: Note,
    at_limit: Vec<Op>,
    past: Vec<Op>,
    field: &'static str,
    code: &'static str,
}

fn cases() -> Vec<Case> {
    let (sheet_note, sheet) = with_tab(&note(), NewTabKind::Sheet);
    let (deck_note, deck) = with_tab(&note(), NewTabKind::Slides);
    let title_ops = |n: usize| -> Vec<Op> {
        (0..n)
            .map(|i| Op::SetTitle {
                title: format!("t{i}"),
            })
            .collect()
    };
    let create_sheets = |n: usize| -> Vec<Op> {
        (0..n)
            .map(|_| Op::CreateTab {
                tab_type: NewTabKind::Sheet,
                label: None,
                slides: None,
            })
            .collect()
    };
    let outline = |n: usize| -> Vec<Op> {
        (0..n)
            .map(|_| Op::SlidesAddOutline {
                tab_id: deck.clone(),
                slides: slides(limits::OUTLINE_SLIDES),
            })
            .collect()
    };
    let full_deck = in_writes(deck_note.clone(), outline(49), limits::OPS);
    let replace_sheets = |n: usize| Op::ReplaceTabData {
        tab_id: sheet.clone(),
        data: sheets(n),
    };
    let replace_deck = |n: usize| {
        let slides: Vec<Value> = (0..n)
            .map(|i| json!({"id": format!("s{i}"), "title": "t"}))
            .collect();
        Op::ReplaceTabData {
            tab_id: deck.clone(),
            data: json!({ "slides": slides }),
        }
    };
    // Eleven sheets; ten filled to their last row hold 100,000 rows each: the Note's 1,000,000.
    let eleven_sheets = applied(&sheet_note, &[replace_sheets(11)]).note;
    let to_last_row = |i: usize| {
        set_range(
            &sheet,
            Some(&format!("s{i}")),
            limits::SHEET_ROWS as u64 - 1,
            0,
            json!([[1]]),
        )
    };
    let rows_at_limit: Vec<Op> = (0..10).map(to_last_row).collect();
    let mut rows_past = rows_at_limit.clone();
    rows_past.push(set_range(&sheet, Some("s10"), 0, 0, json!([[1]])));
    let sources = in_writes(
        note(),
        (0..limits::SOURCES - 1).map(add_source).collect(),
        limits::OPS,
    );
    let files = in_writes(
        note(),
        (0..limits::FILES - 1).map(add_file).collect(),
        limits::OPS,
    );
    let url = |len: usize| {
        let head = "https://example.org/";
        format!("{head}{}", "a".repeat(len - head.len()))
    };
    let text = |len: usize| Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: "é".repeat(len / 2) + &"x".repeat(len % 2),
    };
    let text_room = limits::NOTE_TEXT_BYTES - frame_bytes(&note());
    let full_sheet_rows = limits::SHEET_CELLS / limits::SHEET_COLS;
    let full_sheet = applied(
        &sheet_note,
        &[column_at(
            &sheet,
            limits::SHEET_COLS as u64 - 1,
            full_sheet_rows,
        )],
    )
    .note;

    vec![
        Case {
            limit: "OPS: operations in one write",
            base: note(),
            at_limit: title_ops(limits::OPS),
            past: title_ops(limits::OPS + 1),
            field: "changes",
            code: "limit_exceeded",
        },
        Case {
            limit: "TABS: tabs in a Note, the fixed three included",
            base: note(),
            at_limit: create_sheets(limits::TABS - 3),
            past: create_sheets(limits::TABS - 2),
            field: "changes[197].tab_type",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_CELLS: one value per row at the last column pads every row to 1,000 cells",
            base: sheet_note.clone(),
            at_limit: vec![column_at(&sheet, 999, full_sheet_rows)],
            past: vec![column_at(&sheet, 999, full_sheet_rows + 1)],
            field: "changes[0].start_col",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_CELLS: the finding's request (30,000 rows at column 999) is refused",
            base: sheet_note.clone(),
            at_limit: vec![column_at(&sheet, 999, 2_000)],
            past: vec![column_at(&sheet, 999, 30_000)],
            field: "changes[0].start_col",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_CELLS: a full sheet is edited in place, not grown",
            base: full_sheet.clone(),
            at_limit: vec![set_range(&sheet, None, 7, 3, json!([[1, "two"], [3, 4]]))],
            past: vec![set_range(
                &sheet,
                None,
                full_sheet_rows as u64,
                0,
                json!([[1]]),
            )],
            field: "changes[0].values",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_CELLS: counted over every sheet of the Note",
            base: full_sheet.clone(),
            at_limit: create_sheets(1),
            past: vec![
                Op::CreateTab {
                    tab_type: NewTabKind::Sheet,
                    label: None,
                    slides: None,
                },
                set_range(&TabId::new("sheet-2-mhcy8c8w"), None, 0, 0, json!([[1]])),
            ],
            field: "changes[1].values",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_ROWS: a sheet's rows",
            base: sheet_note.clone(),
            at_limit: vec![set_range(
                &sheet,
                None,
                limits::SHEET_ROWS as u64 - 1,
                0,
                json!([[1]]),
            )],
            past: vec![set_range(
                &sheet,
                None,
                limits::SHEET_ROWS as u64,
                0,
                json!([[1]]),
            )],
            field: "changes[0].start_row",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEET_COLS: a sheet's columns",
            base: sheet_note.clone(),
            at_limit: vec![set_range(
                &sheet,
                None,
                0,
                limits::SHEET_COLS as u64 - 1,
                json!([[1]]),
            )],
            past: vec![set_range(
                &sheet,
                None,
                0,
                limits::SHEET_COLS as u64,
                json!([[1]]),
            )],
            field: "changes[0].start_col",
            code: "limit_exceeded",
        },
        Case {
            limit: "NOTE_ROWS: rows of all the sheets of a Note",
            base: eleven_sheets,
            at_limit: rows_at_limit,
            past: rows_past,
            field: "changes[10].values",
            code: "limit_exceeded",
        },
        Case {
            limit: "SHEETS: sheets in a Sheet tab",
            base: sheet_note.clone(),
            at_limit: vec![replace_sheets(limits::SHEETS)],
            past: vec![replace_sheets(limits::SHEETS + 1)],
            field: "changes[0].data.sheets",
            code: "limit_exceeded",
        },
        Case {
            limit: "DECK_SLIDES: slides added to a deck",
            base: full_deck.clone(),
            at_limit: outline(1),
            past: [
                outline(1),
                vec![Op::SlideAdd {
                    tab_id: deck.clone(),
                    title: "one more".into(),
                    body: String::new(),
                    notes: String::new(),
                }],
            ]
            .concat(),
            field: "changes[1].tab_id",
            code: "limit_exceeded",
        },
        Case {
            limit: "DECK_SLIDES: a deck replaced whole",
            base: deck_note.clone(),
            at_limit: vec![replace_deck(limits::DECK_SLIDES)],
            past: vec![replace_deck(limits::DECK_SLIDES + 1)],
            field: "changes[0].data.slides",
            code: "limit_exceeded",
        },
        Case {
            limit: "NOTE_TEXT_BYTES: the Note's text, in bytes",
            base: note(),
            at_limit: vec![text(text_room)],
            past: vec![text(text_room + 1)],
            field: "changes",
            code: "limit_exceeded",
        },
        Case {
            limit: "SOURCES: cited pages",
            base: sources.clone(),
            at_limit: vec![add_source(limits::SOURCES)],
            past: vec![add_source(limits::SOURCES), add_source(limits::SOURCES + 1)],
            field: "changes[1].url",
            code: "limit_exceeded",
        },
        Case {
            limit: "FILES: attachments",
            base: files,
            at_limit: vec![add_file(limits::FILES)],
            past: vec![add_file(limits::FILES), add_file(limits::FILES + 1)],
            field: "changes[1].name",
            code: "limit_exceeded",
        },
        Case {
            limit: "URL_BYTES: a source's URL",
            base: note(),
            at_limit: vec![Op::AddSource {
                title: "t".into(),
                url: url(limits::URL_BYTES),
            }],
            past: vec![Op::AddSource {
                title: "t".into(),
                url: url(limits::URL_BYTES + 1),
            }],
            field: "changes[0].url",
            code: "limit_exceeded",
        },
        Case {
            limit: "URL_BYTES: counted as stored (an é, 2 bytes sent, is stored as %C3%A9)",
            base: note(),
            at_limit: vec![Op::AddSource {
                title: "t".into(),
                url: url(limits::URL_BYTES - 6) + "é",
            }],
            past: vec![Op::AddSource {
                title: "t".into(),
                url: url(limits::URL_BYTES - 5) + "é",
            }],
            field: "changes[0].url",
            code: "limit_exceeded",
        },
        Case {
            limit: "SOURCE_TITLE_CHARS: a source's title, in characters",
            base: note(),
            at_limit: vec![Op::AddSource {
                title: "é".repeat(limits::SOURCE_TITLE_CHARS),
                url: "https://example.org".into(),
            }],
            past: vec![Op::AddSource {
                title: "é".repeat(limits::SOURCE_TITLE_CHARS + 1),
                url: "https://example.org".into(),
            }],
            field: "changes[0].title",
            code: "limit_exceeded",
        },
        Case {
            limit: "FILE_NAME_CHARS: a file's name, in characters",
            base: note(),
            at_limit: vec![Op::AddFile {
                name: "é".repeat(limits::FILE_NAME_CHARS),
                mime: "text/plain".into(),
                size: 1,
                sha256: "a".repeat(64),
            }],
            past: vec![Op::AddFile {
                name: "é".repeat(limits::FILE_NAME_CHARS + 1),
                mime: "text/plain".into(),
                size: 1,
                sha256: "a".repeat(64),
            }],
            field: "changes[0].name",
            code: "limit_exceeded",
        },
        Case {
            limit: "MIME_BYTES: a file's media type",
            base: note(),
            at_limit: vec![Op::AddFile {
                name: "a".into(),
                mime: format!("text/{}", "x".repeat(limits::MIME_BYTES - 5)),
                size: 1,
                sha256: "a".repeat(64),
            }],
            past: vec![Op::AddFile {
                name: "a".into(),
                mime: format!("text/{}", "x".repeat(limits::MIME_BYTES - 4)),
                size: 1,
                sha256: "a".repeat(64),
            }],
            field: "changes[0].mime",
            code: "limit_exceeded",
        },
        Case {
            limit: "TITLE_CHARS: the Note's title",
            base: note(),
            at_limit: vec![Op::SetTitle {
                title: "é".repeat(limits::TITLE_CHARS),
            }],
            past: vec![Op::SetTitle {
                title: "é".repeat(limits::TITLE_CHARS + 1),
            }],
            field: "changes[0].title",
            code: "invalid_op",
        },
        Case {
            limit: "LABEL_CHARS: a tab's label",
            base: note(),
            at_limit: vec![Op::RenameTab {
                tab_id: TabId::new(TabId::MARKDOWN),
                label: "é".repeat(limits::LABEL_CHARS),
            }],
            past: vec![Op::RenameTab {
                tab_id: TabId::new(TabId::MARKDOWN),
                label: "é".repeat(limits::LABEL_CHARS + 1),
            }],
            field: "changes[0].label",
            code: "invalid_op",
        },
    ]
}

#[test]
fn each_limit_is_reached_and_not_passed() {
    for case in cases() {
        let name = case.limit;
        let before = case.base.clone();
        let reached = apply(&case.base, &case.at_limit, &ctx());
        assert!(
            reached.is_ok(),
            "{name}: at the limit, refused: {:?}",
            reached.err().map(|e| (e.path(), e.reason))
        );
        let refused = match apply(&case.base, &case.past, &ctx()) {
            Ok(_) => panic!("{name}: past the limit, accepted"),
            Err(e) => e,
        };
        assert_eq!(
            (refused.path().as_str(), refused.code.as_str()),
            (case.field, case.code),
            "{name}: {}",
            refused.reason
        );
        assert!(
            refused.reason.len() < 200,
            "{name}: a short reason, got {} bytes",
            refused.reason.len()
        );
        assert_eq!(case.base, before, "{name}: the Note is untouched");
    }
}

/// The reason names the limit and its number, so that a person or an agent can act on it.
#[test]
fn a_refusal_names_the_limit() {
    let (n, sheet) = with_tab(&note(), NewTabKind::Sheet);
    let e = refusal(&n, &[column_at(&sheet, 999, 30_000)]);
    assert_eq!(
        e.reason,
        "the Note's sheets would store 30000000 cells; at most 2000000 (empty cells a range pads in count)"
    );
    let many: Vec<Op> = (0..60_000)
        .map(|_| Op::CreateTab {
            tab_type: NewTabKind::Sheet,
            label: None,
            slides: None,
        })
        .collect();
    let e = refusal(&note(), &many);
    assert_eq!(
        e.reason,
        "60000 operations in one write; at most 1000: send them in several writes"
    );
}

/// A Note stored before a bound existed (here: more tabs than `TABS`) stays editable; it only
/// cannot grow further.
#[test]
fn a_note_already_past_a_limit_is_edited_not_grown() {
    let (n, deck) = with_tab(&note(), NewTabKind::Slides);
    let slides: Vec<Value> = (0..limits::DECK_SLIDES)
        .map(|i| json!({"id": format!("s{i}"), "title": "t"}))
        .collect();
    let replace = Op::ReplaceTabData {
        tab_id: deck.clone(),
        data: json!({ "slides": slides }),
    };
    let mut n = applied(&n, &[replace]).note;
    // One slide past the limit, as if stored before it existed.
    let tab = n.tabs.iter_mut().find(|t| t.id == deck).unwrap();
    let TabData::Slides(d) = &mut tab.data else {
        panic!()
    };
    let mut extra = d.slides[0].clone();
    extra.id = "extra".into();
    d.slides.push(extra);
    let layout = Op::SetSlideLayout {
        tab_id: deck.clone(),
        slide_id: "extra".into(),
        layout: quire_model::Layout::Section,
    };
    assert!(apply(&n, &[layout], &ctx()).is_ok());
    let grow = Op::SlideAdd {
        tab_id: deck,
        title: "more".into(),
        body: String::new(),
        notes: String::new(),
    };
    assert_eq!(refusal(&n, &[grow]).code.as_str(), "limit_exceeded");
}

/// An unknown tab is refused in a few words, whatever the Note holds and whatever was sent: the
/// first IDs, not every one.
#[test]
fn a_missing_tab_is_named_briefly() {
    let many: Vec<Op> = (0..limits::TABS - 3)
        .map(|_| Op::CreateTab {
            tab_type: NewTabKind::Sheet,
            label: None,
            slides: None,
        })
        .collect();
    let n = applied(&note(), &many).note;
    let e = refusal(
        &n,
        &[Op::RenameTab {
            tab_id: TabId::new("x".repeat(100_000)),
            label: "l".into(),
        }],
    );
    assert_eq!(e.code.as_str(), "tab_not_found");
    assert!(e.reason.len() < 300, "{}", e.reason);
    assert!(
        e.reason.contains("markdown, files, sources"),
        "{}",
        e.reason
    );
    assert!(e.reason.contains("and 194 more"), "{}", e.reason);
}
