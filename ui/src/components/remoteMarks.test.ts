import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { clearChanged, markChanged, markedLines, remoteMarks } from "./remoteMarks";

describe("the marks of another writer's lines", () => {
  const start = () => EditorState.create({ doc: "one\ntwo\nthree\nfour", extensions: [remoteMarks()] });

  it("marks the lines named, moves them with the person's typing, and goes when seen", () => {
    let state = start().update({ effects: markChanged.of({ lines: [1, 3], author: "claude", agent: true }) }).state;
    expect(markedLines(state)).toEqual([
      { line: 1, author: "claude" },
      { line: 3, author: "claude" },
    ]);
    // A line typed above them: the marks stay on the same text.
    state = state.update({ changes: { from: 0, insert: "zero\n" } }).state;
    expect(markedLines(state).map((m) => m.line)).toEqual([2, 4]);
    state = state.update({ effects: clearChanged.of(null) }).state;
    expect(markedLines(state)).toEqual([]);
  });

  it("ignores lines past the end", () => {
    const state = start().update({ effects: markChanged.of({ lines: [9], author: "a", agent: false }) }).state;
    expect(markedLines(state)).toEqual([]);
  });
});
