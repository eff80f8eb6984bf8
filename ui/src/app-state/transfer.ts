// Export Note…, Export all Notes… and Import…: one at a time; the folder dialog runs in the app,
// progress arrives as events while it works, and the summary opens when it is done.

import * as api from "../api";
import { type TransferAction, failedText } from "../lib/transfer";
import { handOverAll } from "./lifecycle";
import { openDialog, toastError } from "./messages";
import { refreshNotes } from "./notes";
import { app } from "./state";

let jobs = 0;

function call(action: TransferAction, job: number, noteId: string | null): Promise<api.TransferSummary | null> {
  switch (action) {
    case "export-note":
      return noteId === null ? Promise.resolve(null) : api.exportNote(noteId, job);
    case "export-all":
      return api.exportAllNotes(job);
    case "import":
      return api.importNotes(job);
  }
}

/** Runs `action` (`noteId`: the Note Export Note… exports); false if one is already running. */
export async function runTransfer(action: TransferAction, noteId: string | null = null): Promise<boolean> {
  if (app.get().transfer) return false;
  const job = ++jobs;
  app.set({ transfer: { job, action, progress: null } });
  const stop = await api.onTransferProgress((p) => {
    const running = app.get().transfer;
    if (running?.job === p.job) app.set({ transfer: { ...running, progress: { done: p.done, total: p.total } } });
  });
  try {
    // The editors' last keystrokes go to the engine, which sends them before exporting.
    if (action !== "import") await handOverAll();
    const summary = await call(action, job, noteId);
    if (summary) {
      if (summary.kind === "import") await refreshNotes();
      openDialog({ kind: "transfer", summary });
    }
  } catch (error) {
    toastError(error, failedText(action));
  } finally {
    stop();
    app.set({ transfer: null });
  }
  return true;
}
