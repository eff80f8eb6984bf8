// What another writer's change brought into an editor (a Sheet, a deck, the Markdown text),
// marked with the author's name until the person has seen it: a click in the editor, or
// SEEN_AFTER_MS of focus in it (the Markdown editor keeps its marks in CodeMirror instead). Computed
// once per change taken in (`took`), or once when the editor opens on a tab whose announced
// change it has not shown yet; never per render.

import { type RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { app, marksShown } from "../app-state";
import { type Marks, MarkBook, SeenTimer } from "../lib/marks";

export type { Marks } from "../lib/marks";

/**
 * `diff(before, after)` gives the marks of a change, or null when it has none. `initial` is the
 * content the editor opened on (marked against the content before an announced change).
 * `onLate` receives marks of content the editor took in before its announcement came (the
 * Markdown editor draws them itself; `marks` holds them too).
 */
export function useRemoteMarks<M>(
  tabId: string,
  initial: unknown,
  diff: (before: unknown, after: unknown) => M | null,
  onLate?: (marks: Marks<M>) => void,
) {
  const [book] = useState(() => new MarkBook(diff));
  const [marks, setMarks] = useState<Marks<M> | null>(() => book.opened(app.get().remoteEdits[tabId], initial));
  useEffect(() => {
    if (marks) marksShown(tabId);
    // Once, for the marks the editor opened with.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const late = useRef(onLate);
  late.current = onLate;
  // Every change of the state, as it happens: an announcement the person's next keystroke
  // clears before a render is still seen.
  useEffect(() => {
    const check = () => {
      const m = book.announced(app.get().remoteEdits[tabId]);
      if (!m) return;
      marksShown(tabId);
      setMarks(m);
      late.current?.(m);
    };
    check();
    return app.subscribe(check);
  }, [book, tabId]);

  /** The editor replaced what it showed with the engine's content: the marks it brought. */
  const took = (shown: unknown, incoming: unknown): Marks<M> | null => {
    const taken = book.took(shown, incoming);
    if (taken.announced) marksShown(tabId);
    if (taken.marks) setMarks(taken.marks);
    return taken.marks;
  };

  /** The person moved what the marks point at (a row inserted, say): `fn` moves them along. */
  const move = (fn: (marks: M) => M) => setMarks((m) => (m ? { ...m, marks: fn(m.marks) } : m));

  return { marks, took, move, seen: () => setMarks(null) };
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
