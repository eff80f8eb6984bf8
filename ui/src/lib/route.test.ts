import { describe, expect, it } from "vitest";
import { defaultTab, formatRoute, parseRoute, resolveTab, tabHref } from "./route";

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";

describe("parseRoute", () => {
  it.each([
    ["", { kind: "home" }],
    ["#", { kind: "home" }],
    ["#/", { kind: "home" }],
    ["#/settings", { kind: "settings" }],
    ["#/agent", { kind: "agent" }],
    ["#/about", { kind: "about" }],
    ["#/about/", { kind: "about" }],
    ["#/trash", { kind: "trash" }],
    [`#/notes/${NOTE}`, { kind: "note", noteId: NOTE }],
    [`#/notes/${NOTE}/`, { kind: "note", noteId: NOTE }],
    [`#/notes/${NOTE}/tabs/slides-9-mh8z1k2a`, { kind: "tab", noteId: NOTE, tabId: "slides-9-mh8z1k2a" }],
    [`#/notes/${NOTE}/tabs/markdown`, { kind: "tab", noteId: NOTE, tabId: "markdown" }],
  ])("%s", (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it.each([
    "#/nothing",
    `#/notes/${NOTE}/tabs`,
    `#/notes/${NOTE}/tabs/`,
    `#/notes/${NOTE}/slides`,
    "#/notes//tabs/markdown",
    `#/notes/${NOTE}/tabs/%E0%A4%A`,
  ])("does not guess what %s means", (hash) => {
    expect(parseRoute(hash)).toEqual({ kind: "unknown", hash });
  });

  it("round-trips IDs that need escaping", () => {
    const href = tabHref("a/b", "sheet 1");
    expect(href).toBe("#/notes/a%2Fb/tabs/sheet%201");
    expect(parseRoute(href)).toEqual({ kind: "tab", noteId: "a/b", tabId: "sheet 1" });
    expect(formatRoute({ kind: "tab", noteId: "a/b", tabId: "sheet 1" })).toBe(href);
  });
});

describe("resolveTab", () => {
  const tabs = [
    { id: "markdown", type: "markdown", label: "Note" },
    { id: "slides-3-aaa", type: "slides", label: "Deck" },
    { id: "slides-4-bbb", type: "slides", label: "Deck" },
    { id: "sources", type: "sources", label: "Sources" },
  ];

  it("finds a tab by its exact instance ID, even among equal labels", () => {
    expect(resolveTab(tabs, "slides-4-bbb")).toEqual({ kind: "found", tab: tabs[2] });
  });

  it.each(["slides", "Deck", "slides-9-zzz", "1", "SLIDES-3-AAA"])(
    "an unknown ID (%s) is gone, with every tab listed, never another tab",
    (tabId) => {
      expect(resolveTab(tabs, tabId)).toEqual({ kind: "gone", tabId, tabs });
    },
  );
});

describe("defaultTab", () => {
  const tabs = [{ id: "markdown" }, { id: "sheet-1-x" }];

  it("reopens the last tab if it still exists, else the first", () => {
    expect(defaultTab(tabs, "sheet-1-x")?.id).toBe("sheet-1-x");
    expect(defaultTab(tabs, "sheet-9-gone")?.id).toBe("markdown");
    expect(defaultTab(tabs, null)?.id).toBe("markdown");
    expect(defaultTab([], null)).toBeUndefined();
  });
});
