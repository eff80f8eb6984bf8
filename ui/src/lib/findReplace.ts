// Find and replace across one sheet (the Sheet editor's find bar, Ctrl+F): the cells whose text
// holds the query, in reading order (row by row), and the text of a cell with every occurrence
// replaced. A cell matches once however many times the query occurs in it ("3 of 12" counts
// cells, as spreadsheets do); Replace replaces every occurrence in the current cell.

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

/** The match to go to from `current` (-1: none yet): the next, or the previous (`back`), wrapping. */
export function stepMatch(count: number, current: number, back: boolean): number {
  if (count === 0) return -1;
  if (current < 0 || current >= count) return back ? count - 1 : 0;
  return (current + (back ? count - 1 : 1)) % count;
}

/** The first match at or after `from` in reading order (so the bar starts at the cursor). */
export function firstFrom(matches: readonly Pos[], from: Pos): number {
  if (matches.length === 0) return -1;
  const i = matches.findIndex((m) => m.row > from.row || (m.row === from.row && m.col >= from.col));
  return i < 0 ? 0 : i;
}

/** "3 of 12", "No matches", or "" with no query. */
export function matchLabel(query: string, count: number, current: number): string {
  if (query === "") return "";
  if (count === 0) return "No matches";
  return current < 0 ? `${count} ${count === 1 ? "match" : "matches"}` : `${current + 1} of ${count}`;
}
