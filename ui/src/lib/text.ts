// Applying another writer's text to an open Markdown editor without disturbing the person: the
// smallest single replacement that turns the shown text into the new one, so CodeMirror maps the
// cursor and selection through it (a whole-document replace would throw them to the start).

export interface TextChange {
  from: number;
  to: number;
  insert: string;
}

/** The one replacement (common prefix and suffix kept) from `before` to `after`, or null if equal. */
export function minimalChange(before: string, after: string): TextChange | null {
  if (before === after) return null;
  const max = Math.min(before.length, after.length);
  let start = 0;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < max - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  ) {
    end++;
  }
  // Never split a surrogate pair.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return { from: start, to: before.length - end, insert: after.slice(start, after.length - end) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Where a position lands after a change (insertions at the position push it right when `assoc` is 1). */
export function mapPos(pos: number, change: TextChange, assoc: -1 | 1 = 1): number {
  if (pos < change.from) return pos;
  if (pos > change.to) return pos + change.insert.length - (change.to - change.from);
  if (pos === change.from && change.from === change.to) return assoc === 1 ? pos + change.insert.length : pos;
  // Inside the replaced range: to its end (or start).
  return assoc === 1 ? change.from + change.insert.length : change.from;
}

export function applyChange(text: string, change: TextChange): string {
  return text.slice(0, change.from) + change.insert + text.slice(change.to);
}

/** How much of a text one task splits into lines (see `splitLinesInParts`). */
export const SPLIT_PART_CHARS = 512 * 1024;

/**
 * `text`'s lines as CodeMirror splits them (`\r\n`, `\r` or `\n`), a part of about `part`
 * characters a task, so a long text never holds the page's main thread for the whole split.
 * Each part ends just after a `\n`, so no line break is ever cut in two.
 */
export async function splitLinesInParts(
  text: string,
  part = SPLIT_PART_CHARS,
  yieldNow: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
): Promise<string[]> {
  const lines: string[] = [];
  let from = 0;
  for (;;) {
    const nl = from + part < text.length ? text.indexOf("\n", from + part) : -1;
    if (nl < 0) {
      for (const l of text.slice(from).split(/\r\n?|\n/)) lines.push(l);
      return lines;
    }
    const got = text.slice(from, nl + 1).split(/\r\n?|\n/);
    // The part ends with a line break: its last element is the empty start of the next line.
    got.pop();
    for (const l of got) lines.push(l);
    from = nl + 1;
    await yieldNow();
  }
}
