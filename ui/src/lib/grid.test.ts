import { describe, expect, it } from "vitest";
import {
  type Cell,
  type Selection,
  cellName,
  cellText,
  clearRange,
  columnName,
  copyRange,
  deleteColumn,
  deleteRow,
  insertColumn,
  insertRow,
  moveSelection,
  parseCell,
  parseTsv,
  pasteBlock,
  selectionRange,
  setCell,
  shownExtent,
  single,
  startsTyping,
  toTsv,
  visibleWindow,
} from "./grid";

describe("names", () => {
  it.each([
    [0, "A"],
    [25, "Z"],
    [26, "AA"],
    [27, "AB"],
    [51, "AZ"],
    [52, "BA"],
    [701, "ZZ"],
    [702, "AAA"],
  ])("column %i is %s", (col, name) => {
    expect(columnName(col)).toBe(name);
  });

  it("names a cell like a spreadsheet", () => {
    expect(cellName({ row: 2, col: 1 })).toBe("B3");
  });
});

describe("parseCell / cellText", () => {
  it.each<[string, Cell]>([
    ["", null],
    ["42", 42],
    ["-3.5", -3.5],
    ["0", 0],
    ["007", "007"],
    ["3.50", "3.50"],
    ["1e3", "1e3"],
    [" 4", " 4"],
    ["-0", "-0"],
    ["12345678901234567890", "12345678901234567890"],
    ["TRUE", "TRUE"],
    ["hello", "hello"],
  ])("%j becomes %j", (text, cell) => {
    expect(parseCell(text)).toBe(cell);
  });

  it("shows every scalar as text", () => {
    expect([null, 1.5, true, false, "x"].map((c) => cellText(c))).toEqual(["", "1.5", "TRUE", "FALSE", "x"]);
  });
});

describe("setCell", () => {
  it("grows the grid to hold a cell written beyond it, padding with empties", () => {
    expect(setCell([["a"]], { row: 2, col: 1 }, "z")).toEqual([["a", null], [null, null], [null, "z"]]);
  });

  it("does not grow for an empty value outside the data", () => {
    expect(setCell([["a"]], { row: 5, col: 5 }, null)).toEqual([["a"]]);
  });

  it("never changes its input", () => {
    const rows: Cell[][] = [["a", "b"]];
    setCell(rows, { row: 0, col: 0 }, "x");
    expect(rows).toEqual([["a", "b"]]);
  });
});

describe("parseTsv", () => {
  it("splits rows on newlines and cells on tabs", () => {
    expect(parseTsv("a\tb\n1\t2\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("reads Windows and old Mac line ends", () => {
    expect(parseTsv("a\r\nb\rc")).toEqual([["a"], ["b"], ["c"]]);
  });

  it("keeps empty cells and ragged rows", () => {
    expect(parseTsv("a\t\tc\n\tb")).toEqual([
      ["a", "", "c"],
      ["", "b"],
    ]);
  });

  it("reads quoted cells with tabs, newlines and doubled quotes", () => {
    expect(parseTsv('"two\nlines"\t"say ""hi"""\n"a\tb"\tplain')).toEqual([
      ["two\nlines", 'say "hi"'],
      ["a\tb", "plain"],
    ]);
  });

  it("takes a stray quote literally", () => {
    expect(parseTsv('5" screen\t"open')).toEqual([['5" screen', '"open']]);
  });

  it("round-trips through toTsv", () => {
    const block: Cell[][] = [
      ["a\tb", 'q"', 3],
      [null, "two\nlines", true],
    ];
    expect(parseTsv(toTsv(block))).toEqual([
      ["a\tb", 'q"', "3"],
      ["", "two\nlines", "TRUE"],
    ]);
  });

  it("reads one empty line as one empty cell, and nothing as nothing", () => {
    expect(parseTsv("")).toEqual([]);
    expect(parseTsv("\n")).toEqual([[""]]);
  });
});

describe("pasteBlock", () => {
  it("writes the block at the cursor, parsing numbers, and grows the grid", () => {
    const rows: Cell[][] = [["Item", "Cost"]];
    const pasted = pasteBlock(rows, { row: 1, col: 0 }, parseTsv("Tent\t120\nStove\t45.5\nMap\t\n"));
    expect(pasted).toEqual([
      ["Item", "Cost"],
      ["Tent", 120],
      ["Stove", 45.5],
      ["Map", null],
    ]);
  });

  it("grows columns too and pads short rows", () => {
    expect(pasteBlock([["a"]], { row: 0, col: 2 }, [["x", "y"], ["z"]])).toEqual([
      ["a", null, "x", "y"],
      [null, null, "z", null],
    ]);
  });
});

describe("rows and columns", () => {
  const rows: Cell[][] = [
    [1, 2],
    [3, 4],
  ];

  it("inserts a row of the grid's width", () => {
    expect(insertRow(rows, 1)).toEqual([[1, 2], [null, null], [3, 4]]);
    expect(insertRow(rows, 2)).toEqual([[1, 2], [3, 4], [null, null]]);
  });

  it("inserts a column in every row", () => {
    expect(insertColumn(rows, 1)).toEqual([
      [1, null, 2],
      [3, null, 4],
    ]);
    expect(insertColumn(rows, 2)).toEqual([
      [1, 2, null],
      [3, 4, null],
    ]);
  });

  it("adds a column to an empty sheet", () => {
    expect(insertColumn([], 0)).toEqual([[null]]);
  });

  it("deletes a row and a column", () => {
    expect(deleteRow(rows, 0)).toEqual([[3, 4]]);
    expect(deleteColumn(rows, 0)).toEqual([[2], [4]]);
  });
});

describe("moveSelection", () => {
  const extent = { rows: 3, cols: 3 };
  const at = (row: number, col: number): Selection => single({ row, col });
  const move = (sel: Selection, key: string, mods: { shift?: boolean; ctrl?: boolean } = {}) =>
    moveSelection(sel, { key, ...mods }, extent);

  it("moves with arrows and stops at the edges", () => {
    expect(move(at(1, 1), "ArrowUp")).toEqual(at(0, 1));
    expect(move(at(1, 1), "ArrowDown")).toEqual(at(2, 1));
    expect(move(at(1, 1), "ArrowLeft")).toEqual(at(1, 0));
    expect(move(at(1, 1), "ArrowRight")).toEqual(at(1, 2));
    expect(move(at(0, 0), "ArrowUp")).toEqual(at(0, 0));
    expect(move(at(2, 2), "ArrowRight")).toEqual(at(2, 2));
  });

  it("extends the selection with Shift, keeping the anchor", () => {
    const sel = move(move(at(0, 0), "ArrowRight", { shift: true }) as Selection, "ArrowDown", { shift: true });
    expect(sel).toEqual({ anchor: { row: 0, col: 0 }, focus: { row: 1, col: 1 } });
    expect(selectionRange(sel as Selection)).toEqual({ top: 0, left: 0, bottom: 1, right: 1 });
  });

  it("wraps Tab to the next row and Shift+Tab to the previous one", () => {
    expect(move(at(0, 2), "Tab")).toEqual(at(1, 0));
    expect(move(at(1, 0), "Tab", { shift: true })).toEqual(at(0, 2));
    expect(move(at(2, 2), "Tab")).toEqual(at(2, 2));
  });

  it("moves down with Enter and up with Shift+Enter", () => {
    expect(move(at(0, 1), "Enter")).toEqual(at(1, 1));
    expect(move(at(1, 1), "Enter", { shift: true })).toEqual(at(0, 1));
  });

  it("jumps with Home, End and Ctrl", () => {
    expect(move(at(1, 1), "Home")).toEqual(at(1, 0));
    expect(move(at(1, 1), "End")).toEqual(at(1, 2));
    expect(move(at(1, 1), "End", { ctrl: true })).toEqual(at(2, 2));
    expect(move(at(1, 1), "Home", { ctrl: true })).toEqual(at(0, 0));
  });

  it("ignores keys that are not moves", () => {
    expect(move(at(0, 0), "a")).toBeNull();
  });
});

describe("selection blocks", () => {
  const rows: Cell[][] = [
    ["a", "b", "c"],
    ["d", "e", "f"],
  ];

  it("copies the selected block", () => {
    expect(copyRange(rows, { top: 0, left: 1, bottom: 2, right: 2 })).toEqual([
      ["b", "c"],
      ["e", "f"],
      [null, null],
    ]);
  });

  it("clears the selected block without shrinking", () => {
    expect(clearRange(rows, { top: 0, left: 1, bottom: 0, right: 5 })).toEqual([
      ["a", null, null],
      ["d", "e", "f"],
    ]);
  });
});

describe("extent and typing", () => {
  it("draws at least the minimum page and at least the data", () => {
    expect(shownExtent([["a"]], { rows: 5, cols: 4 })).toEqual({ rows: 5, cols: 4 });
    expect(shownExtent([[1, 2, 3, 4, 5, 6]], { rows: 5, cols: 4 })).toEqual({ rows: 5, cols: 6 });
  });

  it("starts editing on a printable key only", () => {
    expect(startsTyping({ key: "x" })).toBe(true);
    expect(startsTyping({ key: "x", ctrl: true })).toBe(false);
    expect(startsTyping({ key: "ArrowUp" })).toBe(false);
  });
});

describe("visibleWindow", () => {
  const m = { rowHeight: 28, colWidth: 120, headerWidth: 48, rowOverscan: 4, colOverscan: 1 };
  const big = { rows: 105, cols: 102 };
  const cells = (w: ReturnType<typeof visibleWindow>) => (w.lastRow - w.firstRow + 1) * (w.lastCol - w.firstCol + 1);

  it("draws the cells in view and a margin, not the whole 100 x 100 sheet", () => {
    const w = visibleWindow({ top: 0, left: 0, height: 560, width: 800 }, big, m);
    expect(w).toEqual({ firstRow: 0, lastRow: 24, firstCol: 0, lastCol: 8 });
    expect(cells(w)).toBeLessThan(300);
  });

  it("follows the scroll position, the margin on both sides", () => {
    const w = visibleWindow({ top: 28 * 50, left: 48 + 120 * 40, height: 560, width: 800 }, big, m);
    expect(w.firstRow).toBe(46);
    expect(w.lastRow).toBe(74);
    expect(w.firstCol).toBe(39);
    expect(w.lastCol).toBe(49);
    // Every row and column at least partly on screen is drawn.
    for (let r = 50; r < 50 + 560 / 28; r++) expect(r >= w.firstRow && r <= w.lastRow).toBe(true);
  });

  it("stops at the sheet's last row and column", () => {
    const w = visibleWindow({ top: 28 * 200, left: 120 * 200, height: 560, width: 800 }, big, m);
    expect(w.lastRow).toBe(104);
    expect(w.lastCol).toBe(101);
    expect(w.firstRow).toBeLessThanOrEqual(w.lastRow);
    expect(w.firstCol).toBeLessThanOrEqual(w.lastCol);
  });

  it("draws everything of a sheet smaller than the screen", () => {
    const w = visibleWindow({ top: 0, left: 0, height: 2000, width: 3000 }, { rows: 30, cols: 10 }, m);
    expect(w).toEqual({ firstRow: 0, lastRow: 29, firstCol: 0, lastCol: 9 });
  });
});
