import { describe, expect, it } from "vitest";
import { sameJson } from "./json";

/** What the refresh compared with before: the two values written out. */
const written = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe("sameJson", () => {
  it("says what JSON.stringify says of values read from JSON", () => {
    const sheet = (cell: unknown) => ({ sheets: [{ id: "s1", name: "Data", rows: [[1, "a", null], [true, 2.5, cell]] }] });
    const pairs: [unknown, unknown][] = [
      ["text", "text"],
      ["text", "text!"],
      [sheet("x"), sheet("x")],
      [sheet("x"), sheet("y")],
      [sheet(1), sheet("1")],
      [sheet(null), sheet(false)],
      [sheet(0), sheet(0)],
      [[1, 2], [1, 2, 3]],
      [[[1]], [[1], []]],
      [{}, []],
      [[], {}],
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, b: 2 }, { a: 1 }],
      [{ a: { b: [1, { c: "d" }] } }, { a: { b: [1, { c: "d" }] } }],
      [{ a: { b: [1, { c: "d" }] } }, { a: { b: [1, { c: "e" }] } }],
      [null, {}],
      [{}, null],
      [1, 1],
      [1, 2],
    ];
    for (const [a, b] of pairs) expect(sameJson(a, b), JSON.stringify([a, b])).toBe(written(a, b));
  });

  it("treats a key set to undefined as absent and an array's undefined as null, as JSON does", () => {
    expect(sameJson({ a: 1, notes: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, notes: undefined })).toBe(true);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(true);
    expect(sameJson({ a: undefined }, { a: null })).toBe(false);
    expect(sameJson([1, undefined], [1, null])).toBe(true);
  });

  it("compares objects by their keys, whatever their order", () => {
    expect(sameJson({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: [2] }, { b: [3], a: 1 })).toBe(false);
  });

  it("compares a sheet of 200,000 cells, the same or differing in its last cell", () => {
    const sheet = () => ({
      sheets: [{ id: "s1", name: "Big", rows: Array.from({ length: 10_000 }, (_, r) => Array.from({ length: 20 }, (_, c) => r * 20 + c)) }],
    });
    const [a, b] = [sheet(), sheet()];
    expect(sameJson(a, b)).toBe(true);
    b.sheets[0]!.rows[9_999]![19] = -1;
    expect(sameJson(a, b)).toBe(false);
  });
});
