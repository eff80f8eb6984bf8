// The app state against a stand-in for the commands (Tauri's mockIPC): every edit is handed over
// with the version its content was based on, so an edit typed before another writer's change
// reached the editor can never overwrite that change.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { summarize } from "./lib/status";
import type { LedgerEntry, NoteView, TabStatus, VersionInfo } from "./api";

// api.ts talks to `window.__TAURI_INTERNALS__`; in Node the global object stands in for window.
(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const { app, adopted, closeWindow, contentFor, edits, localEdit, marksShown, onEngineEvent, refreshLedger, refreshNotes, refreshView } =
  await import("./app-state");

// A fresh Note per test: base versions are kept per Note and tab for the app's lifetime.
let NOTE = "";
let n = 0;

function status(tabId: string): TabStatus {
  return { tab_id: tabId, state: "clean", last_error: null, base_version: null, theirs_version: null, gone: false, unseen: false };
}

function view(version: number, text: string): NoteView {
  return {
    note_id: NOTE,
    title: "T",
    version,
    tabs: [{ id: "markdown", type: "markdown", label: "Note", data: text, status: status("markdown") }],
    orphan_drafts: [],
  };
}

interface Call {
  cmd: string;
  args: Record<string, unknown>;
}

let calls: Call[] = [];
let server: NoteView = view(3, "alpha");
let theirs = "";
let history: VersionInfo[] = [];
let histories: Record<string, VersionInfo[]> = {};
let listed: { id: string; title: string; version: number; updated_at: string; agent_access: boolean }[] = [];
let drafts: LedgerEntry[] = [];
let editStatus: TabStatus = status("markdown");
/** The engine's side of `hand_over`: the text it took last and its token; refuses when set. */
let engineText = "";
let tokens = 0;
let refuseChanges = false;
/** When set, `edit_tab`'s reply: it resolves when the test says (events may arrive first). */
let editReply: Promise<TabStatus> | null = null;
/** When set, the next `open_note`'s reply: it resolves when the test says. */
let openReply: Promise<NoteView> | null = null;

beforeEach(() => {
  vi.useFakeTimers();
  NOTE = `01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f${String(++n).padStart(2, "0")}`;
  calls = [];
  server = view(3, "alpha");
  history = [];
  histories = {};
  listed = [];
  drafts = [];
  editStatus = status("markdown");
  engineText = "";
  refuseChanges = false;
  editReply = null;
  openReply = null;
  mockIPC((cmd, args) => {
    calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
    switch (cmd) {
      case "edit_tab":
        return editReply ?? editStatus;
      case "hand_over": {
        const a = args as { content: string | null; change: { after: number; at: number; removed: number; insert: string } | null };
        if (a.change) {
          if (refuseChanges || a.change.after !== tokens) {
            throw { code: "change_refused", message: "change refused" };
          }
          const c = a.change;
          engineText = engineText.slice(0, c.at) + c.insert + engineText.slice(c.at + c.removed);
        } else {
          engineText = a.content ?? "";
        }
        return { status: editStatus, token: ++tokens };
      }
      case "open_note": {
        const reply = openReply ?? server;
        openReply = null;
        return reply;
      }
      case "history":
        return histories[(args as { noteId: string }).noteId] ?? history;
      case "list_notes":
        return listed;
      case "drafts":
        return drafts;
      case "conflict":
        return {
          tab_id: "markdown",
          base_version: 3,
          base: { type: "markdown", data: "alpha" },
          mine: { type: "markdown", data: "alpha!!" },
          theirs_version: 4,
          theirs: { type: "markdown", data: theirs },
          merge: null,
        };
      case "resolve_conflict":
        return status("markdown");
      default:
        return null;
    }
  });
  const v = view(3, "alpha");
  app.set({
    open: { noteId: NOTE, view: v, loading: false, error: null },
    content: { markdown: { data: "alpha", epoch: edits.mark(NOTE, "markdown"), rev: 0, version: 3 } },
    status: null,
    unsent: [],
    remoteEdits: {},
    ledger: [],
  });
});

afterEach(() => {
  clearMocks();
  vi.useRealTimers();
});

const editCalls = () => calls.filter((c) => c.cmd === "edit_tab").map((c) => [c.args.content, c.args.baseVersion]);

describe("edits carry their base version", () => {
  it("hands an edit over with the version the editor loaded", async () => {
    expect(contentFor("markdown")).toBe("alpha");
    localEdit("markdown", () => "alpha!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toEqual([["alpha!", 3]]);
  });

  it("keeps the old base when another writer's change arrives under an unsent edit", async () => {
    contentFor("markdown");
    // The agent writes version 4 while the person's keystroke is not handed over yet.
    localEdit("markdown", () => "A: alpha");
    server = view(4, "alpha (agent)");
    await refreshView();
    await vi.advanceTimersByTimeAsync(1);
    // Handed over on version 3: the engine makes it a conflict, not an overwrite of version 4.
    expect(editCalls()).toEqual([["A: alpha", 3]]);
    // And the editor's content was not replaced by the agent's.
    expect(app.get().content.markdown?.data).not.toBe("alpha (agent)");
  });

  it("moves the base once the editor shows the other writer's change", async () => {
    contentFor("markdown");
    server = view(4, "alpha (agent)");
    await refreshView();
    expect(app.get().content.markdown).toMatchObject({ data: "alpha (agent)", version: 4 });
    adopted("markdown"); // what the editor calls after applying it
    localEdit("markdown", () => "alpha (agent)!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toEqual([["alpha (agent)!", 4]]);
  });

  it("moves the base to this app's own saved version", async () => {
    contentFor("markdown");
    localEdit("markdown", () => "alpha!");
    await vi.advanceTimersByTimeAsync(1);
    onEngineEvent({ kind: "saved", note_id: NOTE, tab_id: "markdown", version: 5, replayed: false, unseen: false });
    localEdit("markdown", () => "alpha!!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toEqual([
      ["alpha!", 3],
      ["alpha!!", 5],
    ]);
  });

  // The engine merged another writer's change of other lines into the person's edit and saved
  // it: the editor does not show that change yet, so its edits stay on the old base (the engine
  // merges them again) until it has read and taken the merged text.
  it("keeps the old base while a merged change is not shown, and reads it", async () => {
    contentFor("markdown");
    editStatus = { ...status("markdown"), unseen: true };
    localEdit("markdown", () => "alpha!");
    await vi.advanceTimersByTimeAsync(1);
    onEngineEvent({ kind: "saved", note_id: NOTE, tab_id: "markdown", version: 5, replayed: false, unseen: true });
    server = view(5, "ALPHA!");
    editStatus = status("markdown");
    localEdit("markdown", () => "alpha!!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toEqual([
      ["alpha!", 3],
      ["alpha!!", 3],
    ]);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls.filter((c) => c.cmd === "open_note").length).toBeGreaterThan(0);
    expect(app.get().content.markdown).toMatchObject({ data: "ALPHA!", version: 5 });
    adopted("markdown");
    localEdit("markdown", () => "ALPHA!!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls().at(-1)).toEqual(["ALPHA!!", 5]);
  });
});

describe("a read of the engine", () => {
  it("does not replace an edit the engine took while the read was on the wire, and reads again", async () => {
    contentFor("markdown");
    let took!: (s: TabStatus) => void;
    editReply = new Promise((resolve) => (took = resolve));
    let answer!: (v: NoteView) => void;
    openReply = new Promise((resolve) => (answer = resolve));
    localEdit("markdown", () => "alpha!");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toEqual([["alpha!", 3]]);
    // A read starts with the edit on the wire; the engine answers it from before the edit, and
    // then takes the edit (its commands run side by side); the answer arrives last.
    const reading = refreshView();
    took(status("markdown"));
    await vi.advanceTimersByTimeAsync(0);
    answer(view(3, "alpha"));
    await reading;
    // Nothing typed since, every edit taken: but the read is older than the edit.
    const kept = app.get().content.markdown;
    expect(kept).toMatchObject({ data: "alpha!", rev: 0 });
    // Read again: the engine shows the edit now.
    server = view(3, "alpha!");
    const opens = calls.filter((c) => c.cmd === "open_note").length;
    await vi.advanceTimersByTimeAsync(200);
    expect(calls.filter((c) => c.cmd === "open_note").length).toBe(opens + 1);
    expect(app.get().content.markdown).toMatchObject({ data: "alpha!", rev: 0, version: 3 });
  });
});

describe("a conflict", () => {
  // The engine no longer raises a conflict whose other side is this app's own save; the UI
  // never settles one by itself, whatever "theirs" holds.
  it.each([
    ["the person's own earlier content", "alpha!"],
    ["someone else's", "alpha (agent)"],
  ])("is left to the person when the other side is %s", async (_what, other) => {
    contentFor("markdown");
    localEdit("markdown", () => "alpha!");
    await vi.advanceTimersByTimeAsync(1);
    theirs = other;
    onEngineEvent({ kind: "conflict_shown", note_id: NOTE, tab_id: "markdown" });
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.some((c) => c.cmd === "resolve_conflict")).toBe(false);
  });
});

describe("another writer's edit", () => {
  const version = (v: number, author: string, author_kind: VersionInfo["author_kind"]): VersionInfo => ({
    version: v,
    author,
    author_kind,
    created_at: "2026-11-30T10:00:00.000Z",
    summary: 'replaced the text of "Note"',
    changed_tab_ids: ["markdown"],
  });

  // The server records who wrote each version; a name says nothing (an agent's token may carry
  // the person's name, and another person is not an agent).
  it.each([
    ["an agent named like the person", version(4, "ana", "agent"), true],
    ["another person", version(4, "ben", "person"), false],
  ])("is marked from the version's author kind: %s", async (_who, last, agent) => {
    app.set({ settings: { person_name: "ana" } as never });
    history = [version(3, "ana", "person"), last];
    server = view(4, "alpha (changed)");
    onEngineEvent({ kind: "remote_applied", note_id: NOTE, tab_ids: ["markdown"], version: 4 });
    await vi.waitFor(() => expect(app.get().remoteEdits.markdown).toBeDefined());
    expect(app.get().remoteEdits.markdown).toMatchObject({ author: last.author, agent });
  });

  // An editor opened on the tab later marks the change against the content the app had before.
  it("keeps the content from before the change, the first one's over two, until marks are shown", async () => {
    history = [version(3, "ana", "person"), version(4, "claude", "agent")];
    server = view(4, "alpha (changed)");
    onEngineEvent({ kind: "remote_applied", note_id: NOTE, tab_ids: ["markdown"], version: 4 });
    await vi.waitFor(() => expect(app.get().content.markdown?.data).toBe("alpha (changed)"));
    expect(app.get().remoteEdits.markdown).toMatchObject({ version: 4, before: "alpha" });
    history = [...history, version(5, "claude", "agent")];
    server = view(5, "alpha (changed twice)");
    onEngineEvent({ kind: "remote_applied", note_id: NOTE, tab_ids: ["markdown"], version: 5 });
    await vi.waitFor(() => expect(app.get().content.markdown?.data).toBe("alpha (changed twice)"));
    expect(app.get().remoteEdits.markdown).toMatchObject({ version: 5, before: "alpha" });
    marksShown("markdown");
    expect(app.get().remoteEdits.markdown).toEqual({ author: "claude", agent: true, version: 5, at: "2026-11-30T10:00:00.000Z" });
  });

  // The engine merged the agent's change into the person's edits and saved the result: the
  // newest version is this app's own save; the mark names the agent.
  it("is marked as the other writer's when this app saved it merged into the person's edits", async () => {
    history = [version(3, "ana", "person"), version(4, "claude", "agent"), version(5, "ana", "person")];
    onEngineEvent({ kind: "saved", note_id: NOTE, tab_id: "markdown", version: 5, replayed: false, unseen: true });
    server = view(5, "ALPHA (agent) and mine");
    onEngineEvent({ kind: "remote_applied", note_id: NOTE, tab_ids: ["markdown"], version: 4 });
    await vi.waitFor(() => expect(app.get().remoteEdits.markdown).toBeDefined());
    expect(app.get().remoteEdits.markdown).toMatchObject({ author: "claude", agent: true, version: 4 });
    // A page of the newest versions, not the whole history.
    const reads = calls.filter((c) => c.cmd === "history");
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((c) => typeof c.args.limit === "number")).toBe(true);
  });

  // The same, when the history is read before this app's `saved` event of its merged save
  // comes (events and replies keep no order between them): the version the engine applied
  // bounds the search, so the person's own save never names the change.
  it("is marked as the other writer's when the merged save is read before its saved event", async () => {
    history = [version(3, "ana", "person"), version(4, "claude", "agent"), version(5, "ana", "person")];
    server = view(5, "ALPHA (agent) and mine");
    onEngineEvent({ kind: "remote_applied", note_id: NOTE, tab_ids: ["markdown"], version: 4 });
    await vi.waitFor(() => expect(app.get().remoteEdits.markdown).toBeDefined());
    expect(app.get().remoteEdits.markdown).toMatchObject({ author: "claude", agent: true, version: 4 });
  });
});

describe("the Notes list marks Notes an agent changed since the person saw them", () => {
  const summary = (id: string, version: number) => ({ id, title: id, version, updated_at: "2026-12-01T10:00:00Z", agent_access: true });
  const v = (version: number, author: string, author_kind: VersionInfo["author_kind"]): VersionInfo => ({
    version,
    author,
    author_kind,
    created_at: "2026-12-01T10:00:00.000Z",
    summary: "",
    changed_tab_ids: ["markdown"],
  });
  const historyReads = () => calls.filter((c) => c.cmd === "history").map((c) => c.args.noteId);

  it("reads the history only of Notes changed since seen, marks the agent's, not the person's, and clears on open", async () => {
    const [a, b, c] = [`${NOTE}-a`, `${NOTE}-b`, `${NOTE}-c`];
    listed = [summary(a, 2), summary(b, 2), summary(c, 2)];
    await refreshNotes();
    await vi.waitFor(() => expect(Object.keys(app.get().agentChanged)).toEqual([]));
    expect(historyReads()).toEqual([]);
    // The agent writes a, the person (from elsewhere) writes b, c stays.
    histories = { [a]: [v(2, "ana", "person"), v(3, "claude", "agent")], [b]: [v(2, "ana", "person"), v(3, "ana", "person")] };
    listed = [summary(a, 3), summary(b, 3), summary(c, 2)];
    await refreshNotes();
    await vi.waitFor(() => expect(app.get().agentChanged[a]).toEqual({ author: "claude", version: 3 }));
    expect(historyReads().sort()).toEqual([a, b].sort());
    expect(app.get().agentChanged[b]).toBeUndefined();
    // One page, of the versions since the one seen (2 -> 3), not the whole history.
    expect(calls.filter((c) => c.cmd === "history").map((c) => c.args.limit)).toEqual([1, 1]);
    // Read again at the same versions: no history is read again.
    await refreshNotes();
    await vi.advanceTimersByTimeAsync(1);
    expect(historyReads().length).toBe(2);
    // The person opens a: the marker goes, and stays gone.
    server = { ...view(3, "x"), note_id: a };
    app.set({ open: { noteId: a, view: null, loading: true, error: null }, content: {} });
    await refreshView();
    await vi.waitFor(() => expect(app.get().agentChanged[a]).toBeUndefined());
    await refreshNotes();
    await vi.advanceTimersByTimeAsync(1);
    expect(app.get().agentChanged[a]).toBeUndefined();
  });
});

describe("a long text goes over as what changed", () => {
  const long = "a line of a long research log\n".repeat(20_000);
  const handOvers = () =>
    calls
      .filter((c) => c.cmd === "hand_over")
      .map((c) => (c.args.change ? "change" : "whole"));

  it("hands the text over whole once, then only what changed, and the engine has the text", async () => {
    contentFor("markdown");
    localEdit("markdown", () => long, long.length);
    await vi.advanceTimersByTimeAsync(1000);
    const typed = long.slice(0, 40) + "typed" + long.slice(40);
    localEdit("markdown", () => typed, typed.length);
    await vi.advanceTimersByTimeAsync(1000);
    const more = typed + "the end";
    localEdit("markdown", () => more, more.length);
    await vi.advanceTimersByTimeAsync(1000);
    expect(handOvers()).toEqual(["whole", "change", "change"]);
    expect(editCalls()).toEqual([]);
    const change = calls.filter((c) => c.cmd === "hand_over")[1]?.args.change;
    expect(change).toEqual({ after: 1, at: 40, removed: 0, insert: "typed" });
    expect(calls.filter((c) => c.cmd === "hand_over")[1]?.args.baseVersion).toBe(3);
    expect(engineText).toBe(more);
  });

  it("hands the whole text over when the engine refuses a change", async () => {
    contentFor("markdown");
    localEdit("markdown", () => long, long.length);
    await vi.advanceTimersByTimeAsync(1000);
    refuseChanges = true;
    const typed = `${long}!`;
    localEdit("markdown", () => typed, typed.length);
    await vi.advanceTimersByTimeAsync(1000);
    expect(handOvers()).toEqual(["whole", "change", "whole"]);
    expect(engineText).toBe(typed);
  });
});

describe("closing the window", () => {
  it("hands a held edit over before the window closes", async () => {
    contentFor("markdown");
    // Large content is held (coalesced) before it is handed over.
    localEdit("markdown", () => "alpha, and a long text", 10_000_000);
    expect(editCalls()).toEqual([]);
    await closeWindow();
    expect(calls.map((c) => c.cmd)).toEqual(["edit_tab", "close_window"]);
    expect(editCalls()).toEqual([["alpha, and a long text", 3]]);
  });
});

describe("statuses arrive by two paths", () => {
  const noteStatus = (seq: number, state: TabStatus["state"]) => ({
    note_id: NOTE,
    seq,
    guard: 4,
    offline: false,
    settled: state === "saved",
    tabs: [{ ...status("markdown"), state }],
    queued_writes: 0,
    stats: { saves_sent: 1, saves_committed: 0, replays: 0, refused: 0, auto_rebased: 0, conflicts_shown: 0, offline_failures: 0 },
  });

  it("keeps the newest: a reply taken before the save finished does not bring back Saving…", () => {
    // The engine's event after the save, then a reply to note_status taken before it.
    onEngineEvent({ kind: "status", ...noteStatus(8, "saved") });
    onEngineEvent({ kind: "status", ...noteStatus(5, "saving") });
    expect(app.get().status?.seq).toBe(8);
    expect(app.get().status?.tabs[0]?.state).toBe("saved");
    expect(app.get().open?.view?.tabs[0]?.status.state).toBe("saved");
  });

  it("a hand-over's reply taken before a conflict does not hide the conflict an event brought meanwhile", async () => {
    onEngineEvent({ kind: "status", ...noteStatus(3, "clean") });
    let reply: (status: TabStatus) => void = () => undefined;
    editReply = new Promise((resolve) => (reply = resolve));
    localEdit("markdown", () => "A: alpha");
    await vi.advanceTimersByTimeAsync(1);
    expect(editCalls()).toHaveLength(1);
    // The other writer's change makes it a conflict while the hand-over's reply is on its way.
    onEngineEvent({ kind: "status", ...noteStatus(5, "conflict") });
    reply({ ...status("markdown"), state: "dirty" });
    await vi.advanceTimersByTimeAsync(1);
    expect(app.get().open?.view?.tabs[0]?.status.state).toBe("conflict");
  });

  it("a hand-over's reply shows at once when no status arrived meanwhile", async () => {
    onEngineEvent({ kind: "status", ...noteStatus(3, "clean") });
    editStatus = { ...status("markdown"), state: "dirty" };
    localEdit("markdown", () => "A: alpha");
    await vi.advanceTimersByTimeAsync(1);
    expect(app.get().open?.view?.tabs[0]?.status.state).toBe("dirty");
  });

  it("a view read again shows the newest status known, not the states in its reply", async () => {
    onEngineEvent({ kind: "status", ...noteStatus(9, "saved") });
    server = { ...view(4, "alpha"), tabs: [{ ...view(4, "alpha").tabs[0]!, status: { ...status("markdown"), state: "saving" } }] };
    await refreshView();
    expect(app.get().open?.view?.tabs[0]?.status.state).toBe("saved");
  });
});

describe("the drafts count after a save", () => {
  const entry = (noteId: string, tabId: string): LedgerEntry => ({
    note_id: noteId,
    note_title: "T",
    tab_id: tabId,
    tab_label: "Note",
    state: "saving",
    base_version: 3,
    has_pending_save: true,
    last_error: null,
    updated_at: 1_764_586_800_000,
  });
  const noteStatus = (seq: number, state: TabStatus["state"]) => ({
    note_id: NOTE,
    seq,
    guard: 4,
    offline: false,
    settled: state === "saved",
    tabs: [{ ...status("markdown"), state }],
    queued_writes: 0,
    stats: { saves_sent: 1, saves_committed: 1, replays: 0, refused: 0, auto_rebased: 0, conflicts_shown: 0, offline_failures: 0 },
  });
  const header = () => {
    const s = app.get();
    return summarize({ status: s.status, version: 4, unsentTabs: [], ledgerCount: s.ledger.length });
  };

  it("drops the saved tab's draft the moment the status says Saved, not at the next ledger read", () => {
    const other = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4fff";
    app.set({ ledger: [entry(NOTE, "markdown"), entry(other, "markdown")] });
    onEngineEvent({ kind: "saved", note_id: NOTE, tab_id: "markdown", version: 4, replayed: false, unseen: false });
    onEngineEvent({ kind: "status", ...noteStatus(7, "saved") });
    expect(header().text).toBe("Saved (version 4)");
    // Only the other Note's draft is counted: no "Drafts 2" (or 1 for this tab) beside "Saved".
    expect(app.get().ledger.map((d) => d.note_id)).toEqual([other]);
  });

  it("a ledger read taken before the save does not bring the draft back", async () => {
    onEngineEvent({ kind: "status", ...noteStatus(7, "saved") });
    drafts = [entry(NOTE, "markdown")];
    await refreshLedger();
    expect(app.get().ledger).toEqual([]);
  });

  it("keeps a draft the newest status does not call saved, and ignores an older status", () => {
    app.set({ ledger: [entry(NOTE, "markdown")] });
    onEngineEvent({ kind: "status", ...noteStatus(7, "dirty") });
    onEngineEvent({ kind: "status", ...noteStatus(5, "saved") });
    expect(app.get().ledger).toHaveLength(1);
  });
});
