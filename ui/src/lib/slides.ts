// How a slide's text is laid out: bullets, paragraphs, two columns. Pure, shared by the editor's
// preview, the thumbnails and the presentation.

export const THEMES = ["paper", "ink", "ocean", "forest", "sunset"] as const;
export type ThemeName = (typeof THEMES)[number];

export const LAYOUTS = ["title_and_body", "title_only", "section", "two_column", "quote"] as const;
export type LayoutName = (typeof LAYOUTS)[number];

export function layoutLabel(layout: string): string {
  switch (layout) {
    case "title_and_body":
      return "Title and body";
    case "title_only":
      return "Title only";
    case "section":
      return "Section header";
    case "two_column":
      return "Two columns";
    case "quote":
      return "Quote";
    default:
      return layout;
  }
}

export function themeLabel(theme: string): string {
  return theme.charAt(0).toUpperCase() + theme.slice(1);
}

export type Block = { kind: "bullets"; items: string[] } | { kind: "paragraph"; text: string };

/** Body text as blocks: consecutive `- ` / `* ` / `• ` lines are a list, other lines paragraphs. */
export function bodyBlocks(body: string): Block[] {
  const blocks: Block[] = [];
  for (const raw of body.split("\n")) {
    const line = raw.trimEnd();
    const bullet = /^\s*(?:[-*•])\s+(.*)$/.exec(line);
    if (bullet) {
      const last = blocks[blocks.length - 1];
      if (last?.kind === "bullets") last.items.push(bullet[1] ?? "");
      else blocks.push({ kind: "bullets", items: [bullet[1] ?? ""] });
    } else if (line.trim() !== "") {
      blocks.push({ kind: "paragraph", text: line.trim() });
    }
  }
  return blocks;
}

/** The two columns of a two-column slide: split at a line `---` (or `|||`), else in the middle. */
export function splitColumns(body: string): [string, string] {
  const lines = body.split("\n");
  const at = lines.findIndex((l) => /^\s*(---|\|\|\|)\s*$/.test(l));
  if (at >= 0) return [lines.slice(0, at).join("\n"), lines.slice(at + 1).join("\n")];
  const nonEmpty = lines.filter((l) => l.trim() !== "");
  const half = Math.ceil(nonEmpty.length / 2);
  return [nonEmpty.slice(0, half).join("\n"), nonEmpty.slice(half).join("\n")];
}

/** A new slide's ID: unique in the deck, and never the shape the server mints (`slide-<n>-…`). */
export function newSlideId(existing: readonly { id: string }[], now: number, random: () => number = Math.random): string {
  for (;;) {
    const id = `slide-p${Math.floor(random() * 36 ** 4).toString(36)}-${now.toString(36)}`;
    if (!existing.some((s) => s.id === id)) return id;
  }
}

/** The deck with slide `index` moved by `delta` (clamped). */
export function moveSlide<T>(slides: readonly T[], index: number, delta: number): T[] {
  const to = Math.max(0, Math.min(slides.length - 1, index + delta));
  const out = slides.slice();
  const [s] = out.splice(index, 1);
  out.splice(to, 0, s as T);
  return out;
}

/**
 * Each theme's colours as plain hex (no `#`), for what cannot use the stylesheet: a PowerPoint
 * file's slides. `background` is the solid colour (a gradient's first stop); the print view uses
 * the stylesheet's `.theme-*` classes, whose colours these are (`style.css`).
 */
export const THEME_COLOURS: Record<ThemeName, { background: string; text: string; title: string; accent: string }> = {
  paper: { background: "FFFFFF", text: "1C2333", title: "0F1A33", accent: "2F5BD3" },
  ink: { background: "14161C", text: "F3F1EA", title: "F3F1EA", accent: "F5C451" },
  ocean: { background: "0F3B67", text: "F4FBFF", title: "F4FBFF", accent: "7FD6E8" },
  forest: { background: "1F3D2B", text: "F3F8EF", title: "F3F8EF", accent: "C9E27D" },
  sunset: { background: "F0743E", text: "FFFAF5", title: "FFFAF5", accent: "FFF1C9" },
};

/** A theme name as stored (an unknown one reads as paper). */
export function themeOf(theme: string): ThemeName {
  return (THEMES as readonly string[]).includes(theme) ? (theme as ThemeName) : "paper";
}
