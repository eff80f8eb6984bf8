import { describe, expect, it } from "vitest";
import { isEnter } from "./keys";

describe("isEnter", () => {
  it("takes Enter and the bare newline WebKitWebDriver types for \\n", () => {
    expect(isEnter("Enter")).toBe(true);
    expect(isEnter("\n")).toBe(true);
    expect(isEnter("e")).toBe(false);
  });
});
