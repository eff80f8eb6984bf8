// What another writer's change brought into an editor (a Sheet, a deck, the Markdown text),
// marked with the author's name until the person has seen it: a click in the editor, or
// SEEN_AFTER_MS of focus in it (the Markdown editor keeps its marks in CodeMirror instead). Computed
// once per change taken in (`took`), or once when the editor opens on a tab whose announced
// change it has not shown yet; never per render.

import { type RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { type RemoteEdit, app, marksShown, useApp } from "../app-state";
import { type MarkAuthor, SeenTimer } from "../lib/marks";

export interface Marks<M> {
  by: MarkAuthor;
  marks: M;
}

/**
 * `diff(before, after)` gives the marks of a change, or null when it has none. `initial` is the
 * content the editor opened on (marked against the content before an announced change).
 */
export function useRemoteMarks<M>(tabId: string, initial: unknown, diff: (before: unknown, after: unknown) => M | null) {
  // The announced change the editor's content already holds when it opens: never marked again.
  const shownVersion = useRef<number | null>(null);
  const [marks, setMarks] = useState<Marks<M> | null>(() => {
    const r = app.get().remoteEdits[tabId];
    if (!r) return null;
    shownVersion.current = r.version;
    if (!("before" in r)) return null;
    const m = diff(r.before, initial);
    return m ? { by: { author: r.author, agent: r.agent }, marks: m } : null;
  });
  useEffect(() => {
    if (marks) marksShown(tabId);
    // Once, for the marks the editor opened with.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Announced and not yet taken in (kept when the person's own edit clears the announcement).
  const remote = useApp((s) => s.remoteEdits[tabId]);
  const unmarked = useRef<RemoteEdit | null>(null);
  useEffect(() => {
    if (remote && remote.version !== shownVersion.current) unmarked.current = remote;
  }, [remote]);

  /** The editor replaced what it showed with the engine's content: the marks it brought. */
  const took = (shown: unknown, incoming: unknown): Marks<M> | null => {
    const by = unmarked.current;
    unmarked.current = null;
    if (!by) return null;
    shownVersion.current = by.version;
    marksShown(tabId);
    const m = diff(shown, incoming);
    if (!m) return null;
    const taken = { by: { author: by.author, agent: by.agent }, marks: m };
    setMarks(taken);
    return taken;
  };

  return { marks, took, seen: () => setMarks(null) };
}

/** Marks shown in `host` are seen on a pointer press in it, or after a while of focus in it. */
export function useSeen(host: RefObject<HTMLElement | null>, active: boolean, seen: () => void): void {
  const latest = useRef(seen);
  latest.current = seen;
  useEffect(() => {
    const el = host.current;
    if (!el || !active) return;
    const timer = new SeenTimer(() => latest.current());
    const focusIn = () => timer.update(true, true);
    const focusOut = (e: FocusEvent) => timer.update(el.contains(e.relatedTarget as Node | null), true);
    const press = () => latest.current();
    timer.update(el.contains(document.activeElement), true);
    el.addEventListener("focusin", focusIn);
    el.addEventListener("focusout", focusOut);
    el.addEventListener("mousedown", press);
    return () => {
      timer.stop();
      el.removeEventListener("focusin", focusIn);
      el.removeEventListener("focusout", focusOut);
      el.removeEventListener("mousedown", press);
    };
  }, [host, active]);
}
