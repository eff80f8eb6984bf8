import { describe, expect, it } from "vitest";
import type { Slide, TabMerge, TextHunk } from "../bindings";
import { asChoices, clashCount, describeClash, mergeRequest, picksFor } from "./merge";

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

  it("asks the engine's preview with one entry per clash, null while undecided", () => {
    expect(asChoices(["theirs", null])).toEqual([{ pick: "theirs" }, null]);
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

  it("says which side deleted a slide", () => {
    const slide: Slide = { id: "slide-1", title: "Intro", body: "", notes: "", layout: "title_only" };
    expect(describeClash({ kind: "slide", slide_id: "slide-1", base: slide, mine: slide, theirs: null }, String)).toBe(
      "Slide “Intro” (they deleted it)",
    );
  });
});
