import { describe, expect, it } from "vitest";
import { describeUrlProblem, findAttached, normalizeUrl, webUrl } from "./url";

const ok = (url: string) => ({ ok: true, url });

describe("normalizeUrl", () => {
  it("takes the seeds' seven spellings of one page to one key", () => {
    const spellings = [
      "https://example.org/report",
      "https://example.org/report/",
      "https://www.example.org/report",
      "https://example.org/report?utm_source=newsletter&utm_medium=email",
      "https://example.org/report#methods",
      "http://example.org/report",
      "example.org/report",
    ];
    const keys = new Set(spellings.map((s) => JSON.stringify(normalizeUrl(s))));
    expect([...keys]).toEqual([JSON.stringify(ok("https://example.org/report"))]);
  });

  // The same table as quire-model's `normalisation_table`.
  it.each([
    ["HTTPS://WWW.Example.ORG/Report", "https://example.org/Report"],
    ["https://example.org/", "https://example.org"],
    ["https://example.org/a?b=1&utm_campaign=x", "https://example.org/a?b=1"],
    ["https://example.org/a?UTM_Source=x&q=r%20s", "https://example.org/a?q=r+s"],
    ["https://example.org:8443/a", "https://example.org:8443/a"],
    ["http://example.org:80/a", "https://example.org/a"],
    ["example.org:8080/a", "https://example.org:8080/a"],
    ["  https://example.org/a  ", "https://example.org/a"],
    ["https://wwwexample.org/a", "https://wwwexample.org/a"],
    ["https://example.org/a///", "https://example.org/a"],
  ])("%s -> %s", (raw, want) => {
    expect(normalizeUrl(raw)).toEqual(ok(want));
  });

  it.each([
    ["javascript:alert(1)", { kind: "scheme", scheme: "javascript" }],
    ["ftp://example.org/file", { kind: "scheme", scheme: "ftp" }],
    ["mailto:a@b.c", { kind: "scheme", scheme: "mailto" }],
    ["", { kind: "empty" }],
    ["   ", { kind: "empty" }],
    ["https://", { kind: "malformed" }],
    ["not a url", { kind: "malformed" }],
  ])("refuses %j", (raw, problem) => {
    expect(normalizeUrl(raw)).toEqual({ ok: false, problem });
  });

  it("explains a refused scheme by name", () => {
    expect(describeUrlProblem({ kind: "scheme", scheme: "javascript" })).toBe(
      "Only http and https links can be sources, not javascript:",
    );
  });
});

describe("webUrl", () => {
  it("adds https to an address typed without a scheme, keeping the rest", () => {
    expect(webUrl("example.org/report?utm_source=x#m")).toEqual(
      ok("https://example.org/report?utm_source=x#m"),
    );
    expect(webUrl("http://example.org/a")).toEqual(ok("http://example.org/a"));
  });

  it("refuses what is not a web page", () => {
    expect(webUrl("javascript:alert(1)").ok).toBe(false);
  });
});

describe("findAttached", () => {
  const sources = [
    { id: "source-1-x", normalized_url: "https://example.org/report" },
    { id: "source-2-y", normalized_url: "https://example.com" },
  ];

  it("finds a page attached under another spelling", () => {
    expect(findAttached(sources, "http://www.example.org/report/#top")?.id).toBe("source-1-x");
  });

  it("finds nothing for a new page or a bad address", () => {
    expect(findAttached(sources, "https://example.org/other")).toBeUndefined();
    expect(findAttached(sources, "javascript:alert(1)")).toBeUndefined();
  });
});
