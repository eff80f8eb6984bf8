import { describe, expect, it } from "vitest";
import { applyChange, mapPos, minimalChange } from "./text";

describe("minimalChange", () => {
  it.each([
    ["hello world", "hello brave world"],
    ["abc", "abXc"],
    ["abc", ""],
    ["", "abc"],
    ["aaaa", "aa"],
    ["line 1\nline 2\n", "line 0\nline 1\nline 2\n"],
    ["x😀y", "x😁y"],
  ])("%j -> %j is one replacement that gives the new text", (a, b) => {
    const change = minimalChange(a, b);
    expect(change).not.toBeNull();
    if (change) expect(applyChange(a, change)).toBe(b);
  });

  it("keeps the common prefix and suffix", () => {
    expect(minimalChange("hello world", "hello brave world")).toEqual({ from: 6, to: 6, insert: "brave " });
  });

  it("is null for equal texts", () => {
    expect(minimalChange("same", "same")).toBeNull();
  });

  it("does not split a surrogate pair", () => {
    const change = minimalChange("x😀y", "x😁y");
    expect(change?.insert).toBe("😁");
  });
});

describe("mapPos", () => {
  it("keeps a cursor before an insertion further down, and shifts one after it", () => {
    // The person's cursor is in paragraph 1; the agent appends paragraph 3.
    const before = "one\n\ntwo";
    const after = "one\n\ntwo\n\nthree";
    const change = minimalChange(before, after);
    expect(change).not.toBeNull();
    if (!change) return;
    expect(mapPos(2, change)).toBe(2);
    const early = minimalChange("two", "one\ntwo");
    if (early) expect(mapPos(1, early)).toBe(5);
  });
});
