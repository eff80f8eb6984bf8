// What the engine tells the app: statuses, another writer's changes, saves.

import * as api from "../api";
import type { EngineEvent, NoteStatus, TabStatus, VersionInfo } from "../api";
import { sameJson } from "../lib/json";
import { ledgerAfterStatus } from "../lib/status";
import { setBase } from "./edits";
import { toast } from "./messages";
import { refreshLedgerSoon, refreshNotesSoon, refreshView, refreshViewSoon } from "./notes";
import { type RemoteEdit, app } from "./state";

/** Exported for tests; `start` subscribes it to the engine's events. */
export function onEngineEvent(event: EngineEvent): void {
  const openId = app.get().open?.noteId;
  switch (event.kind) {
    case "status": {
      if (event.note_id === openId) {
        applyStatus(event);
      } else {
        // The ledger is read again a little later; the tabs this status calls saved leave it now.
        const ledger = app.get().ledger;
        const shown = ledgerAfterStatus(ledger, event);
        if (shown !== ledger) app.set({ ledger: [...shown] });
      }
      refreshLedgerSoon();
      break;
    }
    case "remote_applied":
      refreshNotesSoon();
      if (event.note_id === openId) void remoteApplied(event.note_id, event.tab_ids, event.version);
      break;
    case "conflict_shown":
      refreshLedgerSoon();
      break;
    case "saved":
      ownVersion(event.note_id, event.version);
      refreshNotesSoon();
      refreshLedgerSoon();
      // This app's own save: the tab's content is now the server's at that version, unless the
      // engine merged another writer's change into it that the editor has not shown yet (then
      // the editor is based on that version only once it takes the merged content).
      if (!event.unseen) setBase(event.note_id, event.tab_id, event.version);
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

export function applyStatus(incoming: NoteStatus): void {
  const s = app.get();
  const view = s.open?.view;
  if (!s.open || s.open.noteId !== incoming.note_id) return;
  // Events and command replies arrive in no fixed order: an older status never replaces a newer
  // one (a reply taken before a save finished must not show "Saving…" after its "saved" event).
  const status = newerStatus(s.status, incoming);
  const byTab = new Map(status.tabs.map((t) => [t.tab_id, t]));
  const tabs = view?.tabs.map((t) => {
    const next = byTab.get(t.id);
    return next && !sameJson(next, t.status) ? { ...t, status: next } : t;
  });
  // The ledger is read again a little later; the tabs this status calls saved leave it now, in
  // the same change as the status (the header never shows "Saved" beside their count).
  const ledger = ledgerAfterStatus(s.ledger, status);
  app.set({
    status,
    ...(ledger !== s.ledger ? { ledger: [...ledger] } : {}),
    ...(view && tabs ? { open: { ...s.open, view: { ...view, tabs } } } : {}),
  });
  // A tab the view does not know (created elsewhere), or one it shows that is gone: read again.
  if (view) {
    const known = new Set([...view.tabs, ...view.orphan_drafts].map((t) => t.id));
    const added = status.tabs.filter((t) => !known.has(t.tab_id)).map((t) => t.tab_id);
    // Another writer's change to a tab's content comes as `remote_applied` (read then).
    if (added.length > 0 || view.tabs.some((t) => !byTab.has(t.id))) refreshViewSoon(added);
  }
}

/** A view just read has its tab states as of its reply: the newest status known wins over them. */
export function reapplyStatus(): void {
  const known = app.get().status;
  if (known) applyStatus(known);
}

/** The newer of two statuses of a Note (by `seq`); `incoming` if they are of different Notes. */
export function newerStatus(current: NoteStatus | null, incoming: NoteStatus): NoteStatus {
  return current && current.note_id === incoming.note_id && current.seq > incoming.seq ? current : incoming;
}

/** The newest status's `seq` now: what a command's reply is judged against ([`applyTabStatus`]). */
export function statusSeq(): number {
  return app.get().status?.seq ?? 0;
}

/**
 * A tab's status from a command's reply. With `since` (`statusSeq()` as the command was sent):
 * a status event that arrived meanwhile may be newer than the reply (a `TabStatus` has no
 * `seq`), and the engine publishes every state a reply shows as an event too, so the reply is
 * applied only when none did (a reply taken before a conflict must not hide its banner).
 */
export function applyTabStatus(noteId: string, status: TabStatus, since?: number): void {
  if (since !== undefined && statusSeq() !== since) return;
  const s = app.get();
  const view = s.open?.view;
  if (!s.open || s.open.noteId !== noteId || !view) return;
  app.set({
    open: { ...s.open, view: { ...view, tabs: view.tabs.map((t) => (t.id === status.tab_id ? { ...t, status } : t)) } },
  });
}

/** How many of the newest versions are read to name who last changed a tab. */
const RECENT_VERSIONS = 50;

async function remoteApplied(noteId: string, tabIds: string[], version: number): Promise<void> {
  // Who changed the tabs, before their content is read: an editor taking the change in marks
  // the changed lines with that name. The content as it is now is what the change is marked
  // against by an editor opened on the tab later.
  const held = app.get().content;
  // Two changes before the tab is opened: it marks both, from the content before the first.
  const beforeOf = (tabId: string): { before?: unknown } => {
    const pending = app.get().remoteEdits[tabId];
    if (pending && "before" in pending) return { before: pending.before };
    const c = held[tabId];
    return c ? { before: c.data } : {};
  };
  try {
    // The newest versions are enough to name who last changed each tab.
    const versions = await api.historyPage(noteId, RECENT_VERSIONS);
    const marks: Record<string, RemoteEdit> = {};
    for (const tabId of tabIds) {
      const last = latestTouching(noteId, versions, tabId, version);
      if (last) {
        marks[tabId] = {
          author: last.author,
          at: last.created_at,
          version: last.version,
          agent: last.author_kind === "agent",
          ...beforeOf(tabId),
        };
      }
    }
    const s = app.get();
    if (s.open?.noteId === noteId) app.set({ remoteEdits: { ...s.remoteEdits, ...marks } });
  } catch {
    // The marker is a courtesy; the content is read all the same.
  }
  await refreshView(tabIds);
}

/**
 * The versions this app's own saves made, per Note: another writer's change merged into the
 * person's edits is saved by this app, and the mark names that writer, not the save.
 */
const own = new Map<string, Set<number>>();

function ownVersion(noteId: string, version: number): void {
  let versions = own.get(noteId);
  if (!versions) {
    versions = new Set();
    own.set(noteId, versions);
  }
  versions.add(version);
}

/**
 * The newest version up to `upTo` (the one whose change the engine applied) that changed
 * `tabId` and is not this app's own save. A later version may be this app's save of the change
 * merged into the person's edits, read before its `saved` event came: never the change's author.
 */
function latestTouching(
  noteId: string,
  versions: readonly VersionInfo[],
  tabId: string,
  upTo: number,
): VersionInfo | undefined {
  const mine = own.get(noteId);
  for (let i = versions.length - 1; i >= 0; i--) {
    const v = versions[i] as VersionInfo;
    if (v.version <= upTo && v.changed_tab_ids.includes(tabId) && !mine?.has(v.version)) return v;
  }
  return undefined;
}
