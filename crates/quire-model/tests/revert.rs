//! Table tests for `revert`: one version taken back, merged into every later write, per tab
//! kind; and each clash.
#![allow(clippy::unwrap_used)]

use quire_model::{Note, Op, TabData, TabId, Version, apply, revert};
use serde_json::{Value, json};

mod common;
use common::{ctx, note};

/// The Note after `changes`, one version later.
fn write(n: &Note, changes: Value) -> Note {
    let ops: Vec<Op> = serde_json::from_value(changes).unwrap();
    let mut next = apply(n, &ops, &ctx()).unwrap().note;
    next.version = Version(n.version.0 + 1);
    next
}

fn text(n: &Note, id: &str) -> String {
    match &n.tab(&TabId::new(id)).unwrap().data {
        TabData::Markdown(t) => t.to_string(),
        other => panic!("{other:?}"),
    }
}

fn md(t: &str) -> Value {
    json!([{"op": "replace_text", "tab_id": "markdown", "text": t}])
}

fn clashing(before: &Note, at: &Note, now: &Note) -> Vec<String> {
    revert(before, at, now)
        .unwrap_err()
        .tab_ids
        .iter()
        .map(|t| t.as_str().to_owned())
        .collect()
}

#[test]
fn a_text_edit_is_taken_back_and_later_lines_elsewhere_stay() {
    let base = write(&note(), md("one\ntwo\nthree\nfour\nfive"));
    let at = write(&base, md("one\nTWO\nthree\nfour\nfive"));
    // Later: the next line but one, and a line added at the end.
    let now = write(&at, md("one\nTWO\nthree\nFOUR\nfive\nsix"));
    let back = revert(&base, &at, &now).unwrap();
    assert_eq!(text(&back, "markdown"), "one\ntwo\nthree\nFOUR\nfive\nsix");
    assert_eq!(back.version, now.version);

    // Nothing since: the text as it was.
    assert_eq!(
        text(&revert(&base, &at, &at).unwrap(), "markdown"),
        text(&base, "markdown")
    );
}

#[test]
fn a_later_edit_of_the_same_line_clashes() {
    let base = write(&note(), md("one\ntwo\nthree"));
    let at = write(&base, md("one\nTWO\nthree"));
    let now = write(&at, md("one\nTwo!\nthree"));
    assert_eq!(clashing(&base, &at, &now), ["markdown"]);
}

#[test]
fn inserted_and_deleted_lines_are_taken_back() {
    let base = write(&note(), md("a\nb\nc\nd"));
    let inserted = write(&base, md("a\nb\nnew\nc\nd"));
    let later = write(&inserted, md("A\nb\nnew\nc\nd"));
    assert_eq!(
        text(&revert(&base, &inserted, &later).unwrap(), "markdown"),
        "A\nb\nc\nd"
    );
    let deleted = write(&base, md("a\nd"));
    let later = write(&deleted, md("a\nd\ne"));
    assert_eq!(
        text(&revert(&base, &deleted, &later).unwrap(), "markdown"),
        "a\nb\nc\nd\ne"
    );
}

#[test]
fn a_created_tab_goes_unless_edited_since() {
    let base = note();
    let at = write(
        &base,
        json!([{"op": "create_tab", "tab_type": "sheet", "label": "Plan"}]),
    );
    let made = at
        .tabs
        .iter()
        .find(|t| base.tab(&t.id).is_none())
        .unwrap()
        .id
        .clone();
    let now = write(&at, md("the person's text"));
    let back = revert(&base, &at, &now).unwrap();
    assert!(back.tab(&made).is_none());
    assert_eq!(text(&back, "markdown"), "the person's text");

    let edited = write(
        &at,
        json!([{"op": "sheet_set_range", "tab_id": made.as_str(), "start_row": 0,
                "start_col": 0, "values": [["later"]]}]),
    );
    assert_eq!(clashing(&base, &at, &edited), [made.as_str()]);
}

#[test]
fn a_deleted_tab_comes_back_with_its_id_place_and_content() {
    let base = write(
        &note(),
        json!([{"op": "create_tab", "tab_type": "slides", "label": "Plan",
                "slides": [{"title": "kept"}]}]),
    );
    let plan = base
        .tabs
        .iter()
        .find(|t| t.label == "Plan")
        .unwrap()
        .clone();
    let base = write(
        &base,
        json!([{"op": "move_tab", "tab_id": plan.id.as_str(), "index": 1}]),
    );
    let at = write(
        &base,
        json!([{"op": "delete_tab", "tab_id": plan.id.as_str()}]),
    );
    let now = write(&at, md("later"));
    let back = revert(&base, &at, &now).unwrap();
    assert_eq!(back.tabs[1], plan);
    assert_eq!(text(&back, "markdown"), "later");
}

#[test]
fn a_move_goes_back_unless_moved_again() {
    let base = note();
    let at = write(
        &base,
        json!([{"op": "move_tab", "tab_id": "markdown", "index": 2}]),
    );
    let now = write(&at, md("x"));
    let ids = |n: &Note| {
        n.tabs
            .iter()
            .map(|t| t.id.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&revert(&base, &at, &now).unwrap()), ids(&base));
    let moved = write(
        &at,
        json!([{"op": "move_tab", "tab_id": "markdown", "index": 1}]),
    );
    assert_eq!(ids(&revert(&base, &at, &moved).unwrap()), ids(&moved));
}

fn sheet_note() -> (Note, String) {
    let n = write(
        &note(),
        json!([{"op": "create_tab", "tab_type": "sheet", "label": "Budget"}]),
    );
    let id = n
        .tabs
        .iter()
        .find(|t| t.label == "Budget")
        .unwrap()
        .id
        .as_str()
        .to_owned();
    let n = write(
        &n,
        json!([{"op": "sheet_set_range", "tab_id": id, "start_row": 0, "start_col": 0,
                "values": [[1, 2], [3, 4]]}]),
    );
    (n, id)
}

fn cell(n: &Note, id: &str, r: usize, c: usize) -> Value {
    match &n.tab(&TabId::new(id)).unwrap().data {
        TabData::Sheet(s) => s.sheets[0].rows[r][c].clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn sheets_revert_by_cell() {
    let (base, id) = sheet_note();
    let set = |n: &Note, r: u64, c: u64, v: Value| {
        write(
            n,
            json!([{"op": "sheet_set_range", "tab_id": id, "start_row": r, "start_col": c,
                    "values": [[v]]}]),
        )
    };
    let at = set(&base, 0, 0, json!(10));
    // The neighbouring cell, later: kept.
    let now = set(&at, 0, 1, json!(20));
    let back = revert(&base, &at, &now).unwrap();
    assert_eq!(
        (cell(&back, &id, 0, 0), cell(&back, &id, 0, 1)),
        (json!(1), json!(20))
    );
    // The same cell, later: a clash.
    let same = set(&at, 0, 0, json!(11));
    assert_eq!(clashing(&base, &at, &same), [id.as_str()]);
}

#[test]
fn decks_revert_by_slide() {
    let base = write(
        &note(),
        json!([{"op": "create_tab", "tab_type": "slides", "label": "Talk",
                "slides": [{"title": "One"}, {"title": "Two"}]}]),
    );
    let deck = base
        .tabs
        .iter()
        .find(|t| t.label == "Talk")
        .unwrap()
        .id
        .as_str()
        .to_owned();
    let at = write(
        &base,
        json!([{"op": "slide_add", "tab_id": deck, "title": "Three", "body": "", "notes": ""}]),
    );
    let slides = |n: &Note| match &n.tab(&TabId::new(&deck)).unwrap().data {
        TabData::Slides(d) => d.slides.iter().map(|s| s.title.clone()).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    let now = write(&at, md("elsewhere"));
    assert_eq!(slides(&revert(&base, &at, &now).unwrap()), ["One", "Two"]);
}

#[test]
fn sources_revert_by_item_and_a_title_goes_back() {
    let base = write(&note(), json!([{"op": "set_title", "title": "Old"}]));
    let at = write(
        &base,
        json!([{"op": "add_source", "title": "A page", "url": "https://example.org/a"},
               {"op": "set_title", "title": "New"}]),
    );
    let now = write(
        &at,
        json!([{"op": "add_source", "title": "Another", "url": "https://example.org/b"}]),
    );
    let back = revert(&base, &at, &now).unwrap();
    assert_eq!(back.title, "Old");
    let TabData::Sources(sources) = &back.tab(&TabId::new("sources")).unwrap().data else {
        panic!("sources")
    };
    let titles: Vec<&str> = sources.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["Another"]);
}

/// DESIGN.md: a later change on a different line never clashes, even on the next line.
#[test]
fn a_later_edit_of_the_next_line_does_not_clash() {
    let base = write(&note(), md("one\ntwo\nthree\nfour"));
    let at = write(&base, md("one\nTWO\nthree\nfour"));
    let now = write(&at, md("one\nTWO\nTHREE\nfour"));
    let back = revert(&base, &at, &now).unwrap();
    assert_eq!(text(&back, "markdown"), "one\ntwo\nTHREE\nfour");
    let above = write(&at, md("ONE\nTWO\nthree\nfour"));
    assert_eq!(
        text(&revert(&base, &at, &above).unwrap(), "markdown"),
        "ONE\ntwo\nthree\nfour"
    );
}
