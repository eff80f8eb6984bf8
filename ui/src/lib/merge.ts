// The conflict review's words and requests: the engine merges and previews (quire-sync's
// `TabMerge`, asked through `api.previewConflictResolution`); this module names the picks and
// clashes the person sees and assembles the choice to send. The shapes are the engine's
// (ui/src/bindings).

import type { ClashChoice, SheetClash, SlideClash, TabMerge } from "../bindings";
import { cellName } from "./grid";

export type Pick = "mine" | "theirs" | "mine_then_theirs" | "theirs_then_mine" | "base";

export function clashCount(merge: TabMerge): number {
  return merge.type === "markdown" ? merge.hunks.filter((h) => h.kind === "clash").length : merge.clashes.length;
}

/** The picks a clash offers: texts can also combine both sides or keep the ancestor. */
export function picksFor(merge: TabMerge): Pick[] {
  return merge.type === "markdown"
    ? ["mine", "theirs", "mine_then_theirs", "theirs_then_mine", "base"]
    : ["mine", "theirs"];
}

export function pickLabel(pick: Pick): string {
  switch (pick) {
    case "mine":
      return "Mine";
    case "theirs":
      return "Theirs";
    case "mine_then_theirs":
      return "Both, mine first";
    case "theirs_then_mine":
      return "Both, theirs first";
    case "base":
      return "Neither (original)";
  }
}

/** The picks as the engine takes them: one per clash, `null` while undecided. */
export function asChoices(picks: readonly (Pick | null)[]): (ClashChoice | null)[] {
  return picks.map((pick) => (pick === null ? null : { pick }));
}

export type MergeRequest =
  | { ok: true; choice: { choice: "merge"; choices: ClashChoice[] } }
  | { ok: false; undecided: number };

/** The `merge` choice to send, or how many clashes are still undecided. */
export function mergeRequest(merge: TabMerge, picks: readonly (Pick | null)[]): MergeRequest {
  const count = clashCount(merge);
  const decided = picks.slice(0, count).filter((p): p is Pick => p !== null);
  if (decided.length < count) return { ok: false, undecided: count - decided.length };
  return { ok: true, choice: { choice: "merge", choices: decided.map((pick) => ({ pick })) } };
}

/** A short name for a Sheet or Slides clash: "Budget!B3", "sheet name of Budget", "slide 3". */
export function describeClash(
  clash: SheetClash | SlideClash,
  sheetName: (id: string) => string,
): string {
  switch (clash.kind) {
    case "cell":
      return `${sheetName(clash.sheet_id)}!${cellName({ row: clash.row, col: clash.col })}`;
    case "name":
      return `Name of sheet “${clash.base}”`;
    case "sheet":
      return `Sheet “${clash.mine?.name ?? clash.theirs?.name ?? clash.sheet_id}” (${clash.mine ? "they deleted it" : "you deleted it"})`;
    case "slide": {
      const title = clash.mine?.title ?? clash.theirs?.title ?? clash.base?.title ?? clash.slide_id;
      const what = clash.mine === null ? " (you deleted it)" : clash.theirs === null ? " (they deleted it)" : "";
      return `Slide “${title}”${what}`;
    }
    case "theme":
      return "Deck theme";
  }
}
