// Diffs the person reviews: lines of Markdown, cells of Sheets, slides of decks, and a whole
// Note against another version of itself. Pure functions over plain data.

import type { Deck, SheetTab, Slide, Theme } from "../bindings";
import { sameJson } from "./json";

// ---- lines -------------------------------------------------------------------------------

export type LineOp =
  | { kind: "same"; text: string; a: number; b: number }
  | { kind: "del"; text: string; a: number }
  | { kind: "add"; text: string; b: number };

/** Lines split on `\n`, so that joining with `\n` gives the text back (as the engine splits). */
export function splitLines(text: string): string[] {
  return text.split("\n");
}

/**
 * The shortest edit script from `a` to `b` (Myers), after trimming the common prefix and suffix.
 * When the two differ in more than `maxEdits` lines the middle is reported as one deletion
 * followed by one insertion: correct, only less precise, and never slow.
 */
export function diffLines(a: readonly string[], b: readonly string[], maxEdits = 2000): LineOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: LineOp[] = [];
  for (let i = 0; i < start; i++) out.push({ kind: "same", text: a[i] ?? "", a: i, b: i });
  const middle = myers(a, start, endA, b, start, endB, maxEdits);
  out.push(...middle);
  for (let i = 0; endA + i < a.length; i++) {
    out.push({ kind: "same", text: a[endA + i] ?? "", a: endA + i, b: endB + i });
  }
  return out;
}

function myers(
  a: readonly string[],
  a0: number,
  a1: number,
  b: readonly string[],
  b0: number,
  b1: number,
  maxEdits: number,
): LineOp[] {
  const n = a1 - a0;
  const m = b1 - b0;
  const replaceAll = (): LineOp[] => [
    ...a.slice(a0, a1).map((text, i): LineOp => ({ kind: "del", text, a: a0 + i })),
    ...b.slice(b0, b1).map((text, i): LineOp => ({ kind: "add", text, b: b0 + i })),
  ];
  if (n === 0 || m === 0) return replaceAll();
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  // trace[d]: the furthest x on each diagonal before step d, only the diagonals step d reads
  // (-d-1 ..= d+1): O(D^2) memory instead of O(D * (N + M)).
  const trace: { lo: number; xs: Int32Array }[] = [];
  let found = -1;
  for (let d = 0; d <= max; d++) {
    trace.push({ lo: offset - d - 1, xs: v.slice(offset - d - 1, offset + d + 2) });
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[a0 + x] === b[b0 + y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    v = next;
    if (found >= 0) break;
  }
  if (found < 0) return replaceAll();
  // Walk back through the trace to recover the path.
  const ops: LineOp[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const { lo, xs } = trace[d] as { lo: number; xs: Int32Array };
    const at = (diagonal: number): number => xs[offset + diagonal - lo] ?? 0;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: "same", text: a[a0 + x] ?? "", a: a0 + x, b: b0 + y });
    }
    if (down) {
      y--;
      ops.push({ kind: "add", text: b[b0 + y] ?? "", b: b0 + y });
    } else {
      x--;
      ops.push({ kind: "del", text: a[a0 + x] ?? "", a: a0 + x });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    ops.push({ kind: "same", text: a[a0 + x] ?? "", a: a0 + x, b: b0 + y });
  }
  return ops.reverse();
}

/** A line diff of two texts. */
export function diffText(before: string, after: string): LineOp[] {
  return diffLines(splitLines(before), splitLines(after));
}

/**
 * The lines of `after` (from 0) that differ from `before`: added or changed lines, and where
 * lines were only removed, the line that now stands in their place. What the Markdown editor
 * marks when another writer's change arrives (the lines of the versions panel's diff).
 */
export function changedLines(before: string, after: string): number[] {
  const last = splitLines(after).length - 1;
  const out = new Set<number>();
  let next = 0;
  for (const op of diffText(before, after)) {
    if (op.kind === "del") {
      out.add(Math.min(next, last));
    } else {
      if (op.kind === "add") out.add(op.b);
      next = op.b + 1;
    }
  }
  return [...out].sort((x, y) => x - y);
}

export type DiffBlock = { kind: "lines"; ops: LineOp[] } | { kind: "skip"; count: number };

/** Keeps `context` unchanged lines around each change and folds longer unchanged runs. */
export function foldUnchanged(ops: readonly LineOp[], context = 3): DiffBlock[] {
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach((op, i) => {
    if (op.kind === "same") return;
    for (let j = Math.max(0, i - context); j <= Math.min(ops.length - 1, i + context); j++) keep[j] = true;
  });
  const blocks: DiffBlock[] = [];
  let i = 0;
  while (i < ops.length) {
    if (keep[i]) {
      const run: LineOp[] = [];
      while (i < ops.length && keep[i]) run.push(ops[i++] as LineOp);
      blocks.push({ kind: "lines", ops: run });
    } else {
      let count = 0;
      while (i < ops.length && !keep[i]) {
        count++;
        i++;
      }
      blocks.push({ kind: "skip", count });
    }
  }
  return blocks;
}

export function countChanges(ops: readonly LineOp[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const op of ops) {
    if (op.kind === "add") added++;
    else if (op.kind === "del") removed++;
  }
  return { added, removed };
}

// ---- cells -------------------------------------------------------------------------------

export type Cell = string | number | boolean | null;

export interface CellChange {
  row: number;
  col: number;
  before: unknown;
  after: unknown;
}

export interface SheetChange {
  sheetId: string;
  name: string;
  status: "added" | "removed" | "changed";
  renamedFrom?: string;
  cells: CellChange[];
}

function cellAt(rows: readonly (readonly unknown[])[], r: number, c: number): unknown {
  const v = rows[r]?.[c];
  return v === undefined ? null : v;
}

/** The cells that differ between two grids (a missing cell counts as empty). */
export function changedCells(
  before: readonly (readonly unknown[])[],
  after: readonly (readonly unknown[])[],
): CellChange[] {
  const out: CellChange[] = [];
  const rows = Math.max(before.length, after.length);
  for (let r = 0; r < rows; r++) {
    const cols = Math.max(before[r]?.length ?? 0, after[r]?.length ?? 0);
    for (let c = 0; c < cols; c++) {
      const x = cellAt(before, r, c);
      const y = cellAt(after, r, c);
      if (!sameJson(x, y)) out.push({ row: r, col: c, before: x, after: y });
    }
  }
  return out;
}

/** Sheets matched by ID: added, removed, renamed, and their changed cells. */
export function diffSheets(before: SheetTab, after: SheetTab): SheetChange[] {
  const out: SheetChange[] = [];
  const old = new Map(before.sheets.map((s) => [s.id, s]));
  const now = new Map(after.sheets.map((s) => [s.id, s]));
  for (const s of after.sheets) {
    const o = old.get(s.id);
    if (!o) {
      out.push({ sheetId: s.id, name: s.name, status: "added", cells: changedCells([], s.rows) });
      continue;
    }
    const cells = changedCells(o.rows, s.rows);
    const renamed = o.name !== s.name;
    if (cells.length > 0 || renamed) {
      out.push({
        sheetId: s.id,
        name: s.name,
        status: "changed",
        ...(renamed ? { renamedFrom: o.name } : {}),
        cells,
      });
    }
  }
  for (const o of before.sheets) {
    if (!now.has(o.id)) out.push({ sheetId: o.id, name: o.name, status: "removed", cells: [] });
  }
  return out;
}

// ---- slides ------------------------------------------------------------------------------

export type SlideField = "title" | "body" | "notes" | "layout";

export interface SlideChange {
  slideId: string;
  status: "added" | "removed" | "changed" | "moved";
  /** Position in the newer deck (in the older one for a removed slide). */
  index: number;
  fields: SlideField[];
  before?: Slide;
  after?: Slide;
}

export interface DeckChange {
  theme?: { from: Theme; to: Theme };
  slides: SlideChange[];
}

const SLIDE_FIELDS: readonly SlideField[] = ["title", "body", "notes", "layout"];

/** Slides matched by ID: added, removed, edited (which fields), or only moved. */
export function diffDecks(before: Deck, after: Deck): DeckChange {
  const slides: SlideChange[] = [];
  const oldIndex = new Map(before.slides.map((s, i) => [s.id, i]));
  const newIds = new Set(after.slides.map((s) => s.id));
  // Relative order of the slides both decks share, to tell a real move from a shift.
  const sharedOld = before.slides.filter((s) => newIds.has(s.id)).map((s) => s.id);
  const sharedNew = after.slides.filter((s) => oldIndex.has(s.id)).map((s) => s.id);
  after.slides.forEach((s, index) => {
    const oi = oldIndex.get(s.id);
    if (oi === undefined) {
      slides.push({ slideId: s.id, status: "added", index, fields: [...SLIDE_FIELDS], after: s });
      return;
    }
    const o = before.slides[oi] as Slide;
    const fields = SLIDE_FIELDS.filter((f) => o[f] !== s[f]);
    const moved = sharedOld.indexOf(s.id) !== sharedNew.indexOf(s.id);
    if (fields.length > 0) slides.push({ slideId: s.id, status: "changed", index, fields, before: o, after: s });
    else if (moved) slides.push({ slideId: s.id, status: "moved", index, fields: [], before: o, after: s });
  });
  before.slides.forEach((s, index) => {
    if (!newIds.has(s.id)) slides.push({ slideId: s.id, status: "removed", index, fields: [], before: s });
  });
  return {
    ...(before.theme !== after.theme ? { theme: { from: before.theme, to: after.theme } } : {}),
    slides,
  };
}

// ---- lists (sources, files) --------------------------------------------------------------

export interface ListChange<T> {
  added: T[];
  removed: T[];
}

export function diffById<T extends { id: string }>(before: readonly T[], after: readonly T[]): ListChange<T> {
  const oldIds = new Set(before.map((x) => x.id));
  const newIds = new Set(after.map((x) => x.id));
  return {
    added: after.filter((x) => !oldIds.has(x.id)),
    removed: before.filter((x) => !newIds.has(x.id)),
  };
}

// ---- a whole Note ------------------------------------------------------------------------

/** A tab as compared: its content is read by its `type` (a `Tab` of the bindings is one). */
export interface ComparedTab {
  id: string;
  type: string;
  label: string;
  data: unknown;
}

/** A Note as compared: a version read back, or what the editors show now. */
export interface ComparedNote {
  title: string;
  tabs: readonly ComparedTab[];
}

export type TabContentChange =
  | { type: "markdown"; ops: LineOp[] }
  | { type: "sheet"; sheets: SheetChange[] }
  | { type: "slides"; deck: DeckChange }
  | { type: "sources" | "files"; list: ListChange<{ id: string } & Record<string, unknown>> };

export interface TabChange {
  tabId: string;
  type: string;
  label: string;
  status: "added" | "removed" | "changed";
  renamedFrom?: string;
  moved?: { from: number; to: number };
  content?: TabContentChange;
}

export interface NoteChange {
  title?: { from: string; to: string };
  tabs: TabChange[];
}

function contentChange(type: string, before: unknown, after: unknown): TabContentChange | undefined {
  switch (type) {
    case "markdown": {
      const ops = diffText(typeof before === "string" ? before : "", typeof after === "string" ? after : "");
      return ops.some((o) => o.kind !== "same") ? { type: "markdown", ops } : undefined;
    }
    case "sheet": {
      const sheets = diffSheets(before as SheetTab, after as SheetTab);
      return sheets.length > 0 ? { type: "sheet", sheets } : undefined;
    }
    case "slides": {
      const deck = diffDecks(before as Deck, after as Deck);
      return deck.theme || deck.slides.length > 0 ? { type: "slides", deck } : undefined;
    }
    case "sources":
    case "files": {
      type Item = { id: string } & Record<string, unknown>;
      const list = diffById((before ?? []) as Item[], (after ?? []) as Item[]);
      return list.added.length + list.removed.length > 0 ? { type, list } : undefined;
    }
    default:
      return undefined;
  }
}

/** What changed from `before` (say, an old version) to `after` (say, now), tab by tab. */
export function diffNotes(before: ComparedNote, after: ComparedNote): NoteChange {
  const tabs: TabChange[] = [];
  const oldTabs = new Map(before.tabs.map((t, i) => [t.id, { tab: t, index: i }]));
  const newIds = new Set(after.tabs.map((t) => t.id));
  after.tabs.forEach((t, index) => {
    const old = oldTabs.get(t.id);
    if (!old) {
      const empty = t.type === "markdown" ? "" : emptyData(t.type);
      tabs.push({
        tabId: t.id,
        type: t.type,
        label: t.label,
        status: "added",
        ...optional("content", contentChange(t.type, empty, t.data)),
      });
      return;
    }
    const content = contentChange(t.type, old.tab.data, t.data);
    const renamed = old.tab.label !== t.label;
    const moved = old.index !== index;
    if (content || renamed || moved) {
      tabs.push({
        tabId: t.id,
        type: t.type,
        label: t.label,
        status: "changed",
        ...(renamed ? { renamedFrom: old.tab.label } : {}),
        ...(moved ? { moved: { from: old.index, to: index } } : {}),
        ...optional("content", content),
      });
    }
  });
  before.tabs.forEach((t) => {
    if (!newIds.has(t.id)) tabs.push({ tabId: t.id, type: t.type, label: t.label, status: "removed" });
  });
  return {
    ...(before.title !== after.title ? { title: { from: before.title, to: after.title } } : {}),
    tabs,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function emptyData(type: string): unknown {
  switch (type) {
    case "sheet":
      return { sheets: [] };
    case "slides":
      return { theme: "paper", slides: [] };
    default:
      return [];
  }
}
