import { describe, expect, it } from "vitest";
import { explain } from "./errors";

describe("explain", () => {
  it.each([
    ["token_revoked", "it was revoked"],
    ["token_expired", "it has expired"],
    ["unauthorized", "The server refused the token."],
  ])("says why the server refused the token (%s)", (code, says) => {
    const { text, detail } = explain({ code, message: "401 from the server" });
    expect(text).toContain(says);
    expect(detail).toBe("401 from the server");
  });
});
