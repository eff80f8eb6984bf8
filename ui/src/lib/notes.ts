// The Notes list and the quick switcher: search by title, most recently edited first.

import type { NoteSummary } from "../bindings";

/** What ordering and searching a list of Notes reads of each. */
export type ListedNote = Pick<NoteSummary, "title" | "updated_at">;

/** Lower-case, accents removed: "Café" matches "cafe". */
export function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/**
 * How well `title` matches `query`: 3 starts with it, 2 a word starts with it, 1 contains it,
 * 0.5 has its letters in order (fuzzy), 0 no match. An empty query matches everything.
 */
export function matchScore(title: string, query: string): number {
  const q = fold(query.trim());
  if (q === "") return 1;
  const t = fold(title);
  if (t.startsWith(q)) return 3;
  if (t.split(/[^\p{L}\p{N}]+/u).some((w) => w.startsWith(q))) return 2;
  if (t.includes(q)) return 1;
  let i = 0;
  for (const ch of t) if (ch === q[i]) i++;
  return i === q.length ? 0.5 : 0;
}

function edited(n: ListedNote): number {
  const ms = Date.parse(n.updated_at);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Most recently edited first; ties by title. */
export function byRecent<T extends ListedNote>(notes: readonly T[]): T[] {
  return notes.slice().sort((a, b) => edited(b) - edited(a) || a.title.localeCompare(b.title));
}

/** Notes matching `query`: best matches first, then most recently edited. */
export function searchNotes<T extends ListedNote>(notes: readonly T[], query: string): T[] {
  if (query.trim() === "") return byRecent(notes);
  return notes
    .map((n) => ({ n, score: matchScore(n.title || "Untitled", query) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || edited(b.n) - edited(a.n) || a.n.title.localeCompare(b.n.title))
    .map((x) => x.n);
}

export function displayTitle(title: string): string {
  return title.trim() === "" ? "Untitled" : title;
}

// ---- changed by an agent since the person last opened a Note ------------------------------

/** Per Note, the newest version the person has seen (opened, or had open). */
export type SeenVersions = Record<string, number>;

/**
 * `seen` with every listed Note it does not know taken as seen at its listed version: a Note
 * first met (or every Note, the first time) is not marked, and its history is never read.
 * Returns `seen` itself when nothing is new.
 */
export function withBaseline(seen: SeenVersions, notes: readonly Pick<NoteSummary, "id" | "version">[]): SeenVersions {
  let out: SeenVersions | null = null;
  for (const n of notes) {
    if (seen[n.id] !== undefined) continue;
    out ??= { ...seen };
    out[n.id] = n.version;
  }
  return out ?? seen;
}

/**
 * Per Note, the version at which its history was read and the agent it found there (null: none
 * wrote since the version seen). Kept on this computer with the versions seen, so that a restart
 * reads no history a second time and still shows the markers it found.
 */
export type CheckedHistories = Record<string, { version: number; agent: string | null }>;

/**
 * The Notes whose history is worth reading: listed at a version beyond what the person saw
 * and not read yet at that version (`checked`). Only Notes changed since they were seen: a
 * list of 10,000 Notes where three changed reads three histories, once each.
 */
export function notesToCheck(
  notes: readonly Pick<NoteSummary, "id" | "version">[],
  seen: SeenVersions,
  checked: Readonly<CheckedHistories>,
): string[] {
  return notes
    .filter((n) => {
      const s = seen[n.id];
      return s !== undefined && n.version > s && checked[n.id]?.version !== n.version;
    })
    .map((n) => n.id);
}

/**
 * The markers a read already found that still hold: the Note is listed at the version its
 * history was read at, an agent wrote since the version seen, and the person has not seen it.
 */
export function keptMarks(
  notes: readonly Pick<NoteSummary, "id" | "version">[],
  seen: SeenVersions,
  checked: Readonly<CheckedHistories>,
): Record<string, { author: string; version: number }> {
  const out: Record<string, { author: string; version: number }> = {};
  for (const n of notes) {
    const c = checked[n.id];
    const s = seen[n.id];
    if (c && c.agent && c.version === n.version && s !== undefined && s < n.version) {
      out[n.id] = { author: c.agent, version: n.version };
    }
  }
  return out;
}

/** The newest agent that wrote a version after `seen` (a Note's history, any order), or null. */
export function agentSince(
  history: readonly { version: number; author: string; author_kind: string }[],
  seen: number,
): string | null {
  let best: { version: number; author: string } | null = null;
  for (const v of history) {
    if (v.version > seen && v.author_kind === "agent" && (!best || v.version > best.version)) best = v;
  }
  return best?.author ?? null;
}
