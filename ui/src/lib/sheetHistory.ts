// The Sheet editor's undo operations (see lib/history.ts): cells set, rows and columns inserted
// or deleted, sheets added, removed or renamed. Each is applied to the tab as it is now and only
// where that part is still as the person left it: a cell the agent wrote since keeps the agent's
// value, a row or column the agent wrote into is not taken out, a sheet the agent changed is
// not removed. (A row or column another writer inserted or deleted meanwhile shifts the cells;
// the engine's merge keeps such changes whole, and the undo then compares by position.)

import { type Cell, type Rows, cellName, columnName, dataExtent, deleteColumn, deleteRow, getCell, insertColumn, insertRow, setCell } from "./grid";
import type { OpKind } from "./history";

export interface HistorySheet {
  id: string;
  name: string;
  rows: Rows;
}

export interface HistorySheets {
  sheets: HistorySheet[];
}

export type SheetOp =
  | { kind: "cell"; sheet: string; row: number; col: number; before: Cell; after: Cell }
  /** A row or column inserted (`insert`, empty) or deleted (`cells`: what it held, top to bottom or left to right). */
  | { kind: "row" | "col"; sheet: string; index: number; insert: boolean; cells: Cell[] }
  | { kind: "sheet"; index: number; insert: boolean; sheet: HistorySheet }
  | { kind: "name"; sheet: string; before: string; after: string };

/** The cells that differ between two versions of one sheet's rows, one operation each. */
export function cellOps(sheet: string, before: Rows, after: Rows): SheetOp[] {
  const a = dataExtent(before);
  const b = dataExtent(after);
  const ops: SheetOp[] = [];
  for (let row = 0; row < Math.max(a.rows, b.rows); row++) {
    for (let col = 0; col < Math.max(a.cols, b.cols); col++) {
      const was = getCell(before, { row, col });
      const now = getCell(after, { row, col });
      if (was !== now) ops.push({ kind: "cell", sheet, row, col, before: was, after: now });
    }
  }
  return ops;
}

/**
 * The rows and columns an undo or redo inserted or deleted, from the operations it applied
 * (`undo`: taken back, so an insert taken back is a delete): another writer's marked cells move
 * with them as with the person's own edit (lib/marks.ts `shiftCellMarks`).
 */
export function movedLines(
  applied: readonly SheetOp[],
  undo: boolean,
): { kind: "row" | "col"; sheet: string; index: number; insert: boolean }[] {
  const out: { kind: "row" | "col"; sheet: string; index: number; insert: boolean }[] = [];
  for (const op of applied) {
    if (op.kind === "row" || op.kind === "col") {
      out.push({ kind: op.kind, sheet: op.sheet, index: op.index, insert: undo ? !op.insert : op.insert });
    }
  }
  return out;
}

/** The row deleted at `index`, or the column: its cells, to put back. */
export function lineCells(rows: Rows, kind: "row" | "col", index: number): Cell[] {
  if (kind === "row") return (rows[index] ?? []).slice();
  return rows.map((r) => r[index] ?? null);
}

function sameCells(a: readonly Cell[], b: readonly Cell[]): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? null) !== (b[i] ?? null)) return false;
  return true;
}

function sameSheet(a: HistorySheet, b: HistorySheet): boolean {
  if (a.name !== b.name) return false;
  const ext = dataExtent(a.rows);
  const other = dataExtent(b.rows);
  if (ext.rows !== other.rows || ext.cols !== other.cols) return false;
  for (let r = 0; r < ext.rows; r++) if (!sameCells(a.rows[r] ?? [], b.rows[r] ?? [])) return false;
  return true;
}

function withRows(doc: HistorySheets, id: string, fn: (rows: Rows) => Rows | null): HistorySheets | null {
  const s = doc.sheets.find((x) => x.id === id);
  if (!s) return null;
  const rows = fn(s.rows);
  if (rows === null) return null;
  return { ...doc, sheets: doc.sheets.map((x) => (x.id === id ? { ...x, rows } : x)) };
}

function putLine(rows: Rows, kind: "row" | "col", index: number, cells: readonly Cell[]): Rows {
  let out = kind === "row" ? insertRow(rows, index) : insertColumn(rows, index);
  cells.forEach((v, i) => {
    if (v !== null) out = setCell(out, kind === "row" ? { row: index, col: i } : { row: i, col: index }, v);
  });
  return out;
}

function takeLine(rows: Rows, kind: "row" | "col", index: number, expect: readonly Cell[]): Rows | null {
  if (!sameCells(lineCells(rows, kind, index), expect)) return null;
  return kind === "row" ? deleteRow(rows, index) : deleteColumn(rows, index);
}

function applySheetOp(doc: HistorySheets, op: SheetOp, undo: boolean): HistorySheets | null {
  switch (op.kind) {
    case "cell": {
      const [expect, target] = undo ? [op.after, op.before] : [op.before, op.after];
      return withRows(doc, op.sheet, (rows) =>
        getCell(rows, op) === expect ? setCell(rows, { row: op.row, col: op.col }, target) : null,
      );
    }
    case "row":
    case "col": {
      // Inserting puts an empty line in; deleting took `cells` out.
      const adding = op.insert !== undo;
      const cells = op.insert ? [] : op.cells;
      return withRows(doc, op.sheet, (rows) =>
        adding ? putLine(rows, op.kind as "row" | "col", op.index, cells) : takeLine(rows, op.kind as "row" | "col", op.index, cells),
      );
    }
    case "sheet": {
      const adding = op.insert !== undo;
      const at = doc.sheets.findIndex((s) => s.id === op.sheet.id);
      if (adding) {
        if (at >= 0) return null;
        const sheets = doc.sheets.slice();
        sheets.splice(Math.min(op.index, sheets.length), 0, op.sheet);
        return { ...doc, sheets };
      }
      const cur = doc.sheets[at];
      if (!cur || !sameSheet(cur, op.sheet) || doc.sheets.length < 2) return null;
      return { ...doc, sheets: doc.sheets.filter((s) => s.id !== op.sheet.id) };
    }
    case "name": {
      const [expect, target] = undo ? [op.after, op.before] : [op.before, op.after];
      const s = doc.sheets.find((x) => x.id === op.sheet);
      if (!s || s.name !== expect) return null;
      return { ...doc, sheets: doc.sheets.map((x) => (x.id === op.sheet ? { ...x, name: target } : x)) };
    }
  }
}

function describeSheetOp(op: SheetOp): string {
  switch (op.kind) {
    case "cell":
      return cellName(op);
    case "row":
      return `row ${op.index + 1}`;
    case "col":
      return `column ${columnName(op.index)}`;
    case "sheet":
      return `the sheet “${op.sheet.name}”`;
    case "name":
      return "the sheet's name";
  }
}

export const SHEET_OPS: OpKind<HistorySheets, SheetOp> = {
  apply: applySheetOp,
  describe: describeSheetOp,
  fold: (older, newer) =>
    older.kind === "cell" && newer.kind === "cell" && older.sheet === newer.sheet && older.row === newer.row && older.col === newer.col
      ? { ...older, after: newer.after }
      : null,
};
