import { describe, expect, it } from "vitest";
import type { SearchHit } from "../bindings/SearchHit";
import { groupByNote, hasWords, highlight, locate, queryWords } from "./search";

describe("queryWords", () => {
  it.each([
    ["budget", { words: [], prefix: "budget" }],
    ["Crème BRÛ", { words: ["creme"], prefix: "bru" }],
    ['"quarterly report" dr', { words: ["quarterly", "report"], prefix: "dr" }],
    ['draft "the plan"', { words: ["draft", "the", "plan"], prefix: null }],
    ["NEAR(a OR b", { words: ["near", "a", "or"], prefix: "b" }],
    ["🎉 * - :", { words: [], prefix: null }],
  ])("%s", (q, want) => {
    expect(queryWords(q)).toEqual(want);
  });

  it("asks the server only for a query with a word", () => {
    expect(hasWords("  ")).toBe(false);
    expect(hasWords('"" * 🎉')).toBe(false);
    expect(hasWords("a")).toBe(true);
    expect(hasWords('"a"')).toBe(true);
  });
});

describe("highlight", () => {
  it("marks the matched words, accents and case aside, the last one as a prefix", () => {
    expect(highlight("…the Crème brûlée, quartered", "creme quart")).toEqual([
      { text: "…the ", hit: false },
      { text: "Crème", hit: true },
      { text: " brûlée, ", hit: false },
      { text: "quartered", hit: true },
    ]);
    expect(highlight("nothing here", "zzz")).toEqual([{ text: "nothing here", hit: false }]);
  });
});

const hit = (note: string, tab: string, title = note): SearchHit => ({
  note_id: note,
  title,
  tab_id: tab,
  tab_label: tab,
  tab_type: "markdown",
  snippet: "",
  version: 1,
});

describe("groupByNote", () => {
  it("keeps the order of each Note's best result and of its tabs", () => {
    const groups = groupByNote([hit("a", "markdown"), hit("b", "sheet-1"), hit("a", "slides-2"), hit("c", "x")]);
    expect(groups.map((g) => [g.noteId, g.hits.map((h) => h.tab_id)])).toEqual([
      ["a", ["markdown", "slides-2"]],
      ["b", ["sheet-1"]],
      ["c", ["x"]],
    ]);
  });
});

describe("locate", () => {
  it("finds the line and the word in a Markdown text", () => {
    expect(locate("markdown", "# Plan\n\nthe Quokka sleeps\nquokka again", "quokka")).toEqual({
      kind: "line",
      line: 2,
      from: 4,
      to: 10,
    });
    expect(locate("markdown", "nothing", "quokka")).toBeNull();
  });

  it("finds the cell in a Sheet, numbers included", () => {
    const data = {
      sheets: [
        { id: "s1", name: "One", rows: [["a", null], [1, 2]] },
        { id: "s2", name: "Two", rows: [[], [null, null, "Café au lait"]] },
      ],
    };
    expect(locate("sheet", data, "cafe")).toEqual({ kind: "cell", sheetId: "s2", row: 1, col: 2 });
    expect(locate("sheet", data, "2")).toEqual({ kind: "cell", sheetId: "s1", row: 1, col: 1 });
  });

  it("finds the slide by its title, body or notes", () => {
    const data = {
      slides: [
        { id: "a", title: "Intro", body: "", notes: "" },
        { id: "b", title: "Plan", body: "", notes: "mention the gondola" },
      ],
    };
    expect(locate("slides", data, "gond")).toEqual({ kind: "slide", slideId: "b" });
    expect(locate("files", [], "x")).toBeNull();
  });
});
