// The command palette's list against the app's state: what is offered, what is greyed and why,
// and that a command runs the same action its button runs (the stand-in for the commands is
// Tauri's mockIPC, as in the other app-state tests).

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteView, TabView } from "./api";

(globalThis as unknown as { window: typeof globalThis }).window = globalThis;
// The window's events (Node has EventTarget, but its global object is not one).
const events = new EventTarget();
Object.assign(globalThis, {
  addEventListener: events.addEventListener.bind(events),
  removeEventListener: events.removeEventListener.bind(events),
  dispatchEvent: events.dispatchEvent.bind(events),
});

const { app } = await import("./app-state");
const { allCommands, keyboardHelp } = await import("./app-state/commands");

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f99";
let calls: string[] = [];
let sent: unknown[] = [];

function tab(id: string, type: string, label: string): TabView {
  return { id, type, label, data: type === "markdown" ? "" : {} } as unknown as TabView;
}

const view: NoteView = {
  note_id: NOTE,
  title: "Plan",
  version: 3,
  tabs: [tab("markdown", "markdown", "Note"), tab("sheet-1", "sheet", "Budget"), tab("files", "files", "Files")],
  orphan_drafts: [],
} as unknown as NoteView;

const byId = (id: string) => {
  const c = allCommands(app.get()).find((c) => c.id === id);
  if (!c) throw new Error(`no command ${id}`);
  return c;
};

beforeEach(() => {
  calls = [];
  sent = [];
  mockIPC((cmd, args) => {
    calls.push(cmd);
    if (cmd === "apply_ops") sent.push((args as { ops: unknown[] }).ops);
    if (cmd === "open_note") return view;
    return null;
  });
  app.set({ open: null, route: { kind: "home" }, dialog: { kind: "palette" }, transfer: null, settings: null, panel: null });
});

afterEach(() => clearMocks());

describe("the command palette's list", () => {
  it("has one entry per ID", () => {
    const ids = allCommands(app.get()).map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("greys the Note's and the tab's commands, saying why, when no Note is open", () => {
    expect(byId("note.delete").disabled).toBe("Open a Note first");
    expect(byId("tab.rename").disabled).toBe("Open a tab first");
    expect(byId("markdown.preview").disabled).toBe("Open a Markdown tab first");
    expect(byId("note.new").disabled).toBeUndefined();
  });

  it("follows the open tab: a Sheet can be deleted and moved left, not right past the end", () => {
    app.set({
      open: { noteId: NOTE, view, loading: false, error: null },
      route: { kind: "tab", noteId: NOTE, tabId: "sheet-1" },
    });
    expect(byId("tab.delete").disabled).toBeUndefined();
    expect(byId("tab.move-left").disabled).toBeUndefined();
    expect(byId("markdown.preview").disabled).toBe("Open a Markdown tab first");
    app.set({ route: { kind: "tab", noteId: NOTE, tabId: "files" } });
    expect(byId("tab.delete").disabled).toBe("The Files tab belongs to every Note");
    expect(byId("tab.move-right").disabled).toBe("The tab is already at that end");
    app.set({ route: { kind: "tab", noteId: NOTE, tabId: "markdown" } });
    expect(byId("markdown.preview").disabled).toBeUndefined();
    expect(byId("edit.find").title).toBe("Find and replace in this text");
    app.set({ route: { kind: "tab", noteId: NOTE, tabId: "sheet-1" } });
    expect(byId("edit.find").title).toBe("Find and replace in this sheet");
    expect(byId("edit.undo").disabled).toBeUndefined();
    app.set({ route: { kind: "tab", noteId: NOTE, tabId: "files" } });
    expect(byId("edit.undo").disabled).toBe("Open a Markdown, Sheet or Slides tab first");
    expect(byId("edit.find").disabled).toBe("Open a Markdown or Sheet tab first");
    expect(byId("leave.deck-export-pptx").disabled).toBe("Open a Slides tab first");
    expect(byId("leave.note-export-pdf").disabled).toBeUndefined();
  });

  it("greys export and import while one runs, and on a remote server", () => {
    app.set({ open: { noteId: NOTE, view, loading: false, error: null } });
    expect(byId("app.export-all").disabled).toBeUndefined();
    app.set({ transfer: { action: "export-all", progress: null } } as never);
    expect(byId("app.export-all").disabled).toBe("An export or import is running");
    expect(byId("note.export").disabled).toBe("An export or import is running");
  });

  it("runs the action and closes the palette", async () => {
    app.set({
      open: { noteId: NOTE, view, loading: false, error: null },
      route: { kind: "tab", noteId: NOTE, tabId: "sheet-1" },
    });
    byId("tab.rename").run();
    expect(app.get().renamingTab).toBe("sheet-1");
    expect(app.get().dialog).toBeNull();
    byId("note.versions").run();
    expect(app.get().panel).toBe("versions");
    byId("tab.add-slides").run();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls[0]).toBe("apply_ops");
    expect(JSON.stringify(sent[0])).toContain('"tab_type":"slides"');
  });

  it("asks the open editor for Undo, Redo and Find", () => {
    app.set({
      open: { noteId: NOTE, view, loading: false, error: null },
      route: { kind: "tab", noteId: NOTE, tabId: "sheet-1" },
    });
    const asked: unknown[] = [];
    const listener = (e: Event) => asked.push((e as CustomEvent).detail);
    window.addEventListener("quire-editor-action", listener);
    byId("edit.undo").run();
    byId("edit.find").run();
    window.removeEventListener("quire-editor-action", listener);
    expect(asked).toEqual([
      { tabId: "sheet-1", action: "undo" },
      { tabId: "sheet-1", action: "find" },
    ]);
  });

  it("names the shortcuts once, for the keyboard help", () => {
    expect(keyboardHelp()).toContain("Ctrl+Shift+P every command");
    expect(keyboardHelp()).toContain("Ctrl+N new Note");
    expect(keyboardHelp()).toContain("F2 rename");
  });
});
