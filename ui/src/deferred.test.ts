// A large tab the Note was opened without (`deferred`): asked for the shown tab only, read after
// it in parts, assembled in order, read whole when the Note moved under the parts, kept when a
// refresh names other tabs as changed and read again in parts when it may have changed; a long
// text comes in parts even when shown. Against a stand-in for the commands (mockIPC).

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteView, TabStatus } from "./api";

(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const { app, isDeferred, loadDeferred, refreshView } = await import("./app-state");
const { ensureOpen } = await import("./app-state/notes");
const { ROWS_PER_PART, TEXT_PART_BYTES } = await import("./app-state/deferred");

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
/** The Markdown tab holds a long text (deferred whenever `showing` is given). */
let long = false;
let misaligned = false;
const longText = (version: number) => `v${version} `.padEnd(TEXT_PART_BYTES * 2 + 100, "x");

function view(showing: string[] | undefined): NoteView {
  const sheet = { sheets: [{ id: "s1", name: "Numbers", rows: grid(version) }] };
  const deferred = showing !== undefined && !showing.includes("grid");
  return {
    note_id: NOTE,
    title: "Big",
    version,
    tabs: [
      long && showing !== undefined
        ? { id: "markdown", type: "markdown", label: "Note", data: null as never, status: status("markdown"), deferred: { sheets: [] } }
        : { id: "markdown", type: "markdown", label: "Note", data: long ? longText(version) : `text ${version}`, status: status("markdown") },
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
  long = false;
  misaligned = false;
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
      case "text_part": {
        const text = longText(version);
        // A part out of line with the one before it (the engine's parts never are).
        const start = (args.start as number) - (misaligned && (args.start as number) > 0 ? 1 : 0);
        const next = Math.min(text.length, (args.start as number) + (args.maxBytes as number));
        return { version, total: text.length, start, next, text: text.slice(start, next) };
      }
      case "tab_view":
        return view(undefined).tabs.find((t) => t.id === args.tabId);
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

  it("keeps a loaded large tab a refresh does not name, reads it again in parts when it may have changed", async () => {
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
    // A refresh that names no tabs (after a restore, say) reads every large tab again, in
    // parts: no answer carries it whole.
    calls = [];
    await refreshView();
    expect(calls.find((c) => c.cmd === "open_note")?.args.showing).toEqual(["markdown"]);
    expect(calls.filter((c) => c.cmd === "sheet_rows")).toHaveLength(3);
    expect(calls.some((c) => c.cmd === "tab_view")).toBe(false);
    expect(app.get().content.grid).toMatchObject({ version: 4, rev: 1 });
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

describe("a long text", () => {
  it("comes in parts even when shown, read before the tabs not shown", async () => {
    long = true;
    await ensureOpen(NOTE);
    expect(isDeferred("markdown")).toBe(true);
    await loadDeferred(NOTE);
    const reads = calls.filter((c) => c.cmd === "text_part" || c.cmd === "sheet_rows");
    expect(reads.slice(0, 3).map((c) => [c.cmd, c.args.start])).toEqual([
      ["text_part", 0],
      ["text_part", TEXT_PART_BYTES],
      ["text_part", TEXT_PART_BYTES * 2],
    ]);
    expect(reads[3]?.cmd).toBe("sheet_rows");
    expect(app.get().content.markdown).toMatchObject({ data: longText(3), version: 3, rev: 0 });
    expect(calls.some((c) => c.cmd === "tab_view")).toBe(false);
  });

  it("is read whole when its parts do not follow one another", async () => {
    long = true;
    misaligned = true;
    await ensureOpen(NOTE);
    await loadDeferred(NOTE);
    // The second part does not start where the first ended: the text is read whole.
    expect(calls.filter((c) => c.cmd === "text_part")).toHaveLength(2);
    expect(calls.filter((c) => c.cmd === "tab_view").map((c) => c.args.tabId)).toEqual(["markdown"]);
    expect(app.get().content.markdown?.data).toBe(longText(3));
  });

  it("that changed is read again in parts by a refresh naming it, for the editor to take", async () => {
    long = true;
    await ensureOpen(NOTE);
    await loadDeferred(NOTE);
    version = 4;
    calls = [];
    await refreshView(["markdown"]);
    expect(calls.filter((c) => c.cmd === "text_part")).toHaveLength(3);
    expect(app.get().content.markdown).toMatchObject({ data: longText(4), version: 4, rev: 1 });
    // A refresh naming the sheet only leaves the text as it is.
    calls = [];
    version = 5;
    await refreshView(["grid"]);
    expect(calls.some((c) => c.cmd === "text_part")).toBe(false);
    expect(app.get().content.markdown?.data).toBe(longText(4));
  });
});
