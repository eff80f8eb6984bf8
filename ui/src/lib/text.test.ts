import { describe, expect, it } from "vitest";
import { applyChange, mapPos, minimalChange, splitLinesInParts } from "./text";

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

describe("splitLinesInParts", () => {
  const noWait = () => Promise.resolve();

  it("splits exactly as CodeMirror does, whatever the parts' size and the line breaks", async () => {
    const pieces = ["a", "bc", "\n", "\r\n", "\r", "", "\n\n", "é", "\r\r\n"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 300; round++) {
      let text = "";
      const n = Math.floor(next() * 40);
      for (let i = 0; i < n; i++) text += pieces[Math.floor(next() * pieces.length)];
      for (const part of [1, 2, 3, 5, 8, 1000]) {
        expect(await splitLinesInParts(text, part, noWait), JSON.stringify({ text, part })).toEqual(
          text.split(/\r\n?|\n/),
        );
      }
    }
  });

  it("gives the thread back between parts of a long text", async () => {
    const text = "line of text\n".repeat(10_000);
    let yields = 0;
    const lines = await splitLinesInParts(text, 13_000, () => {
      yields++;
      return Promise.resolve();
    });
    expect(lines).toEqual(text.split("\n"));
    expect(yields).toBe(9);
  });
});
