// "Undo this change" in the versions panel: which versions can be taken back, the agent's last
// change (offered at the top of the panel), and what the person reads once the undo is done or
// refused. The preview compares the version before with the version itself: exactly what the
// undo takes back, whatever was written since.

import type { VersionInfo, WriteOutcome } from "../bindings";

/** Version 1 made the Note: there is nothing before it to go back to. */
export function canUndo(v: VersionInfo): boolean {
  return v.version > 1;
}

/** The newest version, when an agent wrote it: "Undo the agent's last change". */
export function agentsLastChange(versions: VersionInfo[]): VersionInfo | null {
  let newest: VersionInfo | null = null;
  for (const v of versions) if (!newest || v.version > newest.version) newest = v;
  return newest && newest.author_kind === "agent" && canUndo(newest) ? newest : null;
}

/** The two versions the preview compares: from the one before `version` to `version`. */
export function undoSpan(version: number): { before: number; after: number } {
  return { before: version - 1, after: version };
}

/** Who made the version, for the panel's words ("the agent's change", "Ana's change"). */
export function whose(v: VersionInfo, person: string | null): string {
  if (v.author_kind === "agent") return `the agent “${v.author}”`;
  return v.author === person ? "you" : v.author;
}

export type UndoResult = { ok: true; text: string } | { ok: false; text: string; detail: string };

/** What the person reads after the undo of `version` was written (or queued, offline). */
export function undone(version: number, outcome: WriteOutcome): UndoResult {
  if (outcome.status === "queued") {
    return { ok: true, text: `Offline: undoing version ${version} is kept and will be done when the server is back.` };
  }
  return { ok: true, text: `Undid the change of version ${version}, as version ${outcome.result.version}. Everything written since is kept.` };
}

/** “Note”, “Budget” and “Deck”. */
function quoted(labels: string[]): string {
  const q = labels.map((l) => `“${l}”`);
  return q.length <= 1 ? (q[0] ?? "") : `${q.slice(0, -1).join(", ")} and ${q[q.length - 1]}`;
}

/**
 * What the person reads when the undo of `version` was refused (nothing was written); `clashing`:
 * the labels of the tabs where a later change clashes (the command's `tabs`).
 */
export function notUndone(version: number, error: { code: string; text: string; detail: string }, clashing: string[] = []): UndoResult {
  switch (error.code) {
    case "revert_conflict": {
      const where = clashing.length > 0 ? ` in ${quoted(clashing)}` : "";
      return {
        ok: false,
        text: `Not undone: a later change touched the same lines, cells or slides${where} that version ${version} changed. Nothing was changed.`,
        detail: "",
      };
    }
    case "version_not_found":
      return { ok: false, text: `Not undone: version ${version} is not in this Note's history.`, detail: error.detail };
    default:
      return { ok: false, text: `Not undone. ${error.text}`, detail: error.detail };
  }
}
