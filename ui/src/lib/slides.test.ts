import { describe, expect, it } from "vitest";
import { LAYOUTS, THEMES, bodyBlocks, moveSlide, newSlideId, splitColumns } from "./slides";

describe("slides", () => {
  it("has the five themes and five layouts of the model", () => {
    expect(THEMES).toEqual(["paper", "ink", "ocean", "forest", "sunset"]);
    expect(LAYOUTS).toEqual(["title_and_body", "title_only", "section", "two_column", "quote"]);
  });

  it("reads bullets and paragraphs", () => {
    expect(bodyBlocks("Intro line\n- one\n* two\n\nAfter")).toEqual([
      { kind: "paragraph", text: "Intro line" },
      { kind: "bullets", items: ["one", "two"] },
      { kind: "paragraph", text: "After" },
    ]);
  });

  it("splits two columns at --- or in the middle", () => {
    expect(splitColumns("a\nb\n---\nc")).toEqual(["a\nb", "c"]);
    expect(splitColumns("a\nb\nc")).toEqual(["a\nb", "c"]);
  });

  it("mints slide IDs that are unique and never look like the server's", () => {
    let n = 0;
    const rand = () => [0.5, 0.5, 0.25][n++] ?? 0.1;
    const first = newSlideId([], 1761800000000, rand);
    const second = newSlideId([{ id: first }], 1761800000000, rand);
    expect(second).not.toBe(first);
    expect(first).toMatch(/^slide-p[0-9a-z]+-[0-9a-z]+$/);
    expect(first).not.toMatch(/^slide-\d+-/);
  });

  it("moves a slide up and down, clamped at the ends", () => {
    expect(moveSlide(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(moveSlide(["a", "b", "c"], 0, -1)).toEqual(["a", "b", "c"]);
    expect(moveSlide(["a", "b", "c"], 0, 5)).toEqual(["b", "c", "a"]);
  });
});
