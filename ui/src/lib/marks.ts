// What another writer's change brought into a Sheet or a deck, as the editors mark it until the
// person has seen it (the Markdown editor's line marks are in components/remoteMarks.ts). Pure
// functions over plain data, computed once per change taken in, never per render.

import type { Deck, SheetTab } from "../bindings";
import { diffDecks, diffSheets } from "./diff";

/** How long an editor must have focus, with marks shown, before they count as seen. */
export const SEEN_AFTER_MS = 5000;

/** Who made the marked change. */
export interface MarkAuthor {
  author: string;
  agent: boolean;
}

/** The key of a cell in a sheet's mark set. */
export function cellKey(row: number, col: number): string {
  return `${row}:${col}`;
}

/**
 * The cells the change from `before` to `after` touched, per sheet ID (of `after`): every cell
 * whose value differs, cleared cells included; a sheet removed has nothing left to mark.
 */
export function changedCellsBySheet(before: SheetTab, after: SheetTab): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const sheet of diffSheets(before, after)) {
    if (sheet.status === "removed" || sheet.cells.length === 0) continue;
    out.set(sheet.sheetId, new Set(sheet.cells.map((c) => cellKey(c.row, c.col))));
  }
  return out;
}

/** The slides (IDs) the change from `before` to `after` added, changed or moved. */
export function changedSlides(before: Deck, after: Deck): Set<string> {
  const out = new Set<string>();
  for (const s of diffDecks(before, after).slides) {
    if (s.status !== "removed") out.add(s.slideId);
  }
  return out;
}

/**
 * Counts marks as seen after SEEN_AFTER_MS of focus: `update` after every change of focus or
 * marks; the timer runs only while the editor has focus and shows marks.
 */
export class SeenTimer {
  private timer: unknown = null;

  constructor(
    private readonly seen: () => void,
    private readonly timers: {
      set: (fn: () => void, ms: number) => unknown;
      clear: (handle: unknown) => void;
    } = {
      set: (fn, ms) => setTimeout(fn, ms),
      clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    },
  ) {}

  update(focused: boolean, marked: boolean): void {
    this.stop();
    if (!focused || !marked) return;
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.seen();
    }, SEEN_AFTER_MS);
  }

  stop(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }
}
