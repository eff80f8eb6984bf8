// Links, sources and attached files.

import * as api from "../api";
import { toast, toastError } from "./messages";
import { refreshView } from "./notes";
import { app } from "./state";
import { reportQueued } from "./writes";

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
