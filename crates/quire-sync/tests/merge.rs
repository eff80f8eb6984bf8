//! Three-way merges as data: each row is base, mine, theirs and the expected outcome.
#![allow(clippy::unwrap_used)]

use quire_model::{Deck, Layout, Sheet, SheetTab, Slide, TabData, Theme};
use quire_sync::merge::{
    ClashChoice, LineSource, MergeError, MergePreview, SheetClash, SlideClash, TabMerge, TextHunk,
    merge_decks, merge_sheets, merge_text,
};
use serde_json::{Value, json};

/// What a text merge should give: the clean text, or the clashes (mine, theirs) in order.
enum Expect {
    Clean(&'static str),
    Clashes(&'static [(&'static str, &'static str)]),
}

#[test]
fn text_merge_table() {
    use Expect::*;
    let cases: &[(&str, &str, &str, &str, Expect)] = &[
        // name, base, mine, theirs, expected
        (
            "nobody changed",
            "a\nb\nc",
            "a\nb\nc",
            "a\nb\nc",
            Clean("a\nb\nc"),
        ),
        (
            "only mine changed",
            "a\nb\nc",
            "a\nB\nc",
            "a\nb\nc",
            Clean("a\nB\nc"),
        ),
        (
            "only theirs changed",
            "a\nb\nc",
            "a\nb\nc",
            "a\nb\nC",
            Clean("a\nb\nC"),
        ),
        (
            "clean merge: different lines",
            "title\n\none\ntwo\nthree\nfour",
            "title\n\nONE\ntwo\nthree\nfour",
            "title\n\none\ntwo\nthree\nFOUR",
            Clean("title\n\nONE\ntwo\nthree\nFOUR"),
        ),
        (
            "clean merge: inserts in different places",
            "a\nb\nc\nd",
            "a\nmine\nb\nc\nd",
            "a\nb\nc\ntheirs\nd",
            Clean("a\nmine\nb\nc\ntheirs\nd"),
        ),
        (
            "clash: same line changed differently",
            "a\nb\nc",
            "a\nmine\nc",
            "a\ntheirs\nc",
            Clashes(&[("mine", "theirs")]),
        ),
        (
            "both made the same change",
            "a\nb\nc",
            "a\nsame\nc",
            "a\nsame\nc",
            Clean("a\nsame\nc"),
        ),
        (
            "both deleted the same line",
            "a\nb\nc",
            "a\nc",
            "a\nc",
            Clean("a\nc"),
        ),
        (
            "delete vs edit clashes",
            "a\nb\nc",
            "a\nc",
            "a\nB!\nc",
            Clashes(&[("", "B!")]),
        ),
        (
            "edit vs delete clashes",
            "a\nb\nc",
            "a\nB!\nc",
            "a\nc",
            Clashes(&[("B!", "")]),
        ),
        (
            "delete one line, edit another",
            "a\nb\nc\nd",
            "a\nc\nd",
            "a\nb\nc\nD",
            Clean("a\nc\nD"),
        ),
        (
            "insert at the same place clashes",
            "a\nb",
            "a\nmine\nb",
            "a\ntheirs\nb",
            Clashes(&[("mine", "theirs")]),
        ),
        (
            "append at the end on both sides clashes",
            "a",
            "a\nmine",
            "a\ntheirs",
            Clashes(&[("mine", "theirs")]),
        ),
        (
            "whitespace: indentation on mine, text on theirs elsewhere",
            "- a\n- b\nend",
            "  - a\n- b\nend",
            "- a\n- b\nEND",
            Clean("  - a\n- b\nEND"),
        ),
        (
            "whitespace: trailing space vs a word on the same line clashes",
            "a\nb\nc",
            "a\nb \nc",
            "a\nbb\nc",
            Clashes(&[("b ", "bb")]),
        ),
        (
            "whitespace: both add the same blank line",
            "a\nb",
            "a\n\nb",
            "a\n\nb",
            Clean("a\n\nb"),
        ),
        (
            "trailing newline added by one side",
            "a\nb",
            "a\nb\n",
            "A\nb",
            Clean("A\nb\n"),
        ),
        (
            "empty base, both wrote",
            "",
            "mine",
            "theirs",
            Clashes(&[("mine", "theirs")]),
        ),
        (
            "two separate clashes keep the clean middle",
            "1\n2\n3\n4\n5",
            "1\nA\n3\n4\nX",
            "1\nB\n3\n4\nY",
            Clashes(&[("A", "B"), ("X", "Y")]),
        ),
        (
            "CRLF lines are compared whole",
            "a\r\nb\r\nc\r\nd",
            "a\r\nB\r\nc\r\nd",
            "a\r\nb\r\nc\r\nD",
            Clean("a\r\nB\r\nc\r\nD"),
        ),
        (
            "adjacent lines changed on each side clash (no stable line between them)",
            "a\nb\nc\nd",
            "a\nB\nc\nd",
            "a\nb\nC\nd",
            Clashes(&[("B\nc", "b\nC")]),
        ),
    ];
    for (name, base, mine, theirs, expect) in cases {
        let m = merge_text(base, mine, theirs);
        match expect {
            Clean(text) => {
                assert_eq!(m.clash_count(), 0, "{name}: {m:?}");
                assert_eq!(m.clean().as_deref(), Some(*text), "{name}");
            }
            Clashes(want) => {
                let got: Vec<(String, String)> = m
                    .hunks
                    .iter()
                    .filter_map(|h| match h {
                        TextHunk::Clash { mine, theirs, .. } => {
                            Some((mine.join("\n"), theirs.join("\n")))
                        }
                        TextHunk::Clean { .. } => None,
                    })
                    .collect();
                let want: Vec<(String, String)> = want
                    .iter()
                    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                    .collect();
                assert_eq!(got, want, "{name}");
                assert_eq!(m.clean(), None, "{name}: a clash never merges silently");
                // Never saved with markers unless chosen: only the Markers choice writes them.
                for choice in [
                    ClashChoice::Mine,
                    ClashChoice::Theirs,
                    ClashChoice::MineThenTheirs,
                ] {
                    let text = m.resolve(&vec![choice.clone(); got.len()]).unwrap();
                    assert!(!text.contains("<<<<<<<"), "{name}: {choice:?}");
                }
            }
        }
    }
}

#[test]
fn clash_choices_resolve_as_named() {
    let m = merge_text("a\nb\nc", "a\nmine\nc", "a\ntheirs\nc");
    let cases: &[(ClashChoice, &str)] = &[
        (ClashChoice::Mine, "a\nmine\nc"),
        (ClashChoice::Theirs, "a\ntheirs\nc"),
        (ClashChoice::MineThenTheirs, "a\nmine\ntheirs\nc"),
        (ClashChoice::TheirsThenMine, "a\ntheirs\nmine\nc"),
        (ClashChoice::Base, "a\nb\nc"),
        (
            ClashChoice::Markers,
            "a\n<<<<<<< mine\nmine\n=======\ntheirs\n>>>>>>> theirs\nc",
        ),
        (
            ClashChoice::Custom {
                text: "both, reworded".to_owned(),
            },
            "a\nboth, reworded\nc",
        ),
    ];
    for (choice, want) in cases {
        assert_eq!(
            m.resolve(std::slice::from_ref(choice)).unwrap(),
            *want,
            "{choice:?}"
        );
    }
    assert!(m.resolve(&[]).is_err(), "one choice per clash");
}

fn sheet(id: &str, rows: Value) -> Sheet {
    Sheet {
        id: id.to_owned(),
        name: format!("Sheet {id}"),
        rows: serde_json::from_value(rows).unwrap(),
    }
}

fn tab(sheets: Vec<Sheet>) -> SheetTab {
    SheetTab { sheets }
}

#[test]
fn sheet_merge_table() {
    // name, base, mine, theirs, merged rows of s1 (mine at clashes), clash cells (row, col)
    type Case = (
        &'static str,
        Value,
        Value,
        Value,
        Value,
        &'static [(usize, usize)],
    );
    let cases: Vec<Case> = vec![
        (
            "different cells merge",
            json!([["a", "b"], ["c", "d"]]),
            json!([["A", "b"], ["c", "d"]]),
            json!([["a", "b"], ["c", "D"]]),
            json!([["A", "b"], ["c", "D"]]),
            &[],
        ),
        (
            "same cell, different values clash",
            json!([["a", "b"]]),
            json!([["mine", "b"]]),
            json!([["theirs", "b"]]),
            json!([["mine", "b"]]),
            &[(0, 0)],
        ),
        (
            "same cell, same value",
            json!([["a"]]),
            json!([[1]]),
            json!([[1]]),
            json!([[1]]),
            &[],
        ),
        (
            "rows appended on one side, a cell edited on the other",
            json!([["a"]]),
            json!([["a"], ["new"]]),
            json!([["A"]]),
            json!([["A"], ["new"]]),
            &[],
        ),
        (
            "both append a row: the row clashes cell by cell",
            json!([["a"]]),
            json!([["a"], ["mine"]]),
            json!([["a"], ["theirs"]]),
            json!([["a"], ["mine"]]),
            &[(1, 0)],
        ),
        (
            "a column widened on one side",
            json!([["a"], ["b"]]),
            json!([["a", 1], ["b", 2]]),
            json!([["a"], ["B"]]),
            json!([["a", 1], ["B", 2]]),
            &[],
        ),
        (
            "trailing row removed by one side, kept by the other",
            json!([["a"], ["b"]]),
            json!([["a"]]),
            json!([["A"], ["b"]]),
            json!([["A"]]),
            &[],
        ),
    ];
    for (name, base, mine, theirs, want, clashes) in cases {
        let m = merge_sheets(
            &tab(vec![sheet("s1", base)]),
            &tab(vec![sheet("s1", mine)]),
            &tab(vec![sheet("s1", theirs)]),
        );
        let got: Value = serde_json::to_value(&m.merged.sheets[0].rows).unwrap();
        assert_eq!(got, want, "{name}");
        let cells: Vec<(usize, usize)> = m
            .clashes
            .iter()
            .filter_map(|c| match c {
                SheetClash::Cell { row, col, .. } => Some((*row, *col)),
                _ => None,
            })
            .collect();
        assert_eq!(cells, clashes, "{name}");
        // Choosing theirs at every clash gives their value there and keeps the clean merge.
        let theirs_all = m
            .resolve(&vec![ClashChoice::Theirs; m.clashes.len()])
            .unwrap();
        for c in &m.clashes {
            if let SheetClash::Cell {
                row, col, theirs, ..
            } = c
            {
                assert_eq!(&theirs_all.sheets[0].rows[*row][*col], theirs, "{name}");
            }
        }
    }
}

/// A row one side left as the ancestor had it is the other side's very row in the merge
/// (shared, not rebuilt cell by cell), and a row both changed is merged by cell.
#[test]
fn rows_one_side_left_alone_are_the_other_sides_rows() {
    let base = tab(vec![sheet("s1", json!([[1, 2], [3, 4], [5, 6]]))]);
    let mut mine = base.clone();
    let mut theirs = base.clone();
    mine.sheets[0].rows[0][0] = json!("mine");
    theirs.sheets[0].rows[1][1] = json!("theirs");
    mine.sheets[0].rows[2][0] = json!("both: mine");
    theirs.sheets[0].rows[2][1] = json!("both: theirs");
    let merged = merge_sheets(&base, &mine, &theirs);
    let rows = &merged.merged.sheets[0].rows;
    assert!(rows[0].shares(&mine.sheets[0].rows[0]));
    assert!(rows[1].shares(&theirs.sheets[0].rows[1]));
    assert_eq!(rows[2], vec![json!("both: mine"), json!("both: theirs")]);
    assert!(merged.clashes.is_empty());
}

#[test]
fn sheets_added_deleted_and_edited_by_id() {
    let base = tab(vec![
        sheet("s1", json!([["a"]])),
        sheet("s2", json!([["b"]])),
    ]);
    // Mine: edits s1, adds s3. Theirs: deletes s2 (untouched by me), adds s4.
    let mine = tab(vec![
        sheet("s1", json!([["A"]])),
        sheet("s2", json!([["b"]])),
        sheet("s3", json!([["new mine"]])),
    ]);
    let theirs = tab(vec![
        sheet("s1", json!([["a"]])),
        sheet("s4", json!([["new theirs"]])),
    ]);
    let m = merge_sheets(&base, &mine, &theirs);
    assert!(m.clashes.is_empty(), "{:?}", m.clashes);
    let ids: Vec<&str> = m.merged.sheets.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["s1", "s3", "s4"]);
    assert_eq!(m.merged.sheets[0].rows, vec![vec![json!("A")]]);

    // Delete vs edit: theirs deleted s2 while I edited it.
    let mine2 = tab(vec![
        sheet("s1", json!([["a"]])),
        sheet("s2", json!([["B!"]])),
    ]);
    let m = merge_sheets(&base, &mine2, &theirs);
    assert!(
        matches!(&m.clashes[..], [SheetClash::Sheet { sheet_id, mine: Some(_), theirs: None }] if sheet_id == "s2"),
        "{:?}",
        m.clashes
    );
    let keep = m.resolve(&[ClashChoice::Mine]).unwrap();
    assert!(keep.sheets.iter().any(|s| s.id == "s2"));
    let drop = m.resolve(&[ClashChoice::Theirs]).unwrap();
    assert!(drop.sheets.iter().all(|s| s.id != "s2"));
}

fn slide(id: &str, title: &str) -> Slide {
    Slide {
        id: id.to_owned(),
        title: title.to_owned(),
        body: String::new(),
        notes: String::new(),
        layout: Layout::TitleAndBody,
    }
}

fn deck(slides: &[(&str, &str)]) -> Deck {
    Deck {
        theme: Theme::Paper,
        slides: slides.iter().map(|(id, t)| slide(id, t)).collect(),
    }
}

#[test]
fn slide_merge_table() {
    // name, base, mine, theirs, merged (id:title, mine at clashes), clashing slide ids
    type Slides = &'static [(&'static str, &'static str)];
    type Case = (
        &'static str,
        Slides,
        Slides,
        Slides,
        Slides,
        &'static [&'static str],
    );
    let cases: &[Case] = &[
        (
            "different slides edited",
            &[("a", "A"), ("b", "B")],
            &[("a", "A mine"), ("b", "B")],
            &[("a", "A"), ("b", "B theirs")],
            &[("a", "A mine"), ("b", "B theirs")],
            &[],
        ),
        (
            "same slide edited differently clashes",
            &[("a", "A")],
            &[("a", "mine")],
            &[("a", "theirs")],
            &[("a", "mine")],
            &["a"],
        ),
        (
            "both appended: both kept, mine first",
            &[("a", "A")],
            &[("a", "A"), ("m", "M")],
            &[("a", "A"), ("t", "T")],
            &[("a", "A"), ("m", "M"), ("t", "T")],
            &[],
        ),
        (
            "theirs inserted in the middle keeps its place",
            &[("a", "A"), ("b", "B")],
            &[("a", "A"), ("b", "B mine")],
            &[("a", "A"), ("t", "T"), ("b", "B")],
            &[("a", "A"), ("t", "T"), ("b", "B mine")],
            &[],
        ),
        (
            "deleted by theirs, untouched by me: gone",
            &[("a", "A"), ("b", "B")],
            &[("a", "A mine"), ("b", "B")],
            &[("a", "A")],
            &[("a", "A mine")],
            &[],
        ),
        (
            "deleted by me, edited by theirs: clash",
            &[("a", "A"), ("b", "B")],
            &[("a", "A")],
            &[("a", "A"), ("b", "B theirs")],
            &[("a", "A")],
            &["b"],
        ),
        (
            "reordered by theirs, edited by me",
            &[("a", "A"), ("b", "B"), ("c", "C")],
            &[("a", "A"), ("b", "B mine"), ("c", "C")],
            &[("c", "C"), ("a", "A"), ("b", "B")],
            &[("c", "C"), ("a", "A"), ("b", "B mine")],
            &[],
        ),
    ];
    for (name, base, mine, theirs, want, clash_ids) in cases {
        let m = merge_decks(&deck(base), &deck(mine), &deck(theirs));
        let got: Vec<(String, String)> = m
            .merged
            .slides
            .iter()
            .map(|s| (s.id.clone(), s.title.clone()))
            .collect();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        assert_eq!(got, want, "{name}");
        let ids: Vec<&str> = m
            .clashes
            .iter()
            .filter_map(|c| match c {
                SlideClash::Slide { slide_id, .. } => Some(slide_id.as_str()),
                SlideClash::Theme { .. } => None,
            })
            .collect();
        assert_eq!(ids, *clash_ids, "{name}");
    }
}

#[test]
fn slide_clash_resolutions_keep_the_merged_order() {
    let base = deck(&[("a", "A"), ("b", "B"), ("c", "C")]);
    let mine = deck(&[("a", "A"), ("c", "C mine")]); // deleted b
    let theirs = deck(&[("a", "A"), ("b", "B theirs"), ("c", "C")]);
    let m = merge_decks(&base, &mine, &theirs);
    assert_eq!(m.clashes.len(), 1);
    let back = m.resolve(&[ClashChoice::Theirs]).unwrap();
    let ids: Vec<&str> = back.slides.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"], "theirs restores b in its place");
    assert_eq!(back.slides[2].title, "C mine");
    let gone = m.resolve(&[ClashChoice::Mine]).unwrap();
    let ids: Vec<&str> = gone.slides.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a", "c"]);
    assert!(
        m.resolve(&[ClashChoice::MineThenTheirs]).is_err(),
        "text-only choice"
    );
}

#[test]
fn theme_clash_is_reported() {
    let mut base = deck(&[("a", "A")]);
    let mut mine = base.clone();
    let mut theirs = base.clone();
    base.theme = Theme::Paper;
    mine.theme = Theme::Ink;
    theirs.theme = Theme::Ocean;
    let m = merge_decks(&base, &mine, &theirs);
    assert!(matches!(m.clashes[..], [SlideClash::Theme { .. }]));
    assert_eq!(m.merged.theme, Theme::Ink);
    assert_eq!(
        m.resolve(&[ClashChoice::Theirs]).unwrap().theme,
        Theme::Ocean
    );
}

/// The conflict review's preview, one row per pick: the merged lines and where each comes from
/// (`m`ine, `t`heirs, `b`ase, `x` marker, `c`ustom, `?` undecided, ` ` clean).
#[test]
fn the_text_preview_marks_where_each_line_comes_from() {
    let m = TabMerge::Markdown(merge_text("a\nb\nc", "a\nmine\nc", "a\ntheirs\nc"));
    let custom = ClashChoice::Custom {
        text: "own\nwords".to_owned(),
    };
    let cases: &[(Option<ClashChoice>, &str)] = &[
        (None, " a|?mine|?theirs| c"),
        (Some(ClashChoice::Mine), " a|mmine| c"),
        (Some(ClashChoice::Theirs), " a|ttheirs| c"),
        (Some(ClashChoice::Base), " a|bb| c"),
        (Some(ClashChoice::TheirsThenMine), " a|ttheirs|mmine| c"),
        (
            Some(ClashChoice::Markers),
            " a|x<<<<<<< mine|mmine|x=======|ttheirs|x>>>>>>> theirs| c",
        ),
        (Some(custom), " a|cown|cwords| c"),
    ];
    for (pick, want) in cases {
        let preview = m.preview(std::slice::from_ref(pick)).unwrap();
        let shown: Vec<String> = preview
            .lines
            .iter()
            .map(|l| {
                let from = match l.from {
                    LineSource::Clean => ' ',
                    LineSource::Mine => 'm',
                    LineSource::Theirs => 't',
                    LineSource::Base => 'b',
                    LineSource::Marker => 'x',
                    LineSource::Custom => 'c',
                    LineSource::Undecided => '?',
                };
                assert_eq!(l.clash.is_none(), from == ' ', "{pick:?}: {l:?}");
                format!("{from}{}", l.text)
            })
            .collect();
        assert_eq!(shown.join("|"), *want, "{pick:?}");
        assert_eq!(preview.undecided, usize::from(pick.is_none()), "{pick:?}");
        if let Some(choice) = pick {
            assert_eq!(
                preview.content,
                m.resolve(std::slice::from_ref(choice)).unwrap(),
                "decided: the preview is what resolve gives ({choice:?})"
            );
        }
    }
    assert!(
        matches!(
            m.preview(&[]),
            Err(MergeError::ChoiceCount {
                clashes: 1,
                given: 0
            })
        ),
        "one pick (or None) per clash"
    );
}

/// A Sheet or deck preview keeps mine at an undecided clash (what `merged` holds) and is what
/// resolve gives once each is decided; text-only picks are refused as in resolve.
#[test]
fn sheet_and_deck_previews_keep_mine_until_decided() {
    let base = tab(vec![sheet("s1", json!([["a", "b"]]))]);
    let mine = tab(vec![sheet("s1", json!([["mine", "B mine"]]))]);
    let theirs = tab(vec![sheet("s1", json!([["theirs", "B theirs"]]))]);
    let m = TabMerge::Sheet(merge_sheets(&base, &mine, &theirs));
    let row = |p: &MergePreview| match &*p.content.0 {
        TabData::Sheet(t) => serde_json::to_value(&t.sheets[0].rows).unwrap(),
        other => panic!("not a sheet: {other:?}"),
    };
    let undecided = m.preview(&[None, Some(ClashChoice::Theirs)]).unwrap();
    assert_eq!(row(&undecided), json!([["mine", "B theirs"]]));
    assert_eq!((undecided.undecided, undecided.lines.len()), (1, 0));
    let choices = [ClashChoice::Theirs, ClashChoice::Mine];
    let decided = m.preview(&choices.clone().map(Some)).unwrap();
    assert_eq!(decided.content, m.resolve(&choices).unwrap());
    assert_eq!(row(&decided), json!([["theirs", "B mine"]]));
    assert!(matches!(
        m.preview(&[Some(ClashChoice::Base), None]),
        Err(MergeError::TextOnlyChoice { index: 0, .. })
    ));

    let base = deck(&[("a", "A"), ("b", "B")]);
    let mine = deck(&[("b", "B")]); // deleted a
    let theirs = deck(&[("a", "A theirs"), ("b", "B")]);
    let m = TabMerge::Slides(merge_decks(&base, &mine, &theirs));
    let titles = |p: &MergePreview| match &*p.content.0 {
        TabData::Slides(d) => d.slides.iter().map(|s| s.title.clone()).collect::<Vec<_>>(),
        other => panic!("not a deck: {other:?}"),
    };
    assert_eq!(titles(&m.preview(&[None]).unwrap()), ["B"]);
    let theirs_back = m.preview(&[Some(ClashChoice::Theirs)]).unwrap();
    assert_eq!(titles(&theirs_back), ["A theirs", "B"]);
    assert_eq!(
        theirs_back.content,
        m.resolve(&[ClashChoice::Theirs]).unwrap()
    );
}
