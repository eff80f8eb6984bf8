//! `splice_text` and `edit_text`: a Markdown text changed by what changed, not sent whole.
#![allow(clippy::unwrap_used, clippy::panic)]

use quire_model::{Note, Op, OpErrorCode, TabData, TabId, apply};
use serde_json::{Value, json};

mod common;
use common::{ctx, note};

fn with_text(text: &str) -> Note {
    let ops = vec![Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: text.to_owned(),
    }];
    apply(&note(), &ops, &ctx()).unwrap().note
}

fn op(v: Value) -> Vec<Op> {
    let mut v = v;
    v["tab_id"] = json!("markdown");
    vec![serde_json::from_value(v).unwrap()]
}

fn text(n: &Note) -> &str {
    match &n.tab(&TabId::new(TabId::MARKDOWN)).unwrap().data {
        TabData::Markdown(t) => t,
        _ => panic!("not markdown"),
    }
}

#[test]
fn splices_count_characters_of_the_text_before() {
    // name, text, splices, text after
    let cases: &[(&str, &str, Value, &str)] = &[
        (
            "insert",
            "hello world",
            json!([{"at": 5, "insert": ","}]),
            "hello, world",
        ),
        (
            "delete",
            "hello world",
            json!([{"at": 5, "delete": 6}]),
            "hello",
        ),
        (
            "replace",
            "hello world",
            json!([{"at": 6, "delete": 5, "insert": "there"}]),
            "hello there",
        ),
        (
            "at the end",
            "abc",
            json!([{"at": 3, "insert": "d"}]),
            "abcd",
        ),
        (
            "into an empty text",
            "",
            json!([{"at": 0, "insert": "new"}]),
            "new",
        ),
        (
            "characters, not bytes",
            "é€😀x",
            json!([{"at": 2, "delete": 1, "insert": "!"}]),
            "é€!x",
        ),
        (
            "several, offsets of the text before",
            "one two three",
            json!([{"at": 0, "delete": 3, "insert": "1"}, {"at": 4, "delete": 3, "insert": "2"}, {"at": 13, "insert": "!"}]),
            "1 2 three!",
        ),
        (
            "adjacent",
            "abcd",
            json!([{"at": 1, "delete": 1, "insert": "B"}, {"at": 2, "delete": 1, "insert": "C"}]),
            "aBCd",
        ),
        (
            "two at one place",
            "ab",
            json!([{"at": 1, "insert": "x"}, {"at": 1, "insert": "y"}]),
            "axyb",
        ),
    ];
    for (name, before, splices, after) in cases {
        let n = with_text(before);
        let applied = apply(
            &n,
            &op(json!({"op": "splice_text", "splices": splices})),
            &ctx(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(text(&applied.note), *after, "{name}");
        assert_eq!(
            applied.changed_tab_ids,
            [TabId::new(TabId::MARKDOWN)],
            "{name}"
        );
    }
}

/// One splice makes the new text from the Note's own as `Text::spliced` does, so it knows the
/// splice it was made with, and takes over the old text's marks (a long text's next splice
/// finds its place without counting it from the start: `Text`'s own tests).
#[test]
fn one_splice_makes_the_new_text_from_the_notes_own() {
    let before = with_text(&"naïve café\n".repeat(10_000));
    let splice =
        op(json!({"op": "splice_text", "splices": [{"at": 12, "delete": 3, "insert": "tea"}]}));
    let after = apply(&before, &splice, &ctx()).unwrap().note;
    let markdown = |n: &Note| match &n.tab(&TabId::new(TabId::MARKDOWN)).unwrap().data {
        TabData::Markdown(t) => t.clone(),
        _ => panic!("not markdown"),
    };
    let (old, new) = (markdown(&before), markdown(&after));
    assert!(new.starts_with("naïve café\nnteae café\n"));
    // Line two starts at byte 13; "aïv" is 4 bytes.
    assert_eq!(new.splice_from(&old), Some((14, 4, "tea")));
}

#[test]
fn a_splice_that_does_not_fit_is_refused_naming_it() {
    // name, text, splices, field
    let cases: &[(&str, &str, Value, &str)] = &[
        ("none", "abc", json!([]), "splices"),
        (
            "past the end",
            "abc",
            json!([{"at": 4, "insert": "x"}]),
            "splices[0].at",
        ),
        (
            "deletes past the end",
            "abc",
            json!([{"at": 1, "delete": 3}]),
            "splices[0].delete",
        ),
        (
            "past the end, in characters",
            "é€",
            json!([{"at": 3}]),
            "splices[0].at",
        ),
        (
            "out of order",
            "abcdef",
            json!([{"at": 3}, {"at": 1}]),
            "splices[1].at",
        ),
        (
            "overlapping",
            "abcdef",
            json!([{"at": 1, "delete": 3}, {"at": 2}]),
            "splices[1].at",
        ),
        (
            "the second past the end",
            "abc",
            json!([{"at": 0}, {"at": 9}]),
            "splices[1].at",
        ),
    ];
    for (name, before, splices, field) in cases {
        let n = with_text(before);
        let e = apply(
            &n,
            &op(json!({"op": "splice_text", "splices": splices})),
            &ctx(),
        )
        .expect_err(name);
        assert_eq!(e.field, *field, "{name}: {e}");
        assert_eq!(e.code, OpErrorCode::InvalidOp, "{name}");
    }
    let splices: Vec<Value> = (0..1_001).map(|_| json!({"at": 0})).collect();
    let e = apply(
        &with_text(""),
        &op(json!({"op": "splice_text", "splices": splices})),
        &ctx(),
    )
    .expect_err("too many");
    assert_eq!(
        (e.code, e.field.as_str()),
        (OpErrorCode::LimitExceeded, "splices")
    );
}

#[test]
fn quoted_edits_apply_in_order_each_found_once() {
    let n = with_text("The cat sat on the mat.\nThe dog ran.");
    let edits = json!([
        {"old_text": "cat sat", "new_text": "cat stood"},
        // Found in the text the first edit left.
        {"old_text": "stood on the mat", "new_text": "stood on the rug"},
        {"old_text": "dog", "new_text": ""},
    ]);
    let applied = apply(&n, &op(json!({"op": "edit_text", "edits": edits})), &ctx()).unwrap();
    assert_eq!(text(&applied.note), "The cat stood on the rug.\nThe  ran.");
    assert_eq!(applied.summary, "edited the text of \"Note\" (3 edits)");
    // No edit changed the first 4 bytes ("The ") or the last 5 (" ran."): a store need not
    // compare them.
    let md = TabId::new(TabId::MARKDOWN);
    assert_eq!(applied.text_ends_kept[&md], (4, 5));
    // A batch that does more than write texts says nothing of them.
    let rename = json!({"op": "rename_tab", "tab_id": "markdown", "label": "Log"});
    let edit = json!({"op": "edit_text", "tab_id": "markdown", "edits": [{"old_text": "dog", "new_text": "cat"}]});
    let ops = [edit, rename].map(|v| serde_json::from_value::<Op>(v).unwrap());
    assert!(apply(&n, &ops, &ctx()).unwrap().text_ends_kept.is_empty());
}

/// The tab counts as changed when its text did: edits that put back what they changed, or an
/// edit of a quote into itself, change nothing.
#[test]
fn edits_that_change_nothing_leave_the_tab_unchanged() {
    let n = with_text("one two three");
    let markdown = n.tabs[0].id.clone();
    for (name, edits, changed) in [
        (
            "one edit",
            json!([{"old_text": "two", "new_text": "2"}]),
            true,
        ),
        (
            "into itself",
            json!([{"old_text": "two", "new_text": "two"}]),
            false,
        ),
        (
            "put back",
            json!([{"old_text": "two", "new_text": "2"}, {"old_text": "e 2 t", "new_text": "e two t"}]),
            false,
        ),
        (
            "two that change",
            json!([{"old_text": "one", "new_text": "1"}, {"old_text": "three", "new_text": "3"}]),
            true,
        ),
    ] {
        let applied = apply(&n, &op(json!({"op": "edit_text", "edits": edits})), &ctx()).unwrap();
        let expected = if changed {
            vec![markdown.clone()]
        } else {
            vec![]
        };
        assert_eq!(applied.changed_tab_ids, expected, "{name}");
    }
}

#[test]
fn an_edit_not_found_once_is_refused_with_its_index_and_count() {
    // name, text, edits, code, edit index, occurrences
    let cases: &[(&str, &str, Value, OpErrorCode, usize, usize)] = &[
        (
            "missing",
            "abc",
            json!([{"old_text": "x", "new_text": "y"}]),
            OpErrorCode::OldTextNotFound,
            0,
            0,
        ),
        (
            "twice",
            "a b a",
            json!([{"old_text": "a", "new_text": "c"}]),
            OpErrorCode::OldTextNotUnique,
            0,
            2,
        ),
        (
            "overlapping",
            "aaa",
            json!([{"old_text": "aa", "new_text": "b"}]),
            OpErrorCode::OldTextNotUnique,
            0,
            2,
        ),
        (
            "gone after the first edit",
            "one two",
            json!([{"old_text": "two", "new_text": "2"}, {"old_text": "two", "new_text": "3"}]),
            OpErrorCode::OldTextNotFound,
            1,
            0,
        ),
        (
            "made twice by the first edit",
            "ab",
            json!([{"old_text": "b", "new_text": "a"}, {"old_text": "a", "new_text": "c"}]),
            OpErrorCode::OldTextNotUnique,
            1,
            2,
        ),
    ];
    for (name, before, edits, code, index, occurrences) in cases {
        let n = with_text(before);
        let e = apply(&n, &op(json!({"op": "edit_text", "edits": edits})), &ctx()).expect_err(name);
        assert_eq!(e.code, *code, "{name}");
        assert_eq!(e.field, format!("edits[{index}].old_text"), "{name}");
        let miss = e.edit.unwrap_or_else(|| panic!("{name}: no edit named"));
        assert_eq!(
            (miss.index, miss.occurrences),
            (*index, *occurrences),
            "{name}"
        );
    }
    for (name, edits, field) in [
        ("no edit", json!([]), "edits"),
        (
            "empty old text",
            json!([{"old_text": "", "new_text": "x"}]),
            "edits[0].old_text",
        ),
    ] {
        let e = apply(
            &with_text("abc"),
            &op(json!({"op": "edit_text", "edits": edits})),
            &ctx(),
        )
        .expect_err(name);
        assert_eq!(
            (e.code, e.field.as_str()),
            (OpErrorCode::InvalidOp, field),
            "{name}"
        );
    }
    let edits: Vec<Value> = (0..21)
        .map(|i| json!({"old_text": format!("{i}"), "new_text": ""}))
        .collect();
    let e = apply(
        &with_text("abc"),
        &op(json!({"op": "edit_text", "edits": edits})),
        &ctx(),
    )
    .expect_err("too many");
    assert_eq!(
        (e.code, e.field.as_str()),
        (OpErrorCode::LimitExceeded, "edits")
    );
}

#[test]
fn text_ops_work_only_on_a_markdown_tab() {
    let n = apply(
        &note(),
        &[serde_json::from_value(json!({"op": "create_tab", "tab_type": "sheet"})).unwrap()],
        &ctx(),
    )
    .unwrap()
    .note;
    let sheet = n.tabs.last().unwrap().id.clone();
    for o in [
        json!({"op": "splice_text", "tab_id": sheet, "splices": [{"at": 0, "insert": "x"}]}),
        json!({"op": "edit_text", "tab_id": sheet, "edits": [{"old_text": "a", "new_text": "b"}]}),
    ] {
        let e = apply(&n, &[serde_json::from_value(o).unwrap()], &ctx()).expect_err("a sheet");
        assert_eq!(e.field, "tab_id", "{e}");
    }
}

proptest::proptest! {
    /// Splices anywhere in a long text of one-, two-, three- and four-byte characters, far
    /// apart and close together, land where counting characters one by one puts them; one
    /// past the end is refused.
    #[test]
    fn splices_far_into_a_text_land_on_its_characters(
        text in "[a-z é€😀\n]{0,700}",
        places in proptest::collection::vec((0usize..800, 0usize..90, "[xé€😀]{0,3}"), 1..6),
    ) {
        let chars: Vec<char> = text.chars().collect();
        let mut places = places;
        places.sort_by_key(|p| p.0);
        // Non-overlapping, in the text, in characters.
        let mut splices = Vec::new();
        let mut from = 0;
        for (at, delete, insert) in places {
            let at = at.clamp(from, chars.len());
            let delete = delete.min(chars.len() - at);
            splices.push(json!({"at": at, "delete": delete, "insert": insert}));
            from = at + delete;
        }
        let mut want = String::new();
        let mut copied = 0;
        for s in &splices {
            let at = s["at"].as_u64().unwrap() as usize;
            let delete = s["delete"].as_u64().unwrap() as usize;
            want.extend(&chars[copied..at]);
            want.push_str(s["insert"].as_str().unwrap());
            copied = at + delete;
        }
        want.extend(&chars[copied..]);
        let note = with_text(&text);
        let got = apply(&note, &op(json!({"op": "splice_text", "splices": splices})), &ctx()).unwrap();
        proptest::prop_assert_eq!(self::text(&got.note), want.as_str());
        let past = json!({"op": "splice_text", "splices": [{"at": chars.len() + 1, "insert": "x"}]});
        proptest::prop_assert!(apply(&note, &op(past), &ctx()).is_err());
    }
}

/// A splice past long runs of ASCII and a few wider characters between them lands on the
/// character it names.
#[test]
fn a_splice_past_long_ascii_runs_counts_every_character() {
    let text = format!(
        "{}é{}€{}😀{}",
        "a".repeat(5000),
        "b".repeat(9000),
        "c".repeat(4095),
        "d".repeat(10)
    );
    let chars = text.chars().count() as u64;
    for at in [0, 4096, 5000, 5001, 8192, 14_001, 18_097, 18_098, chars] {
        let splices = json!([{"at": at, "insert": "|"}]);
        let got = apply(
            &with_text(&text),
            &op(json!({"op": "splice_text", "splices": splices})),
            &ctx(),
        )
        .unwrap();
        let mut want: Vec<char> = text.chars().collect();
        want.insert(at as usize, '|');
        assert_eq!(
            self::text(&got.note),
            want.into_iter().collect::<String>(),
            "at {at}"
        );
    }
}

/// Occurrences of `needle` in `text` counted one character at a time, overlapping ones too.
fn naive_count(text: &str, needle: &str) -> usize {
    text.char_indices()
        .filter(|(i, _)| text[*i..].starts_with(needle))
        .count()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// A long text is searched with byte ranks sampled from it: every quote is still found as
    /// many times as it is there (lines of one pattern, where the sampled bytes are those of
    /// the pattern, with a few other lines and wide characters among them).
    #[test]
    fn a_long_text_finds_each_quote_as_often_as_it_is_there(
        lines in 1_200usize..2_000,
        odd in proptest::collection::vec((0usize..2_000, "[a-zé€ 0-9]{1,40}"), 0..8),
        pick in 0usize..2_000,
        len in 1usize..80,
        absent in "[a-z€]{3,12}",
    ) {
        let mut all: Vec<String> = (0..lines)
            .map(|n| format!("Line {:06}: the quick brown fox jumps over the lazy dog.", n % 1_500))
            .collect();
        for (at, line) in &odd {
            let at = at % all.len();
            all[at] = line.clone();
        }
        let long = all.join("\n");
        proptest::prop_assert!(long.len() >= 64 * 1024);
        // A quote taken from the text (on character boundaries), and one that may be absent.
        let starts: Vec<usize> = long.char_indices().map(|(i, _)| i).collect();
        let from = starts[pick * starts.len() / 2_000];
        let to = long[from..].char_indices().nth(len).map_or(long.len(), |(i, _)| from + i);
        for quote in [&long[from..to], absent.as_str()] {
            let n = with_text(&long);
            let edits = json!([{"old_text": quote, "new_text": "EDITED"}]);
            let result = apply(&n, &op(json!({"op": "edit_text", "edits": edits})), &ctx());
            match (naive_count(&long, quote), result) {
                (1, Ok(applied)) => {
                    proptest::prop_assert_eq!(text(&applied.note), long.replacen(quote, "EDITED", 1));
                }
                (count, Err(e)) => {
                    let miss = e.edit.expect("the edit named");
                    proptest::prop_assert_eq!(miss.occurrences, count, "{:?}", quote);
                    proptest::prop_assert!(count != 1);
                }
                (count, Ok(_)) => proptest::prop_assert!(false, "{:?} is there {} times", quote, count),
            }
        }
    }
}

/// A batch that edits a text by quote or by splice builds the new text from the Note it began
/// from (the draft does not copy the text first); whatever else the batch does to that tab or
/// another one, and in whichever order, the text comes out as the operations say, and a refused
/// batch changes nothing.
#[test]
fn texts_edited_in_a_batch_with_other_operations_come_out_as_written() {
    let made = apply(
        &with_text("alpha beta gamma"),
        &[serde_json::from_value(json!({"op": "create_tab", "tab_type": "sheet"})).unwrap()],
        &ctx(),
    )
    .unwrap();
    let base = made.note;
    let sheet = json!(made.changed_tab_ids[0].as_str());
    let md = || json!("markdown");
    let edit = |old: &str, new: &str| json!({"op": "edit_text", "tab_id": "markdown", "edits": [{"old_text": old, "new_text": new}]});
    let splice = |at: u64, delete: u64, insert: &str| json!({"op": "splice_text", "tab_id": "markdown", "splices": [{"at": at, "delete": delete, "insert": insert}]});
    let cell = json!({"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0, "values": [["x"]]});
    // name, operations, the text after, the Markdown tab's label and position after
    let cases: Vec<(&str, Vec<Value>, &str, &str, usize)> = vec![
        (
            "one edit",
            vec![edit("beta", "BETA")],
            "alpha BETA gamma",
            "Note",
            0,
        ),
        (
            "two edits, the second on the first's result",
            vec![edit("beta", "BETA"), edit("BETA gamma", "delta")],
            "alpha delta",
            "Note",
            0,
        ),
        (
            "a splice, then an edit",
            vec![splice(0, 5, "ALPHA"), edit("ALPHA beta", "x")],
            "x gamma",
            "Note",
            0,
        ),
        (
            "an edit, then a splice",
            vec![edit("gamma", "g"), splice(0, 0, ">")],
            ">alpha beta g",
            "Note",
            0,
        ),
        (
            "an edit and a cell of another tab",
            vec![cell.clone(), edit("alpha", "A")],
            "A beta gamma",
            "Note",
            0,
        ),
        (
            "an edit and a rename of the same tab",
            vec![
                edit("beta", "b"),
                json!({"op": "rename_tab", "tab_id": md(), "label": "Log"}),
            ],
            "alpha b gamma",
            "Log",
            0,
        ),
        (
            "replaced whole, then edited",
            vec![
                json!({"op": "replace_text", "tab_id": md(), "text": "new text"}),
                edit("new", "old"),
            ],
            "old text",
            "Note",
            0,
        ),
        (
            "edited, then replaced whole",
            vec![
                edit("alpha", "A"),
                json!({"op": "replace_text", "tab_id": md(), "text": "whole"}),
            ],
            "whole",
            "Note",
            0,
        ),
        (
            "edited, then moved",
            vec![
                edit("alpha", "1"),
                json!({"op": "move_tab", "tab_id": md(), "index": 1}),
            ],
            "1 beta gamma",
            "Note",
            1,
        ),
        (
            "an edit that puts back what another changed",
            vec![edit("beta", "b"), edit("a b g", "a beta g")],
            "alpha beta gamma",
            "Note",
            0,
        ),
    ];
    let label = text_tab(&base).label.clone();
    for (name, ops, after, renamed, at) in cases {
        let ops: Vec<Op> = ops
            .into_iter()
            .map(|v| serde_json::from_value(v).unwrap())
            .collect();
        let applied = apply(&base, &ops, &ctx()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(text(&applied.note), after, "{name}");
        let renamed = if renamed == "Note" {
            label.as_str()
        } else {
            renamed
        };
        assert_eq!(text_tab(&applied.note).label, renamed, "{name}");
        assert_eq!(applied.note.tabs[at].id.as_str(), "markdown", "{name}");
        assert_eq!(
            text(&base),
            "alpha beta gamma",
            "{name}: the Note it began from"
        );
    }
    // A refused batch: nothing of it is kept, and the Note it began from is whole.
    let refused =
        [edit("beta", "B"), edit("missing", "x")].map(|v| serde_json::from_value::<Op>(v).unwrap());
    assert!(apply(&base, &refused, &ctx()).is_err());
    assert_eq!(text(&base), "alpha beta gamma");
}

fn text_tab(n: &Note) -> &quire_model::Tab {
    n.tab(&TabId::new(TabId::MARKDOWN)).unwrap()
}

proptest::proptest! {
    /// A batch of text operations alone (`replace_text`, `splice_text`, `edit_text`) lends the
    /// draft the Note's text instead of copying it: in any order and number, the text comes out
    /// as the operations applied to a plain string say, growing or shrinking; a batch with a
    /// refused edit is refused whole, and the Note it began from is never changed.
    #[test]
    fn text_only_batches_write_the_text_as_a_plain_string_would(
        steps in proptest::collection::vec((0u8..3, 0usize..40, 0usize..6, "[ab✓\n]{0,9}"), 1..7),
    ) {
        let before = "ab✓ ab\nba ✓✓ aab";
        let base = with_text(before);
        let mut want = before.to_owned();
        let mut refused = false;
        let mut ops = Vec::new();
        for (kind, at, len, insert) in steps {
            let chars: Vec<char> = want.chars().collect();
            let at = at % (chars.len() + 1);
            let len = len.min(chars.len() - at);
            let op = match kind {
                0 => {
                    want = insert.clone();
                    json!({"op": "replace_text", "tab_id": "markdown", "text": insert})
                }
                1 => {
                    let mut next: String = chars[..at].iter().collect();
                    next.push_str(&insert);
                    next.extend(&chars[at + len..]);
                    want = next;
                    json!({"op": "splice_text", "tab_id": "markdown", "splices": [{"at": at, "delete": len, "insert": insert}]})
                }
                _ => {
                    // A quote of the text as it is now (maybe there more than once), or, where
                    // it would be empty, of something not there.
                    let quote: String = match len {
                        0 => "✓✓✓✓✓".to_owned(),
                        _ => chars[at..at + len].iter().collect(),
                    };
                    match naive_count(&want, &quote) {
                        1 => want = want.replacen(&quote, &insert, 1),
                        _ => refused = true,
                    }
                    json!({"op": "edit_text", "tab_id": "markdown", "edits": [{"old_text": quote, "new_text": insert}]})
                }
            };
            ops.push(serde_json::from_value::<Op>(op).unwrap());
            if refused {
                break;
            }
        }
        let result = apply(&base, &ops, &ctx());
        if refused {
            proptest::prop_assert!(result.is_err());
        } else {
            let applied = result.unwrap();
            proptest::prop_assert_eq!(text(&applied.note), want.as_str());
            // What the batch says it kept at the text's two ends is the text it began from.
            let (start, end) = applied.text_ends_kept[&TabId::new(TabId::MARKDOWN)];
            let (old, new) = (before.as_bytes(), want.as_bytes());
            proptest::prop_assert!(start + end <= old.len().min(new.len()));
            proptest::prop_assert_eq!(&old[..start], &new[..start]);
            proptest::prop_assert_eq!(&old[old.len() - end..], &new[new.len() - end..]);
        }
        proptest::prop_assert_eq!(text(&base), before);
    }
}
