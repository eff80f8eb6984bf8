import { describe, expect, it } from "vitest";
import { hasOlder, withNewest, withOlder } from "./versionPages";

const vs = (...n: number[]) => n.map((version) => ({ version }));
const nums = (l: { version: number }[]) => l.map((v) => v.version);

describe("the history, a page at a time", () => {
  it("takes the newest page as it is, first", () => {
    expect(nums(withNewest(null, vs(101, 102)))).toEqual([101, 102]);
  });

  it("keeps older pages that join on to a newer newest page", () => {
    const loaded = vs(1, 2, 3, 4);
    expect(nums(withNewest(loaded, vs(4, 5)))).toEqual([1, 2, 3, 4, 5]);
    expect(nums(withNewest(loaded, vs(3, 4, 5)))).toEqual([1, 2, 3, 4, 5]);
    expect(nums(withNewest(loaded, vs(5)))).toEqual([1, 2, 3, 4, 5]);
  });

  it("drops older pages that would leave a gap", () => {
    expect(nums(withNewest(vs(1, 2), vs(10, 11)))).toEqual([10, 11]);
  });

  it("puts an older page in front, without repeating a version", () => {
    expect(nums(withOlder(vs(5, 6), vs(3, 4, 5)))).toEqual([3, 4, 5, 6]);
    expect(nums(withOlder([], vs(1)))).toEqual([1]);
  });

  it("knows whether older versions exist", () => {
    expect(hasOlder(vs(2, 3))).toBe(true);
    expect(hasOlder(vs(1, 2))).toBe(false);
    expect(hasOlder([])).toBe(false);
    expect(hasOlder(null)).toBe(false);
  });
});
