// Find and replace across a Sheet tab (the Sheet editor's find bar, Ctrl+F): the cells whose
// text holds the query, sheet by sheet in the tab's order and row by row in each, and the text
// of a cell with every occurrence replaced. A cell matches once however many times the query
// occurs in it ("3 of 12" counts cells, as spreadsheets do); Replace replaces every occurrence
// in the current cell.

import { type Cell, type Pos, type Rows, cellText, parseCell } from "./grid";

export interface FindOptions {
  matchCase: boolean;
}

function pattern(query: string, opts: FindOptions): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), opts.matchCase ? "g" : "gi");
}

/** Whether the cell's text holds `query`. */
export function cellMatches(cell: Cell | undefined, query: string, opts: FindOptions): boolean {
  if (query === "") return false;
  const text = cellText(cell);
  return opts.matchCase ? text.includes(query) : text.toLowerCase().includes(query.toLowerCase());
}

/** The cells holding `query`, row by row, left to right. */
export function findMatches(rows: Rows, query: string, opts: FindOptions): Pos[] {
  const out: Pos[] = [];
  if (query === "") return out;
  rows.forEach((r, row) =>
    r.forEach((cell, col) => {
      if (cellMatches(cell, query, opts)) out.push({ row, col });
    }),
  );
  return out;
}

/** The cell with every occurrence of `query` replaced (read again: "12" stays a number). */
export function replaceInCell(cell: Cell, query: string, replacement: string, opts: FindOptions): Cell {
  if (query === "") return cell;
  return parseCell(cellText(cell).replace(pattern(query, opts), () => replacement));
}

/** The rows with `query` replaced in every cell, and how many cells changed. */
export function replaceAll(rows: Rows, query: string, replacement: string, opts: FindOptions): { rows: Rows; cells: number } {
  let cells = 0;
  const out = rows.map((r) =>
    r.map((cell) => {
      if (!cellMatches(cell, query, opts)) return cell;
      const next = replaceInCell(cell, query, replacement, opts);
      if (next !== cell) cells++;
      return next;
    }),
  );
  return { rows: out, cells };
}

/** A matching cell and the sheet it is on. */
export interface SheetMatch extends Pos {
  sheetId: string;
}

/** A sheet of the tab, as far as finding goes. */
export interface FindSheet {
  id: string;
  rows: Rows;
}

/** The cells holding `query` on every sheet, in the tab's order, each sheet row by row. */
export function findInSheets(sheets: readonly FindSheet[], query: string, opts: FindOptions): SheetMatch[] {
  return sheets.flatMap((s) => findMatches(s.rows, query, opts).map((p) => ({ sheetId: s.id, ...p })));
}

/**
 * Every sheet with `query` replaced in every cell, and how many cells (and sheets) changed. A
 * sheet with nothing to replace is the same object (so the edit touches only the others).
 */
export function replaceAllSheets<S extends FindSheet>(
  sheets: readonly S[],
  query: string,
  replacement: string,
  opts: FindOptions,
): { sheets: S[]; cells: number; sheetsChanged: number } {
  let cells = 0;
  let sheetsChanged = 0;
  const out = sheets.map((s) => {
    const r = replaceAll(s.rows, query, replacement, opts);
    if (r.cells === 0) return s;
    cells += r.cells;
    sheetsChanged++;
    return { ...s, rows: r.rows };
  });
  return { sheets: out, cells, sheetsChanged };
}

/**
 * The first match at or after the cell `from` on the sheet `sheetId`, in the tab's reading order
 * (a later sheet's matches come after; past the last, the first): where the bar starts.
 */
export function firstFromIn(
  matches: readonly SheetMatch[],
  sheets: readonly { id: string }[],
  sheetId: string,
  from: Pos,
): number {
  if (matches.length === 0) return -1;
  const order = new Map(sheets.map((s, i) => [s.id, i]));
  const at = order.get(sheetId) ?? 0;
  const i = matches.findIndex((m) => {
    const sheet = order.get(m.sheetId) ?? 0;
    if (sheet !== at) return sheet > at;
    return m.row > from.row || (m.row === from.row && m.col >= from.col);
  });
  return i < 0 ? 0 : i;
}

/** The match to go to from `current` (-1: none yet): the next, or the previous (`back`), wrapping. */
export function stepMatch(count: number, current: number, back: boolean): number {
  if (count === 0) return -1;
  if (current < 0 || current >= count) return back ? count - 1 : 0;
  return (current + (back ? count - 1 : 1)) % count;
}

/** "3 of 12", "No matches", or "" with no query. */
export function matchLabel(query: string, count: number, current: number): string {
  if (query === "") return "";
  if (count === 0) return "No matches";
  return current < 0 ? `${count} ${count === 1 ? "match" : "matches"}` : `${current + 1} of ${count}`;
}

/**
 * Which sheet the matches are on, for a tab of several sheets: the current match's ("on
 * Stock"), else the one sheet holding them all, else how many ("on 2 sheets"); "" for a tab of
 * one sheet or no match.
 */
export function matchWhere(
  sheets: readonly { id: string; name: string }[],
  matches: readonly SheetMatch[],
  current: SheetMatch | null,
): string {
  if (sheets.length < 2 || matches.length === 0) return "";
  const name = (id: string | undefined) => sheets.find((s) => s.id === id)?.name ?? "another sheet";
  if (current) return `on ${name(current.sheetId)}`;
  const holding = new Set(matches.map((m) => m.sheetId));
  return holding.size === 1 ? `on ${name(matches[0]?.sheetId)}` : `on ${holding.size} sheets`;
}
