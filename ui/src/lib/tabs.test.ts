import { describe, expect, it } from "vitest";
import { checkLabel, cycle, dropIndex, isFixed, moveTo, stepIndex } from "./tabs";

const strip = [{ id: "markdown" }, { id: "sheet-1-a" }, { id: "slides-2-b" }, { id: "sources" }];
const ids = (tabs: { id: string }[]) => tabs.map((t) => t.id);

describe("labels", () => {
  it("trims only, and allows any label twice", () => {
    expect(checkLabel("  Deck  ")).toEqual({ ok: true, label: "Deck" });
    expect(checkLabel("Deck")).toEqual({ ok: true, label: "Deck" });
  });

  it("refuses an empty or too long label", () => {
    expect(checkLabel("   ").ok).toBe(false);
    expect(checkLabel("x".repeat(201)).ok).toBe(false);
    expect(checkLabel("x".repeat(200)).ok).toBe(true);
  });

  it("knows the fixed tabs", () => {
    expect(["markdown", "sources", "files", "sheet", "slides"].map((t) => isFixed(t as never))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("moving", () => {
  it("moves a tab to an index like the server's move_tab", () => {
    expect(ids(moveTo(strip, "slides-2-b", 0))).toEqual(["slides-2-b", "markdown", "sheet-1-a", "sources"]);
    expect(ids(moveTo(strip, "markdown", 3))).toEqual(["sheet-1-a", "slides-2-b", "sources", "markdown"]);
    expect(ids(moveTo(strip, "nope", 0))).toEqual(ids(strip));
  });

  it("steps one place with the keyboard, stopping at the ends", () => {
    expect(stepIndex(strip, "sheet-1-a", -1)).toBe(0);
    expect(stepIndex(strip, "sheet-1-a", 1)).toBe(2);
    expect(stepIndex(strip, "markdown", -1)).toBeNull();
    expect(stepIndex(strip, "sources", 1)).toBeNull();
  });

  it("drops a dragged tab before the first tab whose middle is right of the pointer", () => {
    const boxes = strip.map((t, i) => ({ id: t.id, left: i * 100, width: 100 }));
    // Dragging the first tab past the middle of the third: it lands after it.
    expect(dropIndex(boxes, "markdown", 260)).toBe(2);
    expect(dropIndex(boxes, "markdown", 240)).toBe(1);
    expect(dropIndex(boxes, "sources", 10)).toBe(0);
    expect(dropIndex(boxes, "markdown", 1000)).toBe(3);
  });

  it("cycles with Ctrl+Tab, wrapping around", () => {
    expect(cycle(strip, "sources", 1)?.id).toBe("markdown");
    expect(cycle(strip, "markdown", -1)?.id).toBe("sources");
    expect(cycle(strip, "sheet-1-a", 1)?.id).toBe("slides-2-b");
    expect(cycle([], "x", 1)).toBeUndefined();
  });
});
