import { describe, expect, it } from "vitest";
import { applyChange, textChange } from "./textChange";

describe("textChange", () => {
  it("finds the one place that changed", () => {
    expect(textChange("hello world", "hello, world")).toEqual({ at: 5, removed: 0, insert: "," });
    expect(textChange("hello world", "hello")).toEqual({ at: 5, removed: 6, insert: "" });
    expect(textChange("abc", "abc")).toEqual({ at: 3, removed: 0, insert: "" });
    expect(textChange("", "new")).toEqual({ at: 0, removed: 0, insert: "new" });
    // Repeated characters: the prefix takes what it can, the suffix never overlaps it.
    expect(textChange("aaaa", "aaaaa")).toEqual({ at: 4, removed: 0, insert: "a" });
    expect(textChange("aaaaa", "aaaa")).toEqual({ at: 4, removed: 1, insert: "" });
  });

  it("never cuts a surrogate pair", () => {
    // Two emoji sharing their first half: the change is the whole second character.
    const change = textChange("x\u{1F600}y", "x\u{1F601}y");
    expect(change).toEqual({ at: 1, removed: 2, insert: "\u{1F601}" });
    const after = textChange("\u{1F600}a", "\u{1F600}ba");
    expect(after).toEqual({ at: 2, removed: 0, insert: "b" });
  });

  it("makes the new text from the old, long texts and blocks included", () => {
    const line = "a line of a long research log, \u00e9 \u{1F600}\n";
    const base = line.repeat(20_000);
    const typed = base.slice(0, 1000) + "typed" + base.slice(1000);
    const cases = [
      typed,
      base.slice(0, 500_000) + base.slice(500_010),
      base + "at the end",
      "at the start" + base,
      base.replace(/\u{1F600}/u, "\u{1F601}"),
      "",
    ];
    for (const next of cases) {
      const change = textChange(base, next);
      expect(applyChange(base, change)).toBe(next);
      expect(change.removed + change.insert.length).toBeLessThanOrEqual(Math.max(base.length, next.length));
    }
    expect(textChange(base, typed).insert).toBe("typed");
  });
});
