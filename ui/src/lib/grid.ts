// The Sheet grid's logic: cells, the cursor and selection, keyboard moves, pasting a block copied
// from a spreadsheet (tab-separated), and growing the grid. Pure functions that return new rows;
// the component only renders and wires events.

export type Cell = string | number | boolean | null;
export type Rows = Cell[][];

export interface Pos {
  row: number;
  col: number;
}

/** How big the grid is drawn: at least the data, and at least a comfortable empty page. */
export interface Extent {
  rows: number;
  cols: number;
}

export const MIN_EXTENT: Extent = { rows: 20, cols: 8 };

/** The data's own size: rows, and the widest row. */
export function dataExtent(rows: readonly (readonly Cell[])[]): Extent {
  let cols = 0;
  for (const r of rows) cols = Math.max(cols, r.length);
  return { rows: rows.length, cols };
}

export function shownExtent(rows: readonly (readonly Cell[])[], min: Extent = MIN_EXTENT): Extent {
  const data = dataExtent(rows);
  return { rows: Math.max(data.rows, min.rows), cols: Math.max(data.cols, min.cols) };
}

/** `A`, `B`, ..., `Z`, `AA`, `AB`, ... for a zero-based column. */
export function columnName(col: number): string {
  let n = col + 1;
  let name = "";
  while (n > 0) {
    const rem = (n - 1) % 26;
    name = String.fromCharCode(65 + rem) + name;
    n = Math.floor((n - 1) / 26);
  }
  return name;
}

/** `B3` for row 2, column 1 (zero-based). */
export function cellName(pos: Pos): string {
  return `${columnName(pos.col)}${pos.row + 1}`;
}

/** A cell as text (what the grid shows and the editor starts from). */
export function cellText(cell: Cell | undefined): string {
  if (cell === null || cell === undefined) return "";
  if (typeof cell === "boolean") return cell ? "TRUE" : "FALSE";
  return String(cell);
}

/**
 * What a typed text becomes: nothing for an empty string, a number when the text is exactly how
 * that number is written (`42`, `-3.5`; not `007`, `1e3` or ` 4`), else the text itself.
 */
export function parseCell(text: string): Cell {
  if (text === "") return null;
  if (/^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n) && String(n) === text) return n;
  }
  return text;
}

export function getCell(rows: readonly (readonly Cell[])[], pos: Pos): Cell {
  return rows[pos.row]?.[pos.col] ?? null;
}

/** A copy with room for `pos`, padding new cells with empties. */
function grownTo(rows: readonly (readonly Cell[])[], lastRow: number, lastCol: number): Rows {
  const out: Rows = rows.map((r) => r.slice());
  while (out.length <= lastRow) out.push([]);
  for (let r = 0; r <= lastRow; r++) {
    const row = out[r] as Cell[];
    while (row.length <= lastCol) row.push(null);
  }
  return out;
}

/** Sets one cell. Writing an empty value outside the data leaves the data as it is. */
export function setCell(rows: readonly (readonly Cell[])[], pos: Pos, value: Cell): Rows {
  const inside = pos.row < rows.length && pos.col < (rows[pos.row]?.length ?? 0);
  if (!inside && value === null) return rows.map((r) => r.slice());
  const out = grownTo(rows, pos.row, pos.col);
  (out[pos.row] as Cell[])[pos.col] = value;
  return out;
}

/**
 * A block copied from a spreadsheet or a text editor: rows on line breaks, cells on tabs.
 * Quoted cells (`"a<tab>b"`, `"two<newline>lines"`, `""` for a quote) are read as spreadsheets
 * write them. One trailing line break is not a row.
 */
export function parseTsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let i = 0;
  const s = text.replace(/\r\n?/g, "\n");
  let atCellStart = true;
  while (i < s.length) {
    const ch = s[i] as string;
    if (atCellStart && ch === '"') {
      // A quoted cell: up to the closing quote that is followed by a tab, a newline or the end.
      let j = i + 1;
      let quoted = "";
      let closed = false;
      while (j < s.length) {
        const c = s[j] as string;
        if (c === '"') {
          if (s[j + 1] === '"') {
            quoted += '"';
            j += 2;
            continue;
          }
          const after = s[j + 1];
          if (after === undefined || after === "\t" || after === "\n") {
            closed = true;
            j++;
          }
          break;
        }
        quoted += c;
        j++;
      }
      if (closed) {
        cell = quoted;
        i = j;
        atCellStart = false;
        continue;
      }
      // Not a well-formed quoted cell: take the quote literally.
    }
    atCellStart = false;
    if (ch === "\t") {
      row.push(cell);
      cell = "";
      atCellStart = true;
    } else if (ch === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      atCellStart = true;
    } else {
      cell += ch;
    }
    i++;
  }
  if (!atCellStart || cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Cells as a block to paste elsewhere: tabs and newlines, quoting cells that need it. */
export function toTsv(block: readonly (readonly Cell[])[]): string {
  const quote = (t: string) => (/[\t\n"]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t);
  return block.map((r) => r.map((c) => quote(cellText(c))).join("\t")).join("\n");
}

/** Writes a pasted block with its top-left corner at `at`, growing the grid as needed. */
export function pasteBlock(rows: readonly (readonly Cell[])[], at: Pos, block: readonly (readonly string[])[]): Rows {
  if (block.length === 0) return rows.map((r) => r.slice());
  const width = Math.max(...block.map((r) => r.length));
  const out = grownTo(rows, at.row + block.length - 1, at.col + width - 1);
  block.forEach((line, dr) => {
    line.forEach((text, dc) => {
      (out[at.row + dr] as Cell[])[at.col + dc] = parseCell(text);
    });
  });
  return out;
}

export function insertRow(rows: readonly (readonly Cell[])[], at: number): Rows {
  const out = rows.map((r) => r.slice());
  const width = dataExtent(rows).cols;
  if (at >= out.length) return grownTo(out, at, Math.max(0, width - 1));
  out.splice(at, 0, new Array<Cell>(width).fill(null));
  return out;
}

export function insertColumn(rows: readonly (readonly Cell[])[], at: number): Rows {
  const width = Math.max(dataExtent(rows).cols, at);
  return grownTo(rows, Math.max(0, rows.length - 1), width - 1).map((r) => {
    const copy = r.slice();
    copy.splice(at, 0, null);
    return copy;
  });
}

export function deleteRow(rows: readonly (readonly Cell[])[], at: number): Rows {
  const out = rows.map((r) => r.slice());
  if (at < out.length) out.splice(at, 1);
  return out;
}

export function deleteColumn(rows: readonly (readonly Cell[])[], at: number): Rows {
  return rows.map((r) => {
    const copy = r.slice();
    if (at < copy.length) copy.splice(at, 1);
    return copy;
  });
}

// ---- cursor and selection ---------------------------------------------------------------

/** The cursor (`focus`) and the other corner of the selection (`anchor`). */
export interface Selection {
  anchor: Pos;
  focus: Pos;
}

export function single(pos: Pos): Selection {
  return { anchor: pos, focus: pos };
}

export interface Range {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

export function selectionRange(sel: Selection): Range {
  return {
    top: Math.min(sel.anchor.row, sel.focus.row),
    bottom: Math.max(sel.anchor.row, sel.focus.row),
    left: Math.min(sel.anchor.col, sel.focus.col),
    right: Math.max(sel.anchor.col, sel.focus.col),
  };
}

export function inRange(range: Range, pos: Pos): boolean {
  return pos.row >= range.top && pos.row <= range.bottom && pos.col >= range.left && pos.col <= range.right;
}

/** The selected cells, as a block. */
export function copyRange(rows: readonly (readonly Cell[])[], range: Range): Cell[][] {
  const out: Cell[][] = [];
  for (let r = range.top; r <= range.bottom; r++) {
    const line: Cell[] = [];
    for (let c = range.left; c <= range.right; c++) line.push(getCell(rows, { row: r, col: c }));
    out.push(line);
  }
  return out;
}

/** Empties the selected cells (the grid does not shrink). */
export function clearRange(rows: readonly (readonly Cell[])[], range: Range): Rows {
  const out = rows.map((r) => r.slice());
  for (let r = range.top; r <= Math.min(range.bottom, out.length - 1); r++) {
    const row = out[r] as Cell[];
    for (let c = range.left; c <= Math.min(range.right, row.length - 1); c++) row[c] = null;
  }
  return out;
}

export type GridKey = {
  key: string;
  shift?: boolean;
  ctrl?: boolean;
};

const clamp = (n: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, n));

/**
 * Where a key moves the cursor in a grid of `extent`, or null when the key is not a move.
 * Arrows move one cell (Shift extends the selection); Tab / Shift+Tab move right / left and wrap
 * to the next / previous row; Enter / Shift+Enter move down / up; Home / End go to the row's
 * first / last column (with Ctrl: the grid's first / last cell); PageUp / PageDown move 10 rows.
 */
export function moveSelection(sel: Selection, k: GridKey, extent: Extent): Selection | null {
  const { row, col } = sel.focus;
  const lastRow = extent.rows - 1;
  const lastCol = extent.cols - 1;
  let to: Pos;
  let extend = false;
  switch (k.key) {
    case "ArrowUp":
      to = { row: clamp(row - 1, 0, lastRow), col };
      extend = !!k.shift;
      break;
    case "ArrowDown":
      to = { row: clamp(row + 1, 0, lastRow), col };
      extend = !!k.shift;
      break;
    case "ArrowLeft":
      to = { row, col: clamp(col - 1, 0, lastCol) };
      extend = !!k.shift;
      break;
    case "ArrowRight":
      to = { row, col: clamp(col + 1, 0, lastCol) };
      extend = !!k.shift;
      break;
    case "Tab":
      if (k.shift) {
        to = col > 0 ? { row, col: col - 1 } : row > 0 ? { row: row - 1, col: lastCol } : { row, col };
      } else {
        to = col < lastCol ? { row, col: col + 1 } : row < lastRow ? { row: row + 1, col: 0 } : { row, col };
      }
      break;
    case "Enter":
      to = { row: clamp(row + (k.shift ? -1 : 1), 0, lastRow), col };
      break;
    case "Home":
      to = k.ctrl ? { row: 0, col: 0 } : { row, col: 0 };
      extend = !!k.shift;
      break;
    case "End":
      to = k.ctrl ? { row: lastRow, col: lastCol } : { row, col: lastCol };
      extend = !!k.shift;
      break;
    case "PageUp":
      to = { row: clamp(row - 10, 0, lastRow), col };
      extend = !!k.shift;
      break;
    case "PageDown":
      to = { row: clamp(row + 10, 0, lastRow), col };
      extend = !!k.shift;
      break;
    default:
      return null;
  }
  return extend ? { anchor: sel.anchor, focus: to } : single(to);
}

/** Whether a key starts editing the cell with that character (like typing into a spreadsheet). */
export function startsTyping(k: { key: string; ctrl?: boolean; alt?: boolean; meta?: boolean }): boolean {
  return k.key.length === 1 && !k.ctrl && !k.alt && !k.meta;
}

/** The part of the grid's scroll area on screen (pixels). */
export interface Viewport {
  top: number;
  left: number;
  height: number;
  width: number;
}

/** How the grid is drawn: row height, column width, row-header width, margins drawn off screen. */
export interface GridMetrics {
  rowHeight: number;
  colWidth: number;
  headerWidth: number;
  rowOverscan: number;
  colOverscan: number;
}

/** The rows and columns to draw (inclusive): those in the viewport and a margin around them. */
export interface GridWindow {
  firstRow: number;
  lastRow: number;
  firstCol: number;
  lastCol: number;
}

/**
 * Which cells to draw: those in the viewport plus a margin (so a keyboard move lands on a drawn
 * cell), not the whole sheet (a 100 x 100 sheet is 10,000 cells, too many to build on the main
 * thread as the tab opens). Spacers keep the scroll size (components/sheet/GridTable.tsx).
 */
export function visibleWindow(view: Viewport, extent: Extent, m: GridMetrics): GridWindow {
  const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  const lastRowIndex = Math.max(0, extent.rows - 1);
  const lastColIndex = Math.max(0, extent.cols - 1);
  const firstRow = clamp(Math.floor(view.top / m.rowHeight) - m.rowOverscan, 0, lastRowIndex);
  const lastRow = clamp(Math.ceil((view.top + view.height) / m.rowHeight) + m.rowOverscan, firstRow, lastRowIndex);
  const firstCol = clamp(Math.floor((view.left - m.headerWidth) / m.colWidth) - m.colOverscan, 0, lastColIndex);
  const lastCol = clamp(Math.ceil((view.left + view.width) / m.colWidth) + m.colOverscan, firstCol, lastColIndex);
  return { firstRow, lastRow, firstCol, lastCol };
}
