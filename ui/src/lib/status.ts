// The sync status that is always on screen, and the per-tab marks in the strip: what the person
// reads to know whether their work is saved. Pure: computed from the engine's NoteStatus plus
// what the UI has not handed to the engine yet.

import type { NoteStatus, SyncError, TabState, TabStatus } from "../bindings";

/** What the status line reads of each tab's status. */
export type TabStatusShown = Pick<TabStatus, "tab_id" | "state"> & { last_error: Pick<SyncError, "code" | "message"> | null };

/** What the status line reads of the Note's status. */
export type NoteStatusShown = Pick<NoteStatus, "guard" | "offline" | "queued_writes"> & {
  tabs: readonly TabStatusShown[];
};

export type SyncState = "saved" | "saving" | "offline" | "conflict" | "failed" | "idle";

export interface SyncSummary {
  state: SyncState;
  /** The status line: "Saved (version 7)", "Saving…", "Offline (drafts kept)", "Conflict". */
  text: string;
  /** A longer explanation for the tooltip and screen readers. */
  detail: string;
}

export interface SyncInput {
  /** The open Note's status, or null when no Note is open. */
  status: NoteStatusShown | null;
  /** The open Note's version as last read (used until the save guard is known). */
  version: number | null;
  /** Edits typed but not yet handed to the engine (the UI's short coalescing delay). */
  unsentTabs: readonly string[];
  /** Unsynced drafts across all Notes (the drafts ledger). */
  ledgerCount: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function summarize(input: SyncInput): SyncSummary {
  const { status, unsentTabs, ledgerCount } = input;
  if (status === null) {
    if (ledgerCount > 0) {
      return {
        state: "offline",
        text: `${plural(ledgerCount, "draft", "drafts")} not synced`,
        detail: "Open the drafts ledger to see them; they are kept until they are saved.",
      };
    }
    return { state: "idle", text: "All changes saved", detail: "No Note is open." };
  }
  const by = (state: TabState) => status.tabs.filter((t) => t.state === state);
  const conflicts = by("conflict");
  if (conflicts.length > 0) {
    return {
      state: "conflict",
      text: "Conflict",
      detail: `${plural(conflicts.length, "tab needs", "tabs need")} your decision: your draft is kept until you choose.`,
    };
  }
  const failed = by("failed");
  if (failed.length > 0) {
    const reason = failed[0]?.last_error?.message;
    return {
      state: "failed",
      text: "Not saved (draft kept)",
      detail: `The server refused a save${reason ? `: ${reason}` : ""}. Your draft is kept; edit or retry.`,
    };
  }
  const offlineTabs = by("offline");
  if (status.offline || offlineTabs.length > 0) {
    return {
      state: "offline",
      text: "Offline (drafts kept)",
      detail: "The server cannot be reached. Your drafts are kept on this computer and saved when it is back.",
    };
  }
  const busy = by("dirty").length + by("saving").length + unsentTabs.length + status.queued_writes;
  if (busy > 0) {
    return { state: "saving", text: "Saving…", detail: "Your latest changes are on their way to the server." };
  }
  const version = status.guard ?? input.version;
  return {
    state: "saved",
    text: version === null ? "Saved" : `Saved (version ${version})`,
    detail: "Everything you wrote is on the server.",
  };
}

/** The mark next to a tab's label in the strip ("" for nothing to say). */
export function tabMark(state: TabState, unsent: boolean): { mark: string; label: string } {
  if (unsent && (state === "clean" || state === "saved")) return { mark: "dirty", label: "Unsaved changes" };
  switch (state) {
    case "clean":
    case "saved":
      return { mark: "", label: "" };
    case "dirty":
      return { mark: "dirty", label: "Unsaved changes" };
    case "saving":
      return { mark: "saving", label: "Saving…" };
    case "conflict":
      return { mark: "conflict", label: "Conflict: your draft is kept" };
    case "offline":
      return { mark: "offline", label: "Offline: draft kept" };
    case "failed":
      return { mark: "failed", label: "Not saved: draft kept" };
  }
}

/** "just now", "5 min ago", "3 h ago", else a date: for lists that show when. */
export function relativeTime(then: Date, now: Date): string {
  const s = Math.round((now.getTime() - then.getTime()) / 1000);
  if (s < 45) return "just now";
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 7) return `${d} d ago`;
  return then.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** Parses a time from the engine: RFC 3339 text or milliseconds since the epoch. */
export function toDate(value: string | number | bigint): Date {
  if (typeof value === "string") return new Date(value);
  return new Date(Number(value));
}

/**
 * The drafts ledger as a Note's newest status tells it: a tab of that Note the status calls
 * clean or saved has no draft any more, so its line goes at once. The ledger itself is read again
 * a little later (throttled); until then it would still count the draft just saved, and the
 * header would read "Drafts 1" beside "Saved (version N)". Nothing is added here: a new draft
 * comes with the next read of the ledger.
 */
export function ledgerAfterStatus<E extends { note_id: string; tab_id: string }>(
  ledger: readonly E[],
  status: { note_id: string; tabs: readonly Pick<TabStatus, "tab_id" | "state">[] } | null,
): readonly E[] {
  if (status === null) return ledger;
  const gone = new Set(status.tabs.filter((t) => t.state === "clean" || t.state === "saved").map((t) => t.tab_id));
  if (gone.size === 0) return ledger;
  const kept = ledger.filter((d) => d.note_id !== status.note_id || !gone.has(d.tab_id));
  return kept.length === ledger.length ? ledger : kept;
}
