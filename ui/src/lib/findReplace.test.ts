import { describe, expect, it } from "vitest";
import {
  findInSheets,
  findMatches,
  firstFromIn,
  matchLabel,
  matchWhere,
  replaceAll,
  replaceAllSheets,
  replaceInCell,
  stepMatch,
} from "./findReplace";

const rows = [
  ["Apple pie", 12, null],
  ["apple", "banana", true],
  [null, "pineapple APPLE", 112],
];

describe("find and replace in a sheet", () => {
  it("finds cells in reading order, with or without matching case", () => {
    expect(findMatches(rows, "apple", { matchCase: false })).toEqual([
      { row: 0, col: 0 },
      { row: 1, col: 0 },
      { row: 2, col: 1 },
    ]);
    expect(findMatches(rows, "apple", { matchCase: true })).toEqual([
      { row: 1, col: 0 },
      { row: 2, col: 1 },
    ]);
    expect(findMatches(rows, "12", { matchCase: false })).toEqual([
      { row: 0, col: 1 },
      { row: 2, col: 2 },
    ]);
    expect(findMatches(rows, "TRUE", { matchCase: true })).toEqual([{ row: 1, col: 2 }]);
    expect(findMatches(rows, "", { matchCase: false })).toEqual([]);
  });

  it("replaces every occurrence in a cell, literally, and reads numbers again", () => {
    expect(replaceInCell("pineapple APPLE", "apple", "pear", { matchCase: false })).toBe("pinepear pear");
    expect(replaceInCell("pineapple APPLE", "apple", "pear", { matchCase: true })).toBe("pinepear APPLE");
    expect(replaceInCell("a.b.c", ".", "$&", { matchCase: false })).toBe("a$&b$&c");
    expect(replaceInCell(112, "1", "2", { matchCase: false })).toBe(222);
    expect(replaceInCell("x", "x", "", { matchCase: false })).toBeNull();
  });

  it("replaces across the sheet and counts the cells", () => {
    const out = replaceAll(rows, "apple", "pear", { matchCase: false });
    expect(out.cells).toBe(3);
    expect(out.rows[0]?.[0]).toBe("pear pie");
    expect(out.rows[1]?.[1]).toBe("banana");
    expect(out.rows[2]?.[1]).toBe("pinepear pear");
  });

  it("steps through matches, wrapping, and labels the count", () => {
    expect(stepMatch(3, -1, false)).toBe(0);
    expect(stepMatch(3, -1, true)).toBe(2);
    expect(stepMatch(3, 2, false)).toBe(0);
    expect(stepMatch(3, 0, true)).toBe(2);
    expect(stepMatch(0, 0, false)).toBe(-1);
    expect(matchLabel("x", 12, 2)).toBe("3 of 12");
    expect(matchLabel("x", 0, -1)).toBe("No matches");
    expect(matchLabel("", 0, -1)).toBe("");
  });

  const sheets = [
    { id: "a", name: "Orders", rows: [["apple"], [null, "crab apple"]] },
    { id: "b", name: "Stock", rows: [["pear"]] },
    { id: "c", name: "Notes", rows: [[null, null, "Apple tart"]] },
  ];

  it("finds across every sheet of the tab, in the tab's order", () => {
    expect(findInSheets(sheets, "apple", { matchCase: false })).toEqual([
      { sheetId: "a", row: 0, col: 0 },
      { sheetId: "a", row: 1, col: 1 },
      { sheetId: "c", row: 0, col: 2 },
    ]);
    expect(findInSheets(sheets, "Apple", { matchCase: true })).toEqual([{ sheetId: "c", row: 0, col: 2 }]);
    expect(findInSheets(sheets, "", { matchCase: false })).toEqual([]);
  });

  it("starts at the cursor: on its sheet from its cell, then the later sheets, wrapping", () => {
    const m = findInSheets(sheets, "apple", { matchCase: false });
    expect(firstFromIn(m, sheets, "a", { row: 0, col: 0 })).toBe(0);
    expect(firstFromIn(m, sheets, "a", { row: 0, col: 1 })).toBe(1);
    expect(firstFromIn(m, sheets, "a", { row: 5, col: 0 })).toBe(2);
    // On a sheet with none: the next sheet's first.
    expect(firstFromIn(m, sheets, "b", { row: 0, col: 0 })).toBe(2);
    // Past the last: back to the first.
    expect(firstFromIn(m, sheets, "c", { row: 0, col: 3 })).toBe(0);
    expect(firstFromIn([], sheets, "a", { row: 0, col: 0 })).toBe(-1);
  });

  it("replaces on every sheet, leaving the sheets without a match as they were", () => {
    const out = replaceAllSheets(sheets, "apple", "plum", { matchCase: false });
    expect(out.cells).toBe(3);
    expect(out.sheetsChanged).toBe(2);
    expect(out.sheets[0]?.rows).toEqual([["plum"], [null, "crab plum"]]);
    expect(out.sheets[0]?.name).toBe("Orders");
    expect(out.sheets[1]).toBe(sheets[1]);
    expect(out.sheets[2]?.rows).toEqual([[null, null, "plum tart"]]);
    expect(replaceAllSheets(sheets, "kiwi", "x", { matchCase: false }).cells).toBe(0);
  });

  it("says which sheet holds the matches", () => {
    const m = findInSheets(sheets, "apple", { matchCase: false });
    expect(matchWhere(sheets, m, m[2] ?? null)).toBe("on Notes");
    expect(matchWhere(sheets, m, null)).toBe("on 2 sheets");
    expect(matchWhere(sheets, m.slice(0, 2), null)).toBe("on Orders");
    expect(matchWhere(sheets, [], null)).toBe("");
    expect(matchWhere(sheets.slice(0, 1), m.slice(0, 2), m[0] ?? null)).toBe("");
  });
});
