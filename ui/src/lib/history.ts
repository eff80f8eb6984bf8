// The Sheet and Slides editors' own undo / redo (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y): a stack of the
// person's steps per tab, each a list of operations that can be applied backwards (undo) or
// forwards (redo) onto whatever the tab holds *now*. Not to be confused with lib/undo.ts, the
// versions panel's "Undo this change", which reverts a saved version.
//
// Only the person's own edits are recorded. Another writer's change (the agent's, say) arrives
// as new content and is never a step; an operation whose part of the content another writer
// changed since is skipped ("kept"), never overwritten (see `applyStep` in sheetHistory.ts and
// deckHistory.ts). The stacks live outside the editor's component (`historyFor`), so they
// survive saves and the editor being shown again.

/** How one kind of operation is applied to a document, backwards or forwards. */
export interface OpKind<Doc, Op> {
  /**
   * `op` applied to `doc` (`undo`: backwards), or null when another writer changed the part of
   * `doc` it touches since (the operation is then skipped and `doc` left as it is).
   */
  apply(doc: Doc, op: Op, undo: boolean): Doc | null;
  /** What a skipped operation is, for the message ("B3", "slide 2's title"). */
  describe(op: Op): string;
  /** Two operations of a coalesced step folded into one, or null to keep both. */
  fold?(older: Op, newer: Op): Op | null;
}

export interface Step<Op> {
  ops: Op[];
  /** Steps with the same key, each within COALESCE_MS of the last, are one step (typing). */
  key?: string | undefined;
  at: number;
}

/** The outcome of an undo or redo: the new document, and what was kept as the other writer left it. */
export interface Applied<Doc, Op = unknown> {
  doc: Doc;
  /** Descriptions of the skipped operations (empty: all applied). */
  kept: string[];
  /** Some operation was applied. */
  changed: boolean;
  /** The operations applied, in the order applied (backwards when undoing). */
  applied: Op[];
}

export const COALESCE_MS = 1000;
export const MAX_STEPS = 200;

/** Applies a step's operations in order (redo) or in reverse order (undo). */
export function applyStep<Doc, Op>(kind: OpKind<Doc, Op>, doc: Doc, step: Step<Op>, undo: boolean): Applied<Doc, Op> {
  const ops = undo ? [...step.ops].reverse() : step.ops;
  const kept: string[] = [];
  const applied: Op[] = [];
  let cur = doc;
  for (const op of ops) {
    const next = kind.apply(cur, op, undo);
    if (next === null) kept.push(kind.describe(op));
    else {
      cur = next;
      applied.push(op);
    }
  }
  return { doc: cur, kept, changed: applied.length > 0, applied };
}

/** The person's undo and redo stacks of one tab. */
export class EditHistory<Doc, Op> {
  private done: Step<Op>[] = [];
  private undone: Step<Op>[] = [];

  constructor(private readonly kind: OpKind<Doc, Op>) {}

  get canUndo(): boolean {
    return this.done.length > 0;
  }

  get canRedo(): boolean {
    return this.undone.length > 0;
  }

  /** Steps on the undo stack (tests and the e2e read it). */
  get depth(): number {
    return this.done.length;
  }

  /** Records one of the person's edits; clears the redo stack. Empty edits are not steps. */
  record(ops: Op[], key: string | undefined, now: number): void {
    if (ops.length === 0) return;
    this.undone = [];
    const top = this.done[this.done.length - 1];
    if (top && key !== undefined && top.key === key && now - top.at < COALESCE_MS) {
      top.ops = this.folded(top.ops, ops);
      top.at = now;
      return;
    }
    this.done.push({ ops, key, at: now });
    if (this.done.length > MAX_STEPS) this.done.shift();
  }

  private folded(older: Op[], newer: Op[]): Op[] {
    const fold = this.kind.fold;
    const last = older[older.length - 1];
    if (fold && newer.length === 1 && last !== undefined) {
      const one = fold(last, newer[0] as Op);
      if (one !== null) return [...older.slice(0, -1), one];
    }
    return [...older, ...newer];
  }

  /** Takes back the newest step on `doc`; null when there is nothing to undo. */
  undo(doc: Doc): Applied<Doc, Op> | null {
    const step = this.done.pop();
    if (!step) return null;
    const out = applyStep(this.kind, doc, step, true);
    // A step of which nothing could be taken back is gone (the other writer replaced it all).
    if (out.changed) this.undone.push({ ...step, key: undefined });
    return out;
  }

  /** Does again the newest undone step on `doc`; null when there is nothing to redo. */
  redo(doc: Doc): Applied<Doc, Op> | null {
    const step = this.undone.pop();
    if (!step) return null;
    const out = applyStep(this.kind, doc, step, false);
    if (out.changed) this.done.push({ ...step, key: undefined });
    return out;
  }
}

const histories = new Map<string, EditHistory<unknown, unknown>>();

/** The tab's history, made on first use; kept while the app runs (across saves and remounts). */
export function historyFor<Doc, Op>(noteId: string, tabId: string, kind: OpKind<Doc, Op>): EditHistory<Doc, Op> {
  const key = `${noteId}\u0000${tabId}`;
  let h = histories.get(key);
  if (!h) {
    h = new EditHistory(kind) as EditHistory<unknown, unknown>;
    histories.set(key, h);
  }
  return h as EditHistory<Doc, Op>;
}

/** What the person reads after an undo or redo that kept some of another writer's changes. */
export function keptMessage(what: "Undo" | "Redo", kept: string[], changed: boolean): string | null {
  if (kept.length === 0) return null;
  const names = kept.length > 3 ? `${kept.slice(0, 3).join(", ")} and ${kept.length - 3} more` : kept.join(", ");
  return changed
    ? `${what} kept ${names}: changed by another writer since.`
    : `Nothing to ${what.toLowerCase()}: ${names} changed by another writer since.`;
}

/** Ctrl/Cmd+Z: "undo"; Ctrl/Cmd+Shift+Z or Ctrl+Y: "redo"; anything else: null. */
export function historyKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }): "undo" | "redo" | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const k = e.key.toLowerCase();
  if (k === "z") return e.shiftKey ? "redo" : "undo";
  if (k === "y" && !e.shiftKey) return "redo";
  return null;
}
