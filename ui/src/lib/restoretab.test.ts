import { describe, expect, it } from "vitest";
import type { Tab, VersionInfo } from "../bindings";
import { deletedTabs, restoreTabOps } from "./restoretab";

function v(version: number, changed: string[]): VersionInfo {
  return {
    version,
    author: "Ana",
    author_kind: "person",
    created_at: "2026-12-01T10:00:00.000Z",
    summary: "",
    changed_tab_ids: changed,
  };
}

describe("deletedTabs", () => {
  it("finds the version that deleted each tab missing now", () => {
    const history = [
      v(1, ["markdown", "files", "sources"]),
      v(2, ["sheet-4-a"]), // created
      v(3, ["sheet-4-a", "markdown"]), // edited
      v(4, ["slides-5-b"]), // created
      v(5, ["sheet-4-a"]), // deleted
      v(6, ["markdown"]),
    ];
    const now = ["markdown", "files", "sources", "slides-5-b"];
    expect(deletedTabs(history, now)).toEqual(new Map([[5, ["sheet-4-a"]]]));
  });

  it("offers nothing for a tab that is back (a whole-version restore) or never left", () => {
    const history = [v(1, ["markdown"]), v(2, ["sheet-4-a"]), v(3, ["sheet-4-a"]), v(4, ["sheet-4-a"])];
    expect(deletedTabs(history, ["markdown", "sheet-4-a"])).toEqual(new Map());
  });

  it("groups the tabs one version deleted", () => {
    const history = [v(1, ["markdown"]), v(2, ["s-2", "s-3"]), v(3, ["s-3", "s-2"])];
    expect(deletedTabs(history, ["markdown"])).toEqual(new Map([[3, ["s-2", "s-3"]]]));
  });
});

describe("restoreTabOps", () => {
  it("makes a tab of the same kind and label, then writes its content", () => {
    const tab = { id: "sheet-4-a", label: "Budget", type: "sheet", data: { sheets: [] } } as unknown as Tab;
    const ops = restoreTabOps(tab);
    expect(ops?.create).toEqual({ op: "create_tab", tab_type: "sheet", label: "Budget", slides: null });
    expect(ops?.fill("sheet-9-z")).toEqual({ op: "replace_tab_data", tab_id: "sheet-9-z", data: { sheets: [] } });
  });

  it("refuses the fixed tabs, which are never deleted", () => {
    const md = { id: "markdown", label: "Note", type: "markdown", data: "x" } as Tab;
    expect(restoreTabOps(md)).toBeNull();
  });
});
