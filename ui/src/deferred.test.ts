// A large tab the Note was opened without (`deferred`): asked for the shown tab only, read after
// it in parts, assembled in order, read whole when the Note moved under the parts, and kept
// when a refresh names other tabs as changed. Against a stand-in for the commands (mockIPC).

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteView, TabStatus } from "./api";

(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const { app, isDeferred, loadDeferred, refreshView } = await import("./app-state");
const { ensureOpen } = await import("./app-state/notes");
const { ROWS_PER_PART } = await import("./app-state/deferred");

let NOTE = "";
let n = 0;
const ROWS = ROWS_PER_PART * 2 + 5;
const grid = (version: number) => Array.from({ length: ROWS }, (_, r) => [r, version]);

function status(tabId: string): TabStatus {
  return { tab_id: tabId, state: "clean", last_error: null, base_version: null, theirs_version: null, gone: false, unseen: false };
}

let version = 3;
/** The version the next `sheet_rows` answer says (the Note moving under the parts). */
let partsVersion: (call: number) => number = () => version;
let calls: { cmd: string; args: Record<string, unknown> }[] = [];

function view(showing: string[] | undefined): NoteView {
  const sheet = { sheets: [{ id: "s1", name: "Numbers", rows: grid(version) }] };
  const deferred = showing !== undefined && !showing.includes("grid");
  return {
    note_id: NOTE,
    title: "Big",
    version,
    tabs: [
      { id: "markdown", type: "markdown", label: "Note", data: `text ${version}`, status: status("markdown") },
      deferred
        ? {
            id: "grid",
            type: "sheet",
            label: "Grid",
            data: null as never,
            status: status("grid"),
            deferred: { sheets: [{ id: "s1", name: "Numbers", rows: ROWS }] },
          }
        : { id: "grid", type: "sheet", label: "Grid", data: sheet, status: status("grid") },
    ],
    orphan_drafts: [],
  };
}

beforeEach(() => {
  NOTE = `01936f0e-7c1a-7b2e-9f00-2a5c1d3e5f${String(++n).padStart(2, "0")}`;
  version = 3;
  partsVersion = () => version;
  calls = [];
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    switch (cmd) {
      case "open_note":
        return view(args.showing as string[] | undefined);
      case "sheet_rows": {
        const parts = calls.filter((c) => c.cmd === "sheet_rows").length;
        const v = partsVersion(parts);
        const start = args.start as number;
        const rows = grid(v).slice(start, start + (args.count as number));
        return { version: v, total: ROWS, rows };
      }
      case "tab_view":
        return view(undefined).tabs[1];
      case "note_status":
        return null;
      default:
        return null;
    }
  });
  app.set({
    open: null,
    content: {},
    status: null,
    route: { kind: "tab", noteId: NOTE, tabId: "markdown" },
  });
});

afterEach(() => clearMocks());

const rowsOf = (data: unknown) => (data as { sheets: { rows: unknown[][] }[] }).sheets[0]?.rows ?? [];

describe("a large tab not shown is read after the shown one", () => {
  it("asks for the shown tab only and reads the sheet in parts, in order", async () => {
    await ensureOpen(NOTE);
    expect(calls.find((c) => c.cmd === "open_note")?.args.showing).toEqual(["markdown"]);
    // The shown tab is there at once; the sheet is not (no editor is shown on it meanwhile).
    expect(app.get().content.markdown?.data).toBe("text 3");
    expect(isDeferred("grid")).toBe(true);
    await loadDeferred(NOTE);
    const parts = calls.filter((c) => c.cmd === "sheet_rows").map((c) => [c.args.sheetId, c.args.start, c.args.count]);
    expect(parts).toEqual([
      ["s1", 0, ROWS_PER_PART],
      ["s1", ROWS_PER_PART, ROWS_PER_PART],
      ["s1", ROWS_PER_PART * 2, ROWS_PER_PART],
    ]);
    const grid3 = app.get().content.grid;
    expect(grid3?.version).toBe(3);
    expect(grid3?.data).toEqual({ sheets: [{ id: "s1", name: "Numbers", rows: grid(3) }] });
    expect(isDeferred("grid")).toBe(false);
    expect(calls.some((c) => c.cmd === "tab_view")).toBe(false);
  });

  it("reads the tab whole when the Note moved while the parts were read", async () => {
    await ensureOpen(NOTE);
    // The second part is read at version 4: the parts would mix two versions.
    partsVersion = (call) => (call >= 2 ? 4 : 3);
    version = 3;
    await loadDeferred(NOTE);
    expect(calls.filter((c) => c.cmd === "sheet_rows")).toHaveLength(2);
    expect(calls.filter((c) => c.cmd === "tab_view")).toHaveLength(1);
    expect(rowsOf(app.get().content.grid?.data)).toEqual(grid(3));
  });

  it("keeps a loaded large tab when a refresh names only other tabs as changed", async () => {
    await ensureOpen(NOTE);
    await loadDeferred(NOTE);
    const before = app.get().content.grid;
    version = 4;
    calls = [];
    await refreshView(["markdown"]);
    expect(calls.find((c) => c.cmd === "open_note")?.args.showing).toEqual(["markdown"]);
    expect(app.get().content.markdown?.data).toBe("text 4");
    expect(app.get().content.grid).toBe(before);
    expect(calls.some((c) => c.cmd === "sheet_rows" || c.cmd === "tab_view")).toBe(false);
    // A refresh that names no tabs reads every tab whole.
    await refreshView();
    expect(calls.filter((c) => c.cmd === "open_note").at(-1)?.args.showing).toBeUndefined();
    expect(rowsOf(app.get().content.grid?.data)).toEqual(grid(4));
  });

  it("does not put a read that finished after the Note was left", async () => {
    await ensureOpen(NOTE);
    const loading = loadDeferred(NOTE);
    app.set({ open: { noteId: "another", view: null, loading: true, error: null }, content: {} });
    await loading;
    expect(app.get().content.grid).toBeUndefined();
  });
});
