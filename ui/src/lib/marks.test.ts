import { describe, expect, it, vi } from "vitest";
import type { Deck, Slide } from "../bindings";
import { SEEN_AFTER_MS, SeenTimer, cellKey, changedCellsBySheet, changedSlides } from "./marks";

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
