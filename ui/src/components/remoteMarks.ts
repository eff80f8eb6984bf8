// The lines another writer's change brought into the Markdown editor, marked with the author's
// name until the person has seen them: a click in the editor, or a few seconds of focus. The
// marks move with the text as the person types (they are CodeMirror line decorations).

import { type EditorState, type Extension, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from "@codemirror/view";
import { TID } from "../testids";

/** How long the editor must have focus, with marks shown, before they count as seen. */
export const SEEN_AFTER_MS = 5000;

/** Marks these lines (from 0, in the document after the transaction) as `author`'s. */
export const markChanged = StateEffect.define<{ lines: number[]; author: string; agent: boolean }>();
/** The person has seen the marks: they go. */
export const clearChanged = StateEffect.define<null>();

const marks = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    let next = deco.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(clearChanged)) {
        next = Decoration.none;
      } else if (e.is(markChanged)) {
        const { lines, author, agent } = e.value;
        const mark = Decoration.line({
          class: agent ? "cm-remote-change is-agent" : "cm-remote-change",
          attributes: { title: `Changed by ${author}`, "data-testid": TID.remoteChange, "data-author": author },
        });
        const doc = tr.state.doc;
        next = next.update({
          add: lines.filter((n) => n < doc.lines).map((n) => mark.range(doc.line(n + 1).from)),
          sort: true,
        });
      }
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/** Seen after SEEN_AFTER_MS of focus (counted from when marks arrive or the editor takes focus). */
const seenByFocus = ViewPlugin.fromClass(
  class {
    timer: ReturnType<typeof setTimeout> | null = null;
    constructor(readonly view: EditorView) {}
    update(u: ViewUpdate) {
      const added = u.transactions.some((tr) => tr.effects.some((e) => e.is(markChanged)));
      if (added || u.focusChanged) this.arm();
    }
    arm() {
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      if (!this.view.hasFocus || this.view.state.field(marks).size === 0) return;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.view.dispatch({ effects: clearChanged.of(null) });
      }, SEEN_AFTER_MS);
    }
    destroy() {
      if (this.timer !== null) clearTimeout(this.timer);
    }
  },
);

const seenByClick = EditorView.domEventHandlers({
  mousedown(_e, view) {
    if (view.state.field(marks).size > 0) view.dispatch({ effects: clearChanged.of(null) });
    return false;
  },
});

/** The lines marked now (from 0), with their authors. */
export function markedLines(state: EditorState): { line: number; author: string }[] {
  const out: { line: number; author: string }[] = [];
  state.field(marks).between(0, state.doc.length, (from, _to, deco) => {
    out.push({ line: state.doc.lineAt(from).number - 1, author: String(deco.spec.attributes?.["data-author"]) });
  });
  return out;
}

export function remoteMarks(): Extension {
  return [marks, seenByFocus, seenByClick];
}
