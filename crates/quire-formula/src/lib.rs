//! The formulas of a Sheet tab, computed.
//!
//! A cell whose text starts with `=` (and has more after it) is a formula: `=SUM(A1:A3)`,
//! `=B2*2`, `=IF(A1>0,"yes","no")`, `='Sheet 2'!A1`. The stored cell keeps that text; what it
//! computes to is asked of this crate, by the server (the agent's `read_sheet_range`) and by the
//! app (the grid shows it). One engine for both: ironcalc_base, a maintained spreadsheet engine
//! (MIT OR Apache-2.0). Every sheet of the tab is loaded, by its name, so a formula may refer to
//! another sheet of the same tab; numbers are numbers, text is text (a text "12" is not summed),
//! booleans are booleans, whatever the text looks like.
//!
//! The engine reads the clock (`NOW`, `TODAY`) and draws random numbers (`RAND`), which is why
//! it lives here and not in quire-model, which must stay pure.

use ironcalc_base::Model;
use ironcalc_base::types::{Cell as EngineCell, FormulaValue};
use quire_model::{Cell, Sheet};
use serde::Serialize;
use serde_json::{Value, json};

/// The most rows and columns the engine holds (Excel's sizes); a formula past them is `#REF!`.
const MAX_ROWS: usize = 1_048_576;
const MAX_COLS: usize = 16_384;

/// The error a formula cell shows when its place is out of the engine's reach.
const OUT_OF_REACH: &str = "#REF!";

/// Why a tab's formulas could not be computed at all (never one formula's error: that is a
/// [`Computed::Error`] in its cell).
#[derive(Debug, thiserror::Error)]
pub enum FormulaError {
    #[error("the formula engine could not start: {0}")]
    Engine(String),
}

/// What a formula cell computes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Computed {
    /// A formula whose result is an empty cell (`=A9` with A9 empty is 0; this is rarer).
    Empty,
    Number(f64),
    Text(String),
    Bool(bool),
    /// A spreadsheet error, as the cell shows it: `#DIV/0!`, `#REF!`, `#NAME?`, `#VALUE!`,
    /// `#CIRC!` (a cycle), `#ERROR!` (a formula that does not parse), ...
    Error(String),
}

impl Computed {
    /// As JSON: `null`, a number, a string or a boolean, and an error as `{"error": "#DIV/0!"}`
    /// so that it is never mistaken for a text.
    pub fn to_json(&self) -> Value {
        match self {
            Computed::Empty => Value::Null,
            Computed::Number(n) => json!(n),
            Computed::Text(s) => json!(s),
            Computed::Bool(b) => json!(b),
            Computed::Error(code) => json!({ "error": code }),
        }
    }
}

impl Serialize for Computed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// One formula cell of a sheet and its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComputedCell {
    pub row: usize,
    pub col: usize,
    pub value: Computed,
}

/// The formula cells of one sheet, computed (cells that are not formulas are not listed: they
/// show as stored).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComputedSheet {
    pub id: String,
    pub cells: Vec<ComputedCell>,
}

impl ComputedSheet {
    /// The result of the formula at (`row`, `col`), if that cell is a formula.
    pub fn get(&self, row: usize, col: usize) -> Option<&Computed> {
        self.cells
            .binary_search_by(|c| (c.row, c.col).cmp(&(row, col)))
            .ok()
            .and_then(|i| self.cells.get(i))
            .map(|c| &c.value)
    }
}

/// Whether a cell is a formula: a text starting with `=` with something after it.
pub fn is_formula(cell: &Cell) -> bool {
    matches!(cell, Value::String(s) if s.len() > 1 && s.starts_with('='))
}

/// Whether any cell of these sheets is a formula (when none is, there is nothing to compute).
pub fn has_formulas(sheets: &[Sheet]) -> bool {
    sheets
        .iter()
        .any(|s| s.rows.iter().any(|r| r.iter().any(is_formula)))
}

/// Computes every formula of the tab's sheets, in the sheets' order. A tab without formulas
/// costs a scan of its cells and starts no engine.
pub fn compute(sheets: &[Sheet]) -> Result<Vec<ComputedSheet>, FormulaError> {
    if !has_formulas(sheets) {
        return Ok(sheets
            .iter()
            .map(|s| ComputedSheet {
                id: s.id.clone(),
                cells: Vec::new(),
            })
            .collect());
    }
    let mut model = Model::new_empty("quire", "en", "UTC", "en").map_err(FormulaError::Engine)?;
    for (index, sheet) in sheets.iter().enumerate() {
        add_sheet(&mut model, index, &sheet.name)?;
    }
    for (index, sheet) in sheets.iter().enumerate() {
        let index = engine_index(index)?;
        for (r, row) in sheet.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if let Some((row, col)) = place(r, c) {
                    put(&mut model, index, row, col, cell);
                }
            }
        }
    }
    model.evaluate();
    sheets
        .iter()
        .enumerate()
        .map(|(index, sheet)| {
            let index = engine_index(index)?;
            let mut cells = Vec::new();
            for (r, row) in sheet.rows.iter().enumerate() {
                for (c, cell) in row.iter().enumerate() {
                    if !is_formula(cell) {
                        continue;
                    }
                    let value = match place(r, c) {
                        Some((row, col)) => result(&model, index, row, col),
                        None => Computed::Error(OUT_OF_REACH.to_owned()),
                    };
                    cells.push(ComputedCell {
                        row: r,
                        col: c,
                        value,
                    });
                }
            }
            Ok(ComputedSheet {
                id: sheet.id.clone(),
                cells,
            })
        })
        .collect()
}

fn engine_index(index: usize) -> Result<u32, FormulaError> {
    u32::try_from(index).map_err(|_| FormulaError::Engine("too many sheets".to_owned()))
}

/// The engine's 1-based place of a cell, if within its reach.
fn place(row: usize, col: usize) -> Option<(i32, i32)> {
    if row >= MAX_ROWS || col >= MAX_COLS {
        return None;
    }
    Some((i32::try_from(row + 1).ok()?, i32::try_from(col + 1).ok()?))
}

/// Gives the engine's sheet `index` the sheet's name, or a stand-in when the engine refuses it
/// (a name it does not allow, or one already taken): formulas then cannot name that sheet.
fn add_sheet(model: &mut Model<'_>, index: usize, name: &str) -> Result<(), FormulaError> {
    let named = if index == 0 {
        model
            .rename_sheet_by_index(0, name)
            .or_else(|_| model.rename_sheet_by_index(0, "Sheet1"))
    } else {
        model.add_sheet(name)
    };
    if named.is_ok() {
        return Ok(());
    }
    let (_, _) = model.new_sheet();
    Ok(())
}

fn put(model: &mut Model<'_>, sheet: u32, row: i32, col: i32, cell: &Cell) {
    // A cell the engine refuses stays empty there; a formula reading it sees an empty cell.
    let _ = match cell {
        Value::Null => Ok(()),
        Value::Bool(b) => model.update_cell_with_bool(sheet, row, col, *b),
        Value::Number(n) => match n.as_f64() {
            Some(n) => model.update_cell_with_number(sheet, row, col, n),
            None => Ok(()),
        },
        Value::String(s) if is_formula(cell) => {
            model.update_cell_with_formula(sheet, row, col, s.clone())
        }
        Value::String(s) => model.update_cell_with_text(sheet, row, col, s),
        // Arrays and objects are not cells a person types; the engine sees their JSON text.
        other => model.update_cell_with_text(sheet, row, col, &other.to_string()),
    };
}

fn result(model: &Model<'_>, sheet: u32, row: i32, col: i32) -> Computed {
    let Ok(worksheet) = model.workbook.worksheet(sheet) else {
        return Computed::Error(OUT_OF_REACH.to_owned());
    };
    match worksheet.cell(row, col).as_deref() {
        Some(EngineCell::CellFormula { v, .. } | EngineCell::ArrayFormula { v, .. }) => match v {
            FormulaValue::Unevaluated => Computed::Empty,
            FormulaValue::Boolean(b) => Computed::Bool(*b),
            FormulaValue::Number(n) if n.is_finite() => Computed::Number(*n),
            FormulaValue::Number(_) => Computed::Error("#NUM!".to_owned()),
            FormulaValue::Text(s) => Computed::Text(s.clone()),
            FormulaValue::Error { ei, .. } => Computed::Error(ei.to_string()),
        },
        Some(EngineCell::ErrorCell { ei, .. }) => Computed::Error(ei.to_string()),
        // The engine did not take the formula (it does not parse).
        _ => Computed::Error("#ERROR!".to_owned()),
    }
}
