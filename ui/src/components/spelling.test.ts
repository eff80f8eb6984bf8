import { markdown, markdownLanguage } from "@codemirror/lang-markdown";
import { ensureSyntaxTree } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { setSpellcheck, spellcheckOn } from "../lib/spelling";
import { codeRanges } from "./spelling";

function state(doc: string): EditorState {
  const s = EditorState.create({ doc, extensions: [markdown({ base: markdownLanguage })] });
  ensureSyntaxTree(s, s.doc.length, 5000);
  return s;
}

describe("spell-check is off in code", () => {
  it("turns it off on every line of a fenced or indented code block, and nowhere else", () => {
    const doc = "A paragrap with a typo.\n\n```rust\nfn mian() {}\n```\n\nMore prose.\n\n    indentd code\n";
    const s = state(doc);
    const { lines } = codeRanges(s);
    const numbers = lines.map((at) => s.doc.lineAt(at).number);
    expect(numbers).toEqual([3, 4, 5, 9]);
  });

  it("turns it off on inline code and on addresses", () => {
    const doc = "Call `fn mian()` or see <https://exmaple.org> and [the site](https://exmaple.org/x).";
    const s = state(doc);
    const texts = codeRanges(s).marks.map(([from, to]) => doc.slice(from, to));
    expect(texts).toContain("`fn mian()`");
    expect(texts.some((t) => t.includes("https://exmaple.org") && t.startsWith("<"))).toBe(true);
    expect(texts).toContain("https://exmaple.org/x");
    expect(texts.join(" ")).not.toContain("Call");
    expect(texts.join(" ")).not.toContain("the site");
  });

  it("leaves prose alone", () => {
    expect(codeRanges(state("Just words, spelt badlly."))).toEqual({ lines: [], marks: [] });
  });
});

describe("the spell-check setting", () => {
  it("is on unless the person turned it off", () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    expect(spellcheckOn(storage)).toBe(true);
    setSpellcheck(false, storage);
    expect(spellcheckOn(storage)).toBe(false);
    setSpellcheck(true, storage);
    expect(spellcheckOn(storage)).toBe(true);
    expect(spellcheckOn(null)).toBe(true);
  });
});
