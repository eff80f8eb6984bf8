// The Markdown preview: GitHub-flavoured Markdown rendered by `marked`, made safe for
// `innerHTML`. Raw HTML in the text is shown as text, never interpreted; links keep only http,
// https and mailto targets (and in-page anchors); web images are not fetched (the preview shows
// their alt text as a link instead). The agent writes into these tabs: nothing it writes may run.
//
// Links between Notes are stored as `[Title](quire:note/ID)`: they resolve by the ID, the
// preview and the editor show the target's current title, and export and the agent read a
// plain Markdown link. `[[Title]]` typed by hand (or written by the agent) links to the Note
// of that title, if exactly one has it. Attached images are `![alt](quire:file/FILE_ID)`: the
// preview shows the attachment's content (an object URL the app made), nothing else.

import { Marked, type TokenizerAndRendererExtension, type Tokens } from "marked";

export const NOTE_LINK_PREFIX = "quire:note/";
export const FILE_LINK_PREFIX = "quire:file/";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FILE_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/** The stored form of a link to the Note `id` shown as `title`. */
export function noteLink(id: string, title: string): string {
  return `[${linkText(title)}](${NOTE_LINK_PREFIX}${id})`;
}

/** The stored form of an attached image. */
export function imageLink(fileId: string, name: string): string {
  return `![${linkText(name)}](${FILE_LINK_PREFIX}${fileId})`;
}

/** Text safe inside `[...]`: brackets and backslashes escaped, on one line. */
function linkText(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim() || "Untitled";
  return flat.replace(/[\\[\]]/g, (c) => `\\${c}`);
}

/** The Note ID of a `quire:note/ID` target, or null. */
export function noteIdOf(href: string): string | null {
  const h = href.trim();
  if (!h.startsWith(NOTE_LINK_PREFIX)) return null;
  const id = h.slice(NOTE_LINK_PREFIX.length);
  return UUID.test(id) ? id : null;
}

/** The file ID of a `quire:file/ID` target, or null. */
export function fileIdOf(href: string): string | null {
  const h = href.trim();
  if (!h.startsWith(FILE_LINK_PREFIX)) return null;
  const id = h.slice(FILE_LINK_PREFIX.length);
  return FILE_ID.test(id) ? id : null;
}

/** A link to a Note found in the text: where its whole `[text](quire:note/ID)` is, and the ID. */
export type NoteLinkRange = { from: number; to: number; id: string; text: string };

const STORED_LINK = /\[((?:\\.|[^\]\\\n])*)\]\(quire:note\/([0-9a-f-]{36})\)/g;

/** Every stored link to a Note in `text`, in order (for the editor's decorations). */
export function findNoteLinks(text: string): NoteLinkRange[] {
  const out: NoteLinkRange[] = [];
  for (const m of text.matchAll(STORED_LINK)) {
    const [whole, shown = "", id = ""] = m;
    if (!UUID.test(id)) continue;
    out.push({ from: m.index, to: m.index + whole.length, id, text: shown.replace(/\\(.)/g, "$1") });
  }
  return out;
}

/** The IDs of the attached images `text` shows (`![..](quire:file/ID)`), each once. */
export function imageRefs(text: string): string[] {
  const ids = new Set<string>();
  for (const m of text.matchAll(/!\[[^\]\n]*\]\(quire:file\/([A-Za-z0-9_.-]{1,100})\)/g)) if (m[1]) ids.add(m[1]);
  return [...ids];
}

/**
 * If the text before the cursor ends in an open `[[` (no `]]`, no line break), what was typed
 * after it and where the `[[` starts; else null. For the completion of links as one types.
 */
export function openWikiLink(before: string): { from: number; query: string } | null {
  const at = before.lastIndexOf("[[");
  if (at < 0) return null;
  const query = before.slice(at + 2);
  if (/[\]\n]/.test(query) || query.length > 200) return null;
  return { from: at, query };
}

/** Notes for a `[[query` completion, best first: titles that start with the query, then contain it. */
export function matchTitles<T extends { title: string }>(notes: T[], query: string, limit = 20): T[] {
  const q = query.trim().toLowerCase();
  const starts: T[] = [];
  const contains: T[] = [];
  for (const n of notes) {
    const t = n.title.toLowerCase();
    if (t.startsWith(q)) starts.push(n);
    else if (t.includes(q)) contains.push(n);
  }
  return [...starts, ...contains].slice(0, limit);
}

/** What the preview knows beyond the text: the Notes (for titles) and the loaded images. */
export type RenderContext = {
  /** The current title of the Note `id`, or undefined when no such Note is listed. */
  title?: (id: string) => string | undefined;
  /** The ID of the one Note titled `title` (for `[[Title]]`), or undefined. */
  byTitle?: (title: string) => string | undefined;
  /** An object URL (`blob:`) with the attached image's content, or undefined (not loaded, not an image). */
  image?: (fileId: string) => string | undefined;
};

let context: RenderContext = {};

function noteAnchor(id: string, shown: string): string {
  const title = context.title?.(id);
  if (title === undefined) {
    return `<span class="md-note-link is-missing" data-note-id="${escapeHtml(id)}" title="No such Note (it may be in the trash)">${shown}</span>`;
  }
  return `<a class="md-note-link" href="#" data-note-id="${escapeHtml(id)}">${escapeHtml(title || "Untitled")}</a>`;
}

const wikiLink: TokenizerAndRendererExtension = {
  name: "wikiLink",
  level: "inline",
  start(src: string) {
    const i = src.indexOf("[[");
    return i < 0 ? undefined : i;
  },
  tokenizer(src: string) {
    const m = /^\[\[([^\[\]\n]{1,200})\]\]/.exec(src);
    if (!m) return undefined;
    return { type: "wikiLink", raw: m[0], title: (m[1] ?? "").trim() };
  },
  renderer(token) {
    const title = String(token.title);
    const id = context.byTitle?.(title);
    if (id === undefined) {
      return `<span class="md-note-link is-missing" title="No Note is titled so">[[${escapeHtml(title)}]]</span>`;
    }
    return noteAnchor(id, escapeHtml(title));
  },
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** A link target the preview may point at, or null. Relative paths and other schemes are dropped. */
export function safeHref(href: string): string | null {
  const trimmed = href.trim();
  if (trimmed.startsWith("#")) return trimmed;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : null;
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const inner = this.parser.parseInline(tokens);
      const noteId = noteIdOf(href);
      if (noteId !== null) return noteAnchor(noteId, inner);
      const safe = safeHref(href);
      if (safe === null) return `<span class="md-link-dropped" title="Link not opened: ${escapeHtml(href)}">${inner}</span>`;
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : "";
      const external = safe.startsWith("#") ? "" : ` data-external="true" rel="noopener noreferrer"`;
      return `<a href="${escapeHtml(safe)}"${titleAttr}${external}>${inner}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      const fileId = fileIdOf(href);
      const label = `🖼 ${escapeHtml(text || "image")}`;
      if (fileId !== null) {
        const url = context.image?.(fileId);
        if (url !== undefined && url.startsWith("blob:")) {
          return `<img class="md-attached-image" src="${escapeHtml(url)}" alt="${escapeHtml(text)}" data-file-id="${escapeHtml(fileId)}">`;
        }
        return `<span class="md-image is-missing" data-file-id="${escapeHtml(fileId)}" title="Not an attached image of this Note">${label}</span>`;
      }
      const safe = safeHref(href);
      if (safe === null || safe.startsWith("#")) return `<span class="md-image">${label}</span>`;
      return `<a class="md-image" href="${escapeHtml(safe)}" data-external="true" rel="noopener noreferrer">${label}</a>`;
    },
  },
  extensions: [wikiLink],
});

/** Markdown to HTML that is safe to put into the page. */
export function renderMarkdown(source: string, ctx: RenderContext = {}): string {
  context = ctx;
  try {
    return marked.parse(source, { async: false });
  } finally {
    context = {};
  }
}
