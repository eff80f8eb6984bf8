// The Markdown preview: GitHub-flavoured Markdown rendered by `marked`, made safe for
// `innerHTML`. Raw HTML in the text is shown as text, never interpreted; links keep only http,
// https and mailto targets (and in-page anchors); images are not fetched (the preview shows
// their alt text as a link instead). The agent writes into these tabs: nothing it writes may run.

import { Marked, type Tokens } from "marked";

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
      const safe = safeHref(href);
      if (safe === null) return `<span class="md-link-dropped" title="Link not opened: ${escapeHtml(href)}">${inner}</span>`;
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : "";
      const external = safe.startsWith("#") ? "" : ` data-external="true" rel="noopener noreferrer"`;
      return `<a href="${escapeHtml(safe)}"${titleAttr}${external}>${inner}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      const safe = safeHref(href);
      const label = `🖼 ${escapeHtml(text || "image")}`;
      if (safe === null || safe.startsWith("#")) return `<span class="md-image">${label}</span>`;
      return `<a class="md-image" href="${escapeHtml(safe)}" data-external="true" rel="noopener noreferrer">${label}</a>`;
    },
  },
});

/** Markdown to HTML that is safe to put into the page. */
export function renderMarkdown(source: string): string {
  return marked.parse(source, { async: false });
}
