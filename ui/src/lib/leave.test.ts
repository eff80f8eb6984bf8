import { describe, expect, it } from "vitest";
import { NOTE_PAGE, SLIDE_PAGE, deckDocument, exportFileName, noteDocument, pageCss, pptxSlides } from "./leave";
import { THEMES, THEME_COLOURS } from "./slides";

const slide = (title: string, body = "", notes = "", layout = "title_and_body") => ({ title, body, notes, layout });

describe("pptxSlides", () => {
  it("gives each slide its title, body lines, notes and the deck's theme colours", () => {
    const specs = pptxSlides({
      theme: "ink",
      slides: [slide("Why", "- fast\n- small\n\nA closing line.", "Say it slowly")],
    });
    expect(specs).toEqual([
      {
        title: "Why",
        columns: [
          [
            { text: "fast", bullet: true },
            { text: "small", bullet: true },
            { text: "A closing line.", bullet: false },
          ],
        ],
        notes: "Say it slowly",
        layout: "title_and_body",
        background: "14161C",
        text: "F3F1EA",
        titleColour: "F3F1EA",
        accent: "F5C451",
      },
    ]);
  });

  it("follows each layout: two columns split at ---, none for a title only, a section's first line, a quote", () => {
    const [two, only, section, quote] = pptxSlides({
      theme: "paper",
      slides: [
        slide("Both", "- left\n---\n- right", "", "two_column"),
        slide("Alone", "ignored", "", "title_only"),
        slide("Part 2", "subtitle\nmore", "", "section"),
        slide("Ada", "Imagination is the discovery faculty", "", "quote"),
      ],
    });
    expect(two?.columns).toEqual([[{ text: "left", bullet: true }], [{ text: "right", bullet: true }]]);
    expect(only?.columns).toEqual([]);
    expect(section?.columns).toEqual([[{ text: "subtitle", bullet: false }]]);
    expect(quote?.columns).toEqual([[{ text: "“Imagination is the discovery faculty”", bullet: false }]]);
  });

  it("reads an unknown theme as paper and an unknown layout as title and body", () => {
    const [s] = pptxSlides({ theme: "neon", slides: [slide("X", "y", "", "mystery")] });
    expect(s?.background).toBe(THEME_COLOURS.paper.background);
    expect(s?.layout).toBe("title_and_body");
  });

  it("has colours for every theme, as six hex digits", () => {
    for (const t of THEMES) {
      for (const c of Object.values(THEME_COLOURS[t])) expect(c).toMatch(/^[0-9A-F]{6}$/);
    }
  });
});

describe("print documents", () => {
  it("prints a deck one slide a page, 16:9 without margins", () => {
    const doc = deckDocument("Q3", { theme: "ocean", slides: [slide("a"), slide("b"), slide("c")] });
    expect(doc.kind).toBe("deck");
    expect(doc.kind === "deck" && doc.slides.map((s) => s.title)).toEqual(["a", "b", "c"]);
    expect(doc.kind === "deck" && doc.theme).toBe("ocean");
    expect(doc.page).toEqual(SLIDE_PAGE);
    expect(SLIDE_PAGE.widthMm / SLIDE_PAGE.heightMm).toBeCloseTo(16 / 9, 5);
    expect(pageCss(doc)).toBe("@page { size: 254mm 142.875mm; margin: 0mm; }");
  });

  it("prints a Note's Markdown tabs in strip order, and no other kind of tab", () => {
    const doc = noteDocument("Trip", [
      { type: "markdown", label: "Note", data: "# Lisbon" },
      { type: "sheet", label: "Costs", data: { sheets: [] } },
      { type: "markdown", label: "Packing", data: "- socks" },
    ]);
    expect(doc).toEqual({
      kind: "note",
      title: "Trip",
      sections: [
        { label: "Note", markdown: "# Lisbon" },
        { label: "Packing", markdown: "- socks" },
      ],
      page: NOTE_PAGE,
    });
    expect(pageCss(doc)).toBe("@page { size: 210mm 297mm; margin: 18mm; }");
  });
});

describe("exportFileName", () => {
  it("is the title with an extension, without characters file systems refuse", () => {
    expect(exportFileName("Q3: plan / draft?", "pdf")).toBe("Q3 plan draft.pdf");
    expect(exportFileName("  ", "pptx")).toBe("Untitled.pptx");
    expect(exportFileName("...hidden", "pdf")).toBe("hidden.pdf");
  });
});
