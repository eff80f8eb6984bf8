// The person's edits: handed over to the engine with the version their content was based on.

import * as api from "../api";
import type { TabStatus, Taken } from "../api";
import { EditSessions, IMMEDIATE_MAX_CHARS } from "../editing";
import { textChange } from "../lib/textChange";
import { errorCode } from "../lib/errors";
import { applyTabStatus, statusSeq } from "./events";
import { refreshViewSoon } from "./notes";
import { toastError } from "./messages";
import { type TabContent, app } from "./state";

/**
 * For each tab, the Note version of the engine content its editor last took on (loaded,
 * replaced, or saved by this app). Edits are handed over with it (`edit_tab`'s `baseVersion`),
 * so the engine can tell an edit typed on older content, while another writer's change had
 * reached it, from an edit on what it shows: the first becomes a conflict, never an overwrite.
 */
const bases = new Map<string, number>();
const baseKey = (noteId: string, tabId: string) => `${noteId}\u0000${tabId}`;

export function setBase(noteId: string, tabId: string, version: number): void {
  const key = baseKey(noteId, tabId);
  bases.set(key, Math.max(version, bases.get(key) ?? 0));
}

/** An editor now shows the engine's content of this tab (as read at its `version`). */
export function adopted(tabId: string): void {
  const s = app.get();
  const c = s.content[tabId];
  if (s.open && c) setBase(s.open.noteId, tabId, c.version);
}

/**
 * For each tab with a long text, the text the engine took last from its editor and the token it
 * gave: the next edit goes over as what changed since (`hand_over`'s change), not as the text.
 */
const handed = new Map<string, { text: string; token: number }>();

/**
 * Hands a long text over: as what changed since the text the engine took last, when that is
 * known and the change is small; whole otherwise, and whenever the engine refuses the change
 * (it took another text from this editor meanwhile, or none).
 */
async function handOverText(noteId: string, tabId: string, text: string, base?: number): Promise<Taken> {
  const key = baseKey(noteId, tabId);
  const last = handed.get(key);
  handed.delete(key);
  if (last) {
    const change = textChange(last.text, text);
    if ((change.removed + change.insert.length) * 2 < text.length) {
      try {
        return await api.handOverChange(noteId, tabId, { after: last.token, ...change }, base);
      } catch (error) {
        if (errorCode(error) !== "change_refused") throw error;
      }
    }
  }
  return api.handOver(noteId, tabId, text, base);
}

/** Hands an edit over: a long text through `handOverText`, anything else whole. */
async function handOverEdit(noteId: string, tabId: string, data: unknown, base?: number): Promise<TabStatus> {
  if (typeof data !== "string" || data.length < IMMEDIATE_MAX_CHARS) {
    handed.delete(baseKey(noteId, tabId));
    return api.editTab(noteId, tabId, data, base);
  }
  const taken = await handOverText(noteId, tabId, data, base);
  handed.set(baseKey(noteId, tabId), { text: data, token: taken.token });
  return taken.status;
}

export const edits = new EditSessions({
  send: async (noteId, tabId, data) => {
    let status: TabStatus;
    const base = bases.get(baseKey(noteId, tabId));
    let since = statusSeq();
    try {
      status = await handOverEdit(noteId, tabId, data, base);
    } catch (error) {
      // The engine stopped syncing this Note (left and closed meanwhile): open it, hand over again.
      if (errorCode(error) !== "note_not_open") throw error;
      await api.openNote(noteId, []);
      since = statusSeq();
      status = await handOverEdit(noteId, tabId, data, base);
    }
    applyTabStatus(noteId, status, since);
    // The engine merged another writer's change into this tab: read it, so the editor shows it
    // as soon as the person pauses (until then each edit is merged again by the engine).
    if (status.unseen) refreshViewSoon([tabId]);
    // Keep what the UI knows current, so a remounted editor starts from it.
    const s = app.get();
    if (s.open?.noteId === noteId && s.content[tabId]) {
      const epoch = edits.mark(noteId, tabId);
      app.set({ content: { ...s.content, [tabId]: { ...s.content[tabId], data, epoch } as TabContent } });
    }
  },
  onUnsentChange: (noteId, tabIds) => {
    if (app.get().open?.noteId === noteId) app.set({ unsent: tabIds });
  },
  onError: (_noteId, _tabId, error) =>
    errorCode(error) === "tab_gone"
      ? toastError(error, "This tab was deleted elsewhere; your last text in it is kept on screen to copy.")
      : toastError(error, "Your latest changes are not saved yet; retrying."),
  isFatal: (error) => errorCode(error) === "tab_gone" || errorCode(error) === "invalid_content",
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
});

/**
 * An editor's change: `read` gives the tab's whole content when it is handed over; `size`
 * (characters) above which hand-over is coalesced instead of immediate (see editing.ts).
 */
export function localEdit(tabId: string, read: () => unknown, size = 0): void {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  edits.edit(noteId, tabId, read, size);
  const remote = app.get().remoteEdits;
  if (remote[tabId]) {
    const { [tabId]: _dropped, ...rest } = remote;
    app.set({ remoteEdits: rest });
  }
}

/**
 * An editor has marked what the tab's announced remote change brought: an editor opened on the
 * tab again does not mark it again (the announcement itself stays, for the banner).
 */
export function marksShown(tabId: string): void {
  const remote = app.get().remoteEdits;
  const r = remote[tabId];
  if (!r || !("before" in r)) return;
  const { before: _shown, ...rest } = r;
  app.set({ remoteEdits: { ...remote, [tabId]: rest } });
}

/**
 * Content from the engine that an editor may show now in place of its own, or undefined: only
 * while the person has not edited the tab since it was read and every edit was taken.
 */
export function engineContent(tabId: string): unknown {
  const s = app.get();
  const noteId = s.open?.noteId;
  const c = s.content[tabId];
  if (!noteId || !c || !edits.mayReplace(noteId, tabId, c.epoch)) return undefined;
  return c.data;
}

/** The content an editor should start from: the person's own newer edits first. */
export function contentFor(tabId: string): unknown {
  const s = app.get();
  const noteId = s.open?.noteId;
  const known = s.content[tabId];
  if (!noteId || !known) return undefined;
  const newer = edits.latestSince(noteId, tabId, known.epoch);
  if (newer !== undefined) return newer;
  setBase(noteId, tabId, known.version);
  return known.data;
}
