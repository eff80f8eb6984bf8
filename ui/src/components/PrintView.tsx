// The print view: only the deck (one slide a page, in its theme) or the Note (its Markdown
// rendered as in the preview), shown to the print engine by the print stylesheet while the app's
// own screen is hidden from it. Loaded on first use (it brings marked).

import { render } from "preact";
import { type PrintDocument, pageCss } from "../lib/leave";
import { renderMarkdown } from "../lib/markdown";
import { displayTitle } from "../lib/notes";
import { SlideCanvas } from "./SlidesEditor";

export function PrintView(props: { doc: PrintDocument }) {
  const { doc } = props;
  if (doc.kind === "deck") {
    return (
      <div class="print-deck" data-testid="print-view" data-kind="deck">
        {doc.slides.map((s, i) => (
          <section key={i} class="print-page print-slide">
            <SlideCanvas slide={{ id: String(i), ...s }} theme={doc.theme} />
          </section>
        ))}
      </div>
    );
  }
  return (
    <article class="print-note md-preview" data-testid="print-view" data-kind="note">
      <h1 class="print-note-title">{displayTitle(doc.title)}</h1>
      {doc.sections.map((s, i) => (
        <section key={i} class="print-note-section">
          {doc.sections.length > 1 && <h2 class="print-note-tab">{s.label}</h2>}
          <div dangerouslySetInnerHTML={{ __html: renderMarkdown(s.markdown) }} />
        </section>
      ))}
    </article>
  );
}

const ROOT_ID = "quire-print";
const PAGE_ID = "quire-print-page";

/**
 * Lays out `doc` for printing: the print view under <body>, the page's size in a stylesheet,
 * and `printing` on <html> (the print stylesheet then shows only the view). Returns the undo.
 */
export function showForPrint(doc: PrintDocument): () => void {
  const root = document.getElementById(ROOT_ID) ?? document.body.appendChild(document.createElement("div"));
  root.id = ROOT_ID;
  const page = document.getElementById(PAGE_ID) ?? document.head.appendChild(document.createElement("style"));
  page.id = PAGE_ID;
  page.textContent = pageCss(doc);
  render(<PrintView doc={doc} />, root);
  document.documentElement.classList.add("printing");
  return () => {
    document.documentElement.classList.remove("printing");
    render(null, root);
    root.remove();
    page.remove();
  };
}
