// The app's start and the window's close, and what they load.

import * as api from "../api";
import { edits } from "./edits";
import { onEngineEvent } from "./events";
import { toastError } from "./messages";
import { refreshLedger, refreshNotes } from "./notes";
import { onRoute, restoreLastRoute } from "./routing";
import { app } from "./state";

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
  restoreLastRoute();
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
