// The trash's words and order: what Delete Note and Empty trash ask, what the Undo toast and a
// draft the trash refused say. Pure, so the wording is tested once.

import type { NoteSummary } from "../bindings";
import { displayTitle } from "./notes";

/** The server's (and the engine's) code for a write refused because the Note is in the trash. */
export const NOTE_IN_TRASH = "note_in_trash";

export interface Question {
  title: string;
  body: string;
  confirmLabel: string;
  danger: boolean;
}

/** What Delete Note asks. Nothing is erased: the Note can come back from the Trash. */
export function deleteQuestion(title: string): Question {
  return {
    title: `Delete “${displayTitle(title)}”?`,
    body: "It moves to the Trash, with its history: agents no longer see it, and you can restore it from the Trash at any time until the Trash is emptied.",
    confirmLabel: "Delete Note",
    danger: true,
  };
}

/** What Empty trash asks: this one is for good. */
export function emptyQuestion(count: number): Question {
  const what = count === 1 ? "The Note in the Trash is" : `The ${count} Notes in the Trash are`;
  return {
    title: "Empty the Trash?",
    body: `${what} erased for good, with every version of ${count === 1 ? "it" : "them"}. This cannot be undone.`,
    confirmLabel: "Empty trash",
    danger: true,
  };
}

/** The toast after a delete (its Undo brings the Note back). */
export function deletedText(title: string): string {
  return `“${displayTitle(title)}” moved to the Trash.`;
}

/** What the Empty trash toast says. */
export function emptiedText(erased: number): string {
  if (erased === 0) return "The Trash was already empty.";
  return erased === 1 ? "1 Note erased for good." : `${erased} Notes erased for good.`;
}

/** A draft whose save was refused because its Note is in the trash. */
export function isTrashRefusal(error: { code: string } | null | undefined): boolean {
  return error?.code === NOTE_IN_TRASH;
}

/** The trash as listed: most recently trashed first (whatever order it came in). */
export function trashOrder(notes: NoteSummary[]): NoteSummary[] {
  const at = (n: NoteSummary) => Date.parse(n.deleted_at ?? "") || 0;
  return [...notes].sort((a, b) => at(b) - at(a) || (a.id < b.id ? 1 : -1));
}
