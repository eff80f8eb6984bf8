import { describe, expect, it } from "vitest";
import { findMatches, firstFrom, matchLabel, replaceAll, replaceInCell, stepMatch } from "./findReplace";

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
    expect(firstFrom([{ row: 0, col: 0 }, { row: 2, col: 1 }], { row: 1, col: 0 })).toBe(1);
    expect(firstFrom([{ row: 0, col: 0 }], { row: 5, col: 0 })).toBe(0);
    expect(matchLabel("x", 12, 2)).toBe("3 of 12");
    expect(matchLabel("x", 0, -1)).toBe("No matches");
    expect(matchLabel("", 0, -1)).toBe("");
  });
});
