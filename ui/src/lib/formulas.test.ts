import { describe, expect, it } from "vitest";
import { formatNumber, hasFormulas, isFormula, resultsOf, shownCell } from "./formulas";

describe("formulas", () => {
  it("knows a formula by its leading =", () => {
    expect(isFormula("=SUM(A1:A3)")).toBe(true);
    expect(isFormula("=")).toBe(false);
    expect(isFormula("a=b")).toBe(false);
    expect(isFormula(3)).toBe(false);
    expect(isFormula(null)).toBe(false);
    expect(hasFormulas({ sheets: [{ rows: [[1, "x"]] }, { rows: [[null, "=A1"]] }] })).toBe(true);
    expect(hasFormulas({ sheets: [{ rows: [[1, "="]] }] })).toBe(false);
  });

  it("shows a formula by its result and anything else as stored", () => {
    expect(shownCell("=1+1", 2)).toEqual({ text: "2", kind: "num" });
    expect(shownCell("=0.1+0.2", 0.1 + 0.2)).toEqual({ text: "0.3", kind: "num" });
    expect(shownCell("=1/0", { error: "#DIV/0!" })).toEqual({ text: "#DIV/0!", kind: "error" });
    expect(shownCell('="a"', "a")).toEqual({ text: "a", kind: "text" });
    expect(shownCell("=1=1", true)).toEqual({ text: "TRUE", kind: "text" });
    expect(shownCell("=A1", undefined)).toEqual({ text: "", kind: "text" });
    expect(shownCell(12, undefined)).toEqual({ text: "12", kind: "num" });
    // A stored text that looks like an error is a text.
    expect(shownCell("#DIV/0!", undefined)).toEqual({ text: "#DIV/0!", kind: "text" });
    expect(shownCell(null, undefined)).toEqual({ text: "", kind: "text" });
  });

  it("formats numbers to 15 significant digits", () => {
    expect(formatNumber(1 / 3)).toBe("0.333333333333333");
    expect(formatNumber(6)).toBe("6");
    expect(formatNumber(-2.5)).toBe("-2.5");
  });

  it("indexes results by sheet and cell", () => {
    const r = resultsOf([{ id: "s1", cells: [{ row: 2, col: 1, value: 6 }] }, { id: "s2", cells: [] }]);
    expect(r.get("s1")?.get("2:1")).toBe(6);
    expect(r.get("s2")?.size).toBe(0);
  });
});
