// Every action the person can take, as one list: the command palette (Ctrl+Shift+P) shows it,
// and the keyboard help in Settings and About is read from it, so a shortcut is written once.
// Each command calls the same function its button or menu item calls.

import type { Command, Shortcut } from "../lib/commands";
import { formatShortcut } from "../lib/commands";
import { isFixed, cycle, stepIndex, type TabType } from "../lib/tabs";
import { setThemeChoice } from "../lib/theme";
import { openLogsFolder, closeWindow } from "./lifecycle";
import { closeDialog, openDialog } from "./messages";
import { createNote } from "./notes";
import { goTab, navigate } from "./routing";
import type { AppState } from "./state";
import { app } from "./state";
import { deleteNote } from "./trash";
import { LEAVE_ACTIONS, runLeaveAction } from "./leave";
import { runTransfer } from "./transfer";
import { addTab, deleteTab, flushNow, moveTab } from "./writes";

/** The app-wide shortcuts (App.tsx's keydown handler answers these; the palette shows them). */
export const SHORTCUTS = {
  newNote: { mod: true, key: "N" },
  findNote: { mod: true, key: "K" },
  searchContents: { mod: true, shift: true, key: "F" },
  palette: { mod: true, shift: true, key: "P" },
  saveNow: { mod: true, key: "S" },
  nextTab: { mod: true, key: "Tab" },
  previousTab: { mod: true, shift: true, key: "Tab" },
  renameTab: { key: "F2" },
  moveTabLeft: { alt: true, shift: true, key: "ArrowLeft" },
  moveTabRight: { alt: true, shift: true, key: "ArrowRight" },
  preview: { mod: true, shift: true, key: "E" },
  undo: { mod: true, key: "Z" },
  redo: { mod: true, shift: true, key: "Z" },
  find: { mod: true, key: "F" },
  quit: { mod: true, key: "Q" },
} satisfies Record<string, Shortcut>;

/** A request to the open editor of a tab, for actions whose state the editor holds. */
export type EditorAction = "toggle-preview" | "undo" | "redo" | "find";

const EDITOR_ACTION = "quire-editor-action";

/** Asks the editor of `tabId` (if it is open) to do `action`. */
export function editorAction(tabId: string, action: EditorAction): void {
  window.dispatchEvent(new CustomEvent(EDITOR_ACTION, { detail: { tabId, action } }));
}

/** Listens for `editorAction` requests to `tabId`; returns the unsubscribe. */
export function onEditorAction(tabId: string, handle: (action: EditorAction) => void): () => void {
  const listener = (e: Event) => {
    const detail = (e as CustomEvent<{ tabId: string; action: EditorAction }>).detail;
    if (detail?.tabId === tabId) handle(detail.action);
  };
  window.addEventListener(EDITOR_ACTION, listener);
  return () => window.removeEventListener(EDITOR_ACTION, listener);
}

const NO_NOTE = "Open a Note first";

const LEAVE_TITLES: Record<(typeof LEAVE_ACTIONS)[number]["id"], string> = {
  "note-print": "Print the Note…",
  "note-export-pdf": "Export the Note as PDF…",
  "deck-print": "Print the deck…",
  "deck-export-pdf": "Export the deck as PDF (one slide per page)…",
  "deck-export-pptx": "Export the deck as PowerPoint…",
};
const REMOTE = "Export and import work on this computer's Notes";
const BUSY = "An export or import is running";

/** Every command, for the state the app is in now (`disabled` says why one cannot run). */
export function allCommands(s: AppState): Command[] {
  const view = s.open?.view ?? null;
  const noteId = view?.note_id ?? null;
  const tabId = s.route.kind === "tab" ? s.route.tabId : null;
  const tabs = view?.tabs ?? [];
  const tab = tabs.find((t) => t.id === tabId) ?? null;
  const transfer = s.settings?.mode === "remote" ? REMOTE : s.transfer ? BUSY : undefined;
  const noNote = noteId ? undefined : NO_NOTE;
  const noTab = tab ? undefined : "Open a tab first";
  const then = (run: () => void) => () => {
    closeDialog();
    run();
  };
  const step = (by: -1 | 1) => {
    const next = tab && cycle(tabs, tab.id, by);
    if (noteId && next) goTab(noteId, next.id);
  };
  const moveBy = (by: -1 | 1) => {
    const to = tab ? stepIndex(tabs, tab.id, by) : null;
    return { disabled: noTab ?? (to === null ? "The tab is already at that end" : undefined), to };
  };
  const left = moveBy(-1);
  const right = moveBy(1);
  const fixed = tab && isFixed(tab.type as TabType) ? `The ${tab.label} tab belongs to every Note` : undefined;
  const cmd = (c: Command): Command => ({ ...c, run: then(c.run) });
  const editable =
    tab?.type === "markdown" || tab?.type === "sheet" || tab?.type === "slides"
      ? undefined
      : "Open a Markdown, Sheet or Slides tab first";
  return [
    cmd({ id: "note.new", section: "Note", title: "New note", shortcut: SHORTCUTS.newNote, run: () => void createNote() }),
    cmd({
      id: "note.find",
      section: "Note",
      title: "Find a Note by title…",
      shortcut: SHORTCUTS.findNote,
      run: () => openDialog({ kind: "switcher" }),
    }),
    cmd({
      id: "note.search",
      section: "Note",
      title: "Search the contents of every Note…",
      shortcut: SHORTCUTS.searchContents,
      run: () => openDialog({ kind: "search", q: "" }),
    }),
    cmd({
      id: "note.rename",
      section: "Note",
      title: "Rename Note",
      disabled: noNote,
      run: () => noteId && app.set({ renaming: { noteId, where: "title" } }),
    }),
    cmd({
      id: "note.delete",
      section: "Note",
      title: "Delete Note (move to the Trash)",
      disabled: noNote,
      run: () => noteId && void deleteNote(noteId),
    }),
    cmd({
      id: "note.export",
      section: "Note",
      title: "Export Note…",
      disabled: noNote ?? transfer,
      run: () => noteId && void runTransfer("export-note", noteId),
    }),
    cmd({ id: "note.save", section: "Note", title: "Save now", shortcut: SHORTCUTS.saveNow, run: () => void flushNow() }),
    cmd({
      id: "note.versions",
      section: "Note",
      title: "Show versions (the Note's history)",
      disabled: noNote,
      run: () => app.set({ panel: "versions" }),
    }),
    cmd({ id: "tab.next", section: "Tab", title: "Next tab", shortcut: SHORTCUTS.nextTab, disabled: noTab, run: () => step(1) }),
    cmd({
      id: "tab.previous",
      section: "Tab",
      title: "Previous tab",
      shortcut: SHORTCUTS.previousTab,
      disabled: noTab,
      run: () => step(-1),
    }),
    cmd({ id: "tab.add-sheet", section: "Tab", title: "Add a Sheet tab", disabled: noNote, run: () => void addTab("sheet") }),
    cmd({ id: "tab.add-slides", section: "Tab", title: "Add a Slides tab", disabled: noNote, run: () => void addTab("slides") }),
    cmd({
      id: "tab.rename",
      section: "Tab",
      title: "Rename tab",
      shortcut: SHORTCUTS.renameTab,
      disabled: noTab,
      run: () => tab && app.set({ renamingTab: tab.id }),
    }),
    cmd({
      id: "tab.move-left",
      section: "Tab",
      title: "Move tab left",
      shortcut: SHORTCUTS.moveTabLeft,
      disabled: left.disabled,
      run: () => tab && left.to !== null && void moveTab(tab.id, left.to),
    }),
    cmd({
      id: "tab.move-right",
      section: "Tab",
      title: "Move tab right",
      shortcut: SHORTCUTS.moveTabRight,
      disabled: right.disabled,
      run: () => tab && right.to !== null && void moveTab(tab.id, right.to),
    }),
    cmd({
      id: "tab.delete",
      section: "Tab",
      title: "Delete tab",
      disabled: noTab ?? fixed,
      run: () => tab && void deleteTab(tab.id),
    }),
    cmd({
      id: "edit.undo",
      section: "Edit",
      title: "Undo (your last edit in this tab)",
      shortcut: SHORTCUTS.undo,
      disabled: editable,
      run: () => tab && editorAction(tab.id, "undo"),
    }),
    cmd({
      id: "edit.redo",
      section: "Edit",
      title: "Redo",
      shortcut: SHORTCUTS.redo,
      disabled: editable,
      run: () => tab && editorAction(tab.id, "redo"),
    }),
    cmd({
      id: "edit.find",
      section: "Edit",
      title: tab?.type === "sheet" ? "Find and replace in this sheet" : "Find and replace in this text",
      shortcut: SHORTCUTS.find,
      disabled: tab?.type === "markdown" || tab?.type === "sheet" ? undefined : "Open a Markdown or Sheet tab first",
      run: () => tab && editorAction(tab.id, "find"),
    }),
    cmd({
      id: "markdown.preview",
      section: "Markdown",
      title: "Toggle preview",
      shortcut: SHORTCUTS.preview,
      disabled: tab?.type === "markdown" ? undefined : "Open a Markdown tab first",
      run: () => tab && editorAction(tab.id, "toggle-preview"),
    }),
    cmd({
      id: "slides.present",
      section: "Slides",
      title: "Present the deck",
      disabled: tab?.type === "slides" ? undefined : "Open a Slides tab first",
      run: () => tab && openDialog({ kind: "present", tabId: tab.id, start: 0 }),
    }),
    ...LEAVE_ACTIONS.map((a) =>
      cmd({
        id: `leave.${a.id}`,
        section: a.scope === "deck" ? "Slides" : "Note",
        title: LEAVE_TITLES[a.id],
        disabled: a.scope === "deck" ? (tab?.type === "slides" ? undefined : "Open a Slides tab first") : noNote,
        run: () => void runLeaveAction(a.id, tab?.id),
      }),
    ),
    cmd({ id: "app.trash", section: "Quire", title: "Show the Trash", run: () => navigate({ kind: "trash" }) }),
    cmd({
      id: "app.drafts",
      section: "Quire",
      title: "Show drafts (edits not yet on the server)",
      run: () => app.set({ panel: "drafts" }),
    }),
    cmd({
      id: "app.export-all",
      section: "Quire",
      title: "Export all Notes…",
      disabled: transfer,
      run: () => void runTransfer("export-all"),
    }),
    cmd({ id: "app.import", section: "Quire", title: "Import…", disabled: transfer, run: () => void runTransfer("import") }),
    cmd({ id: "app.agent", section: "Quire", title: "Connect an agent", run: () => navigate({ kind: "agent" }) }),
    cmd({ id: "app.settings", section: "Quire", title: "Settings", run: () => navigate({ kind: "settings" }) }),
    cmd({ id: "theme.light", section: "Appearance", title: "Light theme", run: () => setThemeChoice("light") }),
    cmd({ id: "theme.dark", section: "Appearance", title: "Dark theme", run: () => setThemeChoice("dark") }),
    cmd({
      id: "theme.system",
      section: "Appearance",
      title: "Theme: follow the system",
      run: () => setThemeChoice("system"),
    }),
    cmd({ id: "app.about", section: "Quire", title: "About Quire", run: () => navigate({ kind: "about" }) }),
    cmd({ id: "app.logs", section: "Quire", title: "Open logs folder", run: () => void openLogsFolder() }),
    cmd({ id: "app.quit", section: "Quire", title: "Quit", shortcut: SHORTCUTS.quit, run: () => void closeWindow() }),
  ];
}

/** The keyboard help line: "Ctrl+N new Note · Ctrl+K find · …", in this platform's words. */
export function keyboardHelp(): string {
  const parts: [keyof typeof SHORTCUTS, string][] = [
    ["palette", "every command"],
    ["newNote", "new Note"],
    ["findNote", "find"],
    ["searchContents", "search contents"],
    ["saveNow", "save now"],
    ["nextTab", "next tab"],
    ["renameTab", "rename"],
    ["quit", "quit"],
  ];
  return [
    ...parts.map(([k, what]) => `${formatShortcut(SHORTCUTS[k])} ${what}`),
    `${formatShortcut(SHORTCUTS.moveTabLeft)}/→ move a tab`,
    "Esc closes dialogs",
  ].join(" · ");
}

/** One app shortcut in this platform's words ("Ctrl+K", or "⌘K" on macOS). */
export function keyLabel(name: keyof typeof SHORTCUTS): string {
  return formatShortcut(SHORTCUTS[name]);
}
