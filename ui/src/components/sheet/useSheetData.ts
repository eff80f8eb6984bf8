// The tab's sheets: what the editor shows, handed over on every change, and replaced by the
// engine's content when the store allows it. Each of the person's changes is a step of the
// tab's undo history (lib/history.ts, lib/sheetHistory.ts): Ctrl+Z / Ctrl+Shift+Z.

import { useEffect, useRef, useState } from "preact/hooks";
import { adopted, app, confirm, contentFor, engineContent, localEdit, toast, useApp } from "../../app-state";
import type { Rows } from "../../lib/grid";
import { historyFor, keptMessage } from "../../lib/history";
import { SHEET_OPS, type SheetOp, cellOps, movedLines } from "../../lib/sheetHistory";
import { changedCellsBySheet, shiftCellMarks } from "../../lib/marks";
import { useRemoteMarks } from "../useRemoteMarks";
import type { SheetData, SheetTabData } from "./layout";

function asSheetTab(data: unknown): SheetTabData {
  const d = data as { sheets?: unknown };
  if (d && Array.isArray(d.sheets) && d.sheets.length > 0) return d as SheetTabData;
  return { sheets: [{ id: "s1", name: "Sheet 1", rows: [] }] };
}

/** The cells another writer's change touched, per sheet; null: none. */
function cellMarks(before: unknown, after: unknown): Map<string, Set<string>> | null {
  const cells = changedCellsBySheet(asSheetTab(before), asSheetTab(after));
  return cells.size > 0 ? cells : null;
}

function newSheetId(): string {
  return `s-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

export function useSheetData(tabId: string) {
  const rev = useApp((s) => s.content[tabId]?.rev ?? 0);
  const [data, setData] = useState<SheetTabData>(() => asSheetTab(contentFor(tabId)));
  const latest = useRef(data);
  latest.current = data;
  const [sheetId, setSheetId] = useState(() => data.sheets[0]?.id ?? "s1");
  const sheet = data.sheets.find((s) => s.id === sheetId) ?? (data.sheets[0] as SheetData);
  const remote = useRemoteMarks(tabId, data, cellMarks);

  // Another writer's content (or a resolution), when the store allows it.
  useEffect(() => {
    if (rev === 0) return;
    const incoming = engineContent(tabId);
    if (incoming === undefined) return;
    const next = asSheetTab(incoming);
    remote.took(latest.current, next);
    latest.current = next;
    setData(next);
    adopted(tabId);
    if (!next.sheets.some((s) => s.id === sheetId)) setSheetId(next.sheets[0]?.id ?? "s1");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rev]);

  const history = () => historyFor(app.get().open?.noteId ?? "", tabId, SHEET_OPS);

  /** Shows and hands over `next`; `ops` (the person's edit) become one undo step. */
  const commit = (next: SheetTabData, ops: SheetOp[] | null) => {
    if (ops) history().record(ops, undefined, Date.now());
    latest.current = next;
    setData(next);
    localEdit(tabId, () => latest.current);
  };

  /**
   * Changes the cells of the sheet shown: one undo step, of the cells that changed, or of
   * `structural` (a row or column inserted or deleted: given the rows before).
   */
  const updateRows = (fn: (rows: Rows) => Rows, structural?: (rows: Rows) => SheetOp[]) => {
    const id = sheet.id;
    const old = latest.current.sheets.find((s) => s.id === id);
    if (!old) return;
    const rows = fn(old.rows);
    const ops = structural ? structural(old.rows) : cellOps(id, old.rows, rows);
    commit({ sheets: latest.current.sheets.map((s) => (s.id === id ? { ...s, rows } : s)) }, ops);
    // Another writer's marked cells move with the rows and columns the person inserted or deleted.
    for (const op of ops) {
      if (op.kind === "row" || op.kind === "col") remote.move((marks) => shiftCellMarks(marks, op));
    }
  };

  /**
   * Changes the cells of any of the tab's sheets (find's Replace, Replace all): one undo step of
   * every cell that changed. `fn` keeps the sheets and their order; a sheet it leaves alone is
   * the same object.
   */
  const updateSheets = (fn: (sheets: readonly SheetData[]) => SheetData[]) => {
    const before = latest.current.sheets;
    const after = fn(before);
    const ops = after.flatMap((s) => {
      const old = before.find((b) => b.id === s.id);
      return old && old.rows !== s.rows ? cellOps(s.id, old.rows, s.rows) : [];
    });
    if (ops.length === 0) return;
    commit({ sheets: after }, ops);
  };

  /** Undoes (or redoes) the person's last step; what another writer changed since is kept, and said. */
  const undoRedo = (undo: boolean): boolean => {
    const h = history();
    const out = undo ? h.undo(latest.current) : h.redo(latest.current);
    if (!out) return false;
    if (out.changed) commit(out.doc as SheetTabData, null);
    // Another writer's marked cells move with the rows and columns the undo or redo moved.
    for (const line of movedLines(out.applied, undo)) remote.move((marks) => shiftCellMarks(marks, line));
    const message = keptMessage(undo ? "Undo" : "Redo", out.kept, out.changed);
    if (message) toast("info", message);
    return true;
  };

  /** Adds an empty sheet and shows it. */
  const addSheet = () => {
    const cur = latest.current.sheets;
    const added = { id: newSheetId(), name: `Sheet ${cur.length + 1}`, rows: [] };
    commit({ sheets: [...cur, added] }, [{ kind: "sheet", index: cur.length, insert: true, sheet: added }]);
    setSheetId(added.id);
  };

  const renameSheet = (id: string, name: string | null) => {
    const trimmed = name?.trim();
    const old = latest.current.sheets.find((s) => s.id === id);
    if (!trimmed || !old || old.name === trimmed) return;
    commit(
      { sheets: latest.current.sheets.map((s) => (s.id === id ? { ...s, name: trimmed } : s)) },
      [{ kind: "name", sheet: id, before: old.name, after: trimmed }],
    );
  };

  /** Deletes a sheet once the person agrees; never the last one. */
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
    const index = latest.current.sheets.indexOf(target);
    const sheets = latest.current.sheets.filter((s) => s.id !== id);
    commit({ sheets }, [{ kind: "sheet", index, insert: false, sheet: target }]);
    if (sheetId === id) setSheetId(sheets[0]?.id ?? "s1");
  };

  return {
    data,
    sheet,
    remote,
    setSheetId,
    updateRows,
    updateSheets,
    addSheet,
    renameSheet,
    removeSheet,
    undo: () => undoRedo(true),
    redo: () => undoRedo(false),
  };
}
