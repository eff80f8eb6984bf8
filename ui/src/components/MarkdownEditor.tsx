// The Markdown tab: CodeMirror 6 with Markdown highlighting and a rendered preview.
//
// Another writer's text (the agent's, or the result of a resolution) reaches the editor only
// when the store decided it may (no edit of the person's pending): it is applied as the smallest
// replacement, so the cursor, the selection and the scroll position stay where they were.

import { isTauri } from "@tauri-apps/api/core";
import { defaultKeymap, history, historyKeymap, indentWithTab, redo, undo } from "@codemirror/commands";
import { markdown, markdownLanguage } from "@codemirror/lang-markdown";
import { HighlightStyle, bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { highlightSelectionMatches, openSearchPanel, search, searchKeymap } from "@codemirror/search";
import { Annotation, Compartment, EditorState, type Extension, Text } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  dropCursor,
  highlightActiveLine,
  keymap,
  placeholder,
  rectangularSelection,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { enableSpelling, onFilesDropped, type TabView } from "../api";
import {
  adopted,
  attachDroppedImages,
  attachImages,
  contentFor,
  engineContent,
  imagesOf,
  imageUrl,
  localEdit,
  navigate,
  openLink,
  takeReveal,
  useApp,
} from "../app-state";
import { changedLines } from "../lib/diff";
import { locate } from "../lib/search";
import { type RenderContext, imageRefs, renderMarkdown } from "../lib/markdown";
import { minimalChange, splitLinesInParts } from "../lib/text";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { type LinkNote, insertImages, noteLinks, setNotes } from "./noteLinks";
import { markChanged, remoteMarks } from "./remoteMarks";
import { spellcheckOn } from "../lib/spelling";
import { spelling } from "./spelling";
import { type Marks, useRemoteMarks } from "./useRemoteMarks";
import { keyLabel, onEditorAction } from "../app-state/commands";

/** Marks transactions that carry another writer's text: they are not the person's edits. */
const fromEngine = Annotation.define<boolean>();

/**
 * Above this size the Markdown parser is switched off: in one very long paragraph it re-parses
 * the paragraph's inline syntax on every keystroke (about 300 ms per key for 1 MB without blank
 * lines, measured in Chromium), which is a stall the person would feel. The text is unchanged;
 * only its highlighting goes.
 */
export const HIGHLIGHT_LIMIT = 256 * 1024;

function language(large: boolean): Extension {
  return large ? [] : [markdown({ base: markdownLanguage }), syntaxHighlighting(markdownStyle)];
}

const markdownStyle = HighlightStyle.define([
  { tag: tags.heading1, fontSize: "1.6em", fontWeight: "700", color: "var(--ink)" },
  { tag: tags.heading2, fontSize: "1.35em", fontWeight: "700", color: "var(--ink)" },
  { tag: tags.heading3, fontSize: "1.15em", fontWeight: "650", color: "var(--ink)" },
  { tag: [tags.heading4, tags.heading5, tags.heading6], fontWeight: "650", color: "var(--ink)" },
  { tag: tags.strong, fontWeight: "700" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: tags.link, color: "var(--accent)" },
  { tag: tags.url, color: "var(--accent)", textDecoration: "underline" },
  { tag: tags.monospace, fontFamily: "var(--mono)", fontSize: "0.92em", color: "var(--code)" },
  { tag: tags.quote, color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.processingInstruction, tags.meta], color: "var(--faint)" },
  { tag: tags.contentSeparator, color: "var(--faint)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "15px", backgroundColor: "var(--paper)" },
  ".cm-scroller": { fontFamily: "var(--sans)", lineHeight: "1.65", overflow: "auto" },
  ".cm-content": { maxWidth: "46rem", margin: "0 auto", padding: "1.5rem 2rem 40vh", caretColor: "var(--ink)" },
  ".cm-line": { padding: "0" },
  "&.cm-focused": { outline: "none" },
  ".cm-activeLine": { backgroundColor: "transparent" },
  "&.cm-focused .cm-activeLine": { backgroundColor: "rgba(47, 91, 211, 0.04)" },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground": { backgroundColor: "rgba(47, 91, 211, 0.2) !important" },
  ".cm-placeholder": { color: "var(--faint)" },
});

/** The lines of `after` another writer's change brought, if any. */
function lineMarks(before: unknown, after: unknown): number[] | null {
  if (typeof before !== "string" || typeof after !== "string") return null;
  const lines = changedLines(before, after);
  return lines.length > 0 ? lines : null;
}

function marking({ by, marks }: Marks<number[]>) {
  return markChanged.of({ lines: marks, author: by.author, agent: by.agent });
}

let spellingAsked = false;

/** The platform's spell-checker, turned on by the first Markdown editor (not at start). */
function spellingOnce(): void {
  if (spellingAsked) return;
  spellingAsked = true;
  enableSpelling().catch(() => {
    // Without it the text is simply not checked.
  });
}

export function MarkdownEditor(props: { tab: TabView }) {
  const { tab } = props;
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const rev = useApp((s) => s.content[tab.id]?.rev ?? 0);
  // The lines another writer's change brought (the editor opened on it, or took it in).
  const [opened] = useState(() => contentFor(tab.id));
  const remote = useRemoteMarks(tab.id, opened, lineMarks, (late) => view.current?.dispatch({ effects: marking(late) }));
  const [preview, setPreview] = useState(false);
  const [large, setLarge] = useState(false);
  const noteId = useApp((s) => s.open?.noteId ?? null);
  const listed = useApp((s) => s.notes);
  const linkNotes = useMemo<LinkNote[]>(() => listed.map((n) => ({ id: n.id, title: n.title })), [listed]);
  const notesRef = useRef(linkNotes);
  notesRef.current = linkNotes;
  // The text the preview shows, and the attached images loaded so far: file ID -> object URL.
  // Its HTML is drawn from these and the Notes' titles (never kept apart from them: an image
  // that loads while the titles change is not drawn over by a render that did not have it).
  const [previewText, setPreviewText] = useState("");
  const [images, setImages] = useState<Record<string, string>>({});

  /** Shows `text` in the preview; the attached images it references are loaded (once each). */
  const showPreview = (text: string) => {
    setPreviewText(text);
    const id = noteId;
    if (!id) return;
    const wanted = imageRefs(text).filter((f) => !(f in images));
    if (wanted.length === 0) return;
    void Promise.all(wanted.map(async (f) => [f, await imageUrl(id, f)] as const)).then((pairs) => {
      const loaded = pairs.filter((p): p is readonly [string, string] => p[1] !== undefined);
      if (loaded.length > 0) setImages((was) => ({ ...was, ...Object.fromEntries(loaded) }));
    });
  };

  // The Notes' titles (a rename elsewhere) reach the editor's link widgets and the preview.
  useEffect(() => {
    view.current?.dispatch({ effects: setNotes.of(linkNotes) });
  }, [linkNotes]);

  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const first = contentFor(tab.id);
    let v: EditorView | null = null;
    let frame: number | null = null;
    // A large text: the Note's frame is drawn first, then the text is split into lines a part a
    // task, and the editor is built on those lines (no task holds the window for the whole).
    let cancelled = false;
    if (typeof first === "string" && first.length > HIGHLIGHT_LIMIT) {
      frame = requestAnimationFrame(() => {
        frame = null;
        void splitLinesInParts(first).then((lines) => {
          if (!cancelled) v = create(parent, { text: first, lines });
        });
      });
    } else {
      v = create(parent);
    }
    return () => {
      cancelled = true;
      if (frame !== null) cancelAnimationFrame(frame);
      view.current = null;
      v?.destroy();
    };
    // One editor per tab instance (the parent keys this component by tab ID).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Files dropped on the window (Tauri takes the drop, the page gets its number): attached, and
  // the images among them referenced at the cursor.
  useEffect(() => {
    let stop: (() => void) | null = null;
    let cancelled = false;
    if (isTauri()) {
      void onFilesDropped((dropped) => {
        const v = view.current;
        void attachDroppedImages(dropped.drop_id).then((images) => {
          if (v && view.current === v) insertImages(v, images, v.state.selection.main.head);
        });
      }).then(
        (un) => (cancelled ? un() : (stop = un)),
        () => undefined,
      );
    }
    return () => {
      cancelled = true;
      stop?.();
    };
  }, []);

  // A search result opened here: select the first match (once the editor exists).
  const reveal = useApp((s) => s.reveal);
  useEffect(() => {
    const v = view.current;
    if (v) revealIn(v);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal]);

  const revealIn = (v: EditorView) =>
    takeReveal(tab.id, (q) => {
      const place = locate("markdown", v.state.doc.toString(), q);
      if (place?.kind !== "line") return false;
      const line = v.state.doc.line(place.line + 1);
      v.dispatch({
        selection: { anchor: line.from + place.from, head: line.from + place.to },
        scrollIntoView: true,
      });
      v.focus();
      return true;
    });

  /**
   * Builds the editor on the tab's content as of now (the person's newer edits first); `split`:
   * a text already split into lines, used when it is still the content.
   */
  const create = (parent: HTMLElement, split?: { text: string; lines: string[] }): EditorView => {
    performance.mark("quire:editor-create");
    spellingOnce();
    const initial = contentFor(tab.id);
    const tabId = tab.id;
    const lang = new Compartment();
    let isLarge = typeof initial === "string" && initial.length > HIGHLIGHT_LIMIT;
    setLarge(isLarge);
    const st = EditorState.create({
        doc: split && split.text === initial ? Text.of(split.lines) : typeof initial === "string" ? initial : "",
        extensions: [
          history(),
          drawSelection(),
          dropCursor(),
          rectangularSelection(),
          indentOnInput(),
          bracketMatching(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          search({ top: true }),
          keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
          lang.of(language(isLarge)),
          EditorView.lineWrapping,
          // WebKitWebDriver types "\n" as a bare keydown (no text input): a line break, as typed.
          EditorView.domEventHandlers({
            keydown(e, view) {
              if (e.key !== "\n") return false;
              view.dispatch(view.state.replaceSelection("\n"), { userEvent: "input.type", scrollIntoView: true });
              return true;
            },
          }),
          remoteMarks(),
          spelling(spellcheckOn()),
          noteLinks({
            openNote: (id) => navigate({ kind: "note", noteId: id }),
            attachImages,
            imagesOf,
          }),
          placeholder("Start writing…  (Markdown: # heading, **bold**, - list)"),
          EditorView.contentAttributes.of({ "aria-label": `${tab.label}: Markdown text`, "aria-multiline": "true" }),
          theme,
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const nowLarge = update.state.doc.length > HIGHLIGHT_LIMIT;
            if (nowLarge !== isLarge) {
              isLarge = nowLarge;
              setLarge(nowLarge);
              // Outside this update: reconfigure once it is done.
              queueMicrotask(() => v.dispatch({ effects: lang.reconfigure(language(nowLarge)) }));
            }
            if (update.transactions.every((tr) => tr.annotation(fromEngine))) return;
            localEdit(tabId, () => v.state.doc.toString(), update.state.doc.length);
          }),
        ],
      });
    performance.mark("quire:editor-state");
    const v = new EditorView({ parent, state: st });
    view.current = v;
    v.dispatch({ effects: setNotes.of(notesRef.current) });
    if (remote.marks) v.dispatch({ effects: marking(remote.marks) });
    revealIn(v);
    performance.mark("quire:editor-built");
    return v;
  };

  // Text from the engine (another writer, a resolution): applied only when the store allowed it.
  useEffect(() => {
    const v = view.current;
    if (!v || rev === 0) return;
    const data = engineContent(tab.id);
    if (typeof data !== "string") return;
    const shown = v.state.doc.toString();
    const change = minimalChange(shown, data);
    if (!change) {
      adopted(tab.id);
      return;
    }
    const marks = remote.took(shown, data);
    v.dispatch({
      changes: change,
      effects: marks ? marking(marks) : [],
      annotations: [fromEngine.of(true)],
      // Keep the viewport where the person was reading.
      scrollIntoView: false,
    });
    adopted(tab.id);
    if (preview) showPreview(data);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rev]);

  const togglePreview = () => {
    const next = !preview;
    if (next && view.current) showPreview(view.current.state.doc.toString());
    setPreview(next);
    if (!next) requestAnimationFrame(() => view.current?.focus());
  };

  // The command palette's "Toggle preview".
  useEffect(() =>
    onEditorAction(tab.id, (action) => {
      const v = view.current;
      if (action === "toggle-preview") togglePreview();
      else if (!v || preview) return;
      else if (action === "undo") undo(v);
      else if (action === "redo") redo(v);
      else if (action === "find") openSearchPanel(v);
      v?.focus();
    }),
  );

  const onPreviewClick = (e: MouseEvent) => {
    const a = (e.target as HTMLElement).closest("a");
    if (!a) return;
    if (a.dataset.noteId) {
      e.preventDefault();
      navigate({ kind: "note", noteId: a.dataset.noteId });
      return;
    }
    const href = a.getAttribute("href") ?? "";
    if (a.dataset.external === "true") {
      e.preventDefault();
      void openLink(href);
    } else if (href.startsWith("#")) {
      // In-page anchors would change the app's route: scroll instead.
      e.preventDefault();
    }
  };

  // The preview's HTML: Notes' current titles, the attached images loaded so far.
  const html = useMemo(() => {
    if (!preview) return { __html: "" };
    const titles = new Map(linkNotes.map((n) => [n.id, n.title]));
    const ctx: RenderContext = {
      title: (id) => titles.get(id),
      byTitle: (title) => {
        const key = title.trim().toLowerCase();
        const same = linkNotes.filter((n) => n.title.trim().toLowerCase() === key);
        return same.length === 1 ? same[0]?.id : undefined;
      },
      image: (fileId) => images[fileId],
    };
    return { __html: renderMarkdown(previewText, ctx) };
  }, [preview, previewText, images, linkNotes]);

  return (
    <div class="md-editor">
      <div class="editor-toolbar">
        <div class="segmented" role="group" aria-label="Mode">
          <button
            type="button"
            class={!preview ? "is-on" : ""}
            aria-pressed={!preview}
            onClick={() => preview && togglePreview()}
          >
            <Icon name="edit" /> Write
          </button>
          <button
            type="button"
            class={preview ? "is-on" : ""}
            aria-pressed={preview}
            data-testid={TID.markdownPreviewToggle}
            aria-keyshortcuts="Control+Shift+E"
            title={`Preview (${keyLabel("preview")})`}
            onClick={() => !preview && togglePreview()}
          >
            <Icon name="eye" /> Preview
          </button>
        </div>
        {large && (
          <span class="muted small" title="Highlighting is off above 256 KB so typing stays instant">
            Large text: highlighting off
          </span>
        )}
      </div>
      <div
        class="md-host"
        ref={host}
        data-testid={TID.editorMarkdown}
        data-tab-id={tab.id}
        hidden={preview}
        onKeyDown={(e) => {
          if (e.ctrlKey && e.shiftKey && (e.key === "E" || e.key === "e")) {
            e.preventDefault();
            togglePreview();
          }
        }}
      />
      {preview && (
        <div
          class="md-preview"
          data-testid={TID.markdownPreview}
          tabIndex={0}
          onClick={onPreviewClick}
          onKeyDown={(e) => {
            if (e.ctrlKey && e.shiftKey && (e.key === "E" || e.key === "e")) {
              e.preventDefault();
              togglePreview();
            }
          }}
          // renderMarkdown escapes raw HTML and keeps only web links (lib/markdown.ts).
          dangerouslySetInnerHTML={html}
        />
      )}
    </div>
  );
}
