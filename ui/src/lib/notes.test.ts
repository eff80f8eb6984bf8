import { describe, expect, it } from "vitest";
import { byRecent, matchScore, searchNotes } from "./notes";

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
