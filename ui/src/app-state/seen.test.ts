// The Notes list's agent markers across a restart of the app: what the person has seen, and what
// each read of a history found, are kept on this computer (localStorage, here a Map standing in
// for the webview's), so a restart shows the same markers without reading any history again.
// A restart is the app's modules loaded afresh over the same storage.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { VersionInfo } from "../api";

// api.ts talks to `window.__TAURI_INTERNALS__`; in Node the global object stands in for window.
(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const kept = new Map<string, string>();
const storage = {
  getItem: (k: string) => kept.get(k) ?? null,
  setItem: (k: string, v: string) => void kept.set(k, String(v)),
  removeItem: (k: string) => void kept.delete(k),
  clear: () => kept.clear(),
};

const summary = (id: string, version: number) => ({ id, title: id, version, updated_at: "2026-12-01T10:00:00Z", agent_access: true });
const v = (version: number, author: string, author_kind: VersionInfo["author_kind"]): VersionInfo => ({
  version,
  author,
  author_kind,
  created_at: "2026-12-01T10:00:00.000Z",
  summary: "",
  changed_tab_ids: ["markdown"],
});

let listed: ReturnType<typeof summary>[] = [];
let histories: Record<string, VersionInfo[]> = {};
let reads: string[] = [];

/** The app's modules, loaded as a fresh start of the app loads them. */
async function start() {
  vi.resetModules();
  return await import("../app-state");
}

beforeEach(() => {
  kept.clear();
  vi.stubGlobal("localStorage", storage);
  listed = [];
  histories = {};
  reads = [];
  mockIPC((cmd, args) => {
    if (cmd === "list_notes") return listed;
    if (cmd === "history") {
      const id = (args as { noteId: string }).noteId;
      reads.push(id);
      return histories[id] ?? [];
    }
    return null;
  });
});

afterEach(() => {
  clearMocks();
  vi.unstubAllGlobals();
});

describe("the Notes list's agent markers across a restart", () => {
  it("shows a marker found before the restart without reading the history again, and none once seen", async () => {
    let app = await start();
    listed = [summary("a", 2), summary("b", 2)];
    await app.refreshNotes();
    await vi.waitFor(() => expect(kept.get("quire.seenVersions")).toBeDefined());
    histories = { a: [v(3, "claude", "agent")], b: [v(3, "ana", "person")] };
    listed = [summary("a", 3), summary("b", 3)];
    await app.refreshNotes();
    await vi.waitFor(() => expect(app.app.get().agentChanged.a).toEqual({ author: "claude", version: 3 }));
    await vi.waitFor(() => expect([...reads].sort()).toEqual(["a", "b"]));

    // The app restarts: the same markers, no history read again.
    app = await start();
    expect(app.app.get().agentChanged).toEqual({});
    await app.refreshNotes();
    await vi.waitFor(() => expect(app.app.get().agentChanged.a).toEqual({ author: "claude", version: 3 }));
    expect(app.app.get().agentChanged.b).toBeUndefined();
    expect(reads.length).toBe(2);

    // Opened (seen at 3), then restarted again: the marker stays gone.
    app.app.set({ open: { noteId: "a", view: null, loading: true, error: null } });
    await app.refreshNotes();
    await vi.waitFor(() => expect(app.app.get().agentChanged.a).toBeUndefined());
    app = await start();
    await app.refreshNotes();
    await vi.waitFor(() => expect(JSON.parse(kept.get("quire.seenVersions") ?? "{}").a).toBe(3));
    expect(app.app.get().agentChanged.a).toBeUndefined();
    expect(reads.length).toBe(2);

    // A new version since the read: read once more.
    histories = { a: [v(4, "ana", "person")] };
    listed = [summary("a", 4), summary("b", 3)];
    await app.refreshNotes();
    await vi.waitFor(() => expect(reads.slice(2)).toEqual(["a"]));
    expect(app.app.get().agentChanged.a).toBeUndefined();
  });
});
