// Spell-check in the Markdown editor: the platform's own checker (WebKitGTK's, through enchant,
// switched on for the window by the app), on by default and off in code: fenced and indented
// code blocks get `spellcheck="false"` on their lines, inline code and link targets on their
// text, so `fn mian()` and `https://exmaple.org` are not underlined as misspelt.

import { syntaxTree } from "@codemirror/language";
import type { EditorState, Extension, Range } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate } from "@codemirror/view";

/** Syntax nodes whose text is code or an address, not prose. */
const BLOCKS = new Set(["FencedCode", "CodeBlock", "HTMLBlock"]);
const INLINE = new Set(["InlineCode", "URL", "Autolink", "HTMLTag"]);

const offLine = Decoration.line({ attributes: { spellcheck: "false" } });
const offText = Decoration.mark({ attributes: { spellcheck: "false" }, class: "cm-nospell" });

/** Where spell-check is off in `state`'s visible `ranges`: `lines` (line starts) and `marks` ([from, to]). */
export function codeRanges(
  state: EditorState,
  ranges: readonly { from: number; to: number }[] = [{ from: 0, to: state.doc.length }],
): { lines: number[]; marks: [number, number][] } {
  const lines: number[] = [];
  const marks: [number, number][] = [];
  const tree = syntaxTree(state);
  for (const { from, to } of ranges) {
    tree.iterate({
      from,
      to,
      enter(node) {
        if (BLOCKS.has(node.name)) {
          const first = state.doc.lineAt(node.from).number;
          const last = state.doc.lineAt(node.to).number;
          for (let n = first; n <= last; n++) lines.push(state.doc.line(n).from);
          return false;
        }
        if (INLINE.has(node.name)) {
          if (node.to > node.from) marks.push([node.from, node.to]);
          return false;
        }
        return undefined;
      },
    });
  }
  return { lines: [...new Set(lines)].sort((a, b) => a - b), marks };
}

function decorations(view: EditorView): DecorationSet {
  const { lines, marks } = codeRanges(view.state, view.visibleRanges);
  const all: Range<Decoration>[] = [
    ...lines.map((at) => offLine.range(at)),
    ...marks.map(([from, to]) => offText.range(from, to)),
  ];
  return Decoration.set(all, true);
}

const codeOff = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = decorations(view);
    }
    update(u: ViewUpdate) {
      if (u.docChanged || u.viewportChanged || syntaxTree(u.startState) !== syntaxTree(u.state)) {
        this.decorations = decorations(u.view);
      }
    }
  },
  { decorations: (p) => p.decorations },
);

/** The editor's spell-check: on for prose, off in code (or off everywhere). */
export function spelling(on: boolean): Extension {
  return on
    ? [EditorView.contentAttributes.of({ spellcheck: "true", autocorrect: "off", autocapitalize: "off" }), codeOff]
    : EditorView.contentAttributes.of({ spellcheck: "false" });
}
