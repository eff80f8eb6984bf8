//! Table tests for `apply`: what each operation does, and the exact refusal for bad input.
#![allow(clippy::unwrap_used)]

use quire_model::{Note, Op, OpOutcome, TabData, TabId, TabKind, apply, restore};
use serde_json::{Value, json};

mod common;
use common::{ctx, note};

fn ops(v: Value) -> Vec<Op> {
    serde_json::from_value(v).unwrap()
}

/// Applies `changes` to `n`, returning the new note (panics on refusal).
fn ok(n: &Note, changes: Value) -> quire_model::Applied {
    apply(n, &ops(changes), &ctx()).unwrap()
}

/// Applies `changes` and returns the refusal as "code field: reason".
fn refused(n: &Note, changes: Value) -> String {
    let e = apply(n, &ops(changes), &ctx()).unwrap_err();
    format!("{} {}", e.code.as_str(), e)
}

fn tab<'n>(n: &'n Note, id: &str) -> &'n quire_model::Tab {
    n.tab(&TabId::new(id)).unwrap()
}

#[test]
fn a_new_note_has_the_fixed_tabs_at_version_1() {
    let n = note();
    assert_eq!(n.version.0, 1);
    let strip: Vec<_> = n.tabs.iter().map(|t| (t.id.as_str(), t.kind())).collect();
    assert_eq!(
        strip,
        [
            ("markdown", TabKind::Markdown),
            ("files", TabKind::Files),
            ("sources", TabKind::Sources)
        ]
    );
    let wire = serde_json::to_value(&n.tabs[0]).unwrap();
    assert_eq!(
        wire,
        json!({"id": "markdown", "type": "markdown", "label": "Note", "data": ""})
    );
}

#[test]
fn replace_text_replaces_the_markdown_tab() {
    let a = ok(
        &note(),
        json!([{"op": "replace_text", "tab_id": "markdown", "text": "# Hi"}]),
    );
    assert_eq!(
        tab(&a.note, "markdown").data,
        TabData::Markdown("# Hi".into())
    );
    assert_eq!(a.changed_tab_ids, [TabId::new("markdown")]);
    assert_eq!(a.note.version.0, 1, "apply never bumps; the store does");
}

#[test]
fn tabs_resolve_by_exact_instance_id_only() {
    let n = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "slides", "label": "Deck"}]),
    )
    .note;
    // Type, label and position are not handles.
    for handle in ["slides", "Deck", "3", "Markdown", " markdown"] {
        let msg = refused(
            &n,
            json!([{"op": "slide_add", "tab_id": handle, "title": "x"}]),
        );
        assert!(
            msg.starts_with(&format!(
                "tab_not_found tab_id: no tab {handle:?} in this note"
            )),
            "{msg}"
        );
    }
}

#[test]
fn created_tabs_get_counter_and_time_ids_never_reused() {
    let n = note();
    let a = ok(
        &n,
        json!([
            {"op": "create_tab", "tab_type": "sheet"},
            {"op": "create_tab", "tab_type": "slides", "slides": [{"title": "One"}, {"title": "Two", "body": "b", "notes": "n"}]}
        ]),
    );
    assert_eq!(
        a.outcomes[0],
        OpOutcome::TabCreated {
            tab_id: TabId::new("sheet-1-mhcy8c8w")
        }
    );
    // Two slides consumed counter values 3 and 4 after the deck's own 2.
    assert_eq!(
        a.outcomes[1],
        OpOutcome::TabCreated {
            tab_id: TabId::new("slides-2-mhcy8c8w")
        }
    );
    let deck = tab(&a.note, "slides-2-mhcy8c8w");
    assert_eq!(deck.label, "Slides");
    let TabData::Slides(d) = &deck.data else {
        panic!()
    };
    let ids: Vec<_> = d.slides.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["slide-3-mhcy8c8w", "slide-4-mhcy8c8w"]);

    // Delete the sheet, then create another: the number is not reused.
    let b = ok(
        &a.note,
        json!([{"op": "delete_tab", "tab_id": "sheet-1-mhcy8c8w"}, {"op": "create_tab", "tab_type": "sheet"}]),
    );
    assert_eq!(
        b.outcomes[1],
        OpOutcome::TabCreated {
            tab_id: TabId::new("sheet-5-mhcy8c8w")
        }
    );
}

#[test]
fn a_batch_applies_all_or_nothing() {
    let n = note();
    let e = apply(
        &n,
        &ops(json!([
            {"op": "replace_text", "tab_id": "markdown", "text": "kept?"},
            {"op": "rename_tab", "tab_id": "nope", "label": "x"}
        ])),
        &ctx(),
    )
    .unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.path(), "changes[1].tab_id");
    assert_eq!(n, note(), "the input is untouched");
}

#[test]
fn refusals_name_the_field_and_the_reason() {
    let base = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "sheet"}, {"op": "create_tab", "tab_type": "slides"}]),
    )
    .note;
    let too_many: Vec<Value> = (0..21).map(|i| json!({"title": format!("s{i}")})).collect();
    let table = [
        (
            json!([]),
            "invalid_op changes: at least one change is required",
        ),
        (
            json!([{"op": "replace_text", "tab_id": "sheet-1-mhcy8c8w", "text": "x"}]),
            "invalid_op tab_id: \"sheet-1-mhcy8c8w\" is a sheet tab; replace_text works on a markdown tab",
        ),
        (
            json!([{"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "sheet_id": "zz", "start_row": 0, "start_col": 0, "values": [[1]]}]),
            "item_not_found sheet_id: no sheet \"zz\" in tab sheet-1-mhcy8c8w",
        ),
        (
            json!([{"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "start_row": 0, "start_col": 0, "values": [[1, {"a": 1}]]}]),
            "invalid_op values[0][1]: a cell is a string, number, boolean or null",
        ),
        (
            json!([{"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "start_row": 0, "start_col": 0, "values": []}]),
            "invalid_op values: at least one row is required",
        ),
        (
            json!([{"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "start_row": 0, "start_col": 999, "values": [[1, 2]]}]),
            "limit_exceeded start_col: the range ends past column 1000",
        ),
        (
            json!([{"op": "slides_add_outline", "tab_id": "slides-2-mhcy8c8w", "slides": too_many}]),
            "invalid_op slides: maxItems 20: 21 slides given; send the rest with another call",
        ),
        (
            json!([{"op": "slides_add_outline", "tab_id": "slides-2-mhcy8c8w", "slides": []}]),
            "invalid_op slides: minItems 1: an outline needs a slide",
        ),
        (
            json!([{"op": "create_tab", "tab_type": "sheet", "slides": [{"title": "a"}]}]),
            "invalid_op slides: only a slides tab starts from an outline",
        ),
        (
            json!([{"op": "rename_tab", "tab_id": "markdown", "label": "   "}]),
            "invalid_op label: must not be empty",
        ),
        (
            json!([{"op": "move_tab", "tab_id": "markdown", "index": 5}]),
            "invalid_op index: 5 is past the end of the strip (0 to 4)",
        ),
        (
            json!([{"op": "delete_tab", "tab_id": "sources"}]),
            "invalid_op tab_id: the sources tab is fixed and cannot be deleted",
        ),
        (
            json!([{"op": "add_source", "title": "x", "url": "javascript:alert(1)"}]),
            "invalid_url url: only http and https links can be sources, not javascript:",
        ),
        (
            json!([{"op": "add_source", "title": "x", "url": "ftp://example.org/f"}]),
            "invalid_url url: only http and https links can be sources, not ftp:",
        ),
        (
            json!([{"op": "add_source", "title": " ", "url": "https://example.org"}]),
            "invalid_op title: must not be empty",
        ),
        (
            json!([{"op": "remove_source", "source_id": "src-9"}]),
            "item_not_found source_id: no source \"src-9\" in this note",
        ),
        (
            json!([{"op": "add_file", "name": "a.txt", "mime": "text/plain", "size": 1, "sha256": "XYZ"}]),
            "invalid_op sha256: must be 64 lower-case hex digits",
        ),
        (
            json!([{"op": "replace_tab_data", "tab_id": "sources", "data": []}]),
            "invalid_op tab_id: the sources tab changes only through its own operations (add/remove), not replace_tab_data",
        ),
        (
            json!([{"op": "replace_tab_data", "tab_id": "sheet-1-mhcy8c8w", "data": {"sheets": []}}]),
            "invalid_op data.sheets: a sheet tab holds at least one sheet",
        ),
        (
            json!([{"op": "replace_tab_data", "tab_id": "slides-2-mhcy8c8w", "data": {"theme": "paper", "slides": [{"id": "a", "title": "x"}, {"id": "a", "title": "y"}]}}]),
            "invalid_op data.slides[1].id: \"a\" is used twice",
        ),
        (
            json!([{"op": "set_slide_layout", "tab_id": "slides-2-mhcy8c8w", "slide_id": "nope", "layout": "section"}]),
            "item_not_found slide_id: no slide \"nope\" in this note",
        ),
        (
            json!([{"op": "set_theme", "tab_id": "markdown", "theme": "ocean"}]),
            "invalid_op tab_id: \"markdown\" is a markdown tab; set_theme works on a slides tab",
        ),
    ];
    for (changes, want) in table {
        let got = refused(&base, changes.clone());
        assert_eq!(got, want, "for {changes}");
    }
}

#[test]
fn replace_tab_data_reports_the_shape_problem() {
    let n = ok(&note(), json!([{"op": "create_tab", "tab_type": "sheet"}])).note;
    let msg = refused(
        &n,
        json!([{"op": "replace_tab_data", "tab_id": "sheet-1-mhcy8c8w", "data": {"sheets": [{"id": "s1", "name": "A", "rows": [], "colour": 1}]}}]),
    );
    assert!(
        msg.starts_with("invalid_op data: not sheet tab data: unknown field `colour`"),
        "{msg}"
    );
    let msg = refused(
        &n,
        json!([{"op": "replace_tab_data", "tab_id": "markdown", "data": 5}]),
    );
    assert!(
        msg.starts_with("invalid_op data: not markdown tab data"),
        "{msg}"
    );
}

#[test]
fn unknown_ops_and_fields_do_not_parse() {
    let unknown_op = serde_json::from_value::<Op>(json!({"op": "slides_add", "tab_id": "x"}));
    assert!(
        unknown_op
            .unwrap_err()
            .to_string()
            .contains("unknown variant `slides_add`")
    );
    let extra = serde_json::from_value::<Op>(
        json!({"op": "slide_add", "tab_id": "x", "title": "t", "index": 0}),
    );
    assert!(
        extra
            .unwrap_err()
            .to_string()
            .contains("unknown field `index`")
    );
    let bullets = serde_json::from_value::<Op>(
        json!({"op": "slides_add_outline", "tab_id": "x", "slides": [{"title": "t", "bullets": []}]}),
    );
    assert!(
        bullets
            .unwrap_err()
            .to_string()
            .contains("unknown field `bullets`")
    );
}

#[test]
fn sheet_set_range_grows_the_grid() {
    let n = ok(&note(), json!([{"op": "create_tab", "tab_type": "sheet"}])).note;
    let a = ok(
        &n,
        json!([{"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "start_row": 1, "start_col": 2, "values": [["a", 1], [true, null, 2.5]]}]),
    );
    let TabData::Sheet(s) = &tab(&a.note, "sheet-1-mhcy8c8w").data else {
        panic!()
    };
    assert_eq!(
        serde_json::to_value(&s.sheets[0].rows).unwrap(),
        json!([[], [null, null, "a", 1], [null, null, true, null, 2.5]])
    );
    assert_eq!(a.summary, "set 5 cells in \"Sheet\"");
}

/// A range is a change only if a cell gets another value (or the grid grows): writing what is
/// there changes nothing, writing over it changes the tab, whichever comes last in the batch.
#[test]
fn a_range_of_the_values_already_there_changes_nothing() {
    let sheet = "sheet-1-mhcy8c8w";
    let n = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "sheet"},
               {"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0, "values": [[1, "a"]]}]),
    )
    .note;
    let same = json!({"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0, "values": [[1, "a"]]});
    let other = json!({"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 1, "values": [["b"]]});
    let back = json!({"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 1, "values": [["a"]]});
    assert!(ok(&n, json!([same])).is_noop());
    assert_eq!(ok(&n, json!([other])).changed_tab_ids, [TabId::new(sheet)]);
    // Changed by one op and changed back by the next: the tab is as it was.
    assert!(ok(&n, json!([other, back])).is_noop());
}

/// A write copies the rows it writes, not the sheet: every other row of the new Note is the
/// very row of the Note before (so a copy of a 2,000,000-cell Note costs a pointer per row).
#[test]
fn a_cell_write_copies_only_its_row() {
    let sheet = "sheet-1-mhcy8c8w";
    let rows: Vec<Value> = (0..50).map(|r| json!([r, "x", r * 2])).collect();
    let n = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "sheet"},
               {"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0, "values": rows}]),
    )
    .note;
    let a = ok(
        &n,
        json!([{"op": "sheet_set_range", "tab_id": sheet, "start_row": 7, "start_col": 1, "values": [["y"]]},
               {"op": "sheet_set_range", "tab_id": sheet, "start_row": 9, "start_col": 0, "values": [[9]]}]),
    );
    let rows_of = |n: &Note| match &tab(n, sheet).data {
        TabData::Sheet(s) => s.sheets[0].rows.clone(),
        _ => panic!("not a sheet"),
    };
    let (before, after) = (rows_of(&n), rows_of(&a.note));
    let copied: Vec<usize> = (0..50).filter(|&r| !before[r].shares(&after[r])).collect();
    // Row 9 was written with the value it held: left shared.
    assert_eq!(copied, [7]);
    assert_eq!(after[7], vec![json!(7), json!("y"), json!(14)]);
    assert_eq!(before[7], vec![json!(7), json!("x"), json!(14)]);
    assert_eq!(a.changed_tab_ids, [TabId::new(sheet)]);
}

#[test]
fn rename_trims_and_allows_duplicate_labels() {
    let n = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "slides"}, {"op": "create_tab", "tab_type": "slides"}]),
    )
    .note;
    let a = ok(
        &n,
        json!([
            {"op": "rename_tab", "tab_id": "slides-1-mhcy8c8w", "label": "  Pitch "},
            {"op": "rename_tab", "tab_id": "slides-2-mhcy8c8w", "label": "Pitch"}
        ]),
    );
    assert_eq!(tab(&a.note, "slides-1-mhcy8c8w").label, "Pitch");
    assert_eq!(tab(&a.note, "slides-2-mhcy8c8w").label, "Pitch");
}

#[test]
fn move_reports_only_the_moved_tab() {
    let a = ok(
        &note(),
        json!([{"op": "move_tab", "tab_id": "sources", "index": 0}]),
    );
    assert_eq!(
        a.note.tab_ids(),
        ["sources", "markdown", "files"].map(TabId::new)
    );
    assert_eq!(a.changed_tab_ids, [TabId::new("sources")]);
    let same = ok(
        &note(),
        json!([{"op": "move_tab", "tab_id": "markdown", "index": 0}]),
    );
    assert!(same.is_noop());
}

#[test]
fn a_page_is_cited_once_whatever_the_spelling() {
    let a = ok(
        &note(),
        json!([{"op": "add_source", "title": "Report", "url": "example.org/report/"}]),
    );
    let OpOutcome::SourceAdded {
        source_id,
        already_attached: false,
    } = &a.outcomes[0]
    else {
        panic!("{:?}", a.outcomes)
    };
    let TabData::Sources(s) = &tab(&a.note, "sources").data else {
        panic!()
    };
    assert_eq!(s[0].url, "https://example.org/report/");
    assert_eq!(s[0].normalized_url, "https://example.org/report");
    assert_eq!(s[0].added_by, "claude");
    assert_eq!(s[0].added_at, "2025-10-30T04:53:20.000Z");

    let again = ok(
        &a.note,
        json!([{"op": "add_source", "title": "Better title", "url": "http://WWW.example.org/report?utm_source=x#top"}]),
    );
    assert_eq!(
        again.outcomes[0],
        OpOutcome::SourceAdded {
            source_id: source_id.clone(),
            already_attached: true
        }
    );
    assert!(again.is_noop());
}

#[test]
fn files_are_metadata() {
    let sha = "a".repeat(64);
    let a = ok(
        &note(),
        json!([{"op": "add_file", "name": " plan.pdf ", "mime": "application/pdf", "size": 1234, "sha256": sha}]),
    );
    let OpOutcome::FileAdded { file_id } = &a.outcomes[0] else {
        panic!()
    };
    assert_eq!(file_id, "file-1-mhcy8c8w");
    let b = ok(&a.note, json!([{"op": "remove_file", "file_id": file_id}]));
    assert_eq!(tab(&b.note, "files").data, TabData::Files(vec![]));
}

#[test]
fn slides_theme_and_layout_are_the_persons() {
    let a = ok(
        &note(),
        json!([{"op": "create_tab", "tab_type": "slides", "slides": [{"title": "Intro"}]}]),
    );
    let b = ok(
        &a.note,
        json!([
            {"op": "set_theme", "tab_id": "slides-1-mhcy8c8w", "theme": "ocean"},
            {"op": "set_slide_layout", "tab_id": "slides-1-mhcy8c8w", "slide_id": "slide-2-mhcy8c8w", "layout": "section"},
            {"op": "slide_add", "tab_id": "slides-1-mhcy8c8w", "title": "Next", "body": "b"}
        ]),
    );
    let tab_json = serde_json::to_value(tab(&b.note, "slides-1-mhcy8c8w")).unwrap();
    assert_eq!(
        tab_json["data"],
        json!({"theme": "ocean", "slides": [
            {"id": "slide-2-mhcy8c8w", "title": "Intro", "body": "", "notes": "", "layout": "section"},
            {"id": "slide-3-mhcy8c8w", "title": "Next", "body": "b", "notes": "", "layout": "title_and_body"}
        ]})
    );
    assert_eq!(b.changed_tab_ids, [TabId::new("slides-1-mhcy8c8w")]);
}

#[test]
fn restore_brings_back_an_old_state_without_reusing_ids() {
    let v1 = note();
    let v2 = ok(
        &v1,
        json!([{"op": "create_tab", "tab_type": "sheet"}, {"op": "set_title", "title": "New"}]),
    )
    .note;
    let r = restore(&v2, &v1);
    assert_eq!(r.note.tabs, v1.tabs);
    assert_eq!(r.note.title, "Brief");
    assert_eq!(r.note.seq, 1, "the counter never goes back");
    assert_eq!(r.changed_tab_ids, [TabId::new("sheet-1-mhcy8c8w")]);
    assert!(r.title_changed);
    assert_eq!(r.summary, "restored version 1");
    assert!(restore(&v1, &v1).is_noop());
}

#[test]
fn notes_round_trip_through_json() {
    let a = ok(
        &note(),
        json!([
            {"op": "create_tab", "tab_type": "sheet"},
            {"op": "create_tab", "tab_type": "slides", "slides": [{"title": "T"}]},
            {"op": "add_source", "title": "R", "url": "https://example.org"},
            {"op": "replace_text", "tab_id": "markdown", "text": "hello"}
        ]),
    );
    let text = serde_json::to_string(&a.note).unwrap();
    let back: Note = serde_json::from_str(&text).unwrap();
    assert_eq!(back, a.note);
}

#[test]
fn summaries_name_tabs_by_their_labels() {
    let n = ok(
        &note(),
        json!([
            {"op": "create_tab", "tab_type": "sheet", "label": "Budget"},
            {"op": "create_tab", "tab_type": "slides", "label": "Pitch", "slides": [{"title": "T"}]}
        ]),
    );
    assert_eq!(
        n.summary, "created sheet tab \"Budget\"; created slides tab \"Pitch\"",
        "{}",
        n.summary
    );
    let n = n.note;
    let slide = match &tab(&n, "slides-2-mhcy8c8w").data {
        TabData::Slides(d) => d.slides[0].id.clone(),
        _ => panic!("a deck"),
    };
    let cases = [
        (
            json!({"op": "replace_text", "tab_id": "markdown", "text": "x"}),
            "replaced the text of \"Note\"",
        ),
        (
            json!({"op": "sheet_set_range", "tab_id": "sheet-1-mhcy8c8w", "start_row": 0, "start_col": 0, "values": [[1]]}),
            "set 1 cells in \"Budget\"",
        ),
        (
            json!({"op": "replace_tab_data", "tab_id": "sheet-1-mhcy8c8w", "data": {"sheets": [{"id": "s1", "name": "A", "rows": []}]}}),
            "replaced the content of \"Budget\"",
        ),
        (
            json!({"op": "slide_add", "tab_id": "slides-2-mhcy8c8w", "title": "Ask"}),
            "added slide \"Ask\" to \"Pitch\"",
        ),
        (
            json!({"op": "slides_add_outline", "tab_id": "slides-2-mhcy8c8w", "slides": [{"title": "A"}, {"title": "B"}]}),
            "added 2 slides to \"Pitch\"",
        ),
        (
            json!({"op": "set_theme", "tab_id": "slides-2-mhcy8c8w", "theme": "ocean"}),
            "changed the theme of \"Pitch\"",
        ),
        (
            json!({"op": "set_slide_layout", "tab_id": "slides-2-mhcy8c8w", "slide_id": slide, "layout": "quote"}),
            "changed a slide layout in \"Pitch\"",
        ),
        (
            json!({"op": "rename_tab", "tab_id": "sheet-1-mhcy8c8w", "label": "Costs"}),
            "renamed \"Budget\" to \"Costs\"",
        ),
        (
            json!({"op": "move_tab", "tab_id": "sheet-1-mhcy8c8w", "index": 0}),
            "moved \"Budget\" to position 0",
        ),
        (
            json!({"op": "delete_tab", "tab_id": "slides-2-mhcy8c8w"}),
            "deleted slides tab \"Pitch\"",
        ),
    ];
    for (op, want) in cases {
        assert_eq!(ok(&n, json!([op])).summary, want);
    }
}
