// The tab's sheets: what the editor shows, handed over on every change, and replaced by the
// engine's content when the store allows it.

import { useEffect, useRef, useState } from "preact/hooks";
import { adopted, confirm, contentFor, engineContent, localEdit, useApp } from "../../app-state";
import type { Rows } from "../../lib/grid";
import { changedCellsBySheet } from "../../lib/marks";
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

  const commit = (next: SheetTabData) => {
    latest.current = next;
    setData(next);
    localEdit(tabId, () => latest.current);
  };

  const updateSheets = (fn: (sheets: SheetData[]) => SheetData[]) => commit({ sheets: fn(latest.current.sheets) });

  /** Changes the cells of the sheet shown. */
  const updateRows = (fn: (rows: Rows) => Rows) =>
    updateSheets((sheets) => sheets.map((s) => (s.id === sheet.id ? { ...s, rows: fn(s.rows) } : s)));

  /** Adds an empty sheet and shows it. */
  const addSheet = () => {
    const id = newSheetId();
    updateSheets((sheets) => [...sheets, { id, name: `Sheet ${sheets.length + 1}`, rows: [] }]);
    setSheetId(id);
  };

  const renameSheet = (id: string, name: string | null) => {
    const trimmed = name?.trim();
    if (!trimmed) return;
    updateSheets((sheets) => sheets.map((s) => (s.id === id ? { ...s, name: trimmed } : s)));
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
    const sheets = latest.current.sheets.filter((s) => s.id !== id);
    commit({ sheets });
    if (sheetId === id) setSheetId(sheets[0]?.id ?? "s1");
  };

  return { data, sheet, remote, setSheetId, updateRows, addSheet, renameSheet, removeSheet };
}
