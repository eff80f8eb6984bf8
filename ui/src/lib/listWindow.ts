// Which rows of a long list to draw (the Notes list: 10,000 Notes must not be 10,000 list items
// built and laid out on every change). Rows may differ in height (a Note's pills wrap): each
// row's height is the one last measured on screen, or an estimate until it has been drawn.
// Spacers above and below the drawn rows keep the list's scroll height.

/** The rows to draw, `start` up to (not including) `end`, and the spacers' heights. */
export interface ListWindow {
  start: number;
  end: number;
  /** The height of the rows before `start`. */
  before: number;
  /** The height of the rows from `end` on. */
  after: number;
}

/**
 * The rows whose extent meets the viewport (`scrollTop`, `viewport` high) widened by
 * `overscan` pixels each way (so that a keyboard move or a short scroll lands on a drawn row).
 * `height(i)` is row `i`'s height in pixels.
 */
export function listWindow(
  count: number,
  height: (i: number) => number,
  scrollTop: number,
  viewport: number,
  overscan: number,
): ListWindow {
  const top = Math.max(0, scrollTop - overscan);
  const bottom = Math.max(0, scrollTop) + Math.max(0, viewport) + overscan;
  let y = 0;
  let i = 0;
  // Rows that end at or above `top` are skipped.
  while (i < count && y + height(i) <= top) {
    y += height(i);
    i += 1;
  }
  const start = i;
  const before = y;
  while (i < count && y < bottom) {
    y += height(i);
    i += 1;
  }
  // At least one row is drawn when there is any (a viewport not laid out yet measures 0).
  if (i === start && i < count) {
    y += height(i);
    i += 1;
  }
  const end = i;
  let after = 0;
  for (; i < count; i++) after += height(i);
  return { start, end, before, after };
}

/** The top of row `index` (the sum of the heights before it). */
export function rowTop(index: number, height: (i: number) => number): number {
  let y = 0;
  for (let i = 0; i < index; i++) y += height(i);
  return y;
}

/**
 * The scroll position that shows row `index` whole, moving as little as possible from
 * `scrollTop` (none when it already is).
 */
export function scrollToShow(
  index: number,
  height: (i: number) => number,
  scrollTop: number,
  viewport: number,
): number {
  const top = rowTop(index, height);
  const bottom = top + height(index);
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewport) return Math.max(0, bottom - viewport);
  return scrollTop;
}
