// The change between two texts as one splice, counted in UTF-16 code units (as JavaScript
// strings and the engine's `hand_over` count): what an editor hands over instead of a long text.

/** One splice: `removed` units at `at` replaced by `insert`. */
export interface Splice {
  at: number;
  removed: number;
  insert: string;
}

/** Compared a block at a time first (string comparison of slices runs at memory speed). */
const BLOCK = 4096;

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** The splice that makes `next` from `prev`, never cutting a surrogate pair. */
export function textChange(prev: string, next: string): Splice {
  const room = Math.min(prev.length, next.length);
  let prefix = 0;
  while (prefix + BLOCK <= room && prev.slice(prefix, prefix + BLOCK) === next.slice(prefix, prefix + BLOCK)) {
    prefix += BLOCK;
  }
  while (prefix < room && prev.charCodeAt(prefix) === next.charCodeAt(prefix)) prefix++;
  // A prefix that ends between the halves of a pair keeps neither half.
  if (prefix > 0 && isHigh(prev.charCodeAt(prefix - 1))) prefix--;

  const left = room - prefix;
  let suffix = 0;
  while (
    suffix + BLOCK <= left &&
    prev.slice(prev.length - suffix - BLOCK, prev.length - suffix) ===
      next.slice(next.length - suffix - BLOCK, next.length - suffix)
  ) {
    suffix += BLOCK;
  }
  while (suffix < left && prev.charCodeAt(prev.length - 1 - suffix) === next.charCodeAt(next.length - 1 - suffix)) {
    suffix++;
  }
  if (suffix > 0 && isLow(prev.charCodeAt(prev.length - suffix))) suffix--;

  return {
    at: prefix,
    removed: prev.length - prefix - suffix,
    insert: next.slice(prefix, next.length - suffix),
  };
}

/** `text` with the splice made (the inverse of `textChange`, for tests and checks). */
export function applyChange(text: string, s: Splice): string {
  return text.slice(0, s.at) + s.insert + text.slice(s.at + s.removed);
}
