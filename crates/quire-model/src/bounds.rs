//! How much a Note stores, as [`crate::limits`] counts it: the sheets' cells and rows (kept as
//! running totals while a batch applies, so that no operation counts the Note again) and the
//! bytes of its text (counted once, when the batch is done: an operation can add no more text
//! than it carries, so nothing large is built before the count).

use serde_json::Value;

use crate::error::OpError;
use crate::tab::{SheetTab, Tab, TabData};
use crate::{Note, limits};

/// What the sheets of a Note (or of one tab) store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Grid {
    pub cells: usize,
    pub rows: usize,
}

impl Grid {
    pub fn of_rows<R: AsRef<[Value]>>(rows: &[R]) -> Self {
        Grid {
            cells: rows.iter().map(|r| r.as_ref().len()).sum(),
            rows: rows.len(),
        }
    }

    pub fn of_tab(tab: &SheetTab) -> Self {
        tab.sheets
            .iter()
            .map(|s| Grid::of_rows(&s.rows))
            .fold(Grid::default(), Grid::plus)
    }

    /// Every Sheet tab of the Note: one pass over its rows, not its cells.
    pub fn of_note(note: &Note) -> Self {
        note.tabs
            .iter()
            .filter_map(|t| match &t.data {
                TabData::Sheet(sheets) => Some(Grid::of_tab(sheets)),
                _ => None,
            })
            .fold(Grid::default(), Grid::plus)
    }

    pub fn plus(self, other: Grid) -> Grid {
        Grid {
            cells: self.cells + other.cells,
            rows: self.rows + other.rows,
        }
    }

    pub fn minus(self, other: Grid) -> Grid {
        Grid {
            cells: self.cells.saturating_sub(other.cells),
            rows: self.rows.saturating_sub(other.rows),
        }
    }

    /// Refuses a Note-wide total `after` (from `before`) that passes a limit, naming the field
    /// to blame for too many cells and for too many rows.
    pub fn check(before: Grid, after: Grid, fields: (&str, &str)) -> Result<(), OpError> {
        if grows_past(before.cells, after.cells, limits::SHEET_CELLS) {
            return Err(OpError::over_limit(
                fields.0,
                format!(
                    "the Note's sheets would store {} cells; at most {} (empty cells a range pads in count)",
                    after.cells,
                    limits::SHEET_CELLS
                ),
            ));
        }
        if grows_past(before.rows, after.rows, limits::NOTE_ROWS) {
            return Err(OpError::over_limit(
                fields.1,
                format!(
                    "the Note's sheets would hold {} rows; at most {}",
                    after.rows,
                    limits::NOTE_ROWS
                ),
            ));
        }
        Ok(())
    }
}

/// True when `after` passes `limit` and is more than `before`: a Note already past a limit
/// (stored before it existed) may still be edited, not grown.
pub(crate) fn grows_past(before: usize, after: usize, limit: usize) -> bool {
    after > limit && after > before
}

/// The bytes of text a Note holds, as [`limits::NOTE_TEXT_BYTES`] counts them.
pub(crate) fn text_bytes(note: &Note) -> usize {
    note.title.len() + note.tabs.iter().map(tab_text_bytes).sum::<usize>()
}

fn tab_text_bytes(tab: &Tab) -> usize {
    let data = match &tab.data {
        TabData::Markdown(text) => text.len(),
        TabData::Sheet(sheets) => sheets
            .sheets
            .iter()
            .map(|s| {
                s.id.len()
                    + s.name.len()
                    + s.rows
                        .iter()
                        .flat_map(|r| r.iter())
                        .map(|c| c.as_str().map_or(0, str::len))
                        .sum::<usize>()
            })
            .sum(),
        TabData::Slides(deck) => deck
            .slides
            .iter()
            .map(|s| s.id.len() + s.title.len() + s.body.len() + s.notes.len())
            .sum(),
        TabData::Sources(sources) => sources
            .iter()
            .map(|s| {
                s.id.len()
                    + s.title.len()
                    + s.url.len()
                    + s.normalized_url.len()
                    + s.added_by.len()
                    + s.added_at.len()
            })
            .sum(),
        TabData::Files(files) => files
            .iter()
            .map(|f| {
                f.id.len()
                    + f.name.len()
                    + f.mime.len()
                    + f.sha256.len()
                    + f.added_by.len()
                    + f.added_at.len()
            })
            .sum(),
    };
    tab.id.as_str().len() + tab.label.len() + data
}
