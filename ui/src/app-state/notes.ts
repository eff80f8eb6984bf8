// The list of Notes, the open Note, and reading it again.

import * as api from "../api";
import type { AgentAccess, NoteView } from "../api";
import { errorCode, explain } from "../lib/errors";
import { sameJson } from "../lib/json";
import { ledgerAfterStatus } from "../lib/status";
import { edits, setBase } from "./edits";
import { applyStatus, reapplyStatus } from "./events";
import { toastError } from "./messages";
import { loadDeferred, readData } from "./deferred";
import { goTab, settleRoute, tabToShow } from "./routing";
import { type TabContent, app } from "./state";
import { checkAgentChanges, noteSeen } from "./seen";
import { reportQueued } from "./writes";

export async function refreshNotes(): Promise<void> {
  try {
    const notes = await api.listNotes();
    app.set({ notes, notesLoaded: true, notesError: null });
    void checkAgentChanges();
  } catch (error) {
    app.set({ notesLoaded: true, notesError: explain(error).text });
  }
}

export async function refreshLedger(): Promise<void> {
  try {
    const ledger = await api.drafts();
    // A reply read before the newest status of the open Note: what that status calls saved is.
    app.set({ ledger: [...ledgerAfterStatus(ledger, app.get().status)] });
  } catch (error) {
    if (errorCode(error) !== "stopped") toastError(error, "The drafts ledger could not be read.");
  }
}

function throttle(fn: () => Promise<void>, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    if (timer !== null) return;
    timer = setTimeout(() => {
      timer = null;
      void fn();
    }, ms);
  };
}

export const refreshLedgerSoon = throttle(refreshLedger, 400);
export const refreshNotesSoon = throttle(refreshNotes, 800);

/** The tabs the next `refreshViewSoon` reads; null: every tab. */
let soonChanged: Set<string> | null = new Set();
const refreshViewThrottled = throttle(() => {
  const changed = soonChanged;
  soonChanged = new Set();
  return refreshView(changed ? [...changed] : undefined);
}, 150);

/** `refreshView` a little later, once for the calls made meanwhile (their `changed` joined). */
export function refreshViewSoon(changed?: string[]): void {
  if (!changed) soonChanged = null;
  else if (soonChanged) for (const t of changed) soonChanged.add(t);
  refreshViewThrottled();
}

export async function createNote(title = "Untitled"): Promise<void> {
  try {
    const view = await api.createNote(title);
    await refreshNotes();
    await switchTo(view.note_id, view);
    const first = view.tabs[0];
    if (first) goTab(view.note_id, first.id);
    // Name it at once, in the list (Enter keeps the name, Esc keeps "Untitled").
    app.set({ renaming: { noteId: view.note_id, where: "list" } });
  } catch (error) {
    toastError(error, "The Note could not be created.");
  }
}

export async function renameNote(noteId: string, raw: string): Promise<void> {
  app.set({ renaming: null });
  const title = raw.trim();
  const current = app.get().notes.find((n) => n.id === noteId)?.title ?? app.get().open?.view?.title;
  if (title === current) return;
  // Optimistic in the list; the server's answer settles it.
  app.set((s) => ({ notes: s.notes.map((n) => (n.id === noteId ? { ...n, title } : n)) }));
  try {
    if (app.get().open?.noteId !== noteId) await api.openNote(noteId, []);
    const outcome = await api.renameNote(noteId, title);
    reportQueued(outcome, "The new title");
  } catch (error) {
    toastError(error, "The Note could not be renamed.");
  }
  await refreshNotes();
  if (app.get().open?.noteId === noteId) await refreshView();
}

export async function ensureOpen(noteId: string): Promise<void> {
  if (app.get().open?.noteId === noteId) return;
  await switchTo(noteId);
}

/** Leaves the open Note (its edits handed over first) and opens another. */
async function switchTo(noteId: string, known?: NoteView): Promise<void> {
  const previous = app.get().open?.noteId;
  if (previous === noteId && app.get().open?.view) return;
  app.set({
    open: { noteId, view: known ?? null, loading: !known, error: null },
    status: null,
    content: known ? contentOf(noteId, known) : {},
    unsent: [],
    remoteEdits: {},
    renamingTab: null,
  });
  if (previous && previous !== noteId) void leave(previous);
  if (known) noteSeen(noteId, known.version);
  if (!known) {
    try {
      // The tab about to be shown comes with its data; a large one not shown comes after it.
      const shown = tabToShow(noteId);
      performance.mark("quire:open-invoke");
      const view = await api.openNote(noteId, shown ? [shown] : []);
      performance.mark("quire:open-answer");
      if (app.get().open?.noteId !== noteId) return;
      app.set({ open: { noteId, view, loading: false, error: null }, content: contentOf(noteId, view) });
      performance.mark("quire:open-shown");
      noteSeen(noteId, view.version);
      reapplyStatus();
      setTimeout(() => void loadDeferred(noteId), 0);
    } catch (error) {
      if (app.get().open?.noteId !== noteId) return;
      const e = explain(error);
      app.set({ open: { noteId, view: null, loading: false, error: { code: e.code, text: e.text } } });
      return;
    }
  }
  try {
    const status = await api.noteStatus(noteId);
    if (app.get().open?.noteId === noteId) applyStatus(status);
  } catch {
    // The next status event brings it.
  }
  settleRoute();
}

function contentOf(noteId: string, view: NoteView): Record<string, TabContent> {
  const out: Record<string, TabContent> = {};
  for (const t of view.tabs) {
    if (!t.deferred) out[t.id] = { data: t.data, epoch: edits.mark(noteId, t.id), rev: 0, version: view.version };
  }
  return out;
}

/** A Note the person left: hand over its edits; stop syncing it once nothing is pending. */
async function leave(noteId: string): Promise<void> {
  try {
    await edits.flush(noteId);
    const status = await api.flush(noteId);
    const busy = status.tabs.some((t) => t.state !== "clean" && t.state !== "saved") || status.queued_writes > 0;
    if (!busy && app.get().open?.noteId !== noteId && !edits.notesWithUnsent().includes(noteId)) {
      await api.closeNote(noteId);
    }
  } catch (error) {
    if (errorCode(error) !== "note_not_open") toastError(error);
  }
}

/**
 * Reads the open Note again. Tabs the person is editing keep what they show. `changed`: the
 * only tabs whose content may have changed (another writer's change, as the engine reports
 * it; every tab when not given): a large tab not among them is not read again. A large tab
 * comes without its data, and one that may have changed is read in parts (a text 1 MiB a
 * call, a sheet 2,000 rows), so no answer holds the window.
 */
export async function refreshView(changed?: string[]): Promise<void> {
  const open = app.get().open;
  if (!open) return;
  const { noteId } = open;
  const marks: Record<string, number> = {};
  for (const t of open.view?.tabs ?? []) marks[t.id] = edits.mark(noteId, t.id);
  let view: NoteView;
  try {
    const shown = tabToShow(noteId);
    view = await api.openNote(noteId, shown ? [shown] : []);
  } catch (error) {
    if (app.get().open?.noteId === noteId) toastError(error, "The Note could not be read again.");
    return;
  }
  // A large tab that may have changed comes without its data: read it in parts, here, before
  // the view is taken (a tab not here yet is read by loadDeferred, below).
  const fresh: Record<string, { data: unknown; version: number }> = {};
  for (const tab of view.tabs) {
    const mayHaveChanged = changed === undefined || changed.includes(tab.id);
    if (!tab.deferred || !mayHaveChanged || !(tab.id in app.get().content)) continue;
    try {
      const read = await readData(noteId, tab, view.version, () => app.get().open?.noteId === noteId);
      if (read === "dropped") return;
      fresh[tab.id] = read;
    } catch (error) {
      if (app.get().open?.noteId === noteId) toastError(error, "The Note could not be read again.");
      return;
    }
  }
  const s = app.get();
  if (s.open?.noteId !== noteId) return;
  const content: Record<string, TabContent> = { ...s.content };
  // Tabs whose read may predate an edit the engine took while it was on the wire, with nothing
  // typed since: read again (an edit typed since is read again after its own hand-over).
  const again: string[] = [];
  for (const tab of view.tabs) {
    const mark = marks[tab.id] ?? edits.mark(noteId, tab.id);
    const cur = content[tab.id];
    const read = fresh[tab.id] ?? (tab.deferred ? null : { data: tab.data, version: view.version });
    // Unchanged (or still being read): what is here stays.
    if (!read) continue;
    if (!cur) {
      content[tab.id] = { data: read.data, epoch: mark, rev: 0, version: read.version };
    } else if (edits.mayReplace(noteId, tab.id, mark)) {
      if (sameJson(cur.data, read.data)) {
        // The editor shows exactly this: it is now based on this version.
        content[tab.id] = { ...cur, epoch: mark, version: read.version };
        setBase(noteId, tab.id, read.version);
      } else {
        // The editor takes it (and calls `adopted`) on its next render, unless the person types first.
        content[tab.id] = { data: read.data, epoch: mark, rev: cur.rev + 1, version: read.version };
      }
    } else if (edits.isQuiet(noteId, tab.id)) {
      again.push(tab.id);
    }
  }
  app.set({ open: { ...s.open, view, loading: false, error: null }, content });
  if (again.length > 0) refreshViewSoon(again);
  noteSeen(s.open.noteId, view.version);
  reapplyStatus();
  settleRoute();
  void loadDeferred(noteId);
}

/** Approves (or withdraws) a Note for agents: the Note's access and its record, or null. */
export async function setAgentAccess(noteId: string, approved: boolean): Promise<AgentAccess | null> {
  try {
    const access = await api.setAgentAccess(noteId, approved);
    app.set((s) => ({
      notes: s.notes.map((n) => (n.id === noteId ? { ...n, agent_access: access.agent_access } : n)),
    }));
    return access;
  } catch (error) {
    toastError(error, "Agent access could not be changed.");
    return null;
  }
}
