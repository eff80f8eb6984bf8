import { describe, expect, it, vi } from "vitest";
import type { Deck, Slide } from "../bindings";
import { LATE_MARK_MS, MarkBook, SEEN_AFTER_MS, SeenTimer, cellKey, changedCellsBySheet, changedSlides, shiftCellMarks } from "./marks";

const sheet = (id: string, rows: (string | number | null)[][]) => ({ id, name: id, rows });

describe("changedCellsBySheet", () => {
  it("marks exactly the cells whose value changed, per sheet", () => {
    const before = { sheets: [sheet("s1", [["a", 1], ["b", 2]]), sheet("s2", [["x"]])] };
    const after = { sheets: [sheet("s1", [["a", 1], ["B", 2, "new"]]), sheet("s2", [["x"]])] };
    const marks = changedCellsBySheet(before, after);
    expect([...marks.keys()]).toEqual(["s1"]);
    expect([...(marks.get("s1") ?? [])]).toEqual([cellKey(1, 0), cellKey(1, 2)]);
  });

  it("marks a cleared cell, every cell of an added sheet, nothing of a removed one", () => {
    const before = { sheets: [sheet("s1", [["a", "b"]]), sheet("gone", [["z"]])] };
    const after = { sheets: [sheet("s1", [["a", null]]), sheet("s3", [[1, 2]])] };
    const marks = changedCellsBySheet(before, after);
    expect([...(marks.get("s1") ?? [])]).toEqual(["0:1"]);
    expect([...(marks.get("s3") ?? [])]).toEqual(["0:0", "0:1"]);
    expect(marks.has("gone")).toBe(false);
  });

  it("has nothing for an unchanged sheet or a rename only", () => {
    const before = { sheets: [sheet("s1", [["a"]])] };
    const after = { sheets: [{ ...sheet("s1", [["a"]]), name: "Renamed" }] };
    expect(changedCellsBySheet(before, after).size).toBe(0);
  });
});

describe("shiftCellMarks", () => {
  const marks = () =>
    new Map([
      ["s1", new Set([cellKey(0, 0), cellKey(2, 1), cellKey(5, 3)])],
      ["s2", new Set([cellKey(1, 1)])],
    ]);
  const cells = (m: Map<string, Set<string>>, sheet: string) => [...(m.get(sheet) ?? [])].sort();

  it.each([
    ["a row inserted above moves the cells below it down", { kind: "row", index: 2, insert: true }, ["0:0", "3:1", "6:3"]],
    ["a row inserted below the last mark moves none", { kind: "row", index: 6, insert: true }, ["0:0", "2:1", "5:3"]],
    ["a row deleted takes its marks and moves those below up", { kind: "row", index: 2, insert: false }, ["0:0", "4:3"]],
    ["a column inserted moves the cells right of it", { kind: "col", index: 1, insert: true }, ["0:0", "2:2", "5:4"]],
    ["a column deleted takes its marks", { kind: "col", index: 0, insert: false }, ["2:0", "5:2"]],
  ] as const)("%s", (_, line, expected) => {
    const before = marks();
    const after = shiftCellMarks(before, { ...line, sheet: "s1" });
    expect(cells(after, "s1")).toEqual(expected);
    // The other sheet's marks and the marks given are left as they were.
    expect(cells(after, "s2")).toEqual(["1:1"]);
    expect(cells(before, "s1")).toEqual(["0:0", "2:1", "5:3"]);
  });

  it("leaves no entry for a sheet whose last mark went, and the same Map for a sheet without marks", () => {
    const m = new Map([["s2", new Set([cellKey(1, 1)])]]);
    expect(shiftCellMarks(m, { kind: "row", sheet: "s2", index: 1, insert: false }).has("s2")).toBe(false);
    expect(shiftCellMarks(m, { kind: "row", sheet: "s9", index: 0, insert: true })).toBe(m);
  });
});

describe("changedSlides", () => {
  const slide = (id: string, title = id): Slide => ({ id, title, body: "", notes: "", layout: "title_and_body" });
  const deck = (...slides: Slide[]): Deck => ({ theme: "paper", slides });

  it("marks added, changed and moved slides, not the unchanged or removed ones", () => {
    const before = deck(slide("a"), slide("b"), slide("c"), slide("d"));
    const after = deck(slide("b", "B!"), slide("a"), slide("c"), slide("e"));
    // b changed, a and b swapped (a moved), c unchanged, d removed, e added.
    expect([...changedSlides(before, after)].sort()).toEqual(["a", "b", "e"]);
  });

  it("has nothing for a theme change alone", () => {
    expect(changedSlides(deck(slide("a")), { ...deck(slide("a")), theme: "ink" } as Deck).size).toBe(0);
  });
});

describe("SeenTimer", () => {
  it("counts as seen only after SEEN_AFTER_MS of focus with marks shown", () => {
    vi.useFakeTimers();
    const seen = vi.fn();
    const t = new SeenTimer(seen);
    t.update(false, true);
    vi.advanceTimersByTime(SEEN_AFTER_MS * 2);
    expect(seen).not.toHaveBeenCalled();
    t.update(true, true);
    vi.advanceTimersByTime(SEEN_AFTER_MS - 1);
    // Focus leaves before the time is up, and comes back: counted again from the start.
    t.update(false, true);
    t.update(true, true);
    vi.advanceTimersByTime(SEEN_AFTER_MS - 1);
    expect(seen).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(seen).toHaveBeenCalledTimes(1);
    t.update(true, false);
    vi.advanceTimersByTime(SEEN_AFTER_MS * 2);
    expect(seen).toHaveBeenCalledTimes(1);
    vi.useRealTimers();
  });
});

describe("MarkBook", () => {
  // Marks: the words of `after` not in `before`.
  const words = (before: unknown, after: unknown) => {
    const had = new Set(String(before).split(" "));
    const added = String(after)
      .split(" ")
      .filter((w) => !had.has(w));
    return added.length > 0 ? added : null;
  };
  const claude = { author: "claude", agent: true, version: 5 };
  const clock = () => {
    const c = { t: 1000, now: () => c.t };
    return c;
  };

  it("marks content taken in after its announcement, once", () => {
    const book = new MarkBook(words);
    expect(book.opened(undefined, "a")).toBeNull();
    expect(book.announced(claude)).toBeNull();
    // The same announcement again (another change of the state, or with `before` dropped).
    expect(book.announced(claude)).toBeNull();
    expect(book.announced({ ...claude })).toBeNull();
    expect(book.took("a", "a b")).toEqual({ announced: true, marks: { by: { author: "claude", agent: true }, marks: ["b"] } });
    // Taken: the next take has no author.
    expect(book.took("a b", "a b c")).toEqual({ announced: false, marks: null });
    expect(book.announced({ ...claude })).toBeNull();
  });

  it("keeps an announcement the person's edit cleared until the content is taken in", () => {
    const book = new MarkBook(words);
    book.announced(claude);
    // The person typed: the app dropped the announcement.
    expect(book.announced(undefined)).toBeNull();
    expect(book.took("x", "x y").marks?.marks).toEqual(["y"]);
  });

  it("marks content that came before its announcement when the announcement comes", () => {
    const c = clock();
    const book = new MarkBook(words, c.now);
    // The save's read-back brought the agent's merged line first.
    expect(book.took("mine", "mine agent")).toEqual({ announced: false, marks: null });
    // A read of the same content again changes nothing to mark and keeps the take waiting.
    book.took("mine agent", "mine agent");
    c.t += 1200;
    expect(book.announced(claude)).toEqual({ by: { author: "claude", agent: true }, marks: ["agent"] });
    // That change counts as shown: its content read once more marks nothing, and it is not
    // marked again.
    expect(book.announced({ ...claude })).toBeNull();
    expect(book.took("mine agent", "mine agent more").marks).toBeNull();
  });

  it("lets an announcement wait for its content when the take before it brought nothing to mark", () => {
    const book = new MarkBook(words);
    // Equal content in another object (a sheet read again): kept, but nothing to mark.
    book.took({ v: "a" }, { v: "a" });
    expect(book.announced(claude)).toBeNull();
    expect(book.took("a", "a agent").marks?.marks).toEqual(["agent"]);
  });

  it("computes no marks for a take until an announcement comes", () => {
    let diffs = 0;
    const book = new MarkBook((b, a) => {
      diffs++;
      return words(b, a);
    });
    book.took("a", "a b");
    book.took("a b", "a b c");
    expect(diffs).toBe(0);
    expect(book.announced(claude)?.marks).toEqual(["c"]);
    expect(diffs).toBe(1);
  });

  it("does not name the author of a take older than LATE_MARK_MS; that announcement waits for its content", () => {
    const c = clock();
    const book = new MarkBook(words, c.now);
    book.took("a", "a restored");
    c.t += LATE_MARK_MS + 1;
    expect(book.announced(claude)).toBeNull();
    expect(book.took("a restored", "a restored agent").marks?.marks).toEqual(["agent"]);
  });

  it("opens on an announced change: marks it against the content before it, never again", () => {
    const book = new MarkBook(words);
    expect(book.opened({ ...claude, before: "a" }, "a b")?.marks).toEqual(["b"]);
    expect(book.announced(claude)).toBeNull();
    expect(book.took("a b", "a b c").announced).toBe(false);
    // Shown already, with nothing to compare with: nothing marked.
    expect(new MarkBook(words).opened(claude, "a b")).toBeNull();
  });
});
