// Tabs the open Note's view came without (large ones the person does not see yet: the engine
// leaves a tab's data out past 1 MiB): read once the shown tab is on screen, one tab at a
// time, a sheet a few thousand rows a call, so that no answer keeps the page busy for longer
// than a frame. An editor is never shown on a tab whose data is not here (NoteView's TabPane).

import * as api from "../api";
import type { TabView } from "../api";
import { errorCode } from "../lib/errors";
import { edits } from "./edits";
import { toastError } from "./messages";
import { app } from "./state";

/** Rows of a sheet read per call: about 40,000 cells of a 20-column sheet, a few ms to parse. */
export const ROWS_PER_PART = 2000;

/** The tabs being read now, by Note and tab. */
const reading = new Set<string>();
let queue: Promise<void> = Promise.resolve();

const keyOf = (noteId: string, tabId: string) => `${noteId}\u0000${tabId}`;

/** Whether `tabId` of the open Note is still being read (its data not here yet). */
export function isDeferred(tabId: string): boolean {
  const s = app.get();
  const tab = s.open?.view?.tabs.find((t) => t.id === tabId);
  return tab?.deferred !== undefined && !(tabId in s.content);
}

/** Reads, in the background, every tab of the open Note `noteId` whose data is not here. */
export function loadDeferred(noteId: string): Promise<void> {
  const s = app.get();
  if (s.open?.noteId !== noteId || !s.open.view) return queue;
  for (const tab of s.open.view.tabs) {
    const key = keyOf(noteId, tab.id);
    if (!tab.deferred || tab.id in s.content || reading.has(key)) continue;
    reading.add(key);
    const version = s.open.view.version;
    queue = queue.then(() => readTab(noteId, tab, version)).finally(() => reading.delete(key));
  }
  return queue;
}

/** A tab's data and the version it was read at; "moved": the Note changed meanwhile. */
type Read = { data: unknown; version: number } | "moved" | "dropped";

/** Reads `tab`, as the view read at `version` outlined it. */
async function readTab(noteId: string, tab: TabView, version: number): Promise<void> {
  if (!stillWanted(noteId, tab.id)) return;
  const mark = edits.mark(noteId, tab.id);
  try {
    let read: Read = tab.type === "sheet" ? await readSheet(noteId, tab, version) : "moved";
    if (read === "dropped") return;
    // Not a sheet, or the Note changed while the parts were read: the tab whole, at once.
    if (read === "moved") {
      const whole = await api.tabView(noteId, tab.id);
      const view = app.get().open?.view;
      read = { data: whole.data, version: Math.max(view?.version ?? 0, app.get().status?.guard ?? 0) };
    }
    const s = app.get();
    if (!stillWanted(noteId, tab.id) || !edits.mayReplace(noteId, tab.id, mark)) return;
    app.set({ content: { ...s.content, [tab.id]: { data: read.data, epoch: mark, rev: 0, version: read.version } } });
  } catch (error) {
    if (errorCode(error) === "tab_gone" || errorCode(error) === "note_not_open") return;
    if (stillWanted(noteId, tab.id)) toastError(error, `The tab \u201c${tab.label}\u201d could not be read.`);
  }
}

/** The Note is still open and the tab's data still missing (a newer read may have brought it). */
function stillWanted(noteId: string, tabId: string): boolean {
  const s = app.get();
  return s.open?.noteId === noteId && !(tabId in s.content) && !!s.open.view?.tabs.some((t) => t.id === tabId);
}

/** A deferred sheet tab, in parts, all read at `version`, the one its outline was read at. */
async function readSheet(noteId: string, tab: TabView, version: number): Promise<Read> {
  const sheets = [];
  for (const outline of tab.deferred?.sheets ?? []) {
    const rows: unknown[] = [];
    while (rows.length < outline.rows) {
      if (!stillWanted(noteId, tab.id)) return "dropped";
      const part = await api.sheetRows(noteId, tab.id, outline.id, rows.length, ROWS_PER_PART);
      if (part.version !== version || part.total !== outline.rows || part.rows.length === 0) return "moved";
      for (const row of part.rows) rows.push(row);
    }
    sheets.push({ id: outline.id, name: outline.name, rows });
  }
  return { data: { sheets }, version };
}
