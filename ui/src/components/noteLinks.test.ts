import { EditorSelection, EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { noteLink } from "../lib/markdown";
import { linkDecorations, noteLinks, setNotes } from "./noteLinks";

const A = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
const B = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f51";

const handlers = { openNote: () => undefined, attachImages: async () => [], imagesOf: () => [] };

/** A state on `lines`, the Notes A and B listed, the cursor at `cursor`. */
function stateOf(lines: string[], cursor = 0): EditorState {
  const state = EditorState.create({
    doc: lines.join("\n"),
    selection: EditorSelection.cursor(cursor),
    extensions: [noteLinks(handlers)],
  });
  return state.update({ effects: setNotes.of([{ id: A, title: "Plan" }, { id: B, title: "Log" }]) }).state;
}

/** Each decoration as [from, to, what it shows]. */
function shown(state: EditorState, ranges: { from: number; to: number }[]): [number, number, string][] {
  const out: [number, number, string][] = [];
  linkDecorations(state, ranges).between(0, state.doc.length, (from, to, deco) => {
    const widget = deco.spec.widget as { title?: string } | undefined;
    out.push([from, to, widget ? `title:${widget.title}` : "source"]);
  });
  return out;
}

describe("the editor's links", () => {
  const lines = [
    `first ${noteLink(A, "old")}`,
    "plain",
    `third ${noteLink(B, "x")} and ${noteLink(A, "y")}`,
    "plain",
    `last ${noteLink(B, "z")}`,
  ];
  const doc = lines.join("\n");
  const at = (needle: string, from = 0) => doc.indexOf(needle, from);

  it("are decorated on the lines in view only, whole lines even where the view cuts one", () => {
    const state = stateOf(lines, at("plain"));
    // The view shows from the middle of the third line to the middle of the fourth.
    const third = at("third");
    const got = shown(state, [{ from: third + 10, to: at("plain", third) + 2 }]);
    expect(got).toEqual([
      [at("[x]"), at("[x]") + noteLink(B, "x").length, "title:Log"],
      [at("[y]"), at("[y]") + noteLink(A, "y").length, "title:Plan"],
    ]);
  });

  it("take every range in view once, lines two ranges share included once", () => {
    const state = stateOf(lines, at("plain"));
    const got = shown(state, [
      { from: 0, to: 3 },
      { from: 5, to: at("plain") },
      { from: at("last"), to: doc.length },
    ]);
    expect(got.map(([, , what]) => what)).toEqual(["title:Plan", "title:Log"]);
    expect(got[0]?.[0]).toBe(at("[old]"));
    expect(got[1]?.[0]).toBe(at("[z]"));
  });

  it("show a link the cursor is in as written", () => {
    const state = stateOf(lines, at("[old]") + 2);
    expect(shown(state, [{ from: 0, to: doc.length }])[0]).toEqual([
      at("[old]"),
      at("[old]") + noteLink(A, "old").length,
      "source",
    ]);
  });
});
