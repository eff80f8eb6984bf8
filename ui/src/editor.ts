import { markdown } from "@codemirror/lang-markdown";
import { EditorView, basicSetup } from "codemirror";

/** Mounts a Markdown editor into `parent`. */
export function mountEditor(parent: HTMLElement, doc: string): EditorView {
  return new EditorView({
    doc,
    parent,
    extensions: [basicSetup, markdown(), EditorView.lineWrapping],
  });
}
