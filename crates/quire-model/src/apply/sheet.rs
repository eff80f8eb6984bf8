//! The Sheet tab: writing a range of cells, and what a sheet tab may hold.

use serde_json::Value;

use super::{Draft, OpResult, check_id, clip, wrong_kind};
use crate::bounds::{Grid, grows_past};
use crate::error::{OpError, OpErrorCode};
use crate::tab::{Row, Sheet, SheetTab, TabData, same_cell};
use crate::{TabId, limits};

/// `sheet_set_range`: `values` written at `start` (row, column) of the sheet `sheet_id`, or
/// of the tab's first sheet.
pub(super) fn set_range(
    d: &mut Draft,
    tab_id: &TabId,
    sheet_id: Option<&str>,
    start: (u64, u64),
    values: &[Vec<Value>],
) -> OpResult {
    let before = d.grid();
    let tab = d.tab_mut(tab_id)?;
    let TabData::Sheet(sheets) = &mut tab.data else {
        return Err(wrong_kind(tab, "sheet_set_range", "a sheet"));
    };
    let sheet = match sheet_id {
        Some(id) => sheets
            .sheets
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| {
                OpError::new(
                    OpErrorCode::ItemNotFound,
                    "sheet_id",
                    format!("no sheet {:?} in tab {tab_id}", clip(id, 80)),
                )
            })?,
        None => sheets
            .sheets
            .first_mut()
            .ok_or_else(|| OpError::invalid("sheet_id", "this tab has no sheet"))?,
    };
    let (cells, after, changed) = write_range(sheet, start.0, start.1, values, before)?;
    d.grid = Some(after);
    if changed {
        d.surely_changed.insert(tab_id.clone());
    }
    d.edited(tab_id, format!("set {cells} cells in {}", d.named(tab_id)))
}

/// What a sheet tab's new content (`replace_tab_data`) must be, given the old one.
pub(super) fn check_sheets(old: &SheetTab, tab: &SheetTab) -> Result<(), OpError> {
    if tab.sheets.is_empty() {
        return Err(OpError::invalid(
            "data.sheets",
            "a sheet tab holds at least one sheet",
        ));
    }
    if grows_past(old.sheets.len(), tab.sheets.len(), limits::SHEETS) {
        return Err(OpError::over_limit(
            "data.sheets",
            format!(
                "{} sheets; a sheet tab holds at most {}",
                tab.sheets.len(),
                limits::SHEETS
            ),
        ));
    }
    let mut ids = std::collections::HashSet::new();
    for (i, sheet) in tab.sheets.iter().enumerate() {
        check_id(&mut ids, "data.sheets", i, &sheet.id)?;
        check_grid(&sheet.rows, &format!("data.sheets[{i}].rows"))?;
    }
    Ok(())
}

fn check_grid<R: AsRef<[Value]>>(rows: &[R], field: &str) -> Result<(), OpError> {
    if rows.len() > limits::SHEET_ROWS {
        return Err(OpError::over_limit(
            field,
            format!("more than {} rows", limits::SHEET_ROWS),
        ));
    }
    let mut cells = 0usize;
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_ref();
        if row.len() > limits::SHEET_COLS {
            return Err(OpError::over_limit(
                format!("{field}[{r}]"),
                format!("more than {} columns", limits::SHEET_COLS),
            ));
        }
        cells += row.len();
        for (c, cell) in row.iter().enumerate() {
            if cell.is_array() || cell.is_object() {
                return Err(OpError::invalid(
                    format!("{field}[{r}][{c}]"),
                    "a cell is a string, number, boolean or null",
                ));
            }
        }
    }
    if cells > limits::SHEET_CELLS {
        return Err(OpError::over_limit(
            field,
            format!("more than {} cells", limits::SHEET_CELLS),
        ));
    }
    Ok(())
}

/// Writes `values` at (`start_row`, `start_col`), growing the grid with nulls, unless what the
/// Note's sheets would then store (`before`, the Note-wide totals, plus the cells and rows this
/// range adds, its padding included) passes a limit. Returns the number of cells written, the
/// new totals, and whether the sheet surely changed (it grew, or a cell got another value; a
/// write of equal values is left to `Tab::identical` to judge). Costs the size of `values`, not of
/// the sheet.
fn write_range(
    sheet: &mut Sheet,
    start_row: u64,
    start_col: u64,
    values: &[Vec<Value>],
    before: Grid,
) -> Result<(usize, Grid, bool), OpError> {
    if values.is_empty() {
        return Err(OpError::invalid("values", "at least one row is required"));
    }
    check_grid(values, "values")?;
    let width = values.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let end_row = start_row.saturating_add(values.len() as u64);
    let end_col = start_col.saturating_add(width);
    if end_row > limits::SHEET_ROWS as u64 {
        return Err(OpError::over_limit(
            "start_row",
            format!("the range ends past row {}", limits::SHEET_ROWS),
        ));
    }
    if end_col > limits::SHEET_COLS as u64 {
        return Err(OpError::over_limit(
            "start_col",
            format!("the range ends past column {}", limits::SHEET_COLS),
        ));
    }
    let (start_row, start_col) = (start_row as usize, start_col as usize);
    let added = Grid {
        cells: (values.iter().enumerate())
            .map(|(r, row)| {
                let stored = sheet.rows.get(start_row + r).map_or(0, |row| row.len());
                (start_col + row.len()).saturating_sub(stored)
            })
            .sum(),
        rows: (start_row + values.len()).saturating_sub(sheet.rows.len()),
    };
    let after = before.plus(added);
    // Blame the offset when it is the padding it brings in, not the values sent, that passes
    // the limit.
    let sent = Grid::of_rows(values);
    let blame = |sent: usize, before: usize, limit: usize, offset: &'static str| {
        if before + sent <= limit {
            offset
        } else {
            "values"
        }
    };
    Grid::check(
        before,
        after,
        (
            blame(sent.cells, before.cells, limits::SHEET_CELLS, "start_col"),
            blame(sent.rows, before.rows, limits::NOTE_ROWS, "start_row"),
        ),
    )?;
    if sheet.rows.len() < start_row + values.len() {
        sheet
            .rows
            .resize_with(start_row + values.len(), Row::default);
    }
    let mut written = 0;
    let mut changed = added != Grid::default();
    for (r, row) in values.iter().enumerate() {
        let target = &mut sheet.rows[start_row + r];
        if target.len() < start_col + row.len() {
            target.resize(start_col + row.len(), Value::Null);
        }
        for (c, cell) in row.iter().enumerate() {
            written += 1;
            // A cell that already holds this very value is left alone: its row stays shared
            // with the version before.
            if same_cell(&target[start_col + c], cell) {
                continue;
            }
            changed = changed || target[start_col + c] != *cell;
            target[start_col + c] = cell.clone();
        }
    }
    Ok((written, after, changed))
}
