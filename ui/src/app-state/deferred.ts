// Tabs the open Note's view came without (past 1 MiB, the engine leaves out the data of a tab
// the person does not see yet, and of a long text even when shown): read one tab at a time,
// the shown one first, a text 1 MiB a call, a sheet a few thousand rows a call, so that no
// answer holds the window for longer than a frame (a 10 MiB answer held it 100 ms). An editor
// is never shown on a tab whose data is not here (NoteView's TabPane).

import * as api from "../api";
import type { TabView } from "../api";
import { errorCode } from "../lib/errors";
import { edits } from "./edits";
import { toastError } from "./messages";
import { tabToShow } from "./routing";
import { app, versionNow } from "./state";

/** Rows of a sheet read per call: about 40,000 cells of a 20-column sheet, a few ms to parse. */
export const ROWS_PER_PART = 2000;

/** Bytes of a text read per call. */
export const TEXT_PART_BYTES = 1 << 20;

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
  const shown = tabToShow(noteId);
  const tabs = [...s.open.view.tabs].sort((a, b) => Number(b.id === shown) - Number(a.id === shown));
  for (const tab of tabs) {
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
    const read = await readData(noteId, tab, version, () => stillWanted(noteId, tab.id));
    if (read === "dropped") return;
    const s = app.get();
    if (!stillWanted(noteId, tab.id) || !edits.mayReplace(noteId, tab.id, mark)) return;
    app.set({ content: { ...s.content, [tab.id]: { data: read.data, epoch: mark, rev: 0, version: read.version } } });
  } catch (error) {
    if (errorCode(error) === "tab_gone" || errorCode(error) === "note_not_open") return;
    if (stillWanted(noteId, tab.id)) toastError(error, `The tab \u201c${tab.label}\u201d could not be read.`);
  }
}

/**
 * The data of `tab`, a deferred tab of a view read at `version`: a text or a sheet in parts,
 * else whole (and whole when the Note moved while the parts were read); "dropped" once
 * `wanted` says it is no longer.
 */
export async function readData(
  noteId: string,
  tab: TabView,
  version: number,
  wanted: () => boolean,
): Promise<{ data: unknown; version: number } | "dropped"> {
  const read: Read =
    tab.type === "sheet"
      ? await readSheet(noteId, tab, version, wanted)
      : tab.type === "markdown"
        ? await readText(noteId, tab, version, wanted)
        : "moved";
  if (read !== "moved") return read;
  const whole = await api.tabView(noteId, tab.id);
  return { data: whole.data, version: versionNow() };
}

/** The Note is still open and the tab's data still missing (a newer read may have brought it). */
function stillWanted(noteId: string, tabId: string): boolean {
  const s = app.get();
  return s.open?.noteId === noteId && !(tabId in s.content) && !!s.open.view?.tabs.some((t) => t.id === tabId);
}

/**
 * A deferred text, in parts, all read at `version`, the one the view was read at, each part
 * checked to start where the one before it ended. (Asking for several parts at once was no
 * faster: 1 MiB a call, one after the other, reads 10 MiB in about 200 ms either way.)
 */
async function readText(noteId: string, tab: TabView, version: number, wanted: () => boolean): Promise<Read> {
  const parts: string[] = [];
  let at = 0;
  let total = -1;
  for (;;) {
    if (!wanted()) return "dropped";
    const part = await api.textPart(noteId, tab.id, at, TEXT_PART_BYTES);
    if (part.version !== version || (total >= 0 && part.total !== total) || part.start !== at) return "moved";
    total = part.total;
    parts.push(part.text);
    if (part.next >= total) break;
    if (part.next <= at) return "moved";
    at = part.next;
  }
  return { data: parts.join(""), version };
}

/** A deferred sheet tab, in parts, all read at `version`, the one its outline was read at. */
async function readSheet(noteId: string, tab: TabView, version: number, wanted: () => boolean): Promise<Read> {
  const sheets = [];
  for (const outline of tab.deferred?.sheets ?? []) {
    const rows: unknown[] = [];
    while (rows.length < outline.rows) {
      if (!wanted()) return "dropped";
      const part = await api.sheetRows(noteId, tab.id, outline.id, rows.length, ROWS_PER_PART);
      if (part.version !== version || part.total !== outline.rows || part.rows.length === 0) return "moved";
      for (const row of part.rows) rows.push(row);
    }
    sheets.push({ id: outline.id, name: outline.name, rows });
  }
  return { data: { sheets }, version };
}
