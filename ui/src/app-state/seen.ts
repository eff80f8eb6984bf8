// Which Notes an agent changed since the person last opened them, for the Notes list. Per Note,
// the newest version the person has seen is kept on this computer (localStorage); a Note listed
// at a newer version has its history read once at that version, and is marked when an agent
// wrote any version since. Only changed Notes are read: never every Note's history.

import * as api from "../api";
import { type SeenVersions, agentSince, notesToCheck, withBaseline } from "../lib/notes";
import { app } from "./state";

const KEY = "quire.seenVersions";
/** Histories read per pass of the list, at most (the rest on the next pass). */
const MAX_PER_PASS = 50;

let seen: SeenVersions | null = null;
/** The version at which each Note's history was read. */
const checked: Record<string, number> = {};
let running = false;
let again = false;

function seenVersions(): SeenVersions {
  if (seen) return seen;
  try {
    const raw = typeof localStorage === "undefined" ? null : localStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    seen = parsed && typeof parsed === "object" ? (parsed as SeenVersions) : {};
  } catch {
    seen = {};
  }
  return seen;
}

function keep(next: SeenVersions): void {
  seen = next;
  try {
    if (typeof localStorage !== "undefined") localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // Kept for this session all the same.
  }
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
  const versions = new Map(notes.map((n) => [n.id, n.version]));
  for (const id of notesToCheck(notes, seenVersions(), checked).slice(0, MAX_PER_PASS)) {
    const version = versions.get(id) ?? 0;
    try {
      // Only versions after the one seen matter: the page holds them (up to the server's limit).
      const since = version - (seenVersions()[id] ?? version);
      const history = await api.historyPage(id, Math.min(Math.max(since, 1), api.HISTORY_PAGE_MAX));
      checked[id] = version;
      const agent = agentSince(history, seenVersions()[id] ?? version);
      if (app.get().open?.noteId === id) continue;
      if (agent) app.set((s) => ({ agentChanged: { ...s.agentChanged, [id]: { author: agent, version } } }));
      else unmark(id);
    } catch {
      // The marker is a courtesy: tried again at the next read of the list.
    }
  }
}
