// The command palette's pure part: what a command is, how its shortcut reads on this platform
// (Ctrl+Shift+P on Linux and Windows, ⇧⌘P on macOS), which keydown it answers, and how the
// commands are ranked for what the person typed.

import { matchScore } from "./notes";

/** A keyboard shortcut. `mod` is Ctrl, or Cmd on macOS. `key` is the `KeyboardEvent.key` (a letter in upper case). */
export interface Shortcut {
  mod?: boolean;
  shift?: boolean;
  alt?: boolean;
  key: string;
}

export type Platform = "mac" | "other";

/** The platform the shortcuts are shown for, from the webview's navigator. */
export function platformOf(nav: { platform?: string; userAgent?: string } | undefined): Platform {
  const s = `${nav?.platform ?? ""} ${nav?.userAgent ?? ""}`;
  return /Mac|iPhone|iPad/.test(s) ? "mac" : "other";
}

/** This window's platform. */
export const PLATFORM: Platform = platformOf(typeof navigator === "undefined" ? undefined : navigator);

const KEY_NAMES: Record<string, string> = {
  ArrowLeft: "←",
  ArrowRight: "→",
  ArrowUp: "↑",
  ArrowDown: "↓",
  Escape: "Esc",
  PageUp: "PgUp",
  PageDown: "PgDn",
};

/** "Ctrl+Shift+P" (Linux, Windows) or "⇧⌘P" (macOS, in the order macOS menus use: ⌃⌥⇧⌘). */
export function formatShortcut(s: Shortcut, p: Platform = PLATFORM): string {
  const key = KEY_NAMES[s.key] ?? (s.key.length === 1 ? s.key.toUpperCase() : s.key);
  if (p === "mac") return `${s.alt ? "⌥" : ""}${s.shift ? "⇧" : ""}${s.mod ? "⌘" : ""}${key}`;
  return [s.mod ? "Ctrl" : "", s.alt ? "Alt" : "", s.shift ? "Shift" : "", key].filter(Boolean).join("+");
}

/** Whether a keydown is this shortcut (Ctrl or Cmd for `mod`; the other modifiers exactly). */
export function matchesShortcut(
  s: Shortcut,
  e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey">,
): boolean {
  const mod = e.ctrlKey || e.metaKey;
  return (
    !!s.mod === mod && !!s.shift === e.shiftKey && !!s.alt === e.altKey && e.key.toLowerCase() === s.key.toLowerCase()
  );
}

/** One action the person can take, as the palette lists it. */
export interface Command {
  /** Stable: the palette's rows carry it as `data-command`. */
  id: string;
  title: string;
  /** The group it is listed under: "Note", "Tab", "Sheet", "App"… */
  section: string;
  shortcut?: Shortcut;
  /** Why it cannot run now ("Open a Note first"); unset when it can. */
  disabled?: string;
  run: () => void;
}

/**
 * The commands that match `query`, best first: every word of the query must match the title or
 * the section (as a prefix of a word, inside it, or its letters in order), enabled commands before
 * disabled ones, then the list's own order. An empty query lists every command in order.
 */
export function rankCommands<C extends Pick<Command, "title" | "section" | "disabled">>(
  commands: readonly C[],
  query: string,
): C[] {
  const words = query.trim().split(/\s+/).filter(Boolean);
  return commands
    .map((c, i) => {
      let score = 0;
      for (const w of words) {
        const s = Math.max(matchScore(c.title, w), matchScore(c.section, w) * 0.5);
        if (s === 0) return null;
        score += s;
      }
      return { c, i, score };
    })
    .filter((x): x is { c: C; i: number; score: number } => x !== null)
    .sort((a, b) => Number(!!a.c.disabled) - Number(!!b.c.disabled) || b.score - a.score || a.i - b.i)
    .map((x) => x.c);
}
