import { describe, expect, it } from "vitest";
import type { AuthorKind, VersionInfo, WriteResult } from "../bindings";
import { agentsLastChange, canUndo, notUndone, undoSpan, undone, whose } from "./undo";

function v(version: number, kind: AuthorKind, author = kind === "agent" ? "claude" : "Ana"): VersionInfo {
  return {
    version,
    author,
    author_kind: kind,
    created_at: "2026-12-01T10:00:00.000Z",
    summary: "",
    changed_tab_ids: ["markdown"],
  };
}

describe("canUndo", () => {
  it("offers every version but the first, which made the Note", () => {
    expect([1, 2, 9].map((n) => canUndo(v(n, "person")))).toEqual([false, true, true]);
  });
});

describe("agentsLastChange", () => {
  it("is the newest version when an agent wrote it, in any order", () => {
    expect(agentsLastChange([v(3, "agent"), v(1, "person"), v(2, "person")])?.version).toBe(3);
  });

  it("is nothing when the person wrote last, even after an agent", () => {
    expect(agentsLastChange([v(1, "person"), v(2, "agent"), v(3, "person")])).toBeNull();
  });

  it("is nothing for an empty history or a Note an agent made (version 1)", () => {
    expect(agentsLastChange([])).toBeNull();
    expect(agentsLastChange([v(1, "agent")])).toBeNull();
  });
});

describe("undoSpan", () => {
  it("compares the version before with the version itself", () => {
    expect(undoSpan(5)).toEqual({ before: 4, after: 5 });
  });
});

describe("whose", () => {
  it("names the agent, the person as you, and others by name", () => {
    expect(whose(v(2, "agent"), "Ana")).toBe("the agent “claude”");
    expect(whose(v(2, "person"), "Ana")).toBe("you");
    expect(whose(v(2, "person", "Bo"), "Ana")).toBe("Bo");
  });
});

describe("undone / notUndone", () => {
  const result: WriteResult = {
    note_id: "n",
    version: 7,
    changed_tab_ids: ["markdown"],
    outcomes: [],
    replayed: false,
    request_differs: false,
  };

  it("says which version took the change back", () => {
    expect(undone(4, { status: "committed", result })).toEqual({
      ok: true,
      text: "Undid the change of version 4, as version 7. Everything written since is kept.",
    });
    expect(undone(4, { status: "queued", id: "w1" }).text).toMatch(/^Offline: undoing version 4 is kept/);
  });

  it("explains a clash, naming the tabs by label", () => {
    const e = { code: "revert_conflict", text: "x", detail: "x" };
    expect(notUndone(4, e, ["Essay"])).toEqual({
      ok: false,
      text: "Not undone: a later change touched the same lines, cells or slides in “Essay” that version 4 changed. Nothing was changed.",
      detail: "",
    });
    expect(notUndone(4, e, ["Essay", "Budget", "Deck"]).text).toContain("in “Essay”, “Budget” and “Deck” that");
    expect(notUndone(4, e).text).toBe(
      "Not undone: a later change touched the same lines, cells or slides that version 4 changed. Nothing was changed.",
    );
  });

  it("falls back to the general explanation", () => {
    expect(notUndone(4, { code: "offline", text: "The server cannot be reached.", detail: "x" }).text).toBe(
      "Not undone. The server cannot be reached.",
    );
    expect(notUndone(99, { code: "version_not_found", text: "", detail: "" }).text).toMatch(/version 99 is not in/);
  });
});
