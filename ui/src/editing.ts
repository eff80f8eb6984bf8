// Between an editor and the engine: the person's edits of one tab are handed to the engine's
// `edit_tab`, which keeps the draft on disk, debounces and saves it. Until the engine has taken
// an edit, this module holds it: it retries a refused hand-over, and it tells whether content
// read from the engine may replace what an editor shows (never while the person has edits the
// engine has not seen, nor from a read that started before the engine took the last of them).
//
// Hand-over is immediate (the next tick) for content up to IMMEDIATE_MAX_CHARS, coalesced for
// larger content. Immediacy matters for safety, not speed: `edit_tab` carries no base version,
// so the engine takes an edit as made on what it shows *when the edit arrives*. An edit held
// here while another writer's change reached the engine would be taken as made on top of that
// change and overwrite it. Measured in the real app: with a 120 ms hold, an agent's write that
// landed 50 ms after the person's keystroke was overwritten; handed over at once, the engine
// sees the person's draft first and shows a conflict. (See the report: the engine should accept
// the edit's base version to close the remaining window of one IPC call.)

export interface SessionHooks {
  /** Hands the tab's whole content to the engine. */
  send(noteId: string, tabId: string, data: unknown): Promise<void>;
  /** The set of tabs with edits not yet taken by the engine changed. */
  onUnsentChange(noteId: string, tabIds: string[]): void;
  /** A hand-over failed; it is retried (with the newest content) unless `isFatal`. */
  onError(noteId: string, tabId: string, error: unknown): void;
  /**
   * Whether retrying cannot help (say, the tab is gone): the content is then kept (see
   * `latestSince`) but not resent until the person edits again.
   */
  isFatal?(error: unknown): boolean;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const COALESCE_MS = 120;

/** Content up to this size (characters, or a size hint) is handed over at once. */
export const IMMEDIATE_MAX_CHARS = 256 * 1024;
export const MAX_DELAY_MS = 600;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 15000;

class TabSession {
  /**
   * Bumped by every local edit, and as every hand-over ends: a read that started before an edit
   * must not replace it, nor one that started before the engine took it (the engine may have
   * answered the read first, with the content from before the edit).
   */
  epoch = 0;
  pending: (() => unknown) | null = null;
  firstPendingAt = 0;
  inFlight = 0;
  timer: unknown = null;
  /** The hand-over on the wire, if any. */
  sending: Promise<void> | null = null;
  failures = 0;
  /** A fatal refusal: kept, not resent until the next edit. */
  stalled = false;
  /** The last content the person produced (already sent or not), for remounting the editor. */
  latest: { data: unknown; epoch: number } | null = null;

  constructor(
    readonly noteId: string,
    readonly tabId: string,
  ) {}

  get quiet(): boolean {
    return this.pending === null && this.inFlight === 0;
  }
}

export class EditSessions {
  private sessions = new Map<string, TabSession>();

  constructor(
    private readonly hooks: SessionHooks,
    private readonly now: () => number = () => Date.now(),
  ) {}

  private key(noteId: string, tabId: string): string {
    return `${noteId}\u0000${tabId}`;
  }

  private session(noteId: string, tabId: string): TabSession {
    const k = this.key(noteId, tabId);
    let s = this.sessions.get(k);
    if (!s) {
      s = new TabSession(noteId, tabId);
      this.sessions.set(k, s);
    }
    return s;
  }

  /**
   * The person changed the tab. `read` returns its whole content; it is called when the edit is
   * handed over (so a large text is serialised once per pause, not once per keystroke).
   */
  edit(noteId: string, tabId: string, read: () => unknown, size = 0): void {
    const s = this.session(noteId, tabId);
    s.epoch++;
    s.stalled = false;
    const wasQuiet = s.pending === null;
    s.pending = read;
    if (wasQuiet) s.firstPendingAt = this.now();
    this.schedule(s, size > IMMEDIATE_MAX_CHARS ? COALESCE_MS : 0);
    if (wasQuiet) this.reportUnsent(noteId);
  }

  private schedule(s: TabSession, ms: number): void {
    if (s.timer !== null) this.hooks.clearTimer(s.timer);
    // Never hold an edit longer than MAX_DELAY_MS, even while the person keeps typing.
    const waited = this.now() - s.firstPendingAt;
    const delay = Math.max(0, Math.min(ms, MAX_DELAY_MS - waited));
    s.timer = this.hooks.setTimer(() => {
      s.timer = null;
      void this.send(s);
    }, delay);
  }

  /** Hands the pending edit over unless one is on the wire; resolves when that hand-over ends. */
  private send(s: TabSession): Promise<void> {
    const read = s.pending;
    if (read === null || s.inFlight > 0) return s.sending ?? Promise.resolve();
    const sending: Promise<void> = this.transmit(s, read).finally(() => {
      if (s.sending === sending) s.sending = null;
    });
    s.sending = sending;
    return sending;
  }

  private async transmit(s: TabSession, read: () => unknown): Promise<void> {
    s.stalled = false;
    const data = read();
    s.pending = null;
    s.latest = { data, epoch: s.epoch };
    s.inFlight++;
    try {
      await this.hooks.send(s.noteId, s.tabId, data);
      s.failures = 0;
    } catch (error) {
      s.failures++;
      // Keep the content unless the person has typed something newer meanwhile.
      if (s.pending === null) {
        s.pending = () => data;
        s.firstPendingAt = this.now();
      }
      this.hooks.onError(s.noteId, s.tabId, error);
      if (s.timer !== null) this.hooks.clearTimer(s.timer);
      s.timer = null;
      if (this.hooks.isFatal?.(error)) {
        s.stalled = true;
      } else {
        const backoff = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (s.failures - 1));
        s.timer = this.hooks.setTimer(() => {
          s.timer = null;
          void this.send(s);
        }, backoff);
      }
    } finally {
      s.inFlight--;
      s.epoch++;
    }
    if (s.pending !== null && s.timer === null && !s.stalled) this.schedule(s, 0);
    this.reportUnsent(s.noteId);
  }

  /**
   * Hands over every edit of the Note now (Ctrl+S, leaving the Note, closing the window): an
   * edit on the wire is waited for, then what was typed after it goes at once.
   */
  async flush(noteId: string): Promise<void> {
    const waits: Promise<void>[] = [];
    for (const s of this.sessions.values()) {
      if (s.noteId === noteId && !s.quiet) waits.push(this.flushSession(s));
    }
    await Promise.all(waits);
  }

  private async flushSession(s: TabSession): Promise<void> {
    if (s.sending) await s.sending;
    if (s.pending === null || s.stalled) return;
    if (s.timer !== null) {
      this.hooks.clearTimer(s.timer);
      s.timer = null;
    }
    await this.send(s);
  }

  /** Every Note with edits not yet handed over. */
  notesWithUnsent(): string[] {
    const out = new Set<string>();
    for (const s of this.sessions.values()) if (!s.quiet) out.add(s.noteId);
    return [...out];
  }

  unsent(noteId: string): string[] {
    const out: string[] = [];
    for (const s of this.sessions.values()) if (s.noteId === noteId && !s.quiet) out.push(s.tabId);
    return out;
  }

  private reportUnsent(noteId: string): void {
    this.hooks.onUnsentChange(noteId, this.unsent(noteId));
  }

  /** A mark to take before reading the tab from the engine. */
  mark(noteId: string, tabId: string): number {
    return this.session(noteId, tabId).epoch;
  }

  /**
   * Whether content read from the engine (after `mark` returned `epoch`) may replace what the
   * editor shows: only when the person has not edited since, and every edit was taken.
   */
  mayReplace(noteId: string, tabId: string, epoch: number): boolean {
    const s = this.session(noteId, tabId);
    return s.epoch === epoch && s.quiet;
  }

  /** Whether the tab holds edits the engine has not taken yet. */
  isQuiet(noteId: string, tabId: string): boolean {
    return this.session(noteId, tabId).quiet;
  }

  /**
   * The person's latest content, if it is newer than what the engine last showed for the tab
   * (read at `epoch`): an editor that mounts again starts from it.
   */
  latestSince(noteId: string, tabId: string, epoch: number): unknown | undefined {
    const s = this.sessions.get(this.key(noteId, tabId));
    if (!s) return undefined;
    if (s.pending !== null) return s.pending();
    if (s.latest && s.latest.epoch > epoch) return s.latest.data;
    return undefined;
  }

  /**
   * Content the engine has not taken (still coalescing, or refused for good because the tab is
   * gone): what the person would lose if nobody showed it.
   */
  unsentContent(noteId: string, tabId: string): unknown | undefined {
    const s = this.sessions.get(this.key(noteId, tabId));
    return s?.pending ? s.pending() : undefined;
  }

  /** Forgets a tab's session (its edits must have been handed over). */
  forget(noteId: string, tabId: string): void {
    const k = this.key(noteId, tabId);
    const s = this.sessions.get(k);
    if (s && s.quiet) {
      if (s.timer !== null) this.hooks.clearTimer(s.timer);
      this.sessions.delete(k);
    }
  }
}
