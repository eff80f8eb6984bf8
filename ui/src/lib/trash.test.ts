import { describe, expect, it } from "vitest";
import type { NoteSummary } from "../bindings";
import { deleteQuestion, deletedText, emptiedText, emptyQuestion, isTrashRefusal, trashOrder } from "./trash";

function note(id: string, deleted_at?: string): NoteSummary {
  return { id, title: id, version: 2, updated_at: "2026-12-01T10:00:00.000Z", agent_access: false, deleted_at };
}

describe("the trash's questions", () => {
  it("says a deleted Note can come back, and names it", () => {
    const q = deleteQuestion("Plan");
    expect(q.title).toBe("Delete “Plan”?");
    expect(q.body).toContain("restore it from the Trash");
    expect(q.confirmLabel).toBe("Delete Note");
    expect(deleteQuestion("  ").title).toBe("Delete “Untitled”?");
  });

  it("says emptying is for good, counting what goes", () => {
    expect(emptyQuestion(1).body).toMatch(/^The Note in the Trash is erased for good, with every version of it\./);
    expect(emptyQuestion(3).body).toMatch(/^The 3 Notes in the Trash are erased for good, with every version of them\./);
    expect(emptyQuestion(3).body).toContain("cannot be undone");
    expect(emptyQuestion(3).danger).toBe(true);
  });

  it.each([
    [0, "The Trash was already empty."],
    [1, "1 Note erased for good."],
    [4, "4 Notes erased for good."],
  ])("after emptying %i: %s", (n, text) => {
    expect(emptiedText(n)).toBe(text);
  });

  it("tells the delete toast", () => {
    expect(deletedText("Plan")).toBe("“Plan” moved to the Trash.");
  });
});

describe("a draft the trash refused", () => {
  it.each([
    [{ code: "note_in_trash" }, true],
    [{ code: "version_conflict" }, false],
    [null, false],
    [undefined, false],
  ])("%o -> %s", (error, want) => {
    expect(isTrashRefusal(error)).toBe(want);
  });
});

describe("trashOrder", () => {
  it("puts the most recently trashed first, whatever the order received", () => {
    const list = [
      note("a", "2026-12-01T10:00:00.000Z"),
      note("c", "2026-12-01T12:00:00.000Z"),
      note("b", "2026-12-01T11:00:00.000Z"),
    ];
    expect(trashOrder(list).map((n) => n.id)).toEqual(["c", "b", "a"]);
    expect(list.map((n) => n.id)).toEqual(["a", "c", "b"]);
  });
});
