import { describe, expect, it } from "vitest";
import type { Slide, TabMerge, TextHunk } from "../bindings";
import {
  clashCount,
  describeClash,
  mergeRequest,
  mergedText,
  picksFor,
  previewText,
  resolvedDeck,
  resolvedSheets,
} from "./merge";

type Merge<K extends TabMerge["type"]> = Extract<TabMerge, { type: K }>;

const hunks: TextHunk[] = [
  { kind: "clean", lines: ["# Trip", ""] },
  { kind: "clash", base: ["Budget: 100"], mine: ["Budget: 120"], theirs: ["Budget: 150"] },
  { kind: "clean", lines: ["", "Done."] },
  { kind: "clash", base: ["a"], mine: [], theirs: ["b"] },
];
const md = { type: "markdown" as const, hunks };

describe("text merge", () => {
  it("counts clashes and offers the text picks", () => {
    expect(clashCount(md)).toBe(2);
    expect(picksFor(md)).toContain("mine_then_theirs");
  });

  it("previews the merged text, marking where each line comes from", () => {
    expect(previewText(hunks, ["theirs", null])).toEqual([
      { text: "# Trip", from: "clean" },
      { text: "", from: "clean" },
      { text: "Budget: 150", from: "theirs", clash: 0 },
      { text: "", from: "clean" },
      { text: "Done.", from: "clean" },
      { text: "b", from: "undecided", clash: 1 },
    ]);
  });

  it("builds the text once every clash is decided, like the engine's resolve", () => {
    expect(mergedText(hunks, ["mine", null])).toBeNull();
    expect(mergedText(hunks, ["mine_then_theirs", "base"])).toBe("# Trip\n\nBudget: 120\nBudget: 150\n\nDone.\na");
    expect(mergedText(hunks, ["theirs_then_mine", "mine"])).toBe("# Trip\n\nBudget: 150\nBudget: 120\n\nDone.");
  });

  it("sends one choice per clash, only when all are decided", () => {
    expect(mergeRequest(md, ["mine", null])).toEqual({ ok: false, undecided: 1 });
    expect(mergeRequest(md, ["mine", "theirs"])).toEqual({
      ok: true,
      choice: { choice: "merge", choices: [{ pick: "mine" }, { pick: "theirs" }] },
    });
  });

  it("sends an empty list when the merge is clean", () => {
    expect(mergeRequest({ type: "markdown", hunks: [{ kind: "clean", lines: ["x"] }] }, [])).toEqual({
      ok: true,
      choice: { choice: "merge", choices: [] },
    });
  });
});

describe("sheet and slide clashes", () => {
  const sheet: Merge<"sheet"> = {
    type: "sheet" as const,
    order: ["s1"],
    merged: { sheets: [{ id: "s1", name: "Costs", rows: [["a"], ["b"], [null, 2]] }] },
    clashes: [
      { kind: "cell" as const, sheet_id: "s1", row: 2, col: 1, base: 1, mine: 2, theirs: 3 },
      { kind: "name" as const, sheet_id: "s1", base: "Budget", mine: "Costs", theirs: "Spend" },
    ],
  };

  it("offers only mine or theirs", () => {
    expect(picksFor(sheet)).toEqual(["mine", "theirs"]);
    expect(clashCount(sheet)).toBe(2);
  });

  it("names cells like a spreadsheet", () => {
    const name = (id: string) => sheet.merged.sheets.find((s) => s.id === id)?.name ?? id;
    expect(sheet.clashes.map((c) => describeClash(c, name))).toEqual(["Costs!B3", "Name of sheet “Budget”"]);
  });

  it("previews a sheet merge like the engine: mine where undecided, theirs where picked", () => {
    expect(resolvedSheets(sheet, ["theirs", null])).toEqual({
      sheets: [{ id: "s1", name: "Costs", rows: [["a"], ["b"], [null, 3]] }],
    });
    expect(resolvedSheets(sheet, ["mine", "theirs"]).sheets[0]?.name).toBe("Spend");
    // The input is not changed.
    expect(sheet.merged.sheets[0]?.rows[2]).toEqual([null, 2]);
  });

  it("previews a deck merge in the merged order", () => {
    const s = (id: string, title: string): Slide => ({ id, title, body: "", notes: "", layout: "title_and_body" });
    const deck: Merge<"slides"> = {
      type: "slides",
      order: ["a", "b", "c"],
      merged: { theme: "paper", slides: [s("a", "A mine"), s("c", "C")] },
      clashes: [
        { kind: "slide", slide_id: "a", base: s("a", "A"), mine: s("a", "A mine"), theirs: s("a", "A theirs") },
        { kind: "slide", slide_id: "b", base: s("b", "B"), mine: null, theirs: s("b", "B theirs") },
        { kind: "theme", base: "paper", mine: "paper", theirs: "ocean" },
      ],
    };
    const out = resolvedDeck(deck, ["theirs", "theirs", "theirs"]);
    expect(out.theme).toBe("ocean");
    expect(out.slides.map((x) => x.title)).toEqual(["A theirs", "B theirs", "C"]);
    expect(resolvedDeck(deck, ["mine", "mine", "mine"]).slides.map((x) => x.title)).toEqual(["A mine", "C"]);
  });

  it("says which side deleted a slide", () => {
    const slide: Slide = { id: "slide-1", title: "Intro", body: "", notes: "", layout: "title_only" };
    expect(describeClash({ kind: "slide", slide_id: "slide-1", base: slide, mine: slide, theirs: null }, String)).toBe(
      "Slide “Intro” (they deleted it)",
    );
  });
});
