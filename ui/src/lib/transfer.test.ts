import { describe, expect, it } from "vitest";
import type { TransferSummary } from "../bindings";
import {
  failedText,
  noteLines,
  progressPercent,
  progressText,
  skippedLines,
  summaryHeadline,
  summaryTitle,
} from "./transfer";

function summary(kind: "export" | "import", notes: number, skipped: [string, string][] = []): TransferSummary {
  return {
    kind,
    folder: "/home/ann/out",
    notes: Array.from({ length: notes }, (_, i) => ({ note_id: `n${i}`, title: i === 0 ? "  " : `Note ${i}`, path: `p${i}` })),
    skipped: skipped.map(([path, reason]) => ({ path, reason })),
  };
}

describe("transfer progress", () => {
  it("counts Notes once their number is known", () => {
    expect(progressText("import", null)).toBe("Importing…");
    expect(progressText("export-all", { done: 0, total: 0 })).toBe("Exporting…");
    expect(progressText("export-all", { done: 3, total: 10 })).toBe("Exporting 3 of 10 Notes…");
    expect(progressText("export-note", { done: 0, total: 1 })).toBe("Exporting 0 of 1 Note…");
    expect(progressText("import", { done: 12, total: 10 })).toBe("Importing 10 of 10 Notes…");
  });

  it("fills the bar by the share done", () => {
    expect(progressPercent(null)).toBe(0);
    expect(progressPercent({ done: 0, total: 0 })).toBe(0);
    expect(progressPercent({ done: 1, total: 3 })).toBe(33);
    expect(progressPercent({ done: 3, total: 3 })).toBe(100);
    expect(progressPercent({ done: 4, total: 3 })).toBe(100);
  });
});

describe("the transfer summary", () => {
  it("says how many Notes were exported, and where", () => {
    const s = summary("export", 1);
    expect(summaryTitle(s)).toBe("Export finished");
    expect(summaryHeadline(s)).toBe("1 Note exported to /home/ann/out.");
    expect(summaryHeadline(summary("export", 4))).toBe("4 Notes exported to /home/ann/out.");
    expect(summaryHeadline(summary("export", 0))).toBe("No Notes to export to /home/ann/out.");
  });

  it("says how many were imported and how many entries were skipped", () => {
    const s = summary("import", 2, [
      ["img.png", "not a Markdown or CSV file"],
      [".obsidian", "hidden (its name starts with a dot)"],
    ]);
    expect(summaryTitle(s)).toBe("Import finished");
    expect(summaryHeadline(s)).toBe("2 Notes imported from /home/ann/out; 2 skipped.");
    expect(summaryHeadline(summary("import", 1))).toBe("1 Note imported from /home/ann/out.");
    expect(summaryHeadline(summary("import", 0, [["a.txt", "x"]]))).toBe("No Notes imported from /home/ann/out; 1 skipped.");
    expect(skippedLines(s)).toEqual(["img.png: not a Markdown or CSV file", ".obsidian: hidden (its name starts with a dot)"]);
    expect(skippedLines(summary("import", 0, [["", "not a folder"]]))).toEqual([".: not a folder"]);
  });

  it("lists each Note by its title, untitled ones too", () => {
    expect(noteLines(summary("import", 2))).toEqual([
      { noteId: "n0", title: "Untitled", path: "p0" },
      { noteId: "n1", title: "Note 1", path: "p1" },
    ]);
  });

  it("names what failed", () => {
    expect(failedText("export-note")).toBe("The Note could not be exported.");
    expect(failedText("export-all")).toBe("The Notes could not be exported.");
    expect(failedText("import")).toBe("The folder could not be imported.");
  });
});
