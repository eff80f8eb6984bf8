// The Slides editor's undo operations (see lib/history.ts), found by comparing the deck before
// and after each of the person's edits: a field of a slide (title, body, notes, layout), the
// order of the slides, a slide added or deleted, the theme. Each is applied to the deck as it is
// now and only where that part is still as the person left it: a slide's title the agent wrote
// since keeps the agent's text.

import type { OpKind } from "./history";

export interface HistorySlide {
  id: string;
  title: string;
  body: string;
  notes: string;
  layout: string;
}

export interface HistoryDeck {
  theme: string;
  slides: HistorySlide[];
}

export type SlideField = "title" | "body" | "notes" | "layout";
const FIELDS: SlideField[] = ["title", "body", "notes", "layout"];

export type DeckOp =
  | { kind: "theme"; before: string; after: string }
  | { kind: "field"; slide: string; field: SlideField; before: string; after: string }
  | { kind: "order"; before: string[]; after: string[] }
  | { kind: "slide"; index: number; insert: boolean; slide: HistorySlide };

function sameSlide(a: HistorySlide, b: HistorySlide): boolean {
  return FIELDS.every((f) => a[f] === b[f]);
}

/** The operations that turn `before` into `after`. */
export function deckOps(before: HistoryDeck, after: HistoryDeck): DeckOp[] {
  const ops: DeckOp[] = [];
  if (before.theme !== after.theme) ops.push({ kind: "theme", before: before.theme, after: after.theme });
  const was = new Map(before.slides.map((s) => [s.id, s]));
  const now = new Map(after.slides.map((s) => [s.id, s]));
  before.slides.forEach((s, index) => {
    if (!now.has(s.id)) ops.push({ kind: "slide", index, insert: false, slide: s });
  });
  // The order of the slides in both.
  const kept = (list: HistorySlide[], other: Map<string, HistorySlide>) => list.filter((s) => other.has(s.id)).map((s) => s.id);
  const order = { before: kept(before.slides, now), after: kept(after.slides, was) };
  if (order.before.join("\u0000") !== order.after.join("\u0000")) ops.push({ kind: "order", ...order });
  for (const s of after.slides) {
    const old = was.get(s.id);
    if (!old) continue;
    for (const field of FIELDS) {
      if (old[field] !== s[field]) ops.push({ kind: "field", slide: s.id, field, before: old[field], after: s[field] });
    }
  }
  after.slides.forEach((s, index) => {
    if (!was.has(s.id)) ops.push({ kind: "slide", index, insert: true, slide: s });
  });
  return ops;
}

/** `slides` with the ones named in `ids` put in that order, in the places they hold now. */
function reordered(slides: HistorySlide[], ids: string[]): HistorySlide[] {
  const set = new Set(ids);
  const byId = new Map(slides.map((s) => [s.id, s]));
  const queue = ids.filter((id) => byId.has(id)).map((id) => byId.get(id) as HistorySlide);
  return slides.map((s) => (set.has(s.id) ? (queue.shift() as HistorySlide) : s));
}

function applyDeckOp(doc: HistoryDeck, op: DeckOp, undo: boolean): HistoryDeck | null {
  switch (op.kind) {
    case "theme": {
      const [expect, target] = undo ? [op.after, op.before] : [op.before, op.after];
      return doc.theme === expect ? { ...doc, theme: target } : null;
    }
    case "field": {
      const [expect, target] = undo ? [op.after, op.before] : [op.before, op.after];
      const s = doc.slides.find((x) => x.id === op.slide);
      if (!s || s[op.field] !== expect) return null;
      return { ...doc, slides: doc.slides.map((x) => (x.id === op.slide ? { ...x, [op.field]: target } : x)) };
    }
    case "order": {
      const [expect, target] = undo ? [op.after, op.before] : [op.before, op.after];
      const present = new Set(doc.slides.map((s) => s.id));
      const now = doc.slides.filter((s) => expect.includes(s.id)).map((s) => s.id);
      if (now.join("\u0000") !== expect.filter((id) => present.has(id)).join("\u0000")) return null;
      return { ...doc, slides: reordered(doc.slides, target) };
    }
    case "slide": {
      const adding = op.insert !== undo;
      const at = doc.slides.findIndex((s) => s.id === op.slide.id);
      if (adding) {
        if (at >= 0) return null;
        const slides = doc.slides.slice();
        slides.splice(Math.min(op.index, slides.length), 0, op.slide);
        return { ...doc, slides };
      }
      const cur = doc.slides[at];
      if (!cur || !sameSlide(cur, op.slide)) return null;
      return { ...doc, slides: doc.slides.filter((s) => s.id !== op.slide.id) };
    }
  }
}

const FIELD_NAMES: Record<SlideField, string> = { title: "title", body: "body", notes: "speaker notes", layout: "layout" };

export const DECK_OPS: OpKind<HistoryDeck, DeckOp> = {
  apply: applyDeckOp,
  describe: (op) => {
    switch (op.kind) {
      case "theme":
        return "the theme";
      case "field":
        return `a slide's ${FIELD_NAMES[op.field]}`;
      case "order":
        return "the slides' order";
      case "slide":
        return `the slide “${op.slide.title || "Untitled slide"}”`;
    }
  },
  fold: (older, newer) =>
    older.kind === "field" && newer.kind === "field" && older.slide === newer.slide && older.field === newer.field
      ? { ...older, after: newer.after }
      : null,
};
