import { describe, expect, it } from "vitest";
import { agentSince, byRecent, keptMarks, matchScore, notesToCheck, searchNotes, withBaseline } from "./notes";

const notes = [
  { id: "a", title: "Trip to Lisbon", updated_at: "2026-11-28T10:00:00Z" },
  { id: "b", title: "Budget 2027", updated_at: "2026-11-30T09:00:00Z" },
  { id: "c", title: "Café notes", updated_at: "2026-11-29T10:00:00Z" },
  { id: "d", title: "Reading list", updated_at: "2026-11-27T10:00:00Z" },
];
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe("notes list", () => {
  it("sorts by most recently edited", () => {
    expect(ids(byRecent(notes))).toEqual(["b", "c", "a", "d"]);
  });

  it("searches titles ignoring case and accents, best matches first", () => {
    expect(ids(searchNotes(notes, "cafe"))).toEqual(["c"]);
    expect(ids(searchNotes(notes, "LIS"))).toEqual(["a", "d"]);
    expect(ids(searchNotes(notes, "lisbon"))).toEqual(["a"]);
    expect(ids(searchNotes(notes, ""))).toEqual(["b", "c", "a", "d"]);
    expect(ids(searchNotes(notes, "zzz"))).toEqual([]);
  });

  it("ranks a title start above a word start above a substring above letters in order", () => {
    expect(matchScore("Budget", "bud")).toBe(3);
    expect(matchScore("My budget", "bud")).toBe(2);
    expect(matchScore("Rebudget", "bud")).toBe(1);
    expect(matchScore("Big update", "bgu")).toBe(0.5);
    expect(matchScore("Budget", "xyz")).toBe(0);
  });
});

describe("Notes an agent changed since the person saw them", () => {
  const n = (id: string, version: number) => ({ id, version });

  it("takes Notes first met as seen at their version, and returns the same record when none is new", () => {
    const seen = withBaseline({ a: 2 }, [n("a", 5), n("b", 3)]);
    expect(seen).toEqual({ a: 2, b: 3 });
    expect(withBaseline(seen, [n("a", 6), n("b", 4)])).toBe(seen);
  });

  it("reads only the histories of Notes beyond what was seen, once per version", () => {
    const notes = [n("a", 5), n("b", 3), n("c", 9), n("new", 1)];
    const seen = { a: 2, b: 3, c: 4 };
    expect(notesToCheck(notes, seen, {})).toEqual(["a", "c"]);
    expect(notesToCheck(notes, seen, { a: { version: 5, agent: null }, c: { version: 8, agent: "claude" } })).toEqual(["c"]);
  });

  it("keeps a marker a read found while the Note stays at that version and unseen", () => {
    const checked = { a: { version: 5, agent: "claude" }, b: { version: 3, agent: null }, c: { version: 8, agent: "claude" }, d: { version: 4, agent: "claude" } };
    // a: still at 5, seen at 2: kept. b: the read found no agent. c: moved on to 9 since the read.
    // d: seen at 4 since (opened).
    expect(keptMarks([n("a", 5), n("b", 3), n("c", 9), n("d", 4)], { a: 2, b: 1, c: 4, d: 4 }, checked)).toEqual({
      a: { author: "claude", version: 5 },
    });
  });

  it("reads no history in a list of 10,000 unchanged Notes", () => {
    const notes = Array.from({ length: 10_000 }, (_, i) => n(`n${i}`, i + 1));
    const seen = withBaseline({}, notes);
    expect(notesToCheck(notes, seen, {})).toEqual([]);
  });

  it("names the newest agent that wrote after the version seen; none for the person's own", () => {
    const v = (version: number, author: string, author_kind: string) => ({ version, author, author_kind });
    const history = [v(1, "ana", "person"), v(2, "claude", "agent"), v(3, "bot", "agent"), v(4, "ana", "person")];
    expect(agentSince(history, 1)).toBe("bot");
    expect(agentSince(history, 2)).toBe("bot");
    expect(agentSince(history, 3)).toBeNull();
  });
});
