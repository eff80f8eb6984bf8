import { describe, expect, it } from "vitest";
import { formatShortcut, matchesShortcut, platformOf, rankCommands } from "./commands";

describe("shortcuts in the platform's words", () => {
  it("reads Ctrl on Linux and Windows, the macOS symbols on a Mac", () => {
    const palette = { mod: true, shift: true, key: "P" };
    expect(formatShortcut(palette, "other")).toBe("Ctrl+Shift+P");
    expect(formatShortcut(palette, "mac")).toBe("⇧⌘P");
    expect(formatShortcut({ alt: true, shift: true, key: "ArrowLeft" }, "other")).toBe("Alt+Shift+←");
    expect(formatShortcut({ alt: true, shift: true, key: "ArrowLeft" }, "mac")).toBe("⌥⇧←");
    expect(formatShortcut({ key: "F2" }, "mac")).toBe("F2");
    expect(formatShortcut({ mod: true, key: "k" }, "other")).toBe("Ctrl+K");
  });

  it("knows a Mac from its navigator", () => {
    expect(platformOf({ platform: "MacIntel" })).toBe("mac");
    expect(platformOf({ platform: "", userAgent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)" })).toBe("mac");
    expect(platformOf({ platform: "Linux x86_64", userAgent: "Mozilla/5.0 (X11; Linux x86_64)" })).toBe("other");
    expect(platformOf(undefined)).toBe("other");
  });

  it("answers Ctrl or Cmd for mod, and the other modifiers exactly", () => {
    const s = { mod: true, shift: true, key: "P" };
    const key = (over: Partial<KeyboardEvent>) => ({
      key: "P",
      ctrlKey: false,
      metaKey: false,
      shiftKey: true,
      altKey: false,
      ...over,
    });
    expect(matchesShortcut(s, key({ ctrlKey: true }))).toBe(true);
    expect(matchesShortcut(s, key({ metaKey: true }))).toBe(true);
    expect(matchesShortcut(s, key({ ctrlKey: true, key: "p" }))).toBe(true);
    expect(matchesShortcut(s, key({}))).toBe(false);
    expect(matchesShortcut(s, key({ ctrlKey: true, shiftKey: false }))).toBe(false);
    expect(matchesShortcut(s, key({ ctrlKey: true, altKey: true }))).toBe(false);
    expect(matchesShortcut({ key: "F2" }, key({ key: "F2", shiftKey: false }))).toBe(true);
  });
});

describe("ranking commands", () => {
  const commands = [
    { id: "a", title: "New note", section: "Note" },
    { id: "b", title: "Export Note…", section: "Note" },
    { id: "c", title: "Export all Notes…", section: "Quire", disabled: "An export or import is running" },
    { id: "d", title: "Dark theme", section: "Appearance" },
    { id: "e", title: "Delete tab", section: "Tab" },
  ];
  const ids = (q: string) => rankCommands(commands, q).map((c) => c.id);

  it("lists everything for no words, enabled first, in the list's order", () => {
    expect(ids("")).toEqual(["a", "b", "d", "e", "c"]);
    expect(ids("   ")).toEqual(["a", "b", "d", "e", "c"]);
  });

  it("needs every word, from the title or the section, best first", () => {
    expect(ids("export")).toEqual(["b", "c"]);
    expect(ids("export all")).toEqual(["c"]);
    expect(ids("dark")).toEqual(["d"]);
    expect(ids("appearance")).toEqual(["d"]);
    // The start of the title (Delete tab) before letters in order (Dark theme).
    expect(ids("de")).toEqual(["e", "d"]);
    expect(ids("zzz")).toEqual([]);
  });

  it("finds letters in order (dlt → Delete tab), case and accents aside", () => {
    expect(ids("dlt")).toContain("e");
    expect(ids("DÉLETE")).toEqual(["e"]);
  });
});
