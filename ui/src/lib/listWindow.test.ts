import { describe, expect, it } from "vitest";
import { listWindow, rowTop, scrollToShow } from "./listWindow";

const even = (h: number) => () => h;

describe("listWindow", () => {
  it.each([
    // count, scrollTop, viewport, overscan -> start, end, before, after (rows of 50 px)
    { what: "the top of a long list", count: 10_000, top: 0, viewport: 500, overscan: 100, start: 0, end: 12, before: 0, after: 9_988 * 50 },
    { what: "scrolled: the margin above too", count: 10_000, top: 5_000, viewport: 500, overscan: 100, start: 98, end: 112, before: 98 * 50, after: 9_888 * 50 },
    { what: "the bottom", count: 10_000, top: 499_500, viewport: 500, overscan: 100, start: 9_988, end: 10_000, before: 9_988 * 50, after: 0 },
    { what: "a short list: all of it", count: 3, top: 0, viewport: 500, overscan: 100, start: 0, end: 3, before: 0, after: 0 },
    { what: "empty", count: 0, top: 0, viewport: 500, overscan: 100, start: 0, end: 0, before: 0, after: 0 },
    { what: "not laid out yet: one row still", count: 10, top: 0, viewport: 0, overscan: 0, start: 0, end: 1, before: 0, after: 450 },
    { what: "scrolled past the end (the list got shorter): nothing until the scroll is clamped", count: 10, top: 10_000, viewport: 500, overscan: 0, start: 10, end: 10, before: 500, after: 0 },
  ])("$what", ({ count, top, viewport, overscan, start, end, before, after }) => {
    expect(listWindow(count, even(50), top, viewport, overscan)).toEqual({ start, end, before, after });
  });

  it("rows of their own heights: a row partly in view is drawn", () => {
    const heights = [40, 100, 40, 40, 40];
    const h = (i: number) => heights[i] ?? 0;
    // 130..170: row 1 (40..140) and row 2 (140..180).
    expect(listWindow(5, h, 130, 40, 0)).toEqual({ start: 1, end: 3, before: 40, after: 80 });
    // Rows' heights add up: the spacers and drawn rows are the whole list's height.
    const w = listWindow(5, h, 60, 20, 0);
    const drawn = heights.slice(w.start, w.end).reduce((a, b) => a + b, 0);
    expect(w.before + drawn + w.after).toBe(260);
  });
});

describe("scrollToShow", () => {
  it.each([
    { what: "in view: no move", index: 3, top: 100, expected: 100 },
    { what: "above: its top at the top", index: 1, top: 100, expected: 50 },
    { what: "below: its bottom at the bottom", index: 20, top: 0, expected: 21 * 50 - 200 },
    { what: "partly below", index: 5, top: 100, expected: 6 * 50 - 200 },
  ])("$what", ({ index, top, expected }) => {
    expect(scrollToShow(index, even(50), top, 200)).toBe(expected);
  });

  it("rowTop sums the heights before", () => {
    expect(rowTop(0, even(50))).toBe(0);
    expect(rowTop(4, (i) => i + 1)).toBe(10);
  });
});
