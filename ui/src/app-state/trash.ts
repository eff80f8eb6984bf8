// The trash: Delete Note (asked first; an Undo toast restores it), the Trash view's list,
// Restore, and Empty trash (asked first). A trashed Note's drafts stay drafts (the engine keeps
// them; their banner offers Restore), and go out once it is restored.

import * as api from "../api";
import { explain } from "../lib/errors";
import { deleteQuestion, deletedText, emptiedText, emptyQuestion, trashOrder } from "../lib/trash";
import { confirm, toast, toastError } from "./messages";
import { refreshLedger, refreshNotes, refreshView } from "./notes";
import { navigate } from "./routing";
import { app } from "./state";

export async function refreshTrash(): Promise<void> {
  try {
    const trash = trashOrder(await api.listTrash());
    app.set({ trash, trashLoaded: true, trashError: null });
  } catch (error) {
    app.set({ trashLoaded: true, trashError: explain(error).text });
  }
}

function titleOf(noteId: string): string {
  const s = app.get();
  return (
    s.notes.find((n) => n.id === noteId)?.title ??
    (s.open?.noteId === noteId ? s.open.view?.title : undefined) ??
    s.trash.find((n) => n.id === noteId)?.title ??
    ""
  );
}

/** Delete Note: asks, moves the Note to the trash, leaves it, and offers Undo. */
export async function deleteNote(noteId: string): Promise<boolean> {
  const title = titleOf(noteId);
  if (!(await confirm(deleteQuestion(title)))) return false;
  try {
    await api.deleteNote(noteId);
  } catch (error) {
    toastError(error, "The Note could not be deleted.");
    return false;
  }
  if (app.get().open?.noteId === noteId) navigate({ kind: "home" });
  await Promise.all([refreshNotes(), refreshTrash()]);
  toast("info", deletedText(title), {
    action: { label: "Undo", run: () => void restoreNote(noteId) },
  });
  return true;
}

/** Restore (the Trash view, the Undo toast, a refused draft's banner). */
export async function restoreNote(noteId: string): Promise<boolean> {
  try {
    await api.undeleteNote(noteId);
  } catch (error) {
    toastError(error, "The Note could not be restored.");
    return false;
  }
  await Promise.all([refreshNotes(), refreshTrash(), refreshLedger()]);
  if (app.get().open?.noteId === noteId) await refreshView();
  toast("info", `“${titleOf(noteId) || "Untitled"}” is back from the Trash.`);
  return true;
}

/** Empty trash: asks, then erases every Note in it for good. */
export async function emptyTrash(): Promise<boolean> {
  const count = app.get().trash.length;
  if (!(await confirm(emptyQuestion(count)))) return false;
  try {
    const erased = await api.emptyTrash();
    toast("info", emptiedText(erased.length));
  } catch (error) {
    toastError(error, "The Trash could not be emptied.");
    return false;
  }
  await refreshTrash();
  return true;
}
