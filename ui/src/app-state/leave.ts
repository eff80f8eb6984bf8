// Decks and Notes leaving the app: Print…, Export PDF… and Export PowerPoint…. The PDF is the
// webview's own print of the print view (PrintView.tsx); the PowerPoint file is written by
// pptxgenjs (lib/pptx.ts). Both are loaded on first use, so the first paint pays for neither.

import * as api from "../api";
import { type DeckLike, type PrintDocument, deckDocument, exportFileName, noteDocument, pptxSlides } from "../lib/leave";
import { contentFor } from "./edits";
import { toast, toastError } from "./messages";
import { app } from "./state";

/** Where an action applies: the open Note, or the deck shown in a Slides tab. */
export type LeaveScope = "note" | "deck";

export interface LeaveAction {
  id: "note-print" | "note-export-pdf" | "deck-print" | "deck-export-pdf" | "deck-export-pptx";
  scope: LeaveScope;
  label: string;
}

/** Every way out, in menu order (a command palette lists these too). */
export const LEAVE_ACTIONS: readonly LeaveAction[] = [
  { id: "note-print", scope: "note", label: "Print…" },
  { id: "note-export-pdf", scope: "note", label: "Export PDF…" },
  { id: "deck-print", scope: "deck", label: "Print…" },
  { id: "deck-export-pdf", scope: "deck", label: "Export PDF…" },
  { id: "deck-export-pptx", scope: "deck", label: "Export PowerPoint…" },
];

/** The webview prints to a file without a dialog, and through the app's print dialog, only on
 * Linux (WebKitGTK). */
function printsToFile(): boolean {
  return /Linux/.test(navigator.userAgent) && !/Android/.test(navigator.userAgent);
}

function openTitle(): string {
  return app.get().open?.view?.title ?? "";
}

async function noteDoc(): Promise<PrintDocument | null> {
  const view = app.get().open?.view;
  if (!view) return null;
  const tabs = await Promise.all(
    view.tabs
      .filter((t) => t.type === "markdown")
      .map(async (t) => ({
        type: t.type,
        label: t.label,
        data: contentFor(t.id) ?? (await api.tabView(view.note_id, t.id)).data,
      })),
  );
  return noteDocument(view.title, tabs);
}

function deckOf(tabId: string): DeckLike {
  const d = contentFor(tabId) as Partial<DeckLike> | undefined;
  return { theme: typeof d?.theme === "string" ? d.theme : "paper", slides: Array.isArray(d?.slides) ? d.slides : [] };
}

/** Shows the print view of `doc` while `run` runs (print or save), then takes it away. */
async function withPrintView(doc: PrintDocument, run: () => Promise<void>): Promise<void> {
  const { showForPrint } = await import("../components/PrintView");
  const undo = showForPrint(doc);
  try {
    // Let the view lay out (and its fonts load) before the print engine reads it.
    await document.fonts?.ready;
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    await run();
  } finally {
    undo();
  }
}

async function printDoc(doc: PrintDocument): Promise<void> {
  // WebKitGTK opens no dialog for window.print(): the app runs its print operation's own.
  await withPrintView(doc, async () => {
    if (printsToFile()) await api.printPage(doc.page);
    else window.print();
  });
}

async function pdfOf(doc: PrintDocument, what: string): Promise<void> {
  if (!printsToFile()) return printDoc(doc);
  let path: string | null = null;
  await withPrintView(doc, async () => {
    path = await api.exportPdf(exportFileName(doc.title || what, "pdf"), doc.page);
  });
  if (path) toast("info", `Saved ${what} as PDF to ${path}`);
}

/** Runs one of `LEAVE_ACTIONS`; `tabId` names the deck for the deck's actions. */
export async function runLeaveAction(id: LeaveAction["id"], tabId?: string): Promise<void> {
  try {
    switch (id) {
      case "note-print":
      case "note-export-pdf": {
        const doc = await noteDoc();
        if (!doc) return;
        return id === "note-print" ? await printDoc(doc) : await pdfOf(doc, "the Note");
      }
      case "deck-print":
      case "deck-export-pdf": {
        if (!tabId) return;
        const doc = deckDocument(openTitle(), deckOf(tabId));
        return id === "deck-print" ? await printDoc(doc) : await pdfOf(doc, "the deck");
      }
      case "deck-export-pptx": {
        if (!tabId) return;
        const { writePptx } = await import("../lib/pptx");
        const title = openTitle();
        const bytes = await writePptx(title, pptxSlides(deckOf(tabId)));
        const path = await api.exportPptx(exportFileName(title || "Deck", "pptx"), bytes);
        if (path) toast("info", `Saved the deck as PowerPoint to ${path}`);
        return;
      }
    }
  } catch (error) {
    toastError(error, id === "deck-export-pptx" ? "The deck could not be exported." : "The PDF could not be made.");
  }
}
