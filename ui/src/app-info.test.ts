import { describe, expect, it } from "vitest";
import { describeError, parseAppInfo, versionLabel } from "./app-info";

describe("parseAppInfo", () => {
  it("accepts app_info's reply", () => {
    expect(parseAppInfo({ name: "Quire", version: "0.1.0" })).toEqual({
      name: "Quire",
      version: "0.1.0",
    });
  });

  it.each([null, "0.1.0", { name: "Quire" }, { name: "Quire", version: 1 }])(
    "refuses %j",
    (value) => {
      expect(() => parseAppInfo(value)).toThrow(/unexpected value/);
    },
  );
});

describe("versionLabel", () => {
  it("prefixes the version with v", () => {
    expect(versionLabel({ name: "Quire", version: "1.2.3" })).toBe("v1.2.3");
  });
});

describe("describeError", () => {
  it("names a command error's code", () => {
    expect(describeError({ code: "invalid_argument", message: "bad time" })).toBe(
      "bad time (invalid_argument)",
    );
  });

  it("falls back to an Error's message, then to the value", () => {
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError(42)).toBe("42");
  });
});
