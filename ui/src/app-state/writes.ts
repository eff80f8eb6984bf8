// Writes the person asks for: saving now, the strip's structural writes, resolving a conflict,
// discarding a draft, restoring a version, undoing one version's change.

import * as api from "../api";
import type { ConflictChoice, DraftPolicy, Op, TabView, WriteOutcome } from "../api";
import { errorCode, explain, isCommandError } from "../lib/errors";
import { notUndone, type UndoResult, undone } from "../lib/undo";
import { edits } from "./edits";
import { applyStatus, applyTabStatus, statusSeq } from "./events";
import { confirm, toast, toastError } from "./messages";
import { refreshLedgerSoon, refreshNotesSoon, refreshView } from "./notes";
import { goTab, navigate } from "./routing";
import { app, versionNow } from "./state";

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
    const since = statusSeq();
    applyTabStatus(noteId, await api.retry(noteId, tabId), since);
  } catch (error) {
    toastError(error);
  }
}

export function reportQueued(outcome: WriteOutcome, what: string): void {
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

export async function resolveConflict(tabId: string, choice: ConflictChoice): Promise<boolean> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return false;
  try {
    await edits.flush(noteId);
    const since = statusSeq();
    const status = await api.resolveConflict(noteId, tabId, choice);
    applyTabStatus(noteId, status, since);
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
    const since = statusSeq();
    const tab = await api.tabView(noteId, tabId);
    const s = app.get();
    if (s.open?.noteId !== noteId || !edits.mayReplace(noteId, tabId, mark)) return;
    const cur = s.content[tabId];
    const version = versionNow();
    app.set({
      content: { ...s.content, [tabId]: { data: tab.data, epoch: mark, rev: (cur?.rev ?? 0) + 1, version } },
    });
    applyTabStatus(noteId, tab.status, since);
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
    const since = statusSeq();
    applyTabStatus(noteId, await api.discardDraft(noteId, tabId, true), since);
    await replaceFromEngine(noteId, tabId);
    await refreshView();
  } catch (error) {
    toastError(error);
  }
}

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

/**
 * "Undo this change": takes back what `version` changed, keeping everything written since. The
 * person's typing is handed over and its save started first, so the undo is merged on top of
 * it; a draft that still has not gone out is never overwritten (the engine shows a conflict
 * where the undo changed its tab). A clash with a later change writes nothing and says so.
 */
export async function undoVersion(version: number): Promise<UndoResult> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return { ok: false, text: "No Note is open.", detail: "" };
  try {
    await edits.flush(noteId);
    applyStatus(await api.flush(noteId));
    const outcome = await api.revert(noteId, version);
    await refreshView();
    refreshNotesSoon();
    return undone(version, outcome);
  } catch (error) {
    await refreshView();
    const clashing = isCommandError(error) ? (error.tabs ?? []).map((t) => t.label) : [];
    return notUndone(version, explain(error), clashing);
  }
}
