// "Restore this tab" from the versions panel: a tab a later version deleted comes back, in one
// click, as a new tab with the label and content it had before (two guarded writes: the tab,
// then its content). Nothing else in the Note changes, unlike restoring a whole version.

import * as api from "../api";
import { explain } from "../lib/errors";
import { restoreTabOps } from "../lib/restoretab";
import { goTab } from "./routing";
import { app } from "./state";
import { type RestoreResult, write } from "./writes";

/** Brings back the tab `tabId` as it was at `version` (the version before its deletion). */
export async function restoreTab(version: number, tabId: string): Promise<RestoreResult> {
  const noteId = app.get().open?.noteId;
  if (!noteId) return { ok: false, text: "No Note is open.", detail: "" };
  let old;
  try {
    old = await api.versionAt(noteId, version);
  } catch (error) {
    const e = explain(error);
    return { ok: false, text: `Not restored. ${e.text}`, detail: e.detail };
  }
  const tab = old.tabs.find((t) => t.id === tabId);
  const ops = tab ? restoreTabOps(tab) : null;
  if (!tab || !ops) return { ok: false, text: `Version ${version} has no tab ${tabId} to bring back.`, detail: "" };
  const what = `bringing back “${tab.label}”`;
  const created = await write([ops.create], what);
  if (!created) return { ok: false, text: `“${tab.label}” was not brought back.`, detail: "" };
  if (created.status === "queued") {
    return { ok: true, text: `Offline: a new “${tab.label}” tab is kept and made when the server is back; fill it again then.` };
  }
  const made = created.result.outcomes.find((o) => o.kind === "tab_created");
  if (!made || made.kind !== "tab_created") return { ok: false, text: "The new tab was not made.", detail: "" };
  const filled = await write([ops.fill(made.tab_id)], what);
  goTab(noteId, made.tab_id);
  if (filled?.status !== "committed") {
    return { ok: false, text: `“${tab.label}” is back, empty: its content could not be written.`, detail: "" };
  }
  return { ok: true, text: `“${tab.label}” is back as a new tab (version ${filled.result.version}).` };
}
