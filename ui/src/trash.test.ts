// The trash's actions against a stand-in for the commands (Tauri's mockIPC): Delete Note asks
// first and does nothing when the person says no; its toast's Undo restores the Note; Empty
// trash asks, then erases.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteSummary } from "./api";

(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const { app, answerConfirm, deleteNote, emptyTrash, runToastAction } = await import("./app-state");

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f99";
let calls: { cmd: string; args: Record<string, unknown> }[] = [];
let trash: NoteSummary[] = [];

function summary(id: string, title: string, deleted_at?: string): NoteSummary {
  return { id, title, version: 1, updated_at: "2026-12-01T10:00:00.000Z", agent_access: false, deleted_at };
}

/** Lets the awaited commands answer. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  calls = [];
  trash = [];
  mockIPC((cmd, args) => {
    calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
    switch (cmd) {
      case "delete_note":
        trash = [summary(NOTE, "Plan", "2026-12-01T11:00:00.000Z")];
        return { id: NOTE, version: 2, deleted_at: "2026-12-01T11:00:00.000Z" };
      case "undelete_note":
        trash = [];
        return { note_id: NOTE, version: 3, changed_tab_ids: [], outcomes: [], replayed: false };
      case "list_notes":
        return trash.length ? [] : [summary(NOTE, "Plan")];
      case "list_trash":
        return trash;
      case "empty_trash": {
        const erased = trash.map((n) => n.id);
        trash = [];
        return erased;
      }
      case "drafts":
        return [];
      default:
        return null;
    }
  });
  app.set({ notes: [summary(NOTE, "Plan")], trash: [], toasts: [], confirm: null, open: null });
});

afterEach(() => clearMocks());

const sent = () => calls.map((c) => c.cmd);

describe("Delete Note", () => {
  it("asks first and, told no, sends nothing", async () => {
    const done = deleteNote(NOTE);
    expect(app.get().confirm?.title).toBe("Delete “Plan”?");
    answerConfirm(false);
    expect(await done).toBe(false);
    expect(sent()).not.toContain("delete_note");
  });

  it("moves the Note to the trash, and the toast's Undo brings it back", async () => {
    const done = deleteNote(NOTE);
    answerConfirm(true);
    expect(await done).toBe(true);
    expect(calls.find((c) => c.cmd === "delete_note")?.args).toEqual({ noteId: NOTE });
    expect(app.get().notes).toEqual([]);
    expect(app.get().trash.map((n) => n.id)).toEqual([NOTE]);
    const toast = app.get().toasts.at(-1);
    expect(toast?.text).toBe("“Plan” moved to the Trash.");
    expect(toast?.action?.label).toBe("Undo");

    runToastAction(toast?.id ?? -1);
    expect(app.get().toasts.some((t) => t.id === toast?.id)).toBe(false);
    await settle();
    await settle();
    expect(calls.find((c) => c.cmd === "undelete_note")?.args).toEqual({ noteId: NOTE });
    expect(app.get().notes.map((n) => n.id)).toEqual([NOTE]);
    expect(app.get().trash).toEqual([]);
  });
});

describe("Empty trash", () => {
  it("asks, counting the Notes, then erases them", async () => {
    trash = [summary(NOTE, "Plan", "2026-12-01T11:00:00.000Z"), summary("x", "Old", "2026-12-01T09:00:00.000Z")];
    app.set({ trash });
    const done = emptyTrash();
    expect(app.get().confirm?.body).toContain("The 2 Notes in the Trash are erased for good");
    answerConfirm(true);
    expect(await done).toBe(true);
    expect(sent()).toContain("empty_trash");
    expect(app.get().trash).toEqual([]);
    expect(app.get().toasts.at(-1)?.text).toBe("2 Notes erased for good.");
  });

  it("told no, erases nothing", async () => {
    app.set({ trash: [summary(NOTE, "Plan", "2026-12-01T11:00:00.000Z")] });
    const done = emptyTrash();
    answerConfirm(false);
    expect(await done).toBe(false);
    expect(sent()).not.toContain("empty_trash");
  });
});
