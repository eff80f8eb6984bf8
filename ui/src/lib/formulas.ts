// Formulas in a Sheet: which cells are formulas, and what a cell shows once they are computed
// (the computing is the app's, in Rust: quire-formula, through `computeFormulas`). The stored
// cell keeps its formula; the grid shows its result, the editor and formula bar its text.

import type { Cell } from "./grid";
import { cellText } from "./grid";
import { cellKey } from "./marks";

/** What a formula computes to; an error as `{ error: "#DIV/0!" }`. */
export type Computed = number | string | boolean | null | { error: string };

/** The formula cells of one sheet, computed. */
export interface ComputedSheet {
  id: string;
  cells: { row: number; col: number; value: Computed }[];
}

/** Each sheet's results by cell (`cellKey`). */
export type Results = Map<string, Map<string, Computed>>;

/** A text starting with `=` with something after it. */
export function isFormula(cell: Cell | undefined): boolean {
  return typeof cell === "string" && cell.length > 1 && cell.startsWith("=");
}

/** Whether any cell of the tab is a formula (none: nothing to compute). */
export function hasFormulas(tab: { sheets: readonly { rows: readonly (readonly Cell[])[] }[] }): boolean {
  return tab.sheets.some((s) => s.rows.some((r) => r.some(isFormula)));
}

export function resultsOf(sheets: readonly ComputedSheet[]): Results {
  return new Map(sheets.map((s) => [s.id, new Map(s.cells.map((c) => [cellKey(c.row, c.col), c.value]))]));
}

/** A number as a spreadsheet shows it: 15 significant digits (0.1+0.2 is 0.3). */
export function formatNumber(n: number): string {
  return String(Number(n.toPrecision(15)));
}

/** What a cell shows in the grid, and how it is styled. */
export interface Shown {
  text: string;
  kind: "num" | "text" | "error";
}

/**
 * A cell as the grid shows it: a formula by its result (`result`, undefined while not yet
 * computed: then empty), anything else as stored.
 */
export function shownCell(cell: Cell | undefined, result: Computed | undefined): Shown {
  if (!isFormula(cell)) {
    return { text: cellText(cell), kind: typeof cell === "number" ? "num" : "text" };
  }
  if (result === undefined || result === null) return { text: "", kind: "text" };
  if (typeof result === "object") return { text: result.error, kind: "error" };
  if (typeof result === "number") return { text: formatNumber(result), kind: "num" };
  return { text: cellText(result), kind: "text" };
}
