//! What the read tools show the agent: pure projections of a Note, no I/O.

use quire_model::{Note, SheetTab, Tab, TabData, TabId};
use serde_json::{Value, json};

use super::args::AttachmentKind;
use super::schema::Violation;

/// Most cells `read_note_tab` returns inline for a sheet; past it, `read_sheet_range`.
pub(crate) const INLINE_SHEET_CELLS: usize = 100 * 100;
/// The most items one `list_note_attachments` call returns (the schema's `maximum`).
pub(crate) const ATTACHMENTS_MAX_LIMIT: u64 = 50;

/// `{note_id, title, version, tabs: [{id, type, label}]}` in strip order.
pub(crate) fn tab_list(note: &Note) -> Value {
    let tabs: Vec<Value> = note
        .tabs
        .iter()
        .map(|t| json!({"id": t.id, "type": t.kind(), "label": t.label}))
        .collect();
    json!({
        "note_id": note.id,
        "title": note.title,
        "version": note.version,
        "tabs": tabs,
    })
}

/// The tab with exactly this ID, or a refusal naming `tab_id` that shows the first real IDs
/// (short whatever the Note holds, and the ID sent cut to 80 characters).
pub(crate) fn find_tab<'n>(note: &'n Note, tab_id: &TabId) -> Result<&'n Tab, Violation> {
    note.tab(tab_id).ok_or_else(|| {
        let sent: String = tab_id.as_str().chars().take(80).collect();
        Violation::at_field(
            "tab_id",
            format!(
                "no tab {sent:?} in this note (its tabs: {}); use an exact tab ID from list_note_tabs, never a type or a label",
                note.tab_ids_in_brief()
            ),
        )
    })
}

/// `{tab_id, type, label, version, data}`. A sheet tab over [`INLINE_SHEET_CELLS`] comes
/// with each sheet's size instead of its cells, and `cells_omitted: true`.
pub(crate) fn tab_content(note: &Note, tab: &Tab) -> Value {
    let mut out = json!({
        "note_id": note.id,
        "tab_id": tab.id,
        "type": tab.kind(),
        "label": tab.label,
        "version": note.version,
    });
    let data = match &tab.data {
        TabData::Sheet(sheets) => {
            let cells: usize = sheets
                .sheets
                .iter()
                .flat_map(|s| s.rows.iter().map(|r| r.len()))
                .sum();
            if cells > INLINE_SHEET_CELLS {
                out["cells_omitted"] = Value::Bool(true);
                let sizes: Vec<Value> = sheets
                    .sheets
                    .iter()
                    .map(|s| {
                        json!({
                            "id": s.id,
                            "name": s.name,
                            "row_count": s.rows.len(),
                            "col_count": s.rows.iter().map(|r| r.len()).max().unwrap_or(0),
                        })
                    })
                    .collect();
                json!({ "sheets": sizes })
            } else {
                tab.data.to_value()
            }
        }
        _ => tab.data.to_value(),
    };
    out["data"] = data;
    out
}

/// Lines `read_note_lines` returns when `line_count` is not given.
pub(crate) const LINES_DEFAULT_COUNT: u64 = 200;

/// `{note_id, tab_id, version, start_line, lines: [{number, text}], total_lines, truncated}`:
/// at most `count` lines of a Markdown tab from line `start` (1-based), or, with `find`, from
/// the first line at or after `start` whose text contains it. A line is the text up to a `\n`,
/// without it, so `text` is what `edit_note_text` can quote; a final `\n` ends the last line
/// and starts none. `start` past the last line is refused (line 1 of an empty text is not),
/// and so is a `find` no line holds.
pub(crate) fn text_lines(
    note: &Note,
    tab: &Tab,
    start: u64,
    count: u64,
    find: Option<&str>,
) -> Result<Value, Violation> {
    let TabData::Markdown(text) = &tab.data else {
        return Err(Violation::at_field(
            "tab_id",
            format!(
                "{:?} is a {} tab; read_note_lines reads a markdown tab (read_note_tab reads any)",
                tab.id.as_str(),
                tab.kind()
            ),
        ));
    };
    // Lines are found with `memchr`, not walked one by one: a 1 MiB text holds 16,000 of
    // them, and `find` on each line alone set up a substring search per line.
    let bytes = text.as_bytes();
    let breaks = || memchr::memchr_iter(b'\n', bytes);
    let total = breaks().count() + usize::from(!text.is_empty() && !text.ends_with('\n'));
    let first = to_index(start).saturating_sub(1);
    if first > 0 && first >= total {
        return Err(Violation::at_field(
            "start_line",
            format!("line {start} is past the end: this tab has {total} lines"),
        ));
    }
    // Where line `first` (0-based) starts.
    let from = match first {
        0 => 0,
        n => breaks().nth(n - 1).map_or(bytes.len(), |at| at + 1),
    };
    // The first line to give, and where it starts.
    let (first, from) = match find {
        None => (first, from),
        // A line is searched by itself: a quote holding a line break is in none. Any other is
        // in the line of its first occurrence from `from` on.
        Some(needle) => (total > 0 && !needle.contains('\n'))
            .then(|| memchr::memmem::find(&bytes[from..], needle.as_bytes()))
            .flatten()
            .map(|at| {
                let before = &bytes[from..from + at];
                let line = memchr::memrchr(b'\n', before).map_or(from, |i| from + i + 1);
                (first + memchr::memchr_iter(b'\n', before).count(), line)
            })
            .ok_or_else(|| {
                Violation::at_field(
                    "find",
                    format!(
                        "no line from line {start} on contains it (a line is searched by itself: a text across lines is not found)"
                    ),
                )
            })?,
    };
    let lines: Vec<Value> = text[from..]
        .split_inclusive('\n')
        .take(to_index(count))
        .enumerate()
        .map(|(i, line)| json!({"number": first + i + 1, "text": line_text(line)}))
        .collect();
    Ok(json!({
        "note_id": note.id,
        "tab_id": tab.id,
        "version": note.version,
        "start_line": first + 1,
        "truncated": first + lines.len() < total,
        "lines": lines,
        "total_lines": total,
    }))
}

/// A line of [`text_lines`] without its line break.
fn line_text(line: &str) -> &str {
    line.strip_suffix('\n').unwrap_or(line)
}

/// A window of at most `rows` x `cols` cells, padded with nulls past the sheet's end.
pub(crate) fn sheet_range(
    note: &Note,
    tab: &Tab,
    sheet_id: Option<&str>,
    start: (u64, u64),
    size: (u64, u64),
) -> Result<Value, Violation> {
    let TabData::Sheet(sheets) = &tab.data else {
        return Err(Violation::at_field(
            "tab_id",
            format!(
                "{:?} is a {} tab; read_sheet_range reads a sheet tab",
                tab.id.as_str(),
                tab.kind()
            ),
        ));
    };
    let sheet = match sheet_id {
        Some(id) => sheets.sheets.iter().find(|s| s.id == id).ok_or_else(|| {
            let ids: Vec<&str> = sheets.sheets.iter().map(|s| s.id.as_str()).collect();
            Violation::at_field(
                "sheet_id",
                format!(
                    "no sheet {id:?} in tab {} (its sheets are: {})",
                    tab.id,
                    ids.join(", ")
                ),
            )
        })?,
        None => sheets
            .sheets
            .first()
            .ok_or_else(|| Violation::at_field("tab_id", "this sheet tab holds no sheet"))?,
    };
    let (start_row, start_col) = (to_index(start.0), to_index(start.1));
    let (rows, cols) = (to_index(size.0), to_index(size.1));
    let values: Vec<Vec<Value>> = (start_row..start_row.saturating_add(rows))
        .map(|r| {
            let row = sheet.rows.get(r);
            (start_col..start_col.saturating_add(cols))
                .map(|c| {
                    row.and_then(|row| row.get(c))
                        .cloned()
                        .unwrap_or(Value::Null)
                })
                .collect()
        })
        .collect();
    let computed = computed_window(sheets, &sheet.id, &values, (start_row, start_col))?;
    Ok(json!({
        "note_id": note.id,
        "tab_id": tab.id,
        "sheet_id": sheet.id,
        "version": note.version,
        "start_row": start.0,
        "start_col": start.1,
        "values": values,
        "computed": computed,
        "sheet_row_count": sheet.rows.len(),
        "sheet_col_count": sheet.rows.iter().map(|r| r.len()).max().unwrap_or(0),
    }))
}

/// `values` with each formula cell replaced by what it computes to (the whole tab is computed:
/// a formula may read cells outside the window, or another sheet of the tab).
fn computed_window(
    sheets: &SheetTab,
    sheet_id: &str,
    values: &[Vec<Value>],
    start: (usize, usize),
) -> Result<Vec<Vec<Value>>, Violation> {
    let mut window = values.to_vec();
    if !quire_formula::has_formulas(&sheets.sheets) {
        return Ok(window);
    }
    let computed = quire_formula::compute(&sheets.sheets)
        .map_err(|e| Violation::at_field("tab_id", e.to_string()))?;
    let Some(sheet) = computed.iter().find(|s| s.id == sheet_id) else {
        return Ok(window);
    };
    for cell in &sheet.cells {
        let (Some(r), Some(c)) = (cell.row.checked_sub(start.0), cell.col.checked_sub(start.1))
        else {
            continue;
        };
        if let Some(slot) = window.get_mut(r).and_then(|row| row.get_mut(c)) {
            *slot = cell.value.to_json();
        }
    }
    Ok(window)
}

fn to_index(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// One page of the Note's attachments, metadata only, in the order they were attached. The
/// cursor is the attachment counter of the last item returned, so a page never repeats or
/// skips an item when others are attached or removed meanwhile.
pub(crate) fn attachments_page(
    note: &Note,
    kind: Option<AttachmentKind>,
    limit: Option<u64>,
    cursor: Option<&str>,
) -> Result<Value, Violation> {
    let limit = limit.unwrap_or(ATTACHMENTS_MAX_LIMIT);
    if !(1..=ATTACHMENTS_MAX_LIMIT).contains(&limit) {
        return Err(Violation::at_field(
            "limit",
            format!("maximum {ATTACHMENTS_MAX_LIMIT}"),
        ));
    }
    let after = match cursor {
        None => None,
        Some(c) => Some(c.parse::<u64>().map_err(|_| {
            Violation::at_field(
                "cursor",
                "not a cursor from list_note_attachments (pass next_cursor as it came)",
            )
        })?),
    };
    let mut items: Vec<(u64, Value)> = Vec::new();
    for tab in &note.tabs {
        match &tab.data {
            TabData::Sources(sources) if kind != Some(AttachmentKind::Files) => {
                items.extend(sources.iter().map(|s| {
                    (
                        counter_of(&s.id),
                        json!({
                            "kind": "source",
                            "id": s.id,
                            "title": s.title,
                            "url": s.url,
                            "added_by": s.added_by,
                            "added_at": s.added_at,
                        }),
                    )
                }));
            }
            TabData::Files(files) if kind != Some(AttachmentKind::Sources) => {
                items.extend(files.iter().map(|f| {
                    (
                        counter_of(&f.id),
                        json!({
                            "kind": "file",
                            "id": f.id,
                            "name": f.name,
                            "mime": f.mime,
                            "size": f.size,
                            "sha256": f.sha256,
                            "added_by": f.added_by,
                            "added_at": f.added_at,
                        }),
                    )
                }));
            }
            _ => {}
        }
    }
    items.sort_by_key(|(n, _)| *n);
    let total = items.len();
    let remaining: Vec<(u64, Value)> = items
        .into_iter()
        .filter(|(n, _)| after.is_none_or(|a| *n > a))
        .collect();
    let page_len = remaining.len().min(to_index(limit));
    let next_cursor = if remaining.len() > page_len {
        remaining
            .get(page_len.saturating_sub(1))
            .map(|(n, _)| Value::String(n.to_string()))
            .unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let page: Vec<Value> = remaining
        .into_iter()
        .take(page_len)
        .map(|(_, v)| v)
        .collect();
    Ok(json!({
        "note_id": note.id,
        "version": note.version,
        "total": total,
        "items": page,
        "next_cursor": next_cursor,
    }))
}

/// The Note-wide counter in a generated ID (`src-12-mh8z1k2a` -> 12). IDs come from the Note's
/// counter, which never goes back, so it orders attachments by when they were added.
fn counter_of(id: &str) -> u64 {
    id.split('-')
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use quire_model::{FileMeta, NoteId, Source};

    use super::*;

    fn note_with(sources: usize, files: usize) -> Note {
        let mut note = Note::new(
            "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"
                .parse::<NoteId>()
                .unwrap(),
            "t".into(),
        );
        let mut seq = 0;
        for tab in &mut note.tabs {
            match &mut tab.data {
                TabData::Sources(s) => s.extend((0..sources).map(|i| {
                    seq += 1;
                    Source {
                        id: format!("src-{}-x", seq * 2),
                        title: format!("s{i}"),
                        url: format!("https://example.org/{i}"),
                        normalized_url: format!("https://example.org/{i}"),
                        added_by: "a".into(),
                        added_at: "t".into(),
                    }
                })),
                TabData::Files(f) => f.extend((0..files).map(|i| FileMeta {
                    id: format!("file-{}-x", i * 2 + 1),
                    name: format!("f{i}"),
                    mime: "text/plain".into(),
                    size: 1,
                    sha256: "0".repeat(64),
                    added_by: "a".into(),
                    added_at: "t".into(),
                })),
                _ => {}
            }
        }
        note
    }

    fn pages(note: &Note, kind: Option<AttachmentKind>, limit: u64) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = attachments_page(note, kind, Some(limit), cursor.as_deref()).unwrap();
            out.push(
                page["items"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i["id"].as_str().unwrap().to_owned())
                    .collect(),
            );
            match page["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => return out,
            }
        }
    }

    #[test]
    fn pages_cover_every_item_once() {
        let note = note_with(120, 0);
        let p = pages(&note, Some(AttachmentKind::Sources), 50);
        assert_eq!(p.iter().map(Vec::len).collect::<Vec<_>>(), vec![50, 50, 20]);
        let all: std::collections::HashSet<_> = p.concat().into_iter().collect();
        assert_eq!(all.len(), 120);
    }

    #[test]
    fn kinds_interleave_in_attachment_order_and_filter() {
        let note = note_with(2, 2);
        assert_eq!(
            pages(&note, None, 50),
            vec![vec!["file-1-x", "src-2-x", "file-3-x", "src-4-x"]]
        );
        assert_eq!(
            pages(&note, Some(AttachmentKind::Files), 1),
            vec![vec!["file-1-x"], vec!["file-3-x"]]
        );
    }

    fn markdown(text: &str) -> Note {
        let mut note = note_with(0, 0);
        for tab in &mut note.tabs {
            if let TabData::Markdown(t) = &mut tab.data {
                *t = text.into();
            }
        }
        note
    }

    /// The lines' numbers and texts, total_lines and truncated; or the field refused.
    type Window = Result<(Vec<u64>, Vec<String>, u64, bool), String>;

    /// (text, start, count) -> its [`Window`].
    fn lines(text: &str, start: u64, count: u64) -> Window {
        let note = markdown(text);
        let tab = note.tab(&TabId::from(TabId::MARKDOWN)).unwrap();
        let out = text_lines(&note, tab, start, count, None).map_err(|v| v.field)?;
        let lines = out["lines"].as_array().unwrap();
        Ok((
            lines
                .iter()
                .map(|l| l["number"].as_u64().unwrap())
                .collect(),
            lines
                .iter()
                .map(|l| l["text"].as_str().unwrap().to_owned())
                .collect(),
            out["total_lines"].as_u64().unwrap(),
            out["truncated"].as_bool().unwrap(),
        ))
    }

    #[test]
    fn lines_are_numbered_from_one_and_windowed() {
        let s = |v: &[&str]| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let cases: Vec<(&str, u64, u64, Window)> = vec![
            ("", 1, 10, Ok((vec![], vec![], 0, false))),
            ("a", 1, 10, Ok((vec![1], s(&["a"]), 1, false))),
            ("a\n", 1, 10, Ok((vec![1], s(&["a"]), 1, false))),
            (
                "a\n\nc",
                1,
                10,
                Ok((vec![1, 2, 3], s(&["a", "", "c"]), 3, false)),
            ),
            ("a\nb\nc\n", 2, 1, Ok((vec![2], s(&["b"]), 3, true))),
            ("a\nb\nc", 3, 5, Ok((vec![3], s(&["c"]), 3, false))),
            ("a\r\nb", 1, 1, Ok((vec![1], s(&["a\r"]), 2, true))),
            ("a\nb", 3, 1, Err("start_line".into())),
            ("", 2, 1, Err("start_line".into())),
        ];
        for (text, start, count, want) in cases {
            assert_eq!(
                lines(text, start, count),
                want,
                "{text:?} from {start}, {count}"
            );
        }
    }

    #[test]
    fn find_starts_the_window_at_the_first_line_holding_it_from_start_on() {
        let note = markdown("intro\n## Budget\nrent\n## Budget again\nfood\n");
        let tab = note.tab(&TabId::from(TabId::MARKDOWN)).unwrap();
        let window = |start: u64, find: &str| {
            text_lines(&note, tab, start, 2, Some(find)).map(|out| {
                let numbers: Vec<u64> = out["lines"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l["number"].as_u64().unwrap())
                    .collect();
                (out["start_line"].as_u64().unwrap(), numbers)
            })
        };
        assert_eq!(window(1, "Budget").unwrap(), (2, vec![2, 3]));
        assert_eq!(window(3, "Budget").unwrap(), (4, vec![4, 5]));
        assert_eq!(window(1, "food").unwrap(), (5, vec![5]));
        assert_eq!(window(5, "Budget").unwrap_err().field, "find");
        assert_eq!(window(1, "intro\n## Budget").unwrap_err().field, "find");
    }

    /// The window found line by line, as `text_lines` once did: (first line, numbers, texts).
    fn reference(
        text: &str,
        start: usize,
        count: usize,
        find: Option<&str>,
    ) -> Option<Vec<(usize, String)>> {
        let all: Vec<&str> = text.split_inclusive('\n').map(line_text).collect();
        let first = start - 1;
        if first > 0 && first >= all.len() {
            return None;
        }
        let first = match find {
            None => first,
            Some(needle) => (first..all.len()).find(|&i| all[i].contains(needle))?,
        };
        Some(
            (first..all.len().min(first + count))
                .map(|i| (i + 1, all[i].to_owned()))
                .collect(),
        )
    }

    /// Over texts of short random lines (empty ones, multibyte ones, a final line break or
    /// not, `\r`), every start and every quote (a word, part of a line, a whole line, one
    /// across a break, an empty one, one no line holds) gives the window the line-by-line
    /// search gives, or is refused where it is.
    #[test]
    fn lines_are_found_as_a_search_line_by_line_finds_them() {
        const PIECES: &[&str] = &["fox", "the", " ", "é", "\r", "ü fox", "", "x"];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..next(12) {
                for _ in 0..next(4) {
                    text.push_str(PIECES[next(PIECES.len())]);
                }
                text.push('\n');
            }
            if next(2) == 0 {
                text.push_str(PIECES[next(PIECES.len())]);
            }
            let note = markdown(&text);
            let tab = note.tab(&TabId::from(TabId::MARKDOWN)).unwrap();
            let quotes = [
                "fox", "the fox", "é", "\r", "x\nthe", "", "ü fox\r", "absent",
            ];
            for start in 1..=text.lines().count() + 2 {
                for find in quotes.iter().map(Some).chain([None]) {
                    let got = text_lines(&note, tab, start as u64, 3, find.copied())
                        .ok()
                        .map(|out| {
                            out["lines"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|l| {
                                    let n = l["number"].as_u64().unwrap() as usize;
                                    (n, l["text"].as_str().unwrap().to_owned())
                                })
                                .collect::<Vec<_>>()
                        });
                    let want = reference(&text, start, 3, find.copied());
                    assert_eq!(got, want, "{text:?} from {start}, find {find:?}");
                }
            }
        }
    }

    #[test]
    fn lines_of_a_tab_that_is_not_markdown_are_refused_by_tab_id() {
        let note = note_with(1, 0);
        let tab = note
            .tabs
            .iter()
            .find(|t| matches!(t.data, TabData::Sources(_)))
            .unwrap();
        assert_eq!(
            text_lines(&note, tab, 1, 1, None).unwrap_err().field,
            "tab_id"
        );
    }

    #[test]
    fn limit_and_cursor_are_checked() {
        let note = note_with(1, 0);
        assert_eq!(
            attachments_page(&note, None, Some(51), None)
                .unwrap_err()
                .message,
            "limit: maximum 50"
        );
        assert_eq!(
            attachments_page(&note, None, None, Some("x"))
                .unwrap_err()
                .field,
            "cursor"
        );
    }
}
