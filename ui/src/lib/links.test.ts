import { describe, expect, it } from "vitest";
import {
  fileIdOf,
  findNoteLinks,
  imageLink,
  imageRefs,
  matchTitles,
  noteIdOf,
  noteLink,
  openWikiLink,
  renderMarkdown,
} from "./markdown";

const A = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
const B = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f51";

describe("links between Notes", () => {
  it("are stored as a Markdown link to quire:note/ID, the title escaped", () => {
    expect(noteLink(A, "Plan")).toBe(`[Plan](quire:note/${A})`);
    expect(noteLink(A, "a [b]\nc")).toBe(`[a \\[b\\] c](quire:note/${A})`);
    expect(noteIdOf(`quire:note/${A}`)).toBe(A);
    expect(noteIdOf("quire:note/nope")).toBeNull();
    expect(noteIdOf(`https://x/${A}`)).toBeNull();
  });

  it("are found in the text with their ranges and text", () => {
    const text = `see ${noteLink(A, "a [b]")} and [x](quire:note/${B}) but not [y](quire:note/zz)`;
    const links = findNoteLinks(text);
    expect(links.map((l) => [l.id, l.text, text.slice(l.from, l.to)])).toEqual([
      [A, "a [b]", noteLink(A, "a [b]")],
      [B, "x", `[x](quire:note/${B})`],
    ]);
  });

  it("render with the target's current title, and missing targets are marked", () => {
    const titles: Record<string, string> = { [A]: "New <title>" };
    const html = renderMarkdown(`[Old](quire:note/${A}) [Gone](quire:note/${B})`, { title: (id) => titles[id] });
    expect(html).toContain(`<a class="md-note-link" href="#" data-note-id="${A}">New &lt;title&gt;</a>`);
    expect(html).toContain(`<span class="md-note-link is-missing" data-note-id="${B}"`);
    expect(html).toContain(">Gone</span>");
    expect(html).not.toContain("data-external");
  });

  it("[[Title]] links to the Note of that title, or shows as missing", () => {
    const ctx = { title: (id: string) => (id === A ? "Plan" : undefined), byTitle: (t: string) => (t === "Plan" ? A : undefined) };
    const html = renderMarkdown("go to [[Plan]] or [[Nowhere]]", ctx);
    expect(html).toContain(`<a class="md-note-link" href="#" data-note-id="${A}">Plan</a>`);
    expect(html).toContain('<span class="md-note-link is-missing" title="No Note is titled so">[[Nowhere]]</span>');
  });

  it("completion starts after an open [[ and matches titles by prefix first", () => {
    expect(openWikiLink("see [[Pla")).toEqual({ from: 4, query: "Pla" });
    expect(openWikiLink("see [[")).toEqual({ from: 4, query: "" });
    expect(openWikiLink("see [[Plan]] and")).toBeNull();
    expect(openWikiLink("see [[a\nb")).toBeNull();
    expect(openWikiLink("no link")).toBeNull();
    const notes = [{ title: "Work plan" }, { title: "Plan B" }, { title: "Other" }];
    expect(matchTitles(notes, "plan").map((n) => n.title)).toEqual(["Plan B", "Work plan"]);
    expect(matchTitles(notes, "").length).toBe(3);
  });
});

describe("attached images", () => {
  it("are stored as ![name](quire:file/ID) and listed by ID once", () => {
    expect(imageLink("file-3-abc", "shot.png")).toBe("![shot.png](quire:file/file-3-abc)");
    expect(fileIdOf("quire:file/file-3-abc")).toBe("file-3-abc");
    expect(fileIdOf("quire:file/../x y")).toBeNull();
    expect(imageRefs("![a](quire:file/f1) ![b](quire:file/f2) ![a](quire:file/f1) ![w](https://e.org/x.png)")).toEqual([
      "f1",
      "f2",
    ]);
  });

  it("show the loaded content (a blob: URL only), else a placeholder; web images stay unfetched", () => {
    const image = (id: string) => (id === "f1" ? "blob:http://localhost/123" : id === "f2" ? "javascript:alert(1)" : undefined);
    const html = renderMarkdown("![shot](quire:file/f1) ![bad](quire:file/f2) ![none](quire:file/f3) ![web](https://e.org/x.png)", {
      image,
    });
    expect(html).toContain('<img class="md-attached-image" src="blob:http://localhost/123" alt="shot" data-file-id="f1">');
    expect(html).not.toContain("javascript:");
    expect(html).toContain('<span class="md-image is-missing" data-file-id="f3"');
    expect(html.match(/<img/g)?.length).toBe(1);
  });
});
