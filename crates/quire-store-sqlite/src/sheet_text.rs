//! A Sheet tab's JSON text, the very bytes `serde_json` writes for its content, with where
//! each row is in it. The writer keeps it beside its copy of the Note, so the next write of
//! that tab writes out only the rows it changed (a row the new content shares with the old,
//! [`quire_model::Row::shares`], is copied from the old text) and stores a splice of the
//! cells it changed, found row by row, not by comparing two texts of the whole grid. The
//! writer keeps the text of the other kinds' big contents too (`TabText::Json`): the next
//! write splices from it rather than serialising the content before it again.

use std::borrow::Cow;
use std::ops::Range;

use quire_model::{Row, SheetTab, same_cell};

use super::splice::{self, Hunk};

/// A range of the old text and what replaces it.
pub(super) type OwnedHunk = Hunk<Cow<'static, str>>;

/// A content other than Markdown as its JSON text, as the writer last wrote it.
#[derive(Debug)]
pub(super) enum TabText {
    Json(String),
    Sheet(SheetText),
}

impl TabText {
    pub fn text(&self) -> &str {
        match self {
            TabText::Json(text) => text,
            TabText::Sheet(sheet) => &sheet.text,
        }
    }
}

/// A Sheet tab's content as JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SheetText {
    pub text: String,
    /// Per sheet: where its rows are.
    sheets: Vec<SheetSpans>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SheetSpans {
    /// Between the `[` and the `]` of the sheet's `rows`.
    inside: Range<usize>,
    /// Each row's `[...]`.
    rows: Vec<Range<usize>>,
}

impl SheetText {
    /// The text of `tab`, written out whole.
    pub fn of(tab: &SheetTab) -> serde_json::Result<Self> {
        let mut text = String::new();
        let sheets = write(&mut text, tab, |_, row, text| push_json(text, &**row))?;
        Ok(SheetText { text, sheets })
    }

    /// The text of `next`, given that `self` is the text of `before`: a row `next` shares with
    /// `before` (same sheet, same place) is copied, a row of as many cells has its changed cells
    /// written into a copy, another row is written. With it, the ranges of `self` it replaces,
    /// each as small as the cells that differ; `None` where the sheets themselves differ
    /// (added, removed, renamed), for a diff of the whole text.
    pub fn next(
        &self,
        before: &SheetTab,
        next: &SheetTab,
    ) -> serde_json::Result<(SheetText, Option<Vec<OwnedHunk>>)> {
        let same_sheets = before.sheets.len() == next.sheets.len()
            && self.sheets.len() == before.sheets.len()
            && (before.sheets.iter().zip(&next.sheets))
                .all(|(a, b)| a.id == b.id && a.name == b.name);
        if !same_sheets {
            return Ok((Self::of(next)?, None));
        }
        let mut hunks = Vec::new();
        let mut text = String::with_capacity(self.text.len() + 64);
        let sheets = write(&mut text, next, |(s, r), row, text| {
            let (Some(old), Some(span)) =
                (before.sheets[s].rows.get(r), self.sheets[s].rows.get(r))
            else {
                return push_json(text, &**row);
            };
            let was = &self.text[span.clone()];
            if old.shares(row) {
                text.push_str(was);
                return Ok(());
            }
            let at = text.len();
            if !(old.len() == row.len() && patch(text, was, old, row, span.start, &mut hunks)?) {
                text.truncate(at);
                push_json(text, &**row)?;
                let (keep, cut, put) = splice::diff(was, &text[at..]);
                if cut > 0 || !put.is_empty() {
                    hunks.push(Hunk {
                        at: span.start + keep,
                        cut,
                        put: Cow::Owned(put.to_owned()),
                    });
                }
            }
            Ok(())
        })?;
        let next_text = SheetText { text, sheets };
        for (s, old) in before.sheets.iter().enumerate() {
            // Rows added or removed at the end: what follows the last row both have.
            let common = old.rows.len().min(next.sheets[s].rows.len());
            let tail = |spans: &SheetSpans| match common {
                0 => spans.inside.clone(),
                n => spans.rows[n - 1].end..spans.inside.end,
            };
            let (from, to) = (tail(&self.sheets[s]), tail(&next_text.sheets[s]));
            if self.text[from.clone()] != next_text.text[to.clone()] {
                hunks.push(Hunk {
                    at: from.start,
                    cut: from.len(),
                    put: Cow::Owned(next_text.text[to].to_owned()),
                });
            }
        }
        hunks.sort_by_key(|h| h.at);
        Ok((next_text, Some(hunks)))
    }
}

/// Writes `tab` as `serde_json` does (`{"sheets":[{"id":…,"name":…,"rows":[[…],…]}]}`),
/// each row's text by `row` ((sheet, row) index, the row, the text to append to).
fn write(
    text: &mut String,
    tab: &SheetTab,
    mut row: impl FnMut((usize, usize), &Row, &mut String) -> serde_json::Result<()>,
) -> serde_json::Result<Vec<SheetSpans>> {
    text.push_str(r#"{"sheets":["#);
    let mut sheets = Vec::with_capacity(tab.sheets.len());
    for (s, sheet) in tab.sheets.iter().enumerate() {
        if s > 0 {
            text.push(',');
        }
        text.push_str(r#"{"id":"#);
        push_json(text, &sheet.id)?;
        text.push_str(r#","name":"#);
        push_json(text, &sheet.name)?;
        text.push_str(r#","rows":["#);
        let start = text.len();
        let mut rows = Vec::with_capacity(sheet.rows.len());
        for (r, cells) in sheet.rows.iter().enumerate() {
            if r > 0 {
                text.push(',');
            }
            let at = text.len();
            row((s, r), cells, text)?;
            rows.push(at..text.len());
        }
        sheets.push(SheetSpans {
            inside: start..text.len(),
            rows,
        });
        text.push_str("]}");
    }
    text.push_str("]}");
    Ok(sheets)
}

fn push_json<T: serde::Serialize + ?Sized>(text: &mut String, value: &T) -> serde_json::Result<()> {
    text.push_str(&serde_json::to_string(value)?);
    Ok(())
}

/// Appends the text of `row` made from `was`, the text of `old` (a row of as many cells, at
/// byte `base` of the old text): the cells that differ are written, the others copied, and
/// each written cell's range of the old text goes to `hunks`. False (with `text` partly
/// written) when `was` does not split into `old`'s cells.
fn patch(
    text: &mut String,
    was: &str,
    old: &Row,
    row: &Row,
    base: usize,
    hunks: &mut Vec<Hunk<Cow<'static, str>>>,
) -> serde_json::Result<bool> {
    let cells = cell_spans(was);
    if cells.len() != old.len() {
        return Ok(false);
    }
    let mut from = 0;
    for ((a, b), span) in old.iter().zip(row.iter()).zip(cells) {
        if same_cell(a, b) {
            continue;
        }
        text.push_str(&was[from..span.start]);
        let at = text.len();
        push_json(text, b)?;
        hunks.push(Hunk {
            at: base + span.start,
            cut: span.len(),
            put: Cow::Owned(text[at..].to_owned()),
        });
        from = span.end;
    }
    text.push_str(&was[from..]);
    Ok(true)
}

/// Where each cell of a row's JSON text (`[c0,c1,…]`, scalars only, as serde_json writes it)
/// is in it.
fn cell_spans(row: &str) -> Vec<Range<usize>> {
    let bytes = row.as_bytes();
    let mut spans = Vec::new();
    if bytes.len() <= 2 {
        return spans;
    }
    let (mut start, mut in_string, mut escaped) = (1, false, false);
    for (i, &b) in bytes.iter().enumerate().take(bytes.len() - 1).skip(1) {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (false, _, b'"') => in_string = true,
            (false, _, b',') => {
                spans.push(start..i);
                start = i + 1;
            }
            _ => {}
        }
    }
    spans.push(start..bytes.len() - 1);
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::Splice;
    use quire_model::{Sheet, TabData, Version};
    use serde_json::{Value, json};

    fn tab(sheets: &[(&str, &str, Vec<Vec<Value>>)]) -> SheetTab {
        SheetTab {
            sheets: sheets
                .iter()
                .map(|(id, name, rows)| Sheet {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    rows: rows.iter().cloned().map(Row::from).collect(),
                })
                .collect(),
        }
    }

    fn serde_text(tab: &SheetTab) -> String {
        serde_json::to_string(&TabData::Sheet(tab.clone()).content()).expect("serialise")
    }

    /// Applies `hunks` to `old` as the store's reader does.
    fn applied(old: &str, hunks: Vec<Hunk<Cow<'static, str>>>) -> String {
        let mut hunks = hunks.into_iter().map(|h| Hunk {
            at: h.at,
            cut: h.cut,
            put: h.put.into_owned(),
        });
        let first = hunks.next().unwrap_or(Hunk {
            at: 0,
            cut: 0,
            put: String::new(),
        });
        let splice = Splice {
            base: Version(1),
            keep: first.at,
            cut: first.cut,
            put: first.put,
            base_hash: Some(splice::hash(old)),
            old_hash: None,
            more: hunks.collect(),
        };
        let mut text = old.to_owned();
        splice::apply(&mut text, &splice).expect("the hunks fit");
        text
    }

    #[test]
    fn the_text_is_what_serde_json_writes() {
        for t in [
            tab(&[]),
            tab(&[("s1", "Sheet 1", vec![])]),
            tab(&[
                (
                    "s1",
                    "quote \" and \\ é\n",
                    vec![vec![], vec![json!(1), json!(null)]],
                ),
                (
                    "s2",
                    "",
                    vec![vec![json!("a,b"), json!(-0.0), json!(1e-30), json!(true)]],
                ),
            ]),
        ] {
            assert_eq!(SheetText::of(&t).expect("text").text, serde_text(&t));
        }
    }

    /// Cells written here and there, rows added and removed: the new text is serde_json's, and
    /// the hunks, applied to the old text, give it; each hunk holds little more than its cell.
    #[test]
    fn the_next_text_reuses_shared_rows_and_splices_changed_cells() {
        let rows: Vec<Vec<Value>> = (0..40)
            .map(|r| vec![json!(r), json!(format!("row {r}")), json!(null)])
            .collect();
        let before = tab(&[("s1", "One", rows.clone()), ("s2", "Two", rows)]);
        let old = SheetText::of(&before).expect("text");
        let edits: [&dyn Fn(&mut SheetTab); 5] = [
            &|t| t.sheets[0].rows[3][1] = json!("é changed"),
            &|t| {
                t.sheets[0].rows[0][0] = json!(-0.0);
                t.sheets[1].rows[39][2] = json!("last");
            },
            &|t| t.sheets[1].rows.push(Row::from(vec![json!("new")])),
            &|t| t.sheets[0].rows.truncate(10),
            &|t| t.sheets[0].rows.clear(),
        ];
        for edit in edits {
            let mut next = before.clone();
            edit(&mut next);
            let (text, hunks) = old.next(&before, &next).expect("next");
            assert_eq!(text.text, serde_text(&next));
            assert_eq!(text, SheetText::of(&next).expect("text"), "the spans too");
            let hunks = hunks.expect("same sheets");
            assert!(hunks.iter().all(|h| h.put.len() < 40), "{hunks:?}");
            assert_eq!(applied(&old.text, hunks), text.text);
        }
        let mut renamed = before.clone();
        renamed.sheets[1].name = "Renamed".into();
        let (text, hunks) = old.next(&before, &renamed).expect("next");
        assert_eq!(text.text, serde_text(&renamed));
        assert!(hunks.is_none());
    }

    /// Cells whose text holds commas, quotes, backslashes and escapes split where serde_json put
    /// the commas between them: a cell after them is written in its place.
    #[test]
    fn cells_split_at_their_own_commas() {
        let tricky = vec![
            json!("a,b"),
            json!("q\",u\\"),
            json!("\\"),
            json!("\u{1}é,"),
            json!(null),
            json!(-1.5e300),
        ];
        assert_eq!(
            cell_spans(&serde_json::to_string(&tricky).expect("text")).len(),
            tricky.len()
        );
        assert!(cell_spans("[]").is_empty());
        let before = tab(&[("s1", "One", vec![tricky.clone(), tricky])]);
        let old = SheetText::of(&before).expect("text");
        for col in 0..6 {
            let mut next = before.clone();
            next.sheets[0].rows[1][col] = json!("new, \"cell\"");
            let (text, hunks) = old.next(&before, &next).expect("next");
            assert_eq!(text.text, serde_text(&next));
            let hunks = hunks.expect("same sheets");
            assert_eq!(hunks.len(), 1, "{hunks:?}");
            assert_eq!(applied(&old.text, hunks), text.text);
        }
    }

    /// A row is copied from the old text only when it is the very row (shared), never because
    /// it is alike: `-0.0` over `0.0` is written out.
    #[test]
    fn a_row_alike_but_not_shared_is_written_out() {
        let before = tab(&[("s1", "One", vec![vec![json!(0.0)]])]);
        let old = SheetText::of(&before).expect("text");
        let next = tab(&[("s1", "One", vec![vec![json!(-0.0)]])]);
        let (text, hunks) = old.next(&before, &next).expect("next");
        assert_eq!(text.text, serde_text(&next));
        assert_eq!(applied(&old.text, hunks.expect("same sheets")), text.text);
    }
}
