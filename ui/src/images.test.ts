import { describe, expect, it } from "vitest";
import { imageRefusal, imagesOf } from "./app-state/files";

describe("pasted and dropped images", () => {
  it("are refused over 10 MB with a message naming the limit", () => {
    expect(imageRefusal({ name: "shot.png", size: 10 * 1024 * 1024 })).toBeNull();
    expect(imageRefusal({ name: "huge.png", size: 11 * 1024 * 1024 })).toBe(
      "“huge.png” is 11.0 MB: images up to 10 MB can be pasted or dropped into a Note.",
    );
  });

  it("are the PNG, JPEG, GIF and WebP files of a paste or drop", () => {
    const f = (name: string, type: string) => new File(["x"], name, { type });
    const got = imagesOf([f("a.png", "image/png"), f("b.svg", "image/svg+xml"), f("c.txt", "text/plain"), f("d.jpg", "image/jpeg")]);
    expect(got.map((x) => x.name)).toEqual(["a.png", "d.jpg"]);
    expect(imagesOf(null)).toEqual([]);
  });
});
