/**
 * Whether two values read from JSON hold the same JSON: what `JSON.stringify(a) ===
 * JSON.stringify(b)` says, without writing either out and stopping at the first difference. A
 * refresh compared a sheet of a million cells that way, two strings of megabytes written in one
 * long task. As `JSON.stringify` does, an object's key whose value is `undefined` counts as
 * absent, and an array's `undefined` as `null`; unlike it, objects compare by their keys
 * whatever their order.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    }
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key of Object.keys(x)) {
    if (x[key] === undefined) continue;
    keys++;
    if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) keys--;
  return keys === 0;
}
