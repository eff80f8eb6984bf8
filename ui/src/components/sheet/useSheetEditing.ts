// Editing one cell in place: started by typing, F2, Enter or a double click; committed by Enter
// or Tab (which move the cursor), a click elsewhere; dropped by Escape.

import { useRef, useState } from "preact/hooks";
import {
  type Extent,
  type Pos,
  type Rows,
  cellText,
  getCell,
  moveSelection,
  parseCell,
  setCell,
  single,
} from "../../lib/grid";
import { mayTakeFocus } from "../../lib/focus";
import type { CellEdit, Move } from "./layout";
import type { SheetSelection } from "./useSheetSelection";

export function useSheetEditing(opts: {
  rows: Rows;
  extent: Extent;
  updateRows: (fn: (rows: Rows) => Rows) => void;
  view: SheetSelection;
}) {
  const { rows, extent, updateRows, view } = opts;
  const [editing, setEditingState] = useState<CellEdit | null>(null);
  // The latest edit, also between a keystroke and the render that mounts the cell's input: keys
  // typed that fast are added to it, not lost (and Enter commits it rather than starting over).
  const editingRef = useRef(editing);
  const setEditing = (next: CellEdit | null) => {
    editingRef.current = next;
    setEditingState(next);
  };

  const startEdit = (pos: Pos, text?: string) => {
    setEditing({ pos, text: text ?? cellText(getCell(rows, pos)) });
  };

  const finishEdit = (value: string | null, move: Move) => {
    const ed = editingRef.current;
    setEditing(null);
    if (!ed) return;
    if (value !== null) {
      const cell = parseCell(value);
      if (cell !== getCell(rows, ed.pos)) updateRows((r) => setCell(r, ed.pos, cell));
    }
    if (move) {
      const key = move === "down" || move === "up" ? "Enter" : "Tab";
      const next = moveSelection(single(ed.pos), { key, shift: move === "up" || move === "left" }, extent);
      if (next) view.select(next);
    }
    // At once (the input is about to go): keys typed before the next frame stay in the grid.
    const grid = view.gridRef.current;
    if (mayTakeFocus(grid)) grid?.focus({ preventScroll: true });
    view.focusGrid();
  };

  return { editing, editingRef, setEditing, startEdit, finishEdit };
}

export type SheetEditing = ReturnType<typeof useSheetEditing>;
