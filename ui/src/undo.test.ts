// "Undo this change" against a stand-in for the commands (Tauri's mockIPC): the person's typing
// is handed over and its save started before the revert goes, and a refusal for a clash names
// the tabs by the labels the command gives, never by parsing its message.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteStatus, NoteView } from "./api";

const g = globalThis as unknown as { window: typeof globalThis; location: { hash: string } };
g.window = globalThis;
g.location = { hash: "" };

const { app, undoVersion } = await import("./app-state");

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f88";
let calls: string[] = [];
let refuse: unknown = null;

function view(version: number): NoteView {
  return { note_id: NOTE, title: "T", version, tabs: [], orphan_drafts: [] };
}

function status(seq: number): NoteStatus {
  const stats = { saves_sent: 0, saves_committed: 0, replays: 0, refused: 0, auto_rebased: 0, conflicts_shown: 0, offline_failures: 0 };
  return { note_id: NOTE, seq, guard: 6, offline: false, settled: true, tabs: [], queued_writes: 0, stats };
}

beforeEach(() => {
  calls = [];
  refuse = null;
  mockIPC((cmd) => {
    calls.push(cmd);
    switch (cmd) {
      case "flush":
        return status(1);
      case "revert":
        if (refuse) throw refuse;
        return { status: "committed", result: { note_id: NOTE, version: 7, changed_tab_ids: ["markdown"], outcomes: [], replayed: false } };
      case "open_note":
        return view(refuse ? 6 : 7);
      default:
        return null;
    }
  });
  app.set({ open: { noteId: NOTE, view: view(6), loading: false, error: null }, toasts: [] });
});

afterEach(() => clearMocks());

describe("Undo this change", () => {
  it("starts the person's saves first, then takes the version back", async () => {
    const result = await undoVersion(4);
    expect(result).toEqual({ ok: true, text: "Undid the change of version 4, as version 7. Everything written since is kept." });
    expect(calls.indexOf("flush")).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf("flush")).toBeLessThan(calls.indexOf("revert"));
  });

  it("names the clashing tabs by the labels the refusal carries", async () => {
    refuse = {
      code: "revert_conflict",
      message: "version 4 cannot be undone: …",
      tabs: [
        { id: "markdown", type: "markdown", label: "Essay" },
        { id: "sheet-4-a", type: "sheet", label: "Budget" },
      ],
    };
    const result = await undoVersion(4);
    expect(result).toEqual({
      ok: false,
      text: "Not undone: a later change touched the same lines, cells or slides in “Essay” and “Budget” that version 4 changed. Nothing was changed.",
      detail: "",
    });
  });
});
