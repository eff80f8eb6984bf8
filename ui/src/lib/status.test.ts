import { describe, expect, it } from "vitest";
import type { TabState } from "../bindings";
import { type NoteStatusShown, relativeTime, summarize, tabMark } from "./status";

function status(states: TabState[], extra: Partial<NoteStatusShown> = {}): NoteStatusShown {
  return {
    guard: 7,
    offline: false,
    queued_writes: 0,
    tabs: states.map((state, i) => ({ tab_id: `t${i}`, state, last_error: null })),
    ...extra,
  };
}

const line = (s: NoteStatusShown | null, unsentTabs: string[] = [], ledgerCount = 0, version: number | null = 7) =>
  summarize({ status: s, version, unsentTabs, ledgerCount });

describe("summarize", () => {
  it("says Saved with the save guard's version when everything is on the server", () => {
    expect(line(status(["clean", "saved"]))).toMatchObject({ state: "saved", text: "Saved (version 7)" });
    expect(line(status(["clean"], { guard: 12 }))).toMatchObject({ text: "Saved (version 12)" });
  });

  it("falls back to the Note's version before the guard is known", () => {
    expect(line(status(["clean"], { guard: null }), [], 0, 3).text).toBe("Saved (version 3)");
  });

  it("says Saving… while a tab is dirty or saving, a structural write is queued, or an edit is unsent", () => {
    expect(line(status(["dirty"])).text).toBe("Saving…");
    expect(line(status(["saving", "clean"])).text).toBe("Saving…");
    expect(line(status(["clean"], { queued_writes: 1 })).text).toBe("Saving…");
    expect(line(status(["clean"]), ["markdown"]).text).toBe("Saving…");
  });

  it("says Offline (drafts kept) when the server cannot be reached", () => {
    expect(line(status(["offline", "clean"])).text).toBe("Offline (drafts kept)");
    expect(line(status(["dirty"], { offline: true })).text).toBe("Offline (drafts kept)");
  });

  it("puts a conflict above everything else", () => {
    const s = line(status(["offline", "conflict", "saving"], { offline: true }));
    expect(s).toMatchObject({ state: "conflict", text: "Conflict" });
    expect(s.detail).toContain("1 tab needs");
  });

  it("explains a refused save and keeps the draft", () => {
    const s = status(["failed"]);
    (s.tabs[0] as { last_error: unknown }).last_error = { code: "invalid_op", message: "data: too large" };
    expect(line(s)).toMatchObject({ state: "failed", text: "Not saved (draft kept)" });
    expect(line(s).detail).toContain("data: too large");
  });

  it("with no Note open, counts the unsynced drafts across Notes", () => {
    expect(line(null, [], 2).text).toBe("2 drafts not synced");
    expect(line(null, [], 1).text).toBe("1 draft not synced");
    expect(line(null, [], 0)).toMatchObject({ state: "idle", text: "All changes saved" });
  });
});

describe("tabMark", () => {
  it("marks unsaved, saving, conflict, offline and failed tabs, nothing for saved ones", () => {
    expect(tabMark("clean", false).mark).toBe("");
    expect(tabMark("saved", false).mark).toBe("");
    expect(tabMark("saved", true).mark).toBe("dirty");
    expect(tabMark("conflict", false)).toEqual({ mark: "conflict", label: "Conflict: your draft is kept" });
    expect(tabMark("offline", true).mark).toBe("offline");
  });
});

describe("relativeTime", () => {
  const now = new Date("2026-11-30T12:00:00Z");
  it.each([
    ["2026-11-30T11:59:30Z", "just now"],
    ["2026-11-30T11:55:00Z", "5 min ago"],
    ["2026-11-30T09:00:00Z", "3 h ago"],
    ["2026-11-28T12:00:00Z", "2 d ago"],
  ])("%s is %s", (then, text) => {
    expect(relativeTime(new Date(then), now)).toBe(text);
  });
});
