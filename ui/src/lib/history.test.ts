import { describe, expect, it } from "vitest";
import { type HistoryDeck, DECK_OPS, deckOps } from "./deckHistory";
import { insertRow, pasteBlock, setCell } from "./grid";
import { EditHistory, historyKey, keptMessage } from "./history";
import { type HistorySheets, SHEET_OPS, cellOps, lineCells, movedLines } from "./sheetHistory";
import { cellKey, shiftCellMarks } from "./marks";

const sheetDoc = (rows: HistorySheets["sheets"][0]["rows"]): HistorySheets => ({ sheets: [{ id: "s1", name: "Sheet 1", rows }] });
const rowsOf = (d: HistorySheets) => d.sheets[0]?.rows;

describe("sheet history", () => {
  it("undoes and redoes a cell edit, a paste (one step) and a row insertion", () => {
    const h = new EditHistory(SHEET_OPS);
    let doc = sheetDoc([["a", 1]]);
    const edit = (next: HistorySheets, ops = cellOps("s1", rowsOf(doc) ?? [], rowsOf(next) ?? [])) => {
      h.record(ops, undefined, 0);
      doc = next;
    };
    edit(sheetDoc(setCell(rowsOf(doc) ?? [], { row: 0, col: 0 }, "b")));
    edit(sheetDoc(pasteBlock(rowsOf(doc) ?? [], { row: 1, col: 0 }, [["x", "y"], ["z", "w"]])));
    edit(sheetDoc(insertRow(rowsOf(doc) ?? [], 1)), [{ kind: "row", sheet: "s1", index: 1, insert: true, cells: [] }]);
    expect(rowsOf(doc)).toEqual([["b", 1], [null, null], ["x", "y"], ["z", "w"]]);
    expect(h.depth).toBe(3);

    doc = h.undo(doc)?.doc ?? doc;
    expect(rowsOf(doc)).toEqual([["b", 1], ["x", "y"], ["z", "w"]]);
    doc = h.undo(doc)?.doc ?? doc;
    expect(rowsOf(doc)?.slice(0, 1)).toEqual([["b", 1]]);
    expect(rowsOf(doc)?.[1]?.every((c) => c === null) ?? true).toBe(true);
    doc = h.undo(doc)?.doc ?? doc;
    expect(rowsOf(doc)?.[0]).toEqual(["a", 1]);
    expect(h.undo(doc)).toBeNull();

    doc = h.redo(doc)?.doc ?? doc;
    doc = h.redo(doc)?.doc ?? doc;
    doc = h.redo(doc)?.doc ?? doc;
    expect(rowsOf(doc)).toEqual([["b", 1], [null, null], ["x", "y"], ["z", "w"]]);
  });

  it("keeps a cell another writer changed since, and undoes the rest of the step", () => {
    const h = new EditHistory(SHEET_OPS);
    const before = sheetDoc([["a", "b"]]);
    const mine = sheetDoc([["A", "B"]]);
    h.record(cellOps("s1", rowsOf(before) ?? [], rowsOf(mine) ?? []), undefined, 0);
    // The agent writes B1 after the person's paste.
    const theirs = sheetDoc(setCell(rowsOf(mine) ?? [], { row: 0, col: 1 }, "agent"));
    const out = h.undo(theirs);
    expect(rowsOf(out?.doc as HistorySheets)).toEqual([["a", "agent"]]);
    expect(out?.kept).toEqual(["B1"]);
    expect(keptMessage("Undo", out?.kept ?? [], true)).toBe("Undo kept B1: changed by another writer since.");
  });

  it("drops a step the other writer replaced entirely, with a message", () => {
    const h = new EditHistory(SHEET_OPS);
    h.record([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: "a", after: "mine" }], undefined, 0);
    const out = h.undo(sheetDoc([["agent"]]));
    expect(out?.changed).toBe(false);
    expect(rowsOf(out?.doc as HistorySheets)).toEqual([["agent"]]);
    expect(keptMessage("Undo", out?.kept ?? [], false)).toBe("Nothing to undo: A1 changed by another writer since.");
    expect(h.canRedo).toBe(false);
  });

  it("does not take out an inserted row the agent wrote into, and puts a deleted column back", () => {
    const h = new EditHistory(SHEET_OPS);
    h.record([{ kind: "row", sheet: "s1", index: 0, insert: true, cells: [] }], undefined, 0);
    expect(h.undo(sheetDoc([["agent"], ["x"]]))?.kept).toEqual(["row 1"]);

    const rows = [["a", "b", "c"], ["d", "e", "f"]];
    const cells = lineCells(rows, "col", 1);
    h.record([{ kind: "col", sheet: "s1", index: 1, insert: false, cells }], undefined, 0);
    const out = h.undo(sheetDoc([["a", "c"], ["d", "f"]]));
    expect(rowsOf(out?.doc as HistorySheets)).toEqual(rows);
  });

  it("coalesces one cell's steps with one key, within the window; a new edit clears redo", () => {
    const h = new EditHistory(SHEET_OPS);
    h.record([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: null, after: "a" }], "A1", 0);
    h.record([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: "a", after: "ab" }], "A1", 500);
    expect(h.depth).toBe(1);
    h.record([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: "ab", after: "abc" }], "A1", 5000);
    expect(h.depth).toBe(2);
    const once = h.undo(sheetDoc([["abc"]]));
    const twice = h.undo(once?.doc as HistorySheets);
    expect(rowsOf(twice?.doc as HistorySheets)).toEqual([[null]]);
    h.record([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: null, after: "z" }], undefined, 6000);
    expect(h.canRedo).toBe(false);
  });

  it("undoes adding and renaming a sheet", () => {
    const h = new EditHistory(SHEET_OPS);
    const added = { id: "s2", name: "Sheet 2", rows: [] };
    h.record([{ kind: "sheet", index: 1, insert: true, sheet: added }], undefined, 0);
    h.record([{ kind: "name", sheet: "s2", before: "Sheet 2", after: "Costs" }], undefined, 0);
    let doc: HistorySheets = { sheets: [{ id: "s1", name: "Sheet 1", rows: [] }, { ...added, name: "Costs" }] };
    doc = h.undo(doc)?.doc ?? doc;
    expect(doc.sheets[1]?.name).toBe("Sheet 2");
    doc = h.undo(doc)?.doc ?? doc;
    expect(doc.sheets.map((s) => s.id)).toEqual(["s1"]);
  });
});

const slide = (id: string, title = "") => ({ id, title, body: "", notes: "", layout: "title_and_body" });

describe("another writer's marks through undo and redo", () => {
  // The agent marked B1 and B3; the person inserted row 2 (index 1), so the marks are on B1
  // and B4; undo takes the row out again (the marks go back to B1, B3), redo puts it back.
  const marked = (m: Map<string, Set<string>>) => [...(m.get("s1") ?? [])].sort();
  const move = (m: Map<string, Set<string>>, lines: ReturnType<typeof movedLines>) =>
    lines.reduce((acc, line) => shiftCellMarks(acc, line), m);

  it("move with the rows an undo or redo inserts or deletes", () => {
    const h = new EditHistory(SHEET_OPS);
    let doc = sheetDoc([["a", "agent"], ["b", null], ["c", "agent"]]);
    let marks = new Map([["s1", new Set([cellKey(0, 1), cellKey(2, 1)])]]);
    const insert = { kind: "row" as const, sheet: "s1", index: 1, insert: true, cells: [] };
    h.record([insert], undefined, 0);
    doc = sheetDoc(insertRow(rowsOf(doc) ?? [], 1));
    marks = shiftCellMarks(marks, insert);
    expect(marked(marks)).toEqual(["0:1", "3:1"]);

    const undone = h.undo(doc);
    expect(undone?.applied).toEqual([insert]);
    expect(movedLines(undone?.applied ?? [], true)).toEqual([{ kind: "row", sheet: "s1", index: 1, insert: false }]);
    marks = move(marks, movedLines(undone?.applied ?? [], true));
    expect(marked(marks)).toEqual(["0:1", "2:1"]);
    doc = undone?.doc ?? doc;

    const redone = h.redo(doc);
    marks = move(marks, movedLines(redone?.applied ?? [], false));
    expect(marked(marks)).toEqual(["0:1", "3:1"]);
  });

  it("a deleted column put back by undo moves the marks after it; cells and kept ops move nothing", () => {
    const del = { kind: "col" as const, sheet: "s1", index: 0, insert: false, cells: ["x"] };
    expect(movedLines([del], true)).toEqual([{ kind: "col", sheet: "s1", index: 0, insert: true }]);
    expect(movedLines([del], false)).toEqual([{ kind: "col", sheet: "s1", index: 0, insert: false }]);
    expect(movedLines([{ kind: "cell", sheet: "s1", row: 0, col: 0, before: null, after: "a" }], true)).toEqual([]);
    // An undo that kept the row (another writer wrote into it) applied nothing: nothing moves.
    const h = new EditHistory(SHEET_OPS);
    const insert = { kind: "row" as const, sheet: "s1", index: 0, insert: true, cells: [] };
    h.record([insert], undefined, 0);
    const out = h.undo(sheetDoc([["written by the agent"], ["a"]]));
    expect(out?.applied).toEqual([]);
    expect(out?.kept.length).toBe(1);
  });
});

describe("deck history", () => {
  it("undoes a title typed (one step), a reorder and a theme change, and redoes them", () => {
    const h = new EditHistory(DECK_OPS);
    let deck: HistoryDeck = { theme: "paper", slides: [slide("a", "One"), slide("b", "Two")] };
    const edit = (next: HistoryDeck, key: string | undefined, at: number) => {
      h.record(deckOps(deck, next), key, at);
      deck = next;
    };
    edit({ ...deck, slides: [slide("a", "One!"), slide("b", "Two")] }, "a:title", 0);
    edit({ ...deck, slides: [slide("a", "One!!"), slide("b", "Two")] }, "a:title", 100);
    edit({ ...deck, slides: [slide("b", "Two"), slide("a", "One!!")] }, undefined, 200);
    edit({ ...deck, theme: "ink" }, undefined, 300);
    expect(h.depth).toBe(3);
    deck = h.undo(deck)?.doc ?? deck;
    expect(deck.theme).toBe("paper");
    deck = h.undo(deck)?.doc ?? deck;
    expect(deck.slides.map((s) => s.id)).toEqual(["a", "b"]);
    deck = h.undo(deck)?.doc ?? deck;
    expect(deck.slides[0]?.title).toBe("One");
    for (let i = 0; i < 3; i++) deck = h.redo(deck)?.doc ?? deck;
    expect(deck).toEqual({ theme: "ink", slides: [slide("b", "Two"), slide("a", "One!!")] });
  });

  it("keeps the agent's title on a slide and undoes an added slide", () => {
    const h = new EditHistory(DECK_OPS);
    const before: HistoryDeck = { theme: "paper", slides: [slide("a", "One")] };
    const after: HistoryDeck = { theme: "paper", slides: [slide("a", "Mine")] };
    h.record(deckOps(before, after), undefined, 0);
    const theirs: HistoryDeck = { theme: "paper", slides: [slide("a", "Agent")] };
    expect(h.undo(theirs)).toEqual({ doc: theirs, kept: ["a slide's title"], changed: false, applied: [] });

    const added: HistoryDeck = { theme: "paper", slides: [slide("a"), slide("n")] };
    h.record(deckOps({ theme: "paper", slides: [slide("a")] }, added), undefined, 0);
    expect(h.undo(added)?.doc.slides.map((s) => s.id)).toEqual(["a"]);
  });
});

describe("historyKey", () => {
  const k = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) =>
    historyKey({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
  it("reads Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y and Cmd+Z", () => {
    expect(k("z", { ctrlKey: true })).toBe("undo");
    expect(k("Z", { ctrlKey: true, shiftKey: true })).toBe("redo");
    expect(k("y", { ctrlKey: true })).toBe("redo");
    expect(k("z", { metaKey: true })).toBe("undo");
    expect(k("z")).toBeNull();
    expect(k("z", { ctrlKey: true, altKey: true })).toBeNull();
  });
});
