import { describe, expect, it } from "vitest";
import { renderMarkdown, safeHref } from "./markdown";

describe("renderMarkdown", () => {
  it("renders headings, emphasis, lists, code and tables", () => {
    const html = renderMarkdown(
      "# Plan\n\nSome **bold** and _em_.\n\n- one\n- two\n\n```\nlet x = 1 < 2;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    );
    expect(html).toContain("<h1>Plan</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<em>em</em>");
    expect(html).toContain("<li>one</li>");
    expect(html).toContain("let x = 1 &lt; 2;");
    expect(html).toContain("<table>");
  });

  it("shows raw HTML as text instead of running it", () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\nHi <img src=x onerror="alert(2)"> there');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain("&lt;script&gt;");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
  });

  it("keeps web links, marks them external, and drops javascript: links", () => {
    const html = renderMarkdown("[ok](https://example.org/a?b=1) [bad](javascript:alert(1)) [anchor](#top)");
    expect(html).toContain('<a href="https://example.org/a?b=1" data-external="true" rel="noopener noreferrer">ok</a>');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('<span class="md-link-dropped"');
    expect(html).toContain('<a href="#top">anchor</a>');
  });

  it("never fetches images", () => {
    const html = renderMarkdown("![chart](https://example.org/c.png)");
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain("chart");
  });

  it("escapes quotes in link titles", () => {
    const html = renderMarkdown('[x](https://e.org "a\\" onclick=\\"y")');
    expect(html).not.toMatch(/onclick="/);
  });
});

describe("safeHref", () => {
  it.each([
    ["https://example.org", "https://example.org/"],
    ["mailto:a@b.org", "mailto:a@b.org"],
    ["#section", "#section"],
    ["javascript:alert(1)", null],
    ["JaVaScRiPt:alert(1)", null],
    ["data:text/html,<b>", null],
    ["file:///etc/passwd", null],
    ["relative/path", null],
  ])("%s -> %s", (href, want) => {
    expect(safeHref(href)).toBe(want);
  });
});
