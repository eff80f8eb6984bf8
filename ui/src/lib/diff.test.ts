import { describe, expect, it } from "vitest";
import type { Deck, Layout, Slide } from "../bindings";
import {
  type LineOp,
  changedCells,
  changedLines,
  countChanges,
  diffDecks,
  diffLines,
  diffNotes,
  diffSheets,
  diffText,
  foldUnchanged,
} from "./diff";

/** Applies an edit script to `a`; it must give `b` back. */
function replay(ops: LineOp[]): { a: string[]; b: string[] } {
  const a: string[] = [];
  const b: string[] = [];
  for (const op of ops) {
    if (op.kind !== "add") a.push(op.text);
    if (op.kind !== "del") b.push(op.text);
  }
  return { a, b };
}

const compact = (ops: LineOp[]) => ops.map((o) => `${o.kind === "same" ? " " : o.kind === "add" ? "+" : "-"}${o.text}`);

describe("diffLines", () => {
  it("marks an inserted and a removed line", () => {
    expect(compact(diffText("a\nb\nc", "a\nc\nd"))).toEqual([" a", "-b", " c", "+d"]);
  });

  it("gives a minimal script for a changed middle line", () => {
    const ops = diffText("one\ntwo\nthree", "one\nTWO\nthree");
    expect(compact(ops)).toEqual([" one", "-two", "+TWO", " three"]);
    expect(countChanges(ops)).toEqual({ added: 1, removed: 1 });
  });

  it("numbers lines on both sides", () => {
    const ops = diffText("x\ny", "w\nx\ny");
    expect(ops).toEqual([
      { kind: "add", text: "w", b: 0 },
      { kind: "same", text: "x", a: 0, b: 1 },
      { kind: "same", text: "y", a: 1, b: 2 },
    ]);
  });

  it("handles empty sides", () => {
    expect(compact(diffText("", "a"))).toEqual(["-", "+a"]);
    expect(diffLines([], [])).toEqual([]);
    expect(compact(diffLines([], ["a", "b"]))).toEqual(["+a", "+b"]);
  });

  it("always replays to both texts (random edits)", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let run = 0; run < 200; run++) {
      const a = Array.from({ length: rand(30) }, () => `l${rand(8)}`);
      const b = a.slice();
      for (let e = rand(10); e > 0; e--) {
        const at = rand(b.length + 1);
        if (rand(2) === 0) b.splice(at, 0, `n${rand(8)}`);
        else b.splice(at, 1);
      }
      const ops = diffLines(a, b);
      expect(replay(ops)).toEqual({ a, b });
      // Minimal: never more edits than deleting everything and inserting everything.
      const { added, removed } = countChanges(ops);
      expect(added + removed).toBeLessThanOrEqual(a.length + b.length);
    }
  });

  it("stays correct past the edit budget (falls back to replace)", () => {
    const a = Array.from({ length: 50 }, (_, i) => `a${i}`);
    const b = Array.from({ length: 50 }, (_, i) => `b${i}`);
    const ops = diffLines(["head", ...a, "tail"], ["head", ...b, "tail"], 10);
    expect(replay(ops)).toEqual({ a: ["head", ...a, "tail"], b: ["head", ...b, "tail"] });
    expect(ops[0]).toEqual({ kind: "same", text: "head", a: 0, b: 0 });
  });

  it("diffs a large text with one change quickly", () => {
    const big = Array.from({ length: 20000 }, (_, i) => `line ${i}`);
    const changed = big.slice();
    changed[10000] = "edited";
    const started = performance.now();
    const ops = diffLines(big, changed);
    expect(performance.now() - started).toBeLessThan(500);
    expect(countChanges(ops)).toEqual({ added: 1, removed: 1 });
  });
});

describe("foldUnchanged", () => {
  it("keeps context around changes and folds the rest", () => {
    const a = Array.from({ length: 20 }, (_, i) => `${i}`);
    const b = a.slice();
    b[10] = "ten";
    const blocks = foldUnchanged(diffLines(a, b), 2);
    expect(blocks.map((x) => (x.kind === "skip" ? `skip ${x.count}` : compact(x.ops).join("|")))).toEqual([
      "skip 8",
      " 8| 9|-10|+ten| 11| 12",
      "skip 7",
    ]);
  });
});

describe("changedCells", () => {
  it("lists cells that differ, a missing cell counting as empty", () => {
    expect(
      changedCells(
        [
          ["a", 1],
          ["b", null],
        ],
        [["a", 2], ["b"], [null, "new"]],
      ),
    ).toEqual([
      { row: 0, col: 1, before: 1, after: 2 },
      { row: 2, col: 1, before: null, after: "new" },
    ]);
  });

  it("tells a number from its text", () => {
    expect(changedCells([[1]], [["1"]])).toEqual([{ row: 0, col: 0, before: 1, after: "1" }]);
  });
});

describe("diffSheets", () => {
  it("matches sheets by ID: added, removed, renamed with changed cells", () => {
    const before = {
      sheets: [
        { id: "s1", name: "Budget", rows: [["x"]] },
        { id: "s2", name: "Old", rows: [] },
      ],
    };
    const after = {
      sheets: [
        { id: "s1", name: "Budget 2026", rows: [["y"]] },
        { id: "s3", name: "New", rows: [["n"]] },
      ],
    };
    expect(diffSheets(before, after)).toEqual([
      {
        sheetId: "s1",
        name: "Budget 2026",
        status: "changed",
        renamedFrom: "Budget",
        cells: [{ row: 0, col: 0, before: "x", after: "y" }],
      },
      { sheetId: "s3", name: "New", status: "added", cells: [{ row: 0, col: 0, before: null, after: "n" }] },
      { sheetId: "s2", name: "Old", status: "removed", cells: [] },
    ]);
  });

  it("reports nothing for equal sheets", () => {
    const tab = { sheets: [{ id: "s1", name: "A", rows: [[1, 2]] }] };
    expect(diffSheets(tab, structuredClone(tab))).toEqual([]);
  });
});

describe("diffDecks", () => {
  const slide = (id: string, title: string, extra: Partial<{ body: string; layout: Layout }> = {}): Slide => ({
    id,
    title,
    body: extra.body ?? "",
    notes: "",
    layout: extra.layout ?? "title_and_body",
  });

  it("names the changed fields, added, removed and moved slides, and the theme", () => {
    const before: Deck = { theme: "paper", slides: [slide("a", "A"), slide("b", "B"), slide("c", "C"), slide("d", "D")] };
    const after: Deck = {
      theme: "ocean",
      slides: [slide("c", "C"), slide("a", "A", { body: "more" }), slide("b", "B", { layout: "quote" }), slide("e", "E")],
    };
    const change = diffDecks(before, after);
    expect(change.theme).toEqual({ from: "paper", to: "ocean" });
    expect(change.slides.map((s) => [s.slideId, s.status, s.index, s.fields.join(",")])).toEqual([
      ["c", "moved", 0, ""],
      ["a", "changed", 1, "body"],
      ["b", "changed", 2, "layout"],
      ["e", "added", 3, "title,body,notes,layout"],
      ["d", "removed", 3, ""],
    ]);
  });

  it("does not call a shift after an insertion a move", () => {
    const before: Deck = { theme: "paper", slides: [slide("a", "A"), slide("b", "B")] };
    const after: Deck = { theme: "paper", slides: [slide("n", "N"), slide("a", "A"), slide("b", "B")] };
    expect(diffDecks(before, after).slides.map((s) => `${s.slideId}:${s.status}`)).toEqual(["n:added"]);
  });
});

describe("diffNotes", () => {
  it("reports tabs added, removed, renamed, moved and edited, by ID", () => {
    const before = {
      title: "Trip",
      tabs: [
        { id: "markdown", type: "markdown", label: "Note", data: "a\nb" },
        { id: "sheet-1-x", type: "sheet", label: "Costs", data: { sheets: [{ id: "s", name: "S", rows: [[1]] }] } },
        { id: "slides-2-y", type: "slides", label: "Deck", data: { theme: "paper", slides: [] } },
        { id: "sources", type: "sources", label: "Sources", data: [] },
      ],
    };
    const after = {
      title: "Trip 2",
      tabs: [
        { id: "sheet-1-x", type: "sheet", label: "Costs", data: { sheets: [{ id: "s", name: "S", rows: [[1]] }] } },
        { id: "markdown", type: "markdown", label: "Plan", data: "a\nc" },
        { id: "slides-3-z", type: "slides", label: "Deck", data: { theme: "paper", slides: [] } },
        { id: "sources", type: "sources", label: "Sources", data: [{ id: "source-1", url: "https://e.org" }] },
      ],
    };
    const change = diffNotes(before, after);
    expect(change.title).toEqual({ from: "Trip", to: "Trip 2" });
    expect(change.tabs.map((t) => [t.tabId, t.status, t.renamedFrom ?? "", t.moved ? `${t.moved.from}->${t.moved.to}` : "", t.content?.type ?? ""])).toEqual([
      ["sheet-1-x", "changed", "", "1->0", ""],
      ["markdown", "changed", "Note", "0->1", "markdown"],
      ["slides-3-z", "added", "", "", ""],
      ["sources", "changed", "", "", "sources"],
      ["slides-2-y", "removed", "", "", ""],
    ]);
  });

  it("is empty between equal Notes", () => {
    const note = { title: "T", tabs: [{ id: "markdown", type: "markdown", label: "Note", data: "x" }] };
    expect(diffNotes(note, structuredClone(note))).toEqual({ tabs: [] });
  });
});

describe("changedLines", () => {
  it("names the lines another writer's change brought, in the new text", () => {
    const long = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`);
    const after = [...long];
    after[2] = "line 3 (person)";
    after[249] = "line 250 (agent)";
    expect(changedLines(long.join("\n"), after.join("\n"))).toEqual([2, 249]);
    // Inserted lines; a removed line marks the line now in its place; the last line.
    expect(changedLines("a\nb\nc", "a\nx\ny\nb\nc")).toEqual([1, 2]);
    expect(changedLines("a\nb\nc", "a\nc")).toEqual([1]);
    expect(changedLines("a\nb\nc", "a\nb")).toEqual([1]);
    expect(changedLines("a\nb", "a\nb")).toEqual([]);
  });
});
