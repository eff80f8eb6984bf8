//! Table tests for `merge_data`: the clean three-way merge of one tab, which the engine uses to
//! rebase the person's draft on another writer's change of the same tab. Only changes of the
//! same line, cell, slide or item clash.
#![allow(clippy::unwrap_used)]

use quire_model::merge::merge_data;
use quire_model::{TabData, TabKind};
use serde_json::{Value, json};

fn data(kind: TabKind, v: Value) -> TabData {
    TabData::from_value(kind, v).unwrap()
}

fn text(t: &str) -> TabData {
    TabData::Markdown(t.into())
}

fn sheet(cells: Value) -> TabData {
    data(
        TabKind::Sheet,
        json!({"sheets": [{"id": "s1", "name": "Sheet 1", "rows": cells}]}),
    )
}

fn deck(slides: Value) -> TabData {
    data(TabKind::Slides, json!({"slides": slides}))
}

fn slide(id: &str, title: &str) -> Value {
    json!({"id": id, "title": title})
}

#[test]
fn text_merges_unless_the_same_line_changed() {
    let long: String = (1..=500).map(|n| format!("line {n}\n")).collect();
    let person = long.replacen("line 3\n", "line 3 and more\n", 1);
    let agent = long.replacen("line 400\n", "line four hundred\n", 1);
    let both = person.replacen("line 400\n", "line four hundred\n", 1);
    assert_eq!(
        merge_data(&text(&long), &text(&person), &text(&agent)),
        Some(text(&both))
    );
    // Neighbouring lines merge; the same line, or a line the other side deleted, does not.
    let cases: &[(&str, &str, &str, Option<&str>)] = &[
        ("a\nb\nc", "A\nb\nc", "a\nB\nc", Some("A\nB\nc")),
        ("a\nb\nc", "a\nX\nc", "a\nY\nc", None),
        ("a\nb\nc", "a\nc", "a\nB\nc", None),
        ("a\nb\nc", "a\nb\nc", "a\nY\nc", Some("a\nY\nc")),
        ("a\nb\nc", "a\nX\nc", "a\nb\nc", Some("a\nX\nc")),
    ];
    for (base, mine, theirs, want) in cases {
        assert_eq!(
            merge_data(&text(base), &text(mine), &text(theirs)),
            want.map(text),
            "{base:?} {mine:?} {theirs:?}"
        );
    }
}

#[test]
fn sheets_merge_by_cell() {
    let base = sheet(json!([["a", "b"], ["c", "d"]]));
    let mine = sheet(json!([["A", "b"], ["c", "d"]]));
    let theirs = sheet(json!([["a", "B"], ["c", "d"]]));
    assert_eq!(
        merge_data(&base, &mine, &theirs),
        Some(sheet(json!([["A", "B"], ["c", "d"]])))
    );
    let clash = sheet(json!([["Z", "b"], ["c", "d"]]));
    assert_eq!(merge_data(&base, &mine, &clash), None);
}

#[test]
fn decks_merge_by_slide() {
    let base = deck(json!([slide("a", "One"), slide("b", "Two")]));
    let mine = deck(json!([slide("a", "One!"), slide("b", "Two")]));
    let theirs = deck(json!([slide("a", "One"), slide("b", "Two!")]));
    assert_eq!(
        merge_data(&base, &mine, &theirs),
        Some(deck(json!([slide("a", "One!"), slide("b", "Two!")])))
    );
    let clash = deck(json!([slide("a", "Uno"), slide("b", "Two")]));
    assert_eq!(merge_data(&base, &mine, &clash), None);
}

#[test]
fn different_kinds_do_not_merge() {
    let s = sheet(json!([["a"]]));
    assert_eq!(merge_data(&text("a"), &text("b"), &s), None);
}
