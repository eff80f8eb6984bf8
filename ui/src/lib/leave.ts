// Decks and Notes leaving the app: what a PowerPoint file's slides hold and what the print view
// lays out, from a deck or a Note. Pure, so the mapping is tested once; the writing is pptx.ts
// (pptxgenjs, loaded on first use) and the print view (PrintView.tsx, printed by the webview).

import { THEME_COLOURS, bodyBlocks, splitColumns, themeOf, type ThemeName } from "./slides";

export interface SlideLike {
  title: string;
  body: string;
  notes: string;
  layout: string;
}

export interface DeckLike {
  theme: string;
  slides: SlideLike[];
}

/** One paragraph of a PowerPoint text box: a bullet or plain. */
export interface PptxLine {
  text: string;
  bullet: boolean;
}

/** One slide as written to the PowerPoint file. */
export interface PptxSlideSpec {
  title: string;
  /** The body's boxes: one, or two for a two-column slide; none for a title-only slide. */
  columns: PptxLine[][];
  notes: string;
  layout: "title_and_body" | "title_only" | "section" | "two_column" | "quote";
  background: string;
  text: string;
  titleColour: string;
  accent: string;
}

function lines(body: string): PptxLine[] {
  return bodyBlocks(body).flatMap((b): PptxLine[] =>
    b.kind === "bullets" ? b.items.map((text) => ({ text, bullet: true })) : [{ text: b.text, bullet: false }],
  );
}

function layoutOf(layout: string): PptxSlideSpec["layout"] {
  switch (layout) {
    case "title_only":
    case "section":
    case "two_column":
    case "quote":
      return layout;
    default:
      return "title_and_body";
  }
}

/** The deck's slides as the PowerPoint file holds them, in the deck's theme's colours. */
export function pptxSlides(deck: DeckLike): PptxSlideSpec[] {
  const colours = THEME_COLOURS[themeOf(deck.theme)];
  return deck.slides.map((s) => {
    const layout = layoutOf(s.layout);
    const columns = (() => {
      switch (layout) {
        case "title_only":
          return [];
        case "two_column":
          return splitColumns(s.body).map(lines);
        case "section":
          return s.body.trim() === "" ? [] : [[{ text: s.body.split("\n")[0]?.trim() ?? "", bullet: false }]];
        case "quote":
          return s.body.trim() === "" ? [] : [[{ text: `“${s.body.trim()}”`, bullet: false }]];
        default:
          return [lines(s.body)];
      }
    })();
    return {
      title: s.title,
      columns,
      notes: s.notes,
      layout,
      background: colours.background,
      text: colours.text,
      titleColour: colours.title,
      accent: colours.accent,
    };
  });
}

/** A page's size and margin in millimetres (the print engine's paper). */
export interface PageSize {
  widthMm: number;
  heightMm: number;
  marginMm: number;
}

/** A slide's page: 16:9 at 10 in × 5.625 in, the size of PowerPoint's widescreen-16:9 layout. */
export const SLIDE_PAGE: PageSize = { widthMm: 254, heightMm: 142.875, marginMm: 0 };
/** A Note's page: A4 portrait. */
export const NOTE_PAGE: PageSize = { widthMm: 210, heightMm: 297, marginMm: 18 };

/** What the print view lays out: a deck, one slide a page, or a Note's Markdown tabs. */
export type PrintDocument =
  | { kind: "deck"; title: string; theme: ThemeName; slides: SlideLike[]; page: PageSize }
  | { kind: "note"; title: string; sections: { label: string; markdown: string }[]; page: PageSize };

export function deckDocument(title: string, deck: DeckLike): PrintDocument {
  return { kind: "deck", title, theme: themeOf(deck.theme), slides: deck.slides, page: SLIDE_PAGE };
}

/**
 * A Note's print document: its Markdown tabs in strip order (each headed by its label when there
 * are several); the other kinds of tab are not printed.
 */
export function noteDocument(title: string, tabs: { type: string; label: string; data: unknown }[]): PrintDocument {
  const sections = tabs
    .filter((t) => t.type === "markdown" && typeof t.data === "string")
    .map((t) => ({ label: t.label, markdown: t.data as string }));
  return { kind: "note", title, sections, page: NOTE_PAGE };
}

/** The stylesheet that sizes the printed page (margins none for a deck: slides fill the page). */
export function pageCss(doc: PrintDocument): string {
  return `@page { size: ${doc.page.widthMm}mm ${doc.page.heightMm}mm; margin: ${doc.page.marginMm}mm; }`;
}

/** A file name for the saved copy: the title, without characters file systems refuse. */
export function exportFileName(title: string, extension: "pdf" | "pptx"): string {
  const base = title
    .replace(/[\\/:*?"<>|\u0000-\u001f]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "")
    .slice(0, 120)
    .trim();
  return `${base || "Untitled"}.${extension}`;
}
