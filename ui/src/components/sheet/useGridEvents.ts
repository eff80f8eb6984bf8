// The grid's keyboard, clipboard and pointer: arrows, Tab, Enter, Home/End, PageUp/PageDown move
// (Shift extends the selection); typing or F2 or Enter edits; Delete clears; Ctrl+C / Ctrl+X /
// Ctrl+V copy, cut and paste blocks (tab-separated, as spreadsheets put them on the clipboard);
// Ctrl+Z undoes the person's last step, Ctrl+Shift+Z or Ctrl+Y redoes it (never while a cell is
// being edited: its input's own undo applies there); Ctrl+F opens the find bar.

import { useRef } from "preact/hooks";
import {
  type Extent,
  type Pos,
  type Rows,
  clearRange,
  copyRange,
  moveSelection,
  parseTsv,
  pasteBlock,
  selectionRange,
  single,
  startsTyping,
  toTsv,
} from "../../lib/grid";
import { historyKey } from "../../lib/history";
import { isEnter } from "../../lib/keys";
import type { SheetEditing } from "./useSheetEditing";
import type { SheetSelection } from "./useSheetSelection";

function cellOf(target: EventTarget | null): Pos | null {
  const td = (target as HTMLElement).closest<HTMLElement>("[data-row]");
  if (!td) return null;
  return { row: Number(td.dataset.row), col: Number(td.dataset.col) };
}

const typing = (e: KeyboardEvent) => startsTyping({ key: e.key, ctrl: e.ctrlKey, alt: e.altKey, meta: e.metaKey });

/** The handlers of the grid's scroll container. */
export function useGridEvents(opts: {
  rows: Rows;
  /** The data's own size (Ctrl+A selects it). */
  data: Extent;
  /** The size drawn (moves stay in it). */
  extent: Extent;
  updateRows: (fn: (rows: Rows) => Rows) => void;
  view: SheetSelection;
  edit: SheetEditing;
  undo: () => void;
  redo: () => void;
  find: () => void;
}) {
  const { rows, data, extent, updateRows, view, edit } = opts;
  const { selRef, setSel, select } = view;
  const dragging = useRef(false);

  const onKeyDown = (e: KeyboardEvent) => {
    const ed = edit.editingRef.current;
    if (ed) {
      // The cell's input is not focused yet: this key belongs to the edit.
      if (isEnter(e.key)) edit.finishEdit(ed.text, e.shiftKey ? "up" : "down");
      else if (e.key === "Tab") edit.finishEdit(ed.text, e.shiftKey ? "left" : "right");
      else if (e.key === "Escape") edit.finishEdit(null, null);
      else if (e.key === "Backspace") edit.setEditing({ ...ed, text: ed.text.slice(0, -1) });
      else if (typing(e)) edit.setEditing({ ...ed, text: ed.text + e.key });
      else return;
      e.preventDefault();
      return;
    }
    const k = { key: e.key, shift: e.shiftKey, ctrl: e.ctrlKey || e.metaKey };
    const history = historyKey(e);
    if (history) {
      e.preventDefault();
      if (history === "undo") opts.undo();
      else opts.redo();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === "f") {
      e.preventDefault();
      opts.find();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key === "a") {
      e.preventDefault();
      setSel({ anchor: { row: 0, col: 0 }, focus: { row: Math.max(0, data.rows - 1), col: Math.max(0, data.cols - 1) } });
      return;
    }
    if ((isEnter(e.key) && !e.shiftKey && !e.ctrlKey && !e.altKey) || e.key === "F2") {
      e.preventDefault();
      edit.startEdit(selRef.current.focus);
      return;
    }
    if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      updateRows((r) => clearRange(r, selectionRange(selRef.current)));
      return;
    }
    if (e.key === "Tab" && (e.ctrlKey || e.altKey)) return;
    const next = e.altKey ? null : moveSelection(selRef.current, k, extent);
    if (next) {
      e.preventDefault();
      select(next);
      return;
    }
    if (typing(e)) {
      e.preventDefault();
      edit.startEdit(selRef.current.focus, e.key);
    }
  };

  const copy = (e: ClipboardEvent, cut: boolean) => {
    if (edit.editingRef.current) return;
    e.preventDefault();
    const range = selectionRange(selRef.current);
    e.clipboardData?.setData("text/plain", toTsv(copyRange(rows, range)));
    if (cut) updateRows((r) => clearRange(r, range));
  };

  const onPaste = (e: ClipboardEvent) => {
    if (edit.editingRef.current) return;
    const text = e.clipboardData?.getData("text/plain") ?? "";
    if (text === "") return;
    e.preventDefault();
    const block = parseTsv(text);
    const at = { row: selectionRange(selRef.current).top, col: selectionRange(selRef.current).left };
    updateRows((r) => pasteBlock(r, at, block));
    const width = Math.max(...block.map((b) => b.length));
    setSel({ anchor: at, focus: { row: at.row + block.length - 1, col: at.col + width - 1 } });
  };

  return {
    onKeyDown,
    onCopy: (e: ClipboardEvent) => copy(e, false),
    onCut: (e: ClipboardEvent) => copy(e, true),
    onPaste,
    onScroll: (e: Event) => {
      const el = e.currentTarget as HTMLElement;
      view.setScroll({ top: el.scrollTop, height: el.clientHeight, left: el.scrollLeft, width: el.clientWidth });
    },
    onPointerDown: (e: PointerEvent) => {
      const pos = cellOf(e.target);
      if (!pos) return;
      if ((e.target as HTMLElement).closest("input")) return;
      dragging.current = true;
      setSel(e.shiftKey ? { anchor: selRef.current.anchor, focus: pos } : single(pos));
    },
    onPointerMove: (e: PointerEvent) => {
      if (!dragging.current || e.buttons !== 1) return;
      const pos = cellOf(e.target);
      const cur = selRef.current;
      if (pos && (pos.row !== cur.focus.row || pos.col !== cur.focus.col)) setSel({ anchor: cur.anchor, focus: pos });
    },
    onPointerUp: () => (dragging.current = false),
    onDblClick: (e: MouseEvent) => {
      const pos = cellOf(e.target);
      if (pos) edit.startEdit(pos);
    },
  };
}
