// The conflict review's logic: the engine proposes a three-way merge (quire-sync's `TabMerge`);
// the person picks a side per clash; this module previews the result exactly as the engine will
// build it and assembles the choice to send. The shapes are the engine's (ui/src/bindings).

import type { ClashChoice, Deck, DeckMerge, SheetClash, SheetMerge, SheetTab, SlideClash, TabMerge, TextHunk } from "../bindings";
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

export interface PreviewLine {
  text: string;
  /** Where the line comes from: a clean stretch, or a side of clash number `clash`. */
  from: "clean" | "mine" | "theirs" | "base" | "undecided";
  clash?: number;
}

/**
 * The merged text's lines for the picks so far, as the engine's `TextMerge::resolve` builds them;
 * an undecided clash shows both sides marked "undecided".
 */
export function previewText(hunks: readonly TextHunk[], picks: readonly (Pick | null)[]): PreviewLine[] {
  const out: PreviewLine[] = [];
  let n = 0;
  for (const h of hunks) {
    if (h.kind === "clean") {
      for (const text of h.lines) out.push({ text, from: "clean" });
      continue;
    }
    const clash = n++;
    const side = (lines: string[], from: PreviewLine["from"]) => {
      for (const text of lines) out.push({ text, from, clash });
    };
    switch (picks[clash] ?? null) {
      case "mine":
        side(h.mine, "mine");
        break;
      case "theirs":
        side(h.theirs, "theirs");
        break;
      case "base":
        side(h.base, "base");
        break;
      case "mine_then_theirs":
        side(h.mine, "mine");
        side(h.theirs, "theirs");
        break;
      case "theirs_then_mine":
        side(h.theirs, "theirs");
        side(h.mine, "mine");
        break;
      case null:
        side(h.mine, "undecided");
        side(h.theirs, "undecided");
        break;
    }
  }
  return out;
}

/** The merged text once every clash is decided (the engine computes the same). */
export function mergedText(hunks: readonly TextHunk[], picks: readonly (Pick | null)[]): string | null {
  if (picks.filter((p) => p !== null).length !== hunks.filter((h) => h.kind === "clash").length) return null;
  return previewText(hunks, picks)
    .map((l) => l.text)
    .join("\n");
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

function sortByOrder<T>(items: T[], order: readonly string[], id: (t: T) => string): T[] {
  const rank = new Map(order.map((x, i) => [x, i]));
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => (rank.get(id(a.item)) ?? Infinity) - (rank.get(id(b.item)) ?? Infinity) || a.i - b.i)
    .map((x) => x.item);
}

/**
 * The Sheet tab the engine's `SheetMerge::resolve` will write for these picks (undecided clashes
 * keep mine, as `merged` does), for the preview.
 */
export function resolvedSheets(merge: SheetMerge, picks: readonly (Pick | null)[]): SheetTab {
  let sheets = merge.merged.sheets.map((s) => ({ ...s, rows: s.rows.map((r) => r.slice()) }));
  merge.clashes.forEach((clash, i) => {
    if (picks[i] !== "theirs") return;
    switch (clash.kind) {
      case "cell": {
        const row = sheets.find((s) => s.id === clash.sheet_id)?.rows[clash.row];
        if (row && clash.col < row.length) row[clash.col] = clash.theirs;
        break;
      }
      case "name":
        sheets = sheets.map((s) => (s.id === clash.sheet_id ? { ...s, name: clash.theirs } : s));
        break;
      case "sheet":
        sheets = sheets.filter((s) => s.id !== clash.sheet_id);
        if (clash.theirs) sheets.push(clash.theirs);
        break;
    }
  });
  return { sheets: sortByOrder(sheets, merge.order, (s) => s.id) };
}

/** The deck the engine's `DeckMerge::resolve` will write for these picks, for the preview. */
export function resolvedDeck(
  merge: DeckMerge,
  picks: readonly (Pick | null)[],
): Deck {
  let theme = merge.merged.theme;
  let slides = merge.merged.slides.slice();
  merge.clashes.forEach((clash, i) => {
    if (picks[i] !== "theirs") return;
    if (clash.kind === "theme") {
      theme = clash.theirs;
      return;
    }
    slides = slides.filter((s) => s.id !== clash.slide_id);
    if (clash.theirs) slides.push(clash.theirs);
  });
  return { theme, slides: sortByOrder(slides, merge.order, (s) => s.id) };
}
