// The app's state: what the components read through `useApp`. The actions that change it live
// beside this file, one module per concern (index.ts lists them).
//
// Invariants:
// - A tab is addressed by its instance ID only. A route with an unknown tab ID shows the "gone"
//   view (components/NoteView.tsx); nothing here ever substitutes another tab.
// - Content read from the engine replaces what an editor shows only when the person has no edit
//   the engine has not taken (`EditSessions.mayReplace`); a dirty tab is never overwritten.
// - Nothing the person wrote is dropped: a refused hand-over is kept and retried
//   (`EditSessions`), a refused action is explained (`toast`), drafts the engine keeps are
//   listed in the drafts ledger.

import type { AppInfo, LedgerEntry, NoteStatus, NoteSummary, NoteView, Settings, TransferSummary } from "../api";
import type { TransferAction } from "../lib/transfer";
import { type Route, parseRoute } from "../lib/route";
import { createStore, useStore } from "../store";

export interface RemoteEdit {
  author: string;
  at: string;
  version: number;
  /** Written by an agent (the version's `author_kind`, as the server recorded it). */
  agent: boolean;
  /**
   * The tab's content as the app had it before the change was read: an editor opened on the
   * tab afterwards marks what changed from it (one opened already compares with what it shows).
   */
  before?: unknown;
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

export type VersionMode = "view" | "diff" | "change";

export type Dialog =
  | { kind: "switcher" }
  | { kind: "palette" }
  | { kind: "search"; q: string }
  | { kind: "conflict"; tabId: string }
  | { kind: "present"; tabId: string; start: number }
  | {
      kind: "version";
      version: number;
      /** As it was; its changes up to now; or what it changed (from the version before). */
      mode: VersionMode;
      /** Who made it (the marks of "what it changed"). */
      by?: { author: string; agent: boolean };
    }
  | { kind: "transfer"; summary: TransferSummary };

/** An export or import under way: its progress (null until the first event). */
export interface Transfer {
  job: number;
  action: TransferAction;
  progress: { done: number; total: number } | null;
}

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
  /** One button on the toast (Undo): runs, then the toast goes. */
  action?: { label: string; run: () => void };
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
  /** The Notes in the trash (the Trash view), most recently trashed first. */
  trash: NoteSummary[];
  trashLoaded: boolean;
  trashError: string | null;
  search: string;
  open: OpenNote | null;
  status: NoteStatus | null;
  content: Record<string, TabContent>;
  unsent: string[];
  remoteEdits: Record<string, RemoteEdit>;
  /** Notes an agent changed since the person last opened them (app-state/seen.ts), by ID. */
  agentChanged: Record<string, { author: string; version: number }>;
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
  /** A search result being opened: its tab's editor selects the first match of `q`, once. */
  reveal: { noteId: string; tabId: string; q: string } | null;
  /** The export or import running (one at a time). */
  transfer: Transfer | null;
}

export const app = createStore<AppState>({
  ready: false,
  route: parseRoute(typeof location === "undefined" ? "" : location.hash),
  notes: [],
  notesLoaded: false,
  notesError: null,
  trash: [],
  trashLoaded: false,
  trashError: null,
  search: "",
  open: null,
  status: null,
  content: {},
  unsent: [],
  remoteEdits: {},
  agentChanged: {},
  ledger: [],
  panel: null,
  dialog: null,
  confirm: null,
  toasts: [],
  settings: null,
  appInfo: null,
  renaming: null,
  reveal: null,
  renamingTab: null,
  transfer: null,
});

/**
 * The version a tab read from the engine now is at: the newer of the open Note's view and the
 * save guard (a save of this app's moves the guard before the next view is read).
 */
export function versionNow(): number {
  const s = app.get();
  return Math.max(s.open?.view?.version ?? 0, s.status?.guard ?? 0);
}

export function useApp<T>(select: (s: AppState) => T): T {
  return useStore(app, select);
}
