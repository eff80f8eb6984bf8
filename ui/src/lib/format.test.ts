import { describe, expect, it } from "vitest";
import { formatBytes, shortUrl } from "./format";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1536, "1.5 KB"],
    [10 * 1024, "10 KB"],
    [5 * 1024 * 1024, "5.0 MB"],
    [-1, "?"],
  ])("%i -> %s", (n, s) => {
    expect(formatBytes(n)).toBe(s);
  });
});

describe("shortUrl", () => {
  it("keeps host and path", () => {
    expect(shortUrl("https://www.example.org/report/?utm_source=x")).toBe("example.org/report");
    expect(shortUrl("https://example.org/")).toBe("example.org");
    expect(shortUrl("not a url")).toBe("not a url");
  });
});
