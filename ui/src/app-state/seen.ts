// Which Notes an agent changed since the person last opened them, for the Notes list. Per Note,
// the newest version the person has seen is kept on this computer (localStorage); a Note listed
// at a newer version has its history read once at that version, and is marked when an agent
// wrote any version since. Only changed Notes are read: never every Note's history. What each
// read found is kept too, so a restart neither reads it again nor loses its marker.

import * as api from "../api";
import { type CheckedHistories, type SeenVersions, agentSince, keptMarks, notesToCheck, withBaseline } from "../lib/notes";
import { app } from "./state";

const SEEN_KEY = "quire.seenVersions";
const CHECKED_KEY = "quire.checkedHistories";
/** Histories read per pass of the list, at most (the rest on the next pass). */
const MAX_PER_PASS = 50;

let seen: SeenVersions | null = null;
let checked: CheckedHistories | null = null;
let running = false;
let again = false;

/** The object kept under `key` (an empty one if none, or if it cannot be read). */
function load<T extends object>(key: string): T {
  try {
    const raw = typeof localStorage === "undefined" ? null : localStorage.getItem(key);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    return (parsed && typeof parsed === "object" ? parsed : {}) as T;
  } catch {
    return {} as T;
  }
}

function store(key: string, value: object): void {
  try {
    if (typeof localStorage !== "undefined") localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Kept for this session all the same.
  }
}

function seenVersions(): SeenVersions {
  seen ??= load<SeenVersions>(SEEN_KEY);
  return seen;
}

function keep(next: SeenVersions): void {
  seen = next;
  store(SEEN_KEY, next);
}

function checkedHistories(): CheckedHistories {
  checked ??= load<CheckedHistories>(CHECKED_KEY);
  return checked;
}

/** Notes' history read at `version`, finding `agent` (or none); only listed Notes are kept. */
function keepChecked(id: string, version: number, agent: string | null, listed: ReadonlySet<string>): void {
  const next: CheckedHistories = {};
  for (const [k, v] of Object.entries(checkedHistories())) if (listed.has(k)) next[k] = v;
  next[id] = { version, agent };
  checked = next;
  store(CHECKED_KEY, next);
}

function unmark(noteId: string): void {
  const changed = app.get().agentChanged;
  if (!changed[noteId]) return;
  const { [noteId]: _seen, ...rest } = changed;
  app.set({ agentChanged: rest });
}

/** The person opened (or has open) the Note at `version`: its marker goes. */
export function noteSeen(noteId: string, version: number): void {
  const s = seenVersions();
  if ((s[noteId] ?? 0) < version) keep({ ...s, [noteId]: version });
  unmark(noteId);
}

/** After the list is read: marks the Notes an agent changed since the person saw them. */
export async function checkAgentChanges(): Promise<void> {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    do {
      again = false;
      await onePass();
    } while (again);
  } finally {
    running = false;
  }
}

async function onePass(): Promise<void> {
  const { notes, open } = app.get();
  const listed = notes.find((n) => n.id === open?.noteId);
  if (listed) noteSeen(listed.id, listed.version);
  const base = withBaseline(seenVersions(), notes);
  if (base !== seenVersions()) keep(base);
  // What earlier reads found (this run's, or a run before a restart) and still holds.
  const kept = keptMarks(notes, seenVersions(), checkedHistories());
  const marked = app.get().agentChanged;
  const fresh: typeof kept = {};
  for (const [id, mark] of Object.entries(kept)) {
    if (id !== open?.noteId && marked[id]?.version !== mark.version) fresh[id] = mark;
  }
  if (Object.keys(fresh).length > 0) app.set((s) => ({ agentChanged: { ...s.agentChanged, ...fresh } }));
  const versions = new Map(notes.map((n) => [n.id, n.version]));
  const listedIds = new Set(versions.keys());
  for (const id of notesToCheck(notes, seenVersions(), checkedHistories()).slice(0, MAX_PER_PASS)) {
    const version = versions.get(id) ?? 0;
    try {
      // Only versions after the one seen matter: the page holds them (up to the server's limit).
      const since = version - (seenVersions()[id] ?? version);
      const history = await api.historyPage(id, Math.min(Math.max(since, 1), api.HISTORY_PAGE_MAX));
      const agent = agentSince(history, seenVersions()[id] ?? version);
      keepChecked(id, version, agent, listedIds);
      if (app.get().open?.noteId === id) continue;
      if (agent) app.set((s) => ({ agentChanged: { ...s.agentChanged, [id]: { author: agent, version } } }));
      else unmark(id);
    } catch {
      // The marker is a courtesy: tried again at the next read of the list.
    }
  }
}
