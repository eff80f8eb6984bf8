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

/**
 * `marks` (cells by sheet) after the person inserted or deleted a row or column of one sheet:
 * the marked cells move with the rows and columns they are in, those of a deleted line go. The
 * same Map when the line is on a sheet with no marks.
 */
export function shiftCellMarks(
  marks: Map<string, Set<string>>,
  line: { kind: "row" | "col"; sheet: string; index: number; insert: boolean },
): Map<string, Set<string>> {
  const cells = marks.get(line.sheet);
  if (!cells) return marks;
  const moved = new Set<string>();
  for (const key of cells) {
    const [row, col] = key.split(":").map(Number) as [number, number];
    const at = line.kind === "row" ? row : col;
    if (!line.insert && at === line.index) continue;
    const to = at < line.index ? at : line.insert ? at + 1 : at - 1;
    moved.add(line.kind === "row" ? cellKey(to, col) : cellKey(row, to));
  }
  const out = new Map(marks);
  if (moved.size > 0) out.set(line.sheet, moved);
  else out.delete(line.sheet);
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

/** A change's marks and who made it. */
export interface Marks<M> {
  by: MarkAuthor;
  marks: M;
}

/** Another writer's change to a tab as the app announces it (app-state's `RemoteEdit`). */
export interface Announced extends MarkAuthor {
  version: number;
  /** The tab's content before the change, while no editor has marked it yet. */
  before?: unknown;
}

/**
 * How long content an editor took in before its announcement came may still be marked by it.
 * The announcement waits for one read of the history (milliseconds; about a second under load);
 * a take older than this was not that change.
 */
export const LATE_MARK_MS = 5000;

/**
 * Which announced change an editor's content brings, so its marks name the author: the editor
 * calls `opened` once, `announced` on every change of the app's state (synchronously, so an
 * announcement cleared by the person's next keystroke before a render is not missed), and `took`
 * whenever it replaces what it shows with the engine's content. The engine's merged content
 * can reach the editor before the announcement does (the person's save reads it back first):
 * such a take is kept for LATE_MARK_MS and marked when the announcement comes. Pure: the caller
 * shows the marks.
 */
export class MarkBook<M> {
  /** The announced change the editor shows (marked or not): never marked again. */
  private shownVersion: number | null = null;
  /** Announced and not yet taken in (kept when the person's own edit clears the announcement). */
  private unmarked: Announced | null = null;
  /** The last take with no announcement to name its author. */
  private late: { shown: unknown; incoming: unknown; at: number } | null = null;

  constructor(
    private readonly diff: (before: unknown, after: unknown) => M | null,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The marks of the editor opened on `initial` while `announced` is the tab's announcement. */
  opened(announced: Announced | undefined, initial: unknown): Marks<M> | null {
    if (!announced) return null;
    this.shownVersion = announced.version;
    if (!("before" in announced)) return null;
    return this.marked(announced, announced.before, initial);
  }

  /**
   * The tab's announcement as the app holds it now. Returns the marks of content taken in before
   * it came, if any; the change then counts as shown.
   */
  announced(announced: Announced | undefined): Marks<M> | null {
    if (!announced || announced.version === this.shownVersion || announced.version === this.unmarked?.version) {
      return null;
    }
    const late = this.late;
    this.late = null;
    const marks = late && this.now() - late.at <= LATE_MARK_MS ? this.marked(announced, late.shown, late.incoming) : null;
    if (marks) {
      this.shownVersion = announced.version;
      this.unmarked = null;
      return marks;
    }
    // Nothing taken in yet that it brought: it waits for its content.
    this.unmarked = announced;
    return null;
  }

  /**
   * The editor replaced `shown` with the engine's `incoming`: the marks it brought, and whether
   * an announced change was taken in with it (marked or not).
   */
  took(shown: unknown, incoming: unknown): { announced: boolean; marks: Marks<M> | null } {
    const by = this.unmarked;
    this.unmarked = null;
    if (!by) {
      // Kept as it is: the marks are computed only if an announcement comes (a take of a long
      // text costs no diff). The same text again leaves an earlier take waiting.
      if (shown !== incoming) this.late = { shown, incoming, at: this.now() };
      return { announced: false, marks: null };
    }
    this.late = null;
    this.shownVersion = by.version;
    return { announced: true, marks: this.marked(by, shown, incoming) };
  }

  private marked(by: Announced, before: unknown, after: unknown): Marks<M> | null {
    const marks = this.diff(before, after);
    return marks ? { by: { author: by.author, agent: by.agent }, marks } : null;
  }
}
