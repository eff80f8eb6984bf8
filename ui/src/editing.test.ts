import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { COALESCE_MS, EditSessions, IMMEDIATE_MAX_CHARS, MAX_DELAY_MS } from "./editing";

interface Sent {
  noteId: string;
  tabId: string;
  data: unknown;
}

function setup(fail: (n: number) => boolean = () => false, fatal = false) {
  const sent: Sent[] = [];
  const unsent: string[][] = [];
  const errors: unknown[] = [];
  let calls = 0;
  let release: (() => void) | null = null;
  let hold = false;
  const sessions = new EditSessions(
    {
      send: (noteId, tabId, data) => {
        calls++;
        if (fail(calls)) return Promise.reject({ code: "local_store", message: "disk full" });
        sent.push({ noteId, tabId, data });
        if (hold) return new Promise<void>((resolve) => (release = resolve));
        return Promise.resolve();
      },
      onUnsentChange: (_note, tabs) => unsent.push(tabs),
      onError: (_note, _tab, e) => errors.push(e),
      isFatal: () => fatal,
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    },
    () => Date.now(),
  );
  return {
    sessions,
    sent,
    unsent,
    errors,
    holdSends: () => (hold = true),
    releaseSend: () => release?.(),
  };
}

const BIG = IMMEDIATE_MAX_CHARS + 1;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("EditSessions", () => {
  it("coalesces a burst of edits into one hand-over with the newest content", async () => {
    const t = setup();
    let text = "";
    for (const ch of "hello") {
      text += ch;
      const now = text;
      t.sessions.edit("n1", "markdown", () => now, BIG);
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(t.sent).toEqual([]);
    expect(t.sessions.unsent("n1")).toEqual(["markdown"]);
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(t.sent).toEqual([{ noteId: "n1", tabId: "markdown", data: "hello" }]);
    expect(t.sessions.unsent("n1")).toEqual([]);
    expect(t.unsent.at(-1)).toEqual([]);
  });

  it("never holds an edit longer than the maximum delay while typing goes on", async () => {
    const t = setup();
    const started = Date.now();
    for (let i = 0; i < 100; i++) {
      t.sessions.edit("n1", "markdown", () => `v${i}`, BIG);
      await vi.advanceTimersByTimeAsync(50);
      if (t.sent.length > 0) break;
    }
    expect(t.sent.length).toBe(1);
    expect(Date.now() - started).toBeLessThanOrEqual(MAX_DELAY_MS + 50);
  });

  it("hands a small edit over at once: the engine must see it before any other writer's change", async () => {
    const t = setup();
    t.sessions.edit("n1", "markdown", () => "A: ");
    expect(t.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sent).toEqual([{ noteId: "n1", tabId: "markdown", data: "A: " }]);
  });

  it("sends edits made during a hand-over right after it, newest content only", async () => {
    const t = setup();
    t.holdSends();
    t.sessions.edit("n1", "markdown", () => "a");
    await vi.advanceTimersByTimeAsync(0);
    t.sessions.edit("n1", "markdown", () => "ab");
    t.sessions.edit("n1", "markdown", () => "abc");
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sent.map((x) => x.data)).toEqual(["a"]);
    t.releaseSend();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sent.map((x) => x.data)).toEqual(["a", "abc"]);
  });

  it("flush waits for the edit on the wire, then hands over what was typed after it", async () => {
    const t = setup();
    t.holdSends();
    t.sessions.edit("n1", "markdown", () => "a");
    await vi.advanceTimersByTimeAsync(0);
    t.sessions.edit("n1", "markdown", () => "ab", BIG);
    let flushed = false;
    const flushing = t.sessions.flush("n1").then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(false);
    expect(t.sent.map((x) => x.data)).toEqual(["a"]);
    t.releaseSend();
    // No timer runs here: the hand-over of "ab" must not wait for one (the window is closing).
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(t.sent.map((x) => x.data)).toEqual(["a", "ab"]);
    expect(flushed).toBe(false);
    t.releaseSend();
    await flushing;
    expect(t.sessions.notesWithUnsent()).toEqual([]);
  });

  it("reads the content only when handing it over", async () => {
    const t = setup();
    const read = vi.fn(() => "big text");
    t.sessions.edit("n1", "markdown", read, BIG);
    t.sessions.edit("n1", "markdown", read, BIG);
    expect(read).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it("flushes at once on request", async () => {
    const t = setup();
    t.sessions.edit("n1", "markdown", () => "a");
    t.sessions.edit("n1", "sheet-1-x", () => ({ sheets: [] }));
    t.sessions.edit("n2", "markdown", () => "other note");
    await t.sessions.flush("n1");
    expect(t.sent.map((s) => `${s.noteId}/${s.tabId}`).sort()).toEqual(["n1/markdown", "n1/sheet-1-x"]);
    expect(t.sessions.notesWithUnsent()).toEqual(["n2"]);
  });

  it("keeps and retries an edit the engine refused, unless a newer one replaced it", async () => {
    const t = setup((n) => n === 1);
    t.sessions.edit("n1", "markdown", () => "first");
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(t.errors).toHaveLength(1);
    expect(t.sessions.isQuiet("n1", "markdown")).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sent).toEqual([{ noteId: "n1", tabId: "markdown", data: "first" }]);
    expect(t.sessions.isQuiet("n1", "markdown")).toBe(true);
  });

  it("keeps but does not resend content refused for good, until the next edit", async () => {
    const t = setup(() => true, true);
    t.sessions.edit("n1", "sheet-9-x", () => "typed into a deleted tab");
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(t.errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.errors).toHaveLength(1);
    expect(t.sessions.unsentContent("n1", "sheet-9-x")).toBe("typed into a deleted tab");
    expect(t.sessions.isQuiet("n1", "sheet-9-x")).toBe(false);
  });

  it("does not let a read that started before an edit replace the editor's content", async () => {
    const t = setup();
    const mark = t.sessions.mark("n1", "markdown");
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(true);
    t.sessions.edit("n1", "markdown", () => "typed");
    // The read comes back while the edit is unsent...
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(false);
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    // ...and even once it was taken: the read is older than the edit.
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(false);
    // A read started after the edit was taken may replace.
    const fresh = t.sessions.mark("n1", "markdown");
    expect(t.sessions.mayReplace("n1", "markdown", fresh)).toBe(true);
  });

  it("does not let a read that started while a hand-over was in flight replace the editor's content", async () => {
    const t = setup();
    t.holdSends();
    t.sessions.edit("n1", "markdown", () => "x");
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(t.sent).toHaveLength(1);
    const mark = t.sessions.mark("n1", "markdown");
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(false);
    t.releaseSend();
    await vi.advanceTimersByTimeAsync(0);
    // Taken now, and nothing typed since: but the engine may have answered the read before it
    // took "x" (its commands run side by side), so the read may not hold it.
    expect(t.sessions.isQuiet("n1", "markdown")).toBe(true);
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(false);
    // A read started once the hand-over ended may replace.
    const fresh = t.sessions.mark("n1", "markdown");
    expect(t.sessions.mayReplace("n1", "markdown", fresh)).toBe(true);
  });

  it("does not let a read that started before an unsent edit was handed over replace it", async () => {
    const t = setup();
    t.sessions.edit("n1", "markdown", () => "x");
    // Marked with the edit unsent (the hand-over goes on the next tick)...
    const mark = t.sessions.mark("n1", "markdown");
    await vi.advanceTimersByTimeAsync(0);
    expect(t.sent).toHaveLength(1);
    // ...the read may have been answered before the engine took it.
    expect(t.sessions.mayReplace("n1", "markdown", mark)).toBe(false);
  });

  it("gives a remounted editor the person's newer content", async () => {
    const t = setup();
    const readAt = t.sessions.mark("n1", "markdown");
    t.sessions.edit("n1", "markdown", () => "unsent");
    expect(t.sessions.latestSince("n1", "markdown", readAt)).toBe("unsent");
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(t.sessions.latestSince("n1", "markdown", readAt)).toBe("unsent");
    const later = t.sessions.mark("n1", "markdown");
    expect(t.sessions.latestSince("n1", "markdown", later)).toBeUndefined();
  });
});
