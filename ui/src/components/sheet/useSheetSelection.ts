// The cursor and selection of the grid, where it is scrolled, and which cell has the focus.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Pos, type Selection, single } from "../../lib/grid";
import { mayTakeFocus } from "../../lib/focus";
import { type CellEdit, COL_W, HEAD_W, ORIGIN, ROW_H } from "./layout";

/** `isEditing` is asked when focus would move to the grid: never while a cell's input has it. */
export function useSheetSelection(isEditing: () => boolean) {
  const [sel, setSelState] = useState<Selection>(single(ORIGIN));
  // Handlers read the selection from here: a key pressed before the next render must act on
  // the cell the previous key moved to.
  const selRef = useRef(sel);
  const setSel = (next: Selection) => {
    selRef.current = next;
    setSelState(next);
  };
  const [scroll, setScroll] = useState({ top: 0, height: 600, left: 0, width: 1200 });
  const gridRef = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const el = gridRef.current;
    if (!el) return;
    const measure = () =>
      setScroll({ top: el.scrollTop, height: el.clientHeight, left: el.scrollLeft, width: el.clientWidth });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  /** Focus follows the cursor cell (one cell is tabbable: the grid pattern); the grid itself if it is not drawn. */
  const focusCell = (pos: Pos) => {
    const el = gridRef.current;
    const cell = el?.querySelector<HTMLElement>(`td[data-row="${pos.row}"][data-col="${pos.col}"]`);
    (cell ?? el)?.focus({ preventScroll: true });
  };
  const focusGrid = () =>
    requestAnimationFrame(() => {
      // Not while a cell is being edited (its input has the focus, keep it).
      if (isEditing()) return;
      if (mayTakeFocus(gridRef.current?.parentElement ?? null)) focusCell(selRef.current.focus);
    });

  const scrollToCell = (pos: Pos) => {
    const el = gridRef.current;
    if (!el) return;
    const top = pos.row * ROW_H;
    const headerH = ROW_H;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_H + headerH > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_H + headerH - el.clientHeight;
    const left = pos.col * COL_W;
    const right = HEAD_W + (pos.col + 1) * COL_W;
    if (left < el.scrollLeft) el.scrollLeft = left;
    else if (right > el.scrollLeft + el.clientWidth) el.scrollLeft = right - el.clientWidth;
  };

  /** Selects and scrolls the cursor cell into view. */
  const select = (next: Selection) => {
    setSel(next);
    requestAnimationFrame(() => scrollToCell(next.focus));
  };

  return { sel, selRef, setSel, select, scroll, setScroll, gridRef, focusCell, focusGrid };
}

export type SheetSelection = ReturnType<typeof useSheetSelection>;

/** Keeps DOM focus on the cursor cell while the grid has focus (keyboard moves, scrolling). */
export function useCursorFocus(view: SheetSelection, editing: CellEdit | null, isEditing: () => boolean): void {
  const { sel, gridRef, scroll, focusCell } = view;
  useEffect(() => {
    const el = gridRef.current;
    if (!el || editing || isEditing() || !el.contains(document.activeElement)) return;
    const active = document.activeElement as HTMLElement;
    if (active.dataset.row === String(sel.focus.row) && active.dataset.col === String(sel.focus.col)) return;
    focusCell(sel.focus);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sel.focus.row, sel.focus.col, editing, scroll.top]);
}
