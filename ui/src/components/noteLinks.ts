// Links between Notes and attached images in the Markdown editor (CodeMirror 6):
//
// - typing `[[` offers the Notes by title; picking one writes `[Title](quire:note/ID)`;
// - each stored link shows as the target's current title (a widget) while the cursor is not
//   in it, so a renamed Note reads right without rewriting the text; with the cursor in it
//   the Markdown shows as written;
// - Ctrl+click (Cmd+click on macOS) on a link opens its Note;
// - a pasted or dropped image is attached to the Note and `![name](quire:file/ID)` inserted.
//
// The parsing lives in lib/markdown.ts (tested there); this file wires it into the editor.

import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { type EditorState, type Extension, RangeSetBuilder, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate, WidgetType } from "@codemirror/view";
import { findNoteLinks, imageLink, matchTitles, noteLink, openWikiLink } from "../lib/markdown";

export type LinkNote = { id: string; title: string };

/** The Notes as listed (for titles and completion): set with `setNotes`. */
export const setNotes = StateEffect.define<LinkNote[]>();

const notesField = StateField.define<LinkNote[]>({
  create: () => [],
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setNotes)) return e.value;
    return value;
  },
});

class LinkWidget extends WidgetType {
  constructor(
    readonly id: string,
    readonly title: string | undefined,
    readonly written: string,
  ) {
    super();
  }
  eq(other: LinkWidget): boolean {
    return other.id === this.id && other.title === this.title && other.written === this.written;
  }
  toDOM(): HTMLElement {
    const span = document.createElement("span");
    span.className = this.title === undefined ? "cm-note-link is-missing" : "cm-note-link";
    span.dataset.noteId = this.id;
    span.textContent = this.title === undefined ? this.written : this.title || "Untitled";
    span.title = this.title === undefined ? "No such Note (it may be in the trash)" : `${modKey()}+click to open`;
    return span;
  }
  ignoreEvent(): boolean {
    return false;
  }
}

function modKey(): string {
  return /Mac|iPhone|iPad/.test(navigator.platform) ? "Cmd" : "Ctrl";
}

/**
 * The link decorations of the lines `ranges` touch (the view's visible ranges): a link never
 * spans lines, so those lines are all that is read. A long text is never read whole per
 * keystroke, cursor move or scroll.
 */
export function linkDecorations(state: EditorState, ranges: readonly { from: number; to: number }[]): DecorationSet {
  const notes = state.field(notesField);
  const titles = new Map(notes.map((n) => [n.id, n.title]));
  const builder = new RangeSetBuilder<Decoration>();
  const sel = state.selection.main;
  let done = 0;
  for (const range of ranges) {
    const from = Math.max(state.doc.lineAt(range.from).from, done);
    const to = state.doc.lineAt(range.to).to;
    if (from > to) continue;
    done = to + 1;
    for (const link of findNoteLinks(state.sliceDoc(from, to))) {
      const at = from + link.from;
      const end = from + link.to;
      const touched = sel.from <= end && sel.to >= at;
      if (touched) {
        builder.add(at, end, Decoration.mark({ class: "cm-note-link-source" }));
      } else {
        const widget = new LinkWidget(link.id, titles.get(link.id), link.text);
        builder.add(at, end, Decoration.replace({ widget }));
      }
    }
  }
  return builder.finish();
}

const linkDecorationsPlugin = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = linkDecorations(view.state, view.visibleRanges);
    }
    update(u: ViewUpdate) {
      const notesChanged = u.transactions.some((tr) => tr.effects.some((e) => e.is(setNotes)));
      if (u.docChanged || u.selectionSet || u.viewportChanged || notesChanged) {
        this.decorations = linkDecorations(u.state, u.view.visibleRanges);
      }
    }
  },
  {
    decorations: (v) => v.decorations,
    provide: (p) => EditorView.atomicRanges.of((view) => view.plugin(p)?.decorations ?? Decoration.none),
  },
);

function linkCompletion(context: CompletionContext): CompletionResult | null {
  const line = context.state.doc.lineAt(context.pos);
  const open = openWikiLink(line.text.slice(0, context.pos - line.from));
  if (!open) return null;
  const from = line.from + open.from;
  const notes = context.state.field(notesField);
  // A closing "]]" typed (or auto-inserted) right after the cursor goes with the completion.
  const after = context.state.sliceDoc(context.pos, context.pos + 2);
  const to = after === "]]" ? context.pos + 2 : context.pos;
  return {
    from,
    to,
    filter: false,
    options: matchTitles(notes, open.query).map((n) => ({
      label: n.title || "Untitled",
      type: "text",
      detail: "Note",
      apply: (view: EditorView, _c: unknown, f: number, t: number) => {
        const text = noteLink(n.id, n.title);
        view.dispatch({ changes: { from: f, to: t, insert: text }, selection: { anchor: f + text.length }, userEvent: "input.complete" });
      },
    })),
  };
}

/** The ID of the Note link at `pos`, if any. */
function linkAt(state: EditorState, pos: number): string | null {
  const line = state.doc.lineAt(pos);
  for (const link of findNoteLinks(line.text)) {
    if (pos >= line.from + link.from && pos <= line.from + link.to) return link.id;
  }
  return null;
}

export type LinkHandlers = {
  /** Opens the Note `id` (Ctrl/Cmd+click on a link). */
  openNote: (id: string) => void;
  /** Attaches images (pasted or dropped); resolves to those attached. */
  attachImages: (files: File[]) => Promise<{ fileId: string; name: string }[]>;
  /** The images among a paste's or drop's files. */
  imagesOf: (files: FileList | null | undefined) => File[];
};

/** Inserts the references of attached images at `at` (one a line), the cursor after them. */
export function insertImages(view: EditorView, attached: { fileId: string; name: string }[], at: number): void {
  if (attached.length === 0) return;
  const text = attached.map((a) => imageLink(a.fileId, a.name)).join("\n");
  const pos = Math.min(at, view.state.doc.length);
  view.dispatch({ changes: { from: pos, insert: text }, selection: { anchor: pos + text.length }, userEvent: "input.paste" });
}

/** Everything links and images add to the Markdown editor. */
export function noteLinks(handlers: LinkHandlers): Extension {
  const attachAndInsert = (view: EditorView, files: File[], at: number) => {
    void handlers.attachImages(files).then((attached) => insertImages(view, attached, at));
  };
  return [
    notesField,
    linkDecorationsPlugin,
    autocompletion({ override: [linkCompletion], activateOnTyping: true, icons: false }),
    EditorView.domEventHandlers({
      mousedown(e, view) {
        if (!(e.ctrlKey || e.metaKey) || e.button !== 0) return false;
        const el = (e.target as HTMLElement).closest<HTMLElement>("[data-note-id]");
        let id = el?.dataset.noteId ?? null;
        if (!id) {
          const pos = view.posAtCoords({ x: e.clientX, y: e.clientY });
          if (pos !== null) id = linkAt(view.state, pos);
        }
        if (!id) return false;
        e.preventDefault();
        handlers.openNote(id);
        return true;
      },
      paste(e, view) {
        const images = handlers.imagesOf(e.clipboardData?.files);
        if (images.length === 0) return false;
        e.preventDefault();
        attachAndInsert(view, images, view.state.selection.main.head);
        return true;
      },
      drop(e, view) {
        const images = handlers.imagesOf(e.dataTransfer?.files);
        if (images.length === 0) return false;
        e.preventDefault();
        const pos = view.posAtCoords({ x: e.clientX, y: e.clientY }) ?? view.state.selection.main.head;
        attachAndInsert(view, images, pos);
        return true;
      },
    }),
    EditorView.theme({
      ".cm-note-link": {
        color: "var(--accent)",
        textDecoration: "underline",
        textDecorationStyle: "dotted",
        cursor: "pointer",
      },
      ".cm-note-link.is-missing": { color: "var(--muted)", textDecoration: "line-through" },
      ".cm-note-link-source": { color: "var(--accent)" },
    }),
  ];
}
