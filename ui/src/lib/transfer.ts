// Export and import's words: the progress line while a transfer runs and the summary after it.
// Pure, so the wording and the counting are tested once.

import type { TransferSummary } from "../bindings";
import { displayTitle } from "./notes";

/** Which of the three actions runs: Export Note…, Export all Notes…, Import…. */
export type TransferAction = "export-note" | "export-all" | "import";

export interface Counted {
  done: number;
  total: number;
}

function notes(n: number): string {
  return n === 1 ? "1 Note" : `${n} Notes`;
}

/** The progress line: "Exporting 3 of 10 Notes…"; before the count is known, "Importing…". */
export function progressText(action: TransferAction, progress: Counted | null): string {
  const verb = action === "import" ? "Importing" : "Exporting";
  if (!progress || progress.total === 0) return `${verb}…`;
  return `${verb} ${Math.min(progress.done, progress.total)} of ${notes(progress.total)}…`;
}

/** How full the progress bar is, 0 to 100 (nothing to do is done). */
export function progressPercent(progress: Counted | null): number {
  if (!progress) return 0;
  if (progress.total <= 0) return 0;
  return Math.round((100 * Math.min(progress.done, progress.total)) / progress.total);
}

/** The summary's title. */
export function summaryTitle(summary: TransferSummary): string {
  return summary.kind === "import" ? "Import finished" : "Export finished";
}

/**
 * The summary's first line: how many Notes were exported or imported, and how many entries were
 * skipped ("2 Notes imported from /x; 1 skipped.").
 */
export function summaryHeadline(summary: TransferSummary): string {
  const n = summary.notes.length;
  if (summary.kind === "export") {
    return n === 0 ? `No Notes to export to ${summary.folder}.` : `${notes(n)} exported to ${summary.folder}.`;
  }
  const made = n === 0 ? "No Notes imported" : `${notes(n)} imported`;
  const skipped = summary.skipped.length;
  return skipped === 0 ? `${made} from ${summary.folder}.` : `${made} from ${summary.folder}; ${skipped} skipped.`;
}

/** One line per Note: its title (an export names its folder), where it went or came from. */
export function noteLines(summary: TransferSummary): { noteId: string; title: string; path: string }[] {
  return summary.notes.map((n) => ({ noteId: n.note_id, title: displayTitle(n.title), path: n.path }));
}

/** One line per skipped entry, in the order the import met them: "img.png: not a Markdown…". */
export function skippedLines(summary: TransferSummary): string[] {
  return summary.skipped.map((s) => `${s.path || "."}: ${s.reason}`);
}

/** The toast when a transfer fails (the error's own text follows). */
export function failedText(action: TransferAction): string {
  switch (action) {
    case "export-note":
      return "The Note could not be exported.";
    case "export-all":
      return "The Notes could not be exported.";
    case "import":
      return "The folder could not be imported.";
  }
}

/** Why the menu items are off in remote mode (the server-side commands do it there). */
export const REMOTE_HINT = "Export and import work on the app's own server: on a remote one, run quire-server export / import there";
