// The Sheet tab: a grid edited in place, several sheets per tab. Keyboard first: arrows, Tab,
// Enter, Home/End, PageUp/PageDown move (Shift extends the selection); typing or F2 or Enter
// edits; Delete clears; Ctrl+C / Ctrl+X / Ctrl+V copy, cut and paste blocks (tab-separated, as
// spreadsheets put them on the clipboard). Rows are drawn only where they are visible.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { TabView } from "../api";
import { adopted, confirm, contentFor, engineContent, localEdit, useApp } from "../app-state";
import {
  type Cell,
  type Pos,
  type Rows,
  type Selection,
  cellName,
  cellText,
  clearRange,
  columnName,
  copyRange,
  dataExtent,
  deleteColumn,
  deleteRow,
  getCell,
  inRange,
  insertColumn,
  insertRow,
  moveSelection,
  parseCell,
  parseTsv,
  pasteBlock,
  selectionRange,
  setCell,
  single,
  startsTyping,
  toTsv,
  visibleWindow,
} from "../lib/grid";
import { mayTakeFocus } from "../lib/focus";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { RenameInput } from "./NotesList";
import { isEnter } from "../lib/keys";

interface SheetData {
  id: string;
  name: string;
  rows: Rows;
}

interface SheetTabData {
  sheets: SheetData[];
}

const ROW_H = 28;
const COL_W = 120;
const HEAD_W = 48;
const METRICS = { rowHeight: ROW_H, colWidth: COL_W, headerWidth: HEAD_W, rowOverscan: 4, colOverscan: 1 };

/**
 * Lays out a one-cell grid off screen, once, while the app is idle. The first grid the page
 * lays out pays for its fonts (weights, sizes and numeric features nothing else uses yet:
 * each a fontconfig match) and styles: 50-100 ms measured under Xvfb, which made the first
 * sheet opened stall the window; paid here, it is not paid then. Same classes as the editor's
 * markup below.
 */
export function warmUpGrid(): void {
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.style.cssText = "position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none";
  host.innerHTML =
    '<div class="sheet-editor"><div class="formula-bar"><span class="formula-name">A1</span>' +
    '<span class="formula-value">1</span></div><div class="grid-scroll"><table class="grid"><thead><tr>' +
    '<th class="corner"></th><th class="is-sel">A</th></tr></thead><tbody><tr><th class="is-sel">1</th>' +
    '<td class="is-focus is-sel is-num">1</td><td>a</td></tr></tbody></table></div></div>';
  document.body.appendChild(host);
  void host.offsetHeight;
  host.remove();
}

function asSheetTab(data: unknown): SheetTabData {
  const d = data as { sheets?: unknown };
  if (d && Array.isArray(d.sheets) && d.sheets.length > 0) return d as SheetTabData;
  return { sheets: [{ id: "s1", name: "Sheet 1", rows: [] }] };
}

function newSheetId(): string {
  return `s-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

export function SheetEditor(props: { tab: TabView }) {
  const { tab } = props;
  const rev = useApp((s) => s.content[tab.id]?.rev ?? 0);
  const [data, setData] = useState<SheetTabData>(() => asSheetTab(contentFor(tab.id)));
  const latest = useRef(data);
  latest.current = data;
  const [sheetId, setSheetId] = useState(() => data.sheets[0]?.id ?? "s1");
  const [sel, setSelState] = useState<Selection>(single({ row: 0, col: 0 }));
  // Handlers read the selection from here: a key pressed before the next render must act on
  // the cell the previous key moved to.
  const selRef = useRef(sel);
  const setSel = (next: Selection) => {
    selRef.current = next;
    setSelState(next);
  };
  const [editing, setEditingState] = useState<{ pos: Pos; text: string } | null>(null);
  // The latest edit, also between a keystroke and the render that mounts the cell's input: keys
  // typed that fast are added to it, not lost (and Enter commits it rather than starting over).
  const editingRef = useRef(editing);
  const setEditing = (next: { pos: Pos; text: string } | null) => {
    editingRef.current = next;
    setEditingState(next);
  };
  const [renamingSheet, setRenamingSheet] = useState<string | null>(null);
  const [scroll, setScroll] = useState({ top: 0, height: 600, left: 0, width: 1200 });
  const gridRef = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);

  const sheet = data.sheets.find((s) => s.id === sheetId) ?? (data.sheets[0] as SheetData);
  const rows = sheet.rows;
  const ext = dataExtent(rows);
  const extent = { rows: Math.max(ext.rows + 5, 30), cols: Math.max(ext.cols + 2, 10) };

  // Another writer's content (or a resolution), when the store allows it.
  useEffect(() => {
    if (rev === 0) return;
    const incoming = engineContent(tab.id);
    if (incoming === undefined) return;
    const next = asSheetTab(incoming);
    latest.current = next;
    setData(next);
    adopted(tab.id);
    if (!next.sheets.some((s) => s.id === sheetId)) setSheetId(next.sheets[0]?.id ?? "s1");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rev]);

  // Keep DOM focus on the cursor cell while the grid has focus (keyboard moves, scrolling).
  useEffect(() => {
    const el = gridRef.current;
    if (!el || editing || editingRef.current || !el.contains(document.activeElement)) return;
    const active = document.activeElement as HTMLElement;
    if (active.dataset.row === String(sel.focus.row) && active.dataset.col === String(sel.focus.col)) return;
    focusCell(sel.focus);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sel.focus.row, sel.focus.col, editing, scroll.top]);

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

  const commit = (next: SheetTabData) => {
    latest.current = next;
    setData(next);
    localEdit(tab.id, () => latest.current);
  };

  const updateRows = (fn: (rows: Rows) => Rows) => {
    const cur = latest.current;
    commit({ sheets: cur.sheets.map((s) => (s.id === sheet.id ? { ...s, rows: fn(s.rows) } : s)) });
  };

  /** Focus follows the cursor cell (one cell is tabbable: the grid pattern); the grid itself if it is not drawn. */
  const focusCell = (pos: Pos) => {
    const el = gridRef.current;
    const cell = el?.querySelector<HTMLElement>(`td[data-row="${pos.row}"][data-col="${pos.col}"]`);
    (cell ?? el)?.focus({ preventScroll: true });
  };
  const focusGrid = () =>
    requestAnimationFrame(() => {
      // Not while a cell is being edited (its input has the focus, keep it).
      if (editingRef.current) return;
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

  const select = (next: Selection) => {
    setSel(next);
    requestAnimationFrame(() => scrollToCell(next.focus));
  };

  const startEdit = (pos: Pos, text?: string) => {
    setEditing({ pos, text: text ?? cellText(getCell(rows, pos)) });
  };

  const finishEdit = (value: string | null, move: "down" | "up" | "right" | "left" | null) => {
    const ed = editingRef.current;
    setEditing(null);
    if (!ed) return;
    if (value !== null) {
      const cell: Cell = parseCell(value);
      if (cell !== getCell(rows, ed.pos)) updateRows((r) => setCell(r, ed.pos, cell));
    }
    if (move) {
      const key = move === "down" || move === "up" ? "Enter" : "Tab";
      const next = moveSelection(single(ed.pos), { key, shift: move === "up" || move === "left" }, extent);
      if (next) select(next);
    }
    // At once (the input is about to go): keys typed before the next frame stay in the grid.
    if (mayTakeFocus(gridRef.current)) gridRef.current?.focus({ preventScroll: true });
    focusGrid();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const ed = editingRef.current;
    if (ed) {
      // The cell's input is not focused yet: this key belongs to the edit.
      if (isEnter(e.key)) finishEdit(ed.text, e.shiftKey ? "up" : "down");
      else if (e.key === "Tab") finishEdit(ed.text, e.shiftKey ? "left" : "right");
      else if (e.key === "Escape") finishEdit(null, null);
      else if (e.key === "Backspace") setEditing({ ...ed, text: ed.text.slice(0, -1) });
      else if (startsTyping({ key: e.key, ctrl: e.ctrlKey, alt: e.altKey, meta: e.metaKey })) {
        setEditing({ ...ed, text: ed.text + e.key });
      } else return;
      e.preventDefault();
      return;
    }
    const k = { key: e.key, shift: e.shiftKey, ctrl: e.ctrlKey || e.metaKey };
    if ((e.ctrlKey || e.metaKey) && e.key === "a") {
      e.preventDefault();
      setSel({ anchor: { row: 0, col: 0 }, focus: { row: Math.max(0, ext.rows - 1), col: Math.max(0, ext.cols - 1) } });
      return;
    }
    if (isEnter(e.key) && !e.shiftKey && !e.ctrlKey && !e.altKey) {
      e.preventDefault();
      startEdit(selRef.current.focus);
      return;
    }
    if (e.key === "F2") {
      e.preventDefault();
      startEdit(selRef.current.focus);
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
    if (startsTyping({ key: e.key, ctrl: e.ctrlKey, alt: e.altKey, meta: e.metaKey })) {
      e.preventDefault();
      startEdit(selRef.current.focus, e.key);
    }
  };

  const onCopy = (e: ClipboardEvent, cut: boolean) => {
    if (editingRef.current) return;
    e.preventDefault();
    const range = selectionRange(selRef.current);
    e.clipboardData?.setData("text/plain", toTsv(copyRange(rows, range)));
    if (cut) updateRows((r) => clearRange(r, range));
  };

  const onPaste = (e: ClipboardEvent) => {
    if (editingRef.current) return;
    const text = e.clipboardData?.getData("text/plain") ?? "";
    if (text === "") return;
    e.preventDefault();
    const block = parseTsv(text);
    const at = { row: selectionRange(selRef.current).top, col: selectionRange(selRef.current).left };
    updateRows((r) => pasteBlock(r, at, block));
    const width = Math.max(...block.map((b) => b.length));
    setSel({ anchor: at, focus: { row: at.row + block.length - 1, col: at.col + width - 1 } });
  };

  const cellFromEvent = (e: PointerEvent): Pos | null => {
    const td = (e.target as HTMLElement).closest<HTMLElement>("[data-row]");
    if (!td) return null;
    return { row: Number(td.dataset.row), col: Number(td.dataset.col) };
  };

  const addSheet = () => {
    const cur = latest.current;
    const id = newSheetId();
    commit({ sheets: [...cur.sheets, { id, name: `Sheet ${cur.sheets.length + 1}`, rows: [] }] });
    setSheetId(id);
    setSel(single({ row: 0, col: 0 }));
  };

  const renameSheet = (id: string, name: string | null) => {
    setRenamingSheet(null);
    const trimmed = name?.trim();
    if (!trimmed) return;
    const cur = latest.current;
    commit({ sheets: cur.sheets.map((s) => (s.id === id ? { ...s, name: trimmed } : s)) });
  };

  const removeSheet = async (id: string) => {
    const target = latest.current.sheets.find((s) => s.id === id);
    if (!target || latest.current.sheets.length < 2) return;
    const ok = await confirm({
      title: `Delete the sheet “${target.name}”?`,
      body: "Its cells go with it. The Note's history keeps them: restore from the Versions panel.",
      confirmLabel: "Delete sheet",
      danger: true,
    });
    if (!ok) return;
    const cur = latest.current;
    const sheets = cur.sheets.filter((s) => s.id !== id);
    commit({ sheets });
    if (sheetId === id) setSheetId(sheets[0]?.id ?? "s1");
  };

  const range = selectionRange(sel);
  // Only the visible rows and columns are drawn (plus a margin); spacers keep the scroll size.
  const { firstRow: first, lastRow: last, firstCol, lastCol } = visibleWindow(scroll, extent, METRICS);
  const allCols = Array.from({ length: extent.cols }, (_, i) => i);
  const cols = allCols.slice(firstCol, lastCol + 1);
  const leftPad = firstCol;
  const rightPad = extent.cols - 1 - lastCol;
  const focusText = cellText(getCell(rows, sel.focus));

  return (
    <div class="sheet-editor">
      <div class="editor-toolbar sheet-toolbar">
        <div class="sheet-switcher" role="tablist" aria-label="Sheets">
          {data.sheets.map((s) =>
            renamingSheet === s.id ? (
              <RenameInput
                key={s.id}
                value={s.name}
                testId={TID.sheetNameInput}
                label="Sheet name"
                className="sheet-name-input"
                onDone={(v) => renameSheet(s.id, v)}
              />
            ) : (
              <button
                key={s.id}
                type="button"
                role="tab"
                aria-selected={s.id === sheet.id}
                class={`sheet-tab${s.id === sheet.id ? " is-on" : ""}`}
                data-testid={TID.sheetSwitch}
                data-sheet-id={s.id}
                title="Double-click to rename"
                onClick={() => {
                  setSheetId(s.id);
                  setSel(single({ row: 0, col: 0 }));
                  setEditing(null);
                }}
                onDblClick={() => setRenamingSheet(s.id)}
                onKeyDown={(e) => {
                  if (e.key === "F2") setRenamingSheet(s.id);
                  if (e.key === "Delete") void removeSheet(s.id);
                }}
              >
                {s.name}
              </button>
            ),
          )}
          <button type="button" class="icon-button" data-testid={TID.sheetAdd} onClick={addSheet} title="Add a sheet">
            <Icon name="plus" />
          </button>
        </div>
        <div class="toolbar-spacer" />
        <button
          type="button"
          class="button small"
          data-testid={TID.sheetAddRow}
          title="Insert a row below the selected one"
          onClick={() => {
            updateRows((r) => insertRow(r, sel.focus.row + 1));
            select(single({ row: sel.focus.row + 1, col: sel.focus.col }));
            focusGrid();
          }}
        >
          + Row
        </button>
        <button
          type="button"
          class="button small"
          data-testid={TID.sheetAddColumn}
          title="Insert a column right of the selected one"
          onClick={() => {
            updateRows((r) => insertColumn(r, sel.focus.col + 1));
            select(single({ row: sel.focus.row, col: sel.focus.col + 1 }));
            focusGrid();
          }}
        >
          + Column
        </button>
        <button
          type="button"
          class="button small subtle"
          title="Delete the selected row"
          onClick={() => {
            updateRows((r) => deleteRow(r, sel.focus.row));
            focusGrid();
          }}
        >
          − Row
        </button>
        <button
          type="button"
          class="button small subtle"
          title="Delete the selected column"
          onClick={() => {
            updateRows((r) => deleteColumn(r, sel.focus.col));
            focusGrid();
          }}
        >
          − Column
        </button>
      </div>
      <div class="formula-bar">
        <span class="formula-name">
          {cellName(range.top === range.bottom && range.left === range.right ? sel.focus : { row: range.top, col: range.left })}
          {(range.top !== range.bottom || range.left !== range.right) && `:${cellName({ row: range.bottom, col: range.right })}`}
        </span>
        <span class="formula-value" title={focusText}>
          {editing ? editing.text : focusText}
        </span>
      </div>
      <div
        class="grid-scroll"
        ref={gridRef}
        tabIndex={-1}
        role="grid"
        aria-label={`${sheet.name}: ${ext.rows} rows, ${ext.cols} columns`}
        aria-rowcount={extent.rows}
        aria-colcount={extent.cols}
        data-testid={TID.editorSheet}
        data-tab-id={tab.id}
        data-sheet-id={sheet.id}
        onKeyDown={onKeyDown}
        onCopy={(e) => onCopy(e, false)}
        onCut={(e) => onCopy(e, true)}
        onPaste={onPaste}
        onScroll={(e) =>
          setScroll({
            top: e.currentTarget.scrollTop,
            height: e.currentTarget.clientHeight,
            left: e.currentTarget.scrollLeft,
            width: e.currentTarget.clientWidth,
          })
        }
        onPointerDown={(e) => {
          const pos = cellFromEvent(e);
          if (!pos) return;
          if ((e.target as HTMLElement).closest("input")) return;
          dragging.current = true;
          setSel(e.shiftKey ? { anchor: selRef.current.anchor, focus: pos } : single(pos));
        }}
        onPointerMove={(e) => {
          if (!dragging.current || e.buttons !== 1) return;
          const pos = cellFromEvent(e);
          const cur = selRef.current;
          if (pos && (pos.row !== cur.focus.row || pos.col !== cur.focus.col)) setSel({ anchor: cur.anchor, focus: pos });
        }}
        onPointerUp={() => (dragging.current = false)}
        onDblClick={(e) => {
          const td = (e.target as HTMLElement).closest<HTMLElement>("[data-row]");
          if (td) startEdit({ row: Number(td.dataset.row), col: Number(td.dataset.col) });
        }}
      >
        <table class="grid" style={{ width: `${HEAD_W + extent.cols * COL_W}px` }}>
          <colgroup>
            <col style={{ width: `${HEAD_W}px` }} />
            {allCols.map((c) => (
              <col key={c} style={{ width: `${COL_W}px` }} />
            ))}
          </colgroup>
          <thead>
            <tr>
              <th class="corner" />
              {leftPad > 0 && <th colSpan={leftPad} class="spacer" aria-hidden="true" />}
              {cols.map((c) => (
                <th key={c} class={c >= range.left && c <= range.right ? "is-sel" : ""} scope="col">
                  {columnName(c)}
                </th>
              ))}
              {rightPad > 0 && <th colSpan={rightPad} class="spacer" aria-hidden="true" />}
            </tr>
          </thead>
          <tbody>
            {first > 0 && (
              <tr aria-hidden="true" style={{ height: `${first * ROW_H}px` }}>
                <td colSpan={extent.cols + 1} class="spacer" />
              </tr>
            )}
            {Array.from({ length: last - first + 1 }, (_, i) => first + i).map((r) => (
              <tr key={r} style={{ height: `${ROW_H}px` }}>
                <th scope="row" class={r >= range.top && r <= range.bottom ? "is-sel" : ""}>
                  {r + 1}
                </th>
                {leftPad > 0 && <td colSpan={leftPad} class="spacer" aria-hidden="true" />}
                {cols.map((c) => {
                  const pos = { row: r, col: c };
                  const isFocus = sel.focus.row === r && sel.focus.col === c;
                  const isEditing = editing && editing.pos.row === r && editing.pos.col === c;
                  const value = rows[r]?.[c] ?? null;
                  return (
                    <td
                      key={c}
                      role="gridcell"
                      tabIndex={isFocus && !isEditing ? 0 : -1}
                      class={`${isFocus ? "is-focus" : ""}${inRange(range, pos) ? " is-sel" : ""}${
                        typeof value === "number" ? " is-num" : ""
                      }`}
                      data-testid={TID.sheetCell}
                      data-row={r}
                      data-col={c}
                      aria-selected={inRange(range, pos)}
                    >
                      {isEditing ? (
                        <CellInput
                          initial={editing.text}
                          onChange={(text) => setEditing({ pos, text })}
                          onDone={finishEdit}
                        />
                      ) : (
                        cellText(value)
                      )}
                    </td>
                  );
                })}
                {rightPad > 0 && <td colSpan={rightPad} class="spacer" aria-hidden="true" />}
              </tr>
            ))}
            {last < extent.rows - 1 && (
              <tr aria-hidden="true" style={{ height: `${(extent.rows - 1 - last) * ROW_H}px` }}>
                <td colSpan={extent.cols + 1} class="spacer" />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {data.sheets.length > 1 && (
        <div class="sheet-foot muted">
          Sheet “{sheet.name}” ·{" "}
          <button type="button" class="link-button" onClick={() => void removeSheet(sheet.id)}>
            delete this sheet
          </button>
        </div>
      )}
    </div>
  );
}

function CellInput(props: {
  initial: string;
  onChange: (text: string) => void;
  onDone: (value: string | null, move: "down" | "up" | "right" | "left" | null) => void;
}) {
  const done = useRef(false);
  const finish = (value: string | null, move: "down" | "up" | "right" | "left" | null) => {
    if (done.current) return;
    done.current = true;
    props.onDone(value, move);
  };
  return (
    <input
      class="cell-input"
      data-testid={TID.sheetCellInput}
      aria-label="Cell value"
      value={props.initial}
      ref={(el) => {
        if (el && !el.dataset.focused) {
          el.dataset.focused = "1";
          el.focus();
          const end = el.value.length;
          el.setSelectionRange(end, end);
        }
      }}
      onInput={(e) => props.onChange(e.currentTarget.value)}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (isEnter(e.key)) {
          e.preventDefault();
          finish(e.currentTarget.value, e.shiftKey ? "up" : "down");
        } else if (e.key === "Tab") {
          e.preventDefault();
          finish(e.currentTarget.value, e.shiftKey ? "left" : "right");
        } else if (e.key === "Escape") {
          e.preventDefault();
          finish(null, null);
        }
      }}
      onBlur={(e) => finish(e.currentTarget.value, null)}
      onPaste={(e) => e.stopPropagation()}
      onCopy={(e) => e.stopPropagation()}
      onCut={(e) => e.stopPropagation()}
    />
  );
}
