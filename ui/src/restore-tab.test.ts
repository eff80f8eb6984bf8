// "Restore tab" from the versions panel against a stand-in for the commands (Tauri's mockIPC):
// one click reads the version before the deletion, makes a tab of the same kind and label, then
// writes its old content into that new tab, and opens it.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Note, NoteView } from "./api";

const g = globalThis as unknown as { window: typeof globalThis; location: { hash: string } };
g.window = globalThis;
g.location = { hash: "" };

const { app, restoreTab } = await import("./app-state");

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f77";
const CELLS = { sheets: [{ id: "s1", name: "Sheet 1", rows: 1, cols: 1, cells: [["42"]] }] };
let calls: { cmd: string; args: Record<string, unknown> }[] = [];

function view(version: number): NoteView {
  return { note_id: NOTE, title: "T", version, tabs: [], orphan_drafts: [] };
}

beforeEach(() => {
  calls = [];
  let version = 6;
  mockIPC((cmd, args) => {
    calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
    switch (cmd) {
      case "version_at": {
        const old: Note = {
          id: NOTE,
          title: "T",
          version: 4,
          seq: 9,
          tabs: [{ id: "sheet-4-a", label: "Budget", type: "sheet", data: CELLS } as unknown as Note["tabs"][number]],
        };
        return old;
      }
      case "apply_ops": {
        version += 1;
        const ops = (args as { ops: { op: string }[] }).ops;
        const outcomes = ops[0]?.op === "create_tab" ? [{ kind: "tab_created", tab_id: "sheet-10-z" }] : [];
        return { status: "committed", result: { note_id: NOTE, version, changed_tab_ids: [], outcomes, replayed: false } };
      }
      case "open_note":
        return view(version);
      case "flush":
      case "note_status":
        return null;
      default:
        return null;
    }
  });
  app.set({ open: { noteId: NOTE, view: view(6), loading: false, error: null }, toasts: [] });
});

afterEach(() => clearMocks());

describe("Restore tab", () => {
  it("brings the deleted tab back as a new tab with its label and content, and opens it", async () => {
    const result = await restoreTab(4, "sheet-4-a");
    expect(result).toEqual({ ok: true, text: "“Budget” is back as a new tab (version 8)." });
    expect(calls.find((c) => c.cmd === "version_at")?.args).toEqual({ noteId: NOTE, version: 4 });
    const writes = calls.filter((c) => c.cmd === "apply_ops").map((c) => c.args.ops);
    expect(writes).toEqual([
      [{ op: "create_tab", tab_type: "sheet", label: "Budget", slides: null }],
      [{ op: "replace_tab_data", tab_id: "sheet-10-z", data: CELLS }],
    ]);
    expect(g.location.hash).toBe(`#/notes/${NOTE}/tabs/sheet-10-z`);
  });

  it("says so, writing nothing, when the version has no such tab", async () => {
    const result = await restoreTab(4, "slides-7-q");
    expect(result.ok).toBe(false);
    expect(result.text).toBe("Version 4 has no tab slides-7-q to bring back.");
    expect(calls.some((c) => c.cmd === "apply_ops")).toBe(false);
  });
});
