// The versions panel reads a long history a page at a time (newest first): these merge what it
// has with a page it read, so a Note with 100,000 versions opens its panel on 100 of them.

/** Versions the panel reads at a time. */
export const PAGE = 100;

interface Versioned {
  version: number;
}

/**
 * The newest page, read again (a new version came): it replaces what overlaps it, and what was
 * loaded before it stays when it joins on (no version is missing between them).
 */
export function withNewest<T extends Versioned>(loaded: readonly T[] | null, newest: readonly T[]): T[] {
  const first = newest[0]?.version;
  if (!loaded || first === undefined) return newest.slice();
  const older = loaded.filter((v) => v.version < first);
  const joins = older.length === 0 || (older[older.length - 1] as T).version === first - 1;
  return joins ? [...older, ...newest] : newest.slice();
}

/** An older page put in front of what is loaded (oldest first), without repeating a version. */
export function withOlder<T extends Versioned>(loaded: readonly T[], older: readonly T[]): T[] {
  const first = loaded[0]?.version ?? Number.POSITIVE_INFINITY;
  return [...older.filter((v) => v.version < first), ...loaded];
}

/** Whether versions older than the loaded ones exist (every Note's history starts at 1). */
export function hasOlder(loaded: readonly Versioned[] | null): boolean {
  return !!loaded && loaded.length > 0 && (loaded[0] as Versioned).version > 1;
}
