// The Sheet editor's shapes and sizes, shared by its hooks and parts.

import type { Pos, Rows } from "../../lib/grid";

/** One sheet as the editor holds it (cells are scalars: `lib/grid`'s `Cell`). */
export interface SheetData {
  id: string;
  name: string;
  rows: Rows;
}

export interface SheetTabData {
  sheets: SheetData[];
}

/** The cell being edited and its text so far. */
export interface CellEdit {
  pos: Pos;
  text: string;
}

/** Where the cursor goes when an edit is committed (Enter, Shift+Enter, Tab, Shift+Tab), or stays. */
export type Move = "down" | "up" | "right" | "left" | null;

export const ROW_H = 28;
export const COL_W = 120;
export const HEAD_W = 48;
export const METRICS = { rowHeight: ROW_H, colWidth: COL_W, headerWidth: HEAD_W, rowOverscan: 4, colOverscan: 1 };

export const ORIGIN: Pos = { row: 0, col: 0 };
