// The app's state and every action the person can take. Components read the state through
// `useApp` and call these functions; all traffic with the engine goes through `api.ts`.
//
// Invariants:
// - A tab is addressed by its instance ID only. A route with an unknown tab ID shows the "gone"
//   view (components/NoteView.tsx); nothing here ever substitutes another tab.
// - Content read from the engine replaces what an editor shows only when the person has no edit
//   the engine has not taken (`EditSessions.mayReplace`); a dirty tab is never overwritten.
// - Nothing the person wrote is dropped: a refused hand-over is kept and retried
//   (`EditSessions`), a refused action is explained (`toast`), drafts the engine keeps are
//   listed in the drafts ledger.

import * as api from "./api";
import type {
  AgentAccess,
  AppInfo,
  ConflictChoice,
  DraftPolicy,
  EngineEvent,
  LedgerEntry,
  NoteStatus,
  NoteSummary,
  NoteView,
  Op,
  Settings,
  TabStatus,
  TabView,
  VersionInfo,
  WriteOutcome,
} from "./api";
import { EditSessions } from "./editing";
import { errorCode, explain } from "./lib/errors";
import { type Route, defaultTab, formatRoute, parseRoute, tabHref } from "./lib/route";
import { createStore, useStore } from "./store";

export interface RemoteEdit {
  author: string;
  at: string;
  version: number;
  /** Written by an agent (the version's `author_kind`, as the server recorded it). */
  agent: boolean;
}

/**
 * A tab's content as the UI knows it: `epoch` is the edit mark when it was read, `rev` counts
 * replacements, `version` is the Note version it was read at.
 */
export interface TabContent {
  data: unknown;
  epoch: number;
  rev: number;
  version: number;
}

export type Dialog =
  | { kind: "switcher" }
  | { kind: "conflict"; tabId: string }
  | { kind: "present"; tabId: string; start: number }
  | { kind: "version"; version: number; mode: "view" | "diff" };

/** A question over everything else (it may stack over a dialog). */
export interface Confirm {
  title: string;
  body: string;
  confirmLabel: string;
  danger: boolean;
  resolve: (ok: boolean) => void;
}

export interface Toast {
  id: number;
  tone: "error" | "info";
  text: string;
  detail?: string;
  code?: string;
}

export interface OpenNote {
  noteId: string;
  view: NoteView | null;
  loading: boolean;
  error: { code: string; text: string } | null;
}

export interface AppState {
  ready: boolean;
  route: Route;
  notes: NoteSummary[];
  notesLoaded: boolean;
  notesError: string | null;
  search: string;
  open: OpenNote | null;
  status: NoteStatus | null;
  content: Record<string, TabContent>;
  unsent: string[];
  remoteEdits: Record<string, RemoteEdit>;
  ledger: LedgerEntry[];
  panel: "drafts" | "versions" | null;
  dialog: Dialog | null;
  confirm: Confirm | null;
  toasts: Toast[];
  settings: Settings | null;
  appInfo: AppInfo | null;
  /** The Note whose title is being edited, and where (the sidebar list or the Note's header). */
  renaming: { noteId: string; where: "list" | "title" } | null;
  /** The tab whose label is being edited in the strip. */
  renamingTab: string | null;
}

export const app = createStore<AppState>({
  ready: false,
  route: parseRoute(typeof location === "undefined" ? "" : location.hash),
  notes: [],
  notesLoaded: false,
  notesError: null,
  search: "",
  open: null,
  status: null,
  content: {},
  unsent: [],
  remoteEdits: {},
  ledger: [],
  panel: null,
  dialog: null,
  confirm: null,
  toasts: [],
  settings: null,
  appInfo: null,
  renaming: null,
  renamingTab: null,
});

export function useApp<T>(select: (s: AppState) => T): T {
  return useStore(app, select);
}

// ---- edits -------------------------------------------------------------------------------

/**
 * For each tab, the Note version of the engine content its editor last took on (loaded,
 * replaced, or saved by this app). Edits are handed over with it (`edit_tab`'s `baseVersion`),
 * so the engine can tell an edit typed on older content, while another writer's change had
 * reached it, from an edit on what it shows: the first becomes a conflict, never an overwrite.
 */
const bases = new Map<string, number>();
const baseKey = (noteId: string, tabId: string) => `${noteId}\u0000${tabId}`;

function setBase(noteId: string, tabId: string, version: number): void {
  const key = baseKey(noteId, tabId);
  bases.set(key, Math.max(version, bases.get(key) ?? 0));
}

/** An editor now shows the engine's content of this tab (as read at its `version`). */
export function adopted(tabId: string): void {
  const s = app.get();
  const c = s.content[tabId];
  if (s.open && c) setBase(s.open.noteId, tabId, c.version);
}

export const edits = new EditSessions({
  send: async (noteId, tabId, data) => {
    let status: TabStatus;
    const base = bases.get(baseKey(noteId, tabId));
    try {
      status = await api.editTab(noteId, tabId, data, base);
    } catch (error) {
      // The engine stopped syncing this Note (left and closed meanwhile): open it, hand over again.
      if (errorCode(error) !== "note_not_open") throw error;
      await api.openNote(noteId);
      status = await api.editTab(noteId, tabId, data, base);
    }
    applyTabStatus(noteId, status);
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

// ---- messages ----------------------------------------------------------------------------

let toastSeq = 0;

export function toast(tone: Toast["tone"], text: string, extra: { detail?: string; code?: string } = {}): void {
  const id = ++toastSeq;
  app.set((s) => ({ toasts: [...s.toasts.slice(-3), { id, tone, text, ...extra }] }));
  setTimeout(() => dismissToast(id), tone === "error" ? 12000 : 5000);
}

export function toastError(error: unknown, prefix?: string): void {
  const e = explain(error);
  toast("error", prefix ? `${prefix} ${e.text}` : e.text, { detail: e.detail, code: e.code });
}

export function dismissToast(id: number): void {
  app.set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function confirm(opts: { title: string; body: string; confirmLabel: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    answerConfirm(false);
    app.set({
      confirm: {
        title: opts.title,
        body: opts.body,
        confirmLabel: opts.confirmLabel,
        danger: opts.danger ?? false,
        resolve,
      },
    });
  });
}

export function answerConfirm(ok: boolean): void {
  const c = app.get().confirm;
  if (!c) return;
  app.set({ confirm: null });
  c.resolve(ok);
}

export function openDialog(dialog: Dialog): void {
  app.set({ dialog });
}

export function closeDialog(): void {
  app.set({ dialog: null });
}

// ---- routing -----------------------------------------------------------------------------

export function navigate(route: Route, replace = false): void {
  const hash = formatRoute(route);
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, "", hash);
  else location.hash = hash;
  if (replace) onRoute();
}

export function goTab(noteId: string, tabId: string): void {
  navigate({ kind: "tab", noteId, tabId });
}

const LAST_TAB_KEY = "quire.lastTab";

function lastTabs(): Record<string, string> {
  try {
    const raw = localStorage.getItem(LAST_TAB_KEY);
    return raw ? (JSON.parse(raw) as Record<string, string>) : {};
  } catch {
    return {};
  }
}

function rememberTab(noteId: string, tabId: string): void {
  try {
    localStorage.setItem(LAST_TAB_KEY, JSON.stringify({ ...lastTabs(), [noteId]: tabId }));
  } catch {
    // Private mode or a full storage: only the convenience is lost.
  }
}

const LAST_ROUTE_KEY = "quire.lastRoute";

function onRoute(): void {
  const route = parseRoute(location.hash);
  app.set({ route });
  try {
    if (route.kind === "tab") localStorage.setItem(LAST_ROUTE_KEY, location.hash);
    else if (route.kind === "home") localStorage.removeItem(LAST_ROUTE_KEY);
  } catch {
    // Only the convenience of reopening where the person was is lost.
  }
  if (route.kind === "note" || route.kind === "tab") void ensureOpen(route.noteId);
  settleRoute();
}

/** `#/notes/{id}` names no tab: go to the last one used there, or the first. Only then. */
function settleRoute(): void {
  const { route, open } = app.get();
  const view = open?.view;
  if (!view || !open || (route.kind !== "note" && route.kind !== "tab") || route.noteId !== open.noteId) return;
  if (route.kind === "note") {
    const tab = defaultTab(view.tabs, lastTabs()[open.noteId] ?? null);
    if (tab) navigate({ kind: "tab", noteId: open.noteId, tabId: tab.id }, true);
    return;
  }
  if (view.tabs.some((t) => t.id === route.tabId)) rememberTab(open.noteId, route.tabId);
}

// ---- start -------------------------------------------------------------------------------

export async function start(): Promise<void> {
  window.addEventListener("hashchange", onRoute);
  window.addEventListener("pagehide", () => {
    const noteId = app.get().open?.noteId;
    if (noteId) void edits.flush(noteId).then(() => api.flush(noteId));
  });
  try {
    await api.onEngineEvent(onEngineEvent);
  } catch (error) {
    toastError(error, "Live updates are unavailable.");
  }
  api.onCloseRequested(() => void closeWindow()).catch((error: unknown) =>
    console.warn("close-requested:", error),
  );
  await Promise.all([
    api.appInfo().then(
      (appInfo) => app.set({ appInfo }),
      () => undefined,
    ),
    loadSettings(),
    refreshNotes(),
    refreshLedger(),
  ]);
  app.set({ ready: true });
  // A fresh start opens where the person was (with a draft there, they see it at once).
  if (location.hash === "" || location.hash === "#" || location.hash === "#/") {
    try {
      const last = localStorage.getItem(LAST_ROUTE_KEY);
      const route = last ? parseRoute(last) : null;
      if (route?.kind === "tab" && app.get().notes.some((n) => n.id === route.noteId)) {
        history.replaceState(null, "", last);
      }
    } catch {
      // Start at home.
    }
  }
  onRoute();
}

/**
 * The window is closing (or Ctrl+Q): hand every held edit to the engine, which keeps it on disk
 * as a draft, then close. Quitting right after typing loses nothing.
 */
export async function closeWindow(): Promise<void> {
  try {
    await handOverAll();
  } finally {
    await api.closeWindow().catch((error: unknown) => console.warn("close_window:", error));
  }
}

/** Hands every edit held here to the engine now (see `EditSessions.flush`). */
export async function handOverAll(): Promise<void> {
  const open = app.get().open?.noteId;
  const notes = new Set(edits.notesWithUnsent());
  if (open) notes.add(open);
  await Promise.allSettled([...notes].map((noteId) => edits.flush(noteId)));
}

/** "Open logs folder": the system's file manager on the app's log files. */
export async function openLogsFolder(): Promise<void> {
  try {
    await api.openLogsFolder();
  } catch (error) {
    toastError(error, "The logs folder could not be opened.");
  }
}

export async function loadSettings(): Promise<void> {
  try {
    app.set({ settings: await api.getSettings() });
  } catch (error) {
    toastError(error, "Settings could not be read.");
  }
}

// ---- notes -------------------------------------------------------------------------------

export async function refreshNotes(): Promise<void> {
  try {
    const notes = await api.listNotes();
    app.set({ notes, notesLoaded: true, notesError: null });
  } catch (error) {
    app.set({ notesLoaded: true, notesError: explain(error).text });
  }
}

export async function refreshLedger(): Promise<void> {
  try {
    app.set({ ledger: await api.drafts() });
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

const refreshLedgerSoon = throttle(refreshLedger, 400);
const refreshNotesSoon = throttle(refreshNotes, 800);

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
    if (app.get().open?.noteId !== noteId) await api.openNote(noteId);
    const outcome = await api.renameNote(noteId, title);
    reportQueued(outcome, "The new title");
  } catch (error) {
    toastError(error, "The Note could not be renamed.");
  }
  await refreshNotes();
  if (app.get().open?.noteId === noteId) await refreshView();
}

async function ensureOpen(noteId: string): Promise<void> {
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
  if (!known) {
    try {
      const view = await api.openNote(noteId);
      if (app.get().open?.noteId !== noteId) return;
      app.set({ open: { noteId, view, loading: false, error: null }, content: contentOf(noteId, view) });
      reapplyStatus();
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
  for (const t of view.tabs) out[t.id] = { data: t.data, epoch: edits.mark(noteId, t.id), rev: 0, version: view.version };
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

/** Reads the open Note again. Tabs the person is editing keep what they show. */
export async function refreshView(): Promise<void> {
  const open = app.get().open;
  if (!open) return;
  const { noteId } = open;
  const marks: Record<string, number> = {};
  for (const t of open.view?.tabs ?? []) marks[t.id] = edits.mark(noteId, t.id);
  let view: NoteView;
  try {
    view = await api.openNote(noteId);
  } catch (error) {
    if (app.get().open?.noteId === noteId) toastError(error, "The Note could not be read again.");
    return;
  }
  const s = app.get();
  if (s.open?.noteId !== noteId) return;
  const content: Record<string, TabContent> = { ...s.content };
  for (const tab of view.tabs) {
    const mark = marks[tab.id] ?? edits.mark(noteId, tab.id);
    const cur = content[tab.id];
    if (!cur) {
      content[tab.id] = { data: tab.data, epoch: mark, rev: 0, version: view.version };
    } else if (edits.mayReplace(noteId, tab.id, mark)) {
      if (sameData(cur.data, tab.data)) {
        // The editor shows exactly this: it is now based on this version.
        content[tab.id] = { ...cur, epoch: mark, version: view.version };
        setBase(noteId, tab.id, view.version);
      } else {
        // The editor takes it (and calls `adopted`) on its next render, unless the person types first.
        content[tab.id] = { data: tab.data, epoch: mark, rev: cur.rev + 1, version: view.version };
      }
    }
  }
  app.set({ open: { ...s.open, view, loading: false, error: null }, content });
  reapplyStatus();
  settleRoute();
}

function sameData(a: unknown, b: unknown): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---- engine events -----------------------------------------------------------------------

/** Exported for tests; `start` subscribes it to the engine's events. */
export function onEngineEvent(event: EngineEvent): void {
  const openId = app.get().open?.noteId;
  switch (event.kind) {
    case "status":
      if (event.note_id === openId) applyStatus(event);
      refreshLedgerSoon();
      break;
    case "remote_applied":
      refreshNotesSoon();
      if (event.note_id === openId) void remoteApplied(event.note_id, event.tab_ids);
      break;
    case "conflict_shown":
      refreshLedgerSoon();
      break;
    case "saved":
      refreshNotesSoon();
      refreshLedgerSoon();
      // This app's own save: the tab's content is now the server's at that version.
      setBase(event.note_id, event.tab_id, event.version);
      if (event.note_id === openId) {
        const s = app.get();
        const view = s.open?.view;
        if (s.open && view && event.version > view.version) {
          app.set({ open: { ...s.open, view: { ...view, version: event.version } } });
        }
      }
      break;
    case "local_store_failed":
      toast("error", "Your draft could not be written on this computer. Nothing is sent until it can be.", {
        detail: event.message,
        code: "local_store",
      });
      break;
  }
}

function applyStatus(incoming: NoteStatus): void {
  const s = app.get();
  const view = s.open?.view;
  if (!s.open || s.open.noteId !== incoming.note_id) return;
  // Events and command replies arrive in no fixed order: an older status never replaces a newer
  // one (a reply taken before a save finished must not show "Saving…" after its "saved" event).
  const status = newerStatus(s.status, incoming);
  const byTab = new Map(status.tabs.map((t) => [t.tab_id, t]));
  const tabs = view?.tabs.map((t) => {
    const next = byTab.get(t.id);
    return next && JSON.stringify(next) !== JSON.stringify(t.status) ? { ...t, status: next } : t;
  });
  app.set({
    status,
    ...(view && tabs ? { open: { ...s.open, view: { ...view, tabs } } } : {}),
  });
  // A tab the view does not know (created elsewhere), or one it shows that is gone: read again.
  if (view) {
    const known = new Set([...view.tabs, ...view.orphan_drafts].map((t) => t.id));
    const changed = status.tabs.some((t) => !known.has(t.tab_id)) || view.tabs.some((t) => !byTab.has(t.id));
    if (changed) refreshViewSoon();
  }
}

/** A view just read has its tab states as of its reply: the newest status known wins over them. */
function reapplyStatus(): void {
  const known = app.get().status;
  if (known) applyStatus(known);
}

/** The newer of two statuses of a Note (by `seq`); `incoming` if they are of different Notes. */
export function newerStatus(current: NoteStatus | null, incoming: NoteStatus): NoteStatus {
  return current && current.note_id === incoming.note_id && current.seq > incoming.seq ? current : incoming;
}

const refreshViewSoon = throttle(refreshView, 150);

function applyTabStatus(noteId: string, status: TabStatus): void {
  const s = app.get();
  const view = s.open?.view;
  if (!s.open || s.open.noteId !== noteId || !view) return;
  app.set({
    open: { ...s.open, view: { ...view, tabs: view.tabs.map((t) => (t.id === status.tab_id ? { ...t, status } : t)) } },
  });
}

async function remoteApplied(noteId: string, tabIds: string[]): Promise<void> {
  await refreshView();
  try {
    const versions = await api.history(noteId);
    const marks: Record<string, RemoteEdit> = {};
    for (const tabId of tabIds) {
      const last = latestTouching(versions, tabId);
      if (last) {
        marks[tabId] = {
          author: last.author,
          at: last.created_at,
          version: last.version,
          agent: last.author_kind === "agent",
        };
      }
    }
    const s = app.get();
    if (s.open?.noteId === noteId) app.set({ remoteEdits: { ...s.remoteEdits, ...marks } });
  } catch {
    // The marker is a courtesy; the content is already shown.
  }
}

function latestTouching(versions: readonly VersionInfo[], tabId: string): VersionInfo | undefined {
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i] as VersionInfo;
    if (v.changed_tab_ids.includes(tabId)) return v;
  }
  return undefined;
}

// ---- saving ------------------------------------------------------------------------------

/** Ctrl+S: hand over every edit and save every dirty tab now. */
export async function flushNow(): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    await edits.flush(noteId);
    applyStatus(await api.flush(noteId));
  } catch (error) {
    toastError(error);
  }
}

export async function retrySave(tabId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    applyTabStatus(noteId, await api.retry(noteId, tabId));
  } catch (error) {
    toastError(error);
  }
}

// ---- structural writes -------------------------------------------------------------------

function reportQueued(outcome: WriteOutcome, what: string): void {
  if (outcome.status === "queued") {
    toast("info", `Offline: ${what} is kept and will be saved when the server is back.`);
  }
}

/**
 * A guarded structural write on the open Note. A write that would overwrite a draft is only
 * done after the person agrees (the draft is then archived, never deleted).
 */
export async function write(ops: Op[], what: string, policy: DraftPolicy = "refuse"): Promise<WriteOutcome | null> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return null;
  try {
    await edits.flush(noteId);
    const outcome = await api.applyOps(noteId, ops, policy);
    reportQueued(outcome, what);
    await refreshView();
    refreshNotesSoon();
    return outcome;
  } catch (error) {
    if (errorCode(error) === "would_discard_drafts" && policy === "refuse") {
      const ok = await confirm({
        title: "Discard unsaved changes?",
        body: `${what} would replace changes that are not saved yet. They will be archived, not deleted.`,
        confirmLabel: "Archive my changes and go on",
        danger: true,
      });
      return ok ? write(ops, what, "archive_them") : null;
    }
    toastError(error, `${capitalise(what)} was refused.`);
    await refreshView();
    return null;
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export async function addTab(type: "sheet" | "slides"): Promise<void> {
  const outcome = await write([{ op: "create_tab", tab_type: type, label: null, slides: null }], `the new ${type} tab`);
  const noteId = app.get().open?.noteId;
  if (outcome?.status === "committed" && noteId) {
    for (const o of outcome.result.outcomes) {
      if (o.kind === "tab_created") {
        goTab(noteId, o.tab_id);
        app.set({ renamingTab: o.tab_id });
      }
    }
  }
}

export async function renameTab(tabId: string, label: string): Promise<void> {
  app.set({ renamingTab: null });
  await write([{ op: "rename_tab", tab_id: tabId, label }], "the tab's new name");
}

export async function moveTab(tabId: string, index: number): Promise<void> {
  const s = app.get();
  const view = s.open?.view;
  if (!view || !s.open) return;
  const from = view.tabs.findIndex((t) => t.id === tabId);
  if (from < 0 || from === index) return;
  // Show the move at once; the write settles it.
  const tabs = view.tabs.slice();
  const [tab] = tabs.splice(from, 1);
  tabs.splice(index, 0, tab as TabView);
  app.set({ open: { ...s.open, view: { ...view, tabs } } });
  await write([{ op: "move_tab", tab_id: tabId, index }], "the tab's new place");
}

export async function deleteTab(tabId: string): Promise<void> {
  const s = app.get();
  const tab = s.open?.view?.tabs.find((t) => t.id === tabId);
  const noteId = s.open?.noteId;
  if (!tab || !noteId) return;
  const ok = await confirm({
    title: `Delete “${tab.label}”?`,
    body: "The tab disappears from the strip. Its content stays in the Note's history: restore it from the Versions panel.",
    confirmLabel: "Delete tab",
    danger: true,
  });
  if (!ok) return;
  const outcome = await write([{ op: "delete_tab", tab_id: tabId }], "deleting the tab");
  if (outcome && app.get().route.kind === "tab") {
    const view = app.get().open?.view;
    const next = view?.tabs[0];
    if (next) navigate({ kind: "tab", noteId, tabId: next.id }, true);
  }
}

// ---- conflicts ---------------------------------------------------------------------------

export async function resolveConflict(tabId: string, choice: ConflictChoice): Promise<boolean> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return false;
  try {
    await edits.flush(noteId);
    const status = await api.resolveConflict(noteId, tabId, choice);
    applyTabStatus(noteId, status);
    // The tab now shows the resolved content: let the editor take it.
    await replaceFromEngine(noteId, tabId);
    await refreshView();
    refreshLedgerSoon();
    return true;
  } catch (error) {
    toastError(error);
    return false;
  }
}

/** Reads one tab and makes the editor show it (after a resolution the person asked for). */
async function replaceFromEngine(noteId: string, tabId: string): Promise<void> {
  try {
    const mark = edits.mark(noteId, tabId);
    const tab = await api.tabView(noteId, tabId);
    const s = app.get();
    if (s.open?.noteId !== noteId || !edits.mayReplace(noteId, tabId, mark)) return;
    const cur = s.content[tabId];
    const version = Math.max(s.open?.view?.version ?? 0, s.status?.guard ?? 0);
    app.set({
      content: { ...s.content, [tabId]: { data: tab.data, epoch: mark, rev: (cur?.rev ?? 0) + 1, version } },
    });
    applyTabStatus(noteId, tab.status);
  } catch (error) {
    if (errorCode(error) !== "tab_gone") toastError(error);
    await refreshView();
  }
}

export async function discardDraft(tabId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  const ok = await confirm({
    title: "Discard your changes to this tab?",
    body: "The tab goes back to what the server has. Your changes are archived on this computer, not deleted.",
    confirmLabel: "Discard my changes",
    danger: true,
  });
  if (!ok) return;
  try {
    await edits.flush(noteId);
    applyTabStatus(noteId, await api.discardDraft(noteId, tabId, true));
    await replaceFromEngine(noteId, tabId);
    await refreshView();
  } catch (error) {
    toastError(error);
  }
}

// ---- versions ----------------------------------------------------------------------------

export type RestoreResult = { ok: true; text: string } | { ok: false; text: string; detail: string };

export async function restoreVersion(version: number): Promise<RestoreResult> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return { ok: false, text: "No Note is open.", detail: "" };
  try {
    await edits.flush(noteId);
    const outcome = await api.restore(noteId, version);
    await refreshView();
    refreshNotesSoon();
    if (outcome.status === "queued") {
      return { ok: true, text: `Offline: restoring version ${version} is kept and will be done when the server is back.` };
    }
    return { ok: true, text: `Restored version ${version} as version ${outcome.result.version}.` };
  } catch (error) {
    const e = explain(error);
    const text =
      e.code === "version_conflict"
        ? `Not restored: the Note changed since you looked (someone saved meanwhile). Nothing was lost. Look at the newest version and restore again if you still want version ${version}.`
        : `Not restored. ${e.text}`;
    await refreshView();
    return { ok: false, text, detail: e.detail };
  }
}

// ---- sources, files, links ---------------------------------------------------------------

export async function openLink(url: string): Promise<void> {
  try {
    await api.openUrl(url);
  } catch (error) {
    toastError(error, "The link could not be opened.");
  }
}

/** Attaches the files of a drop (`onFilesDropped`) to the open Note. */
export async function attachDropped(dropId: number): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    for (const file of await api.attachDropped(noteId, dropId)) {
      reportQueued(file.outcome, `the attachment ${file.name}`);
    }
  } catch (error) {
    toastError(error, "The files could not be attached.");
  }
  await refreshView();
}

export async function chooseAndAttach(): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    const file = await api.attachFile(noteId);
    if (!file) return;
    reportQueued(file.outcome, `the attachment ${file.name}`);
  } catch (error) {
    toastError(error, "The file could not be attached.");
  }
  await refreshView();
}

export async function openAttachment(fileId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    await api.openFile(noteId, fileId);
  } catch (error) {
    toastError(error, "The file could not be opened.");
  }
}

export async function saveAttachmentCopy(fileId: string): Promise<void> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return;
  try {
    const path = await api.saveFileCopy(noteId, fileId);
    if (path) toast("info", `Saved a copy to ${path}`);
  } catch (error) {
    toastError(error, "The copy could not be saved.");
  }
}

// ---- agents ------------------------------------------------------------------------------

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

/** Navigating to a tab of the open Note by instance ID (links, ledger, gone view). */
export function tabLink(noteId: string, tabId: string): string {
  return tabHref(noteId, tabId);
}
