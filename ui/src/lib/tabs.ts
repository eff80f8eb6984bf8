// The tab strip's logic: which tabs are fixed, labels, and where a tab lands when moved by the
// keyboard or dropped after a drag. A tab is known by its instance ID only.

export type TabType = "markdown" | "sheet" | "slides" | "sources" | "files";

export interface StripTab {
  id: string;
  type: TabType;
  label: string;
}

/** Markdown, Sources and Files exist once in every Note and cannot be deleted. */
export function isFixed(type: TabType): boolean {
  return type === "markdown" || type === "sources" || type === "files";
}

export const LABEL_MAX = 200;

/** A label as the server will keep it (trimmed; duplicates allowed), or why it cannot be one. */
export function checkLabel(raw: string): { ok: true; label: string } | { ok: false; reason: string } {
  const label = raw.trim();
  if (label === "") return { ok: false, reason: "A tab needs a name." };
  if ([...label].length > LABEL_MAX) return { ok: false, reason: `At most ${LABEL_MAX} characters.` };
  return { ok: true, label };
}

/** The strip after moving `id` to `index` (what the server's `move_tab` does). */
export function moveTo<T extends { id: string }>(tabs: readonly T[], id: string, index: number): T[] {
  const from = tabs.findIndex((t) => t.id === id);
  if (from < 0) return tabs.slice();
  const out = tabs.slice();
  const [tab] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(index, out.length)), 0, tab as T);
  return out;
}

/** The index for Alt+Shift+Left / Right, or null at the edge. */
export function stepIndex(tabs: readonly { id: string }[], id: string, delta: -1 | 1): number | null {
  const from = tabs.findIndex((t) => t.id === id);
  if (from < 0) return null;
  const to = from + delta;
  return to < 0 || to >= tabs.length ? null : to;
}

/**
 * The index a dragged tab lands at when dropped with the pointer at `x`, given the strip's
 * tabs' horizontal extents (in strip order, the dragged one included): before the first tab
 * whose middle is right of the pointer, counted without the dragged tab.
 */
export function dropIndex(
  boxes: readonly { id: string; left: number; width: number }[],
  draggedId: string,
  x: number,
): number {
  const others = boxes.filter((b) => b.id !== draggedId);
  const at = others.findIndex((b) => x < b.left + b.width / 2);
  return at < 0 ? others.length : at;
}

/** The tab after (or before) `id`, wrapping around: Ctrl+Tab / Ctrl+Shift+Tab. */
export function cycle<T extends { id: string }>(tabs: readonly T[], id: string, delta: -1 | 1): T | undefined {
  if (tabs.length === 0) return undefined;
  const from = tabs.findIndex((t) => t.id === id);
  const start = from < 0 ? (delta === 1 ? -1 : 0) : from;
  return tabs[(start + delta + tabs.length) % tabs.length];
}

export function typeName(type: TabType): string {
  switch (type) {
    case "markdown":
      return "Markdown";
    case "sheet":
      return "Sheet";
    case "slides":
      return "Slides";
    case "sources":
      return "Sources";
    case "files":
      return "Files";
  }
}
