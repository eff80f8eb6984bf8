// The sidebar: a new-note button, search by title, and the Notes, most recently edited first.
// F2 or a double-click renames a Note in place. Only the Notes in view (and a margin) are drawn
// (lib/listWindow.ts): a list of 10,000 scrolls and re-renders like one of twenty.

import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { app, createNote, navigate, renameNote, useApp } from "../app-state";
import { displayTitle, searchNotes } from "../lib/notes";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { isEnter } from "../lib/keys";
import { keyLabel } from "../app-state/commands";
import { listWindow, scrollToShow } from "../lib/listWindow";

/** A row's height until it has been drawn (a title and a line of meta, no pills wrapped). */
const ROW_ESTIMATE = 52;
/** Drawn beyond the viewport, each way (px). */
const OVERSCAN = 800;
/** The viewport's height before the list is laid out (e.g. rendered outside a window). */
const VIEWPORT_FALLBACK = 900;

export function NotesList() {
  const notes = useApp((s) => s.notes);
  const loaded = useApp((s) => s.notesLoaded);
  const error = useApp((s) => s.notesError);
  const search = useApp((s) => s.search);
  const openId = useApp((s) => s.open?.noteId ?? null);
  const renaming = useApp((s) => s.renaming);
  const ledger = useApp((s) => s.ledger);
  const agentChanged = useApp((s) => s.agentChanged);
  const route = useApp((s) => s.route.kind);
  const list = useMemo(() => searchNotes(notes, search), [notes, search]);
  const listRef = useRef<HTMLUListElement>(null);
  const now = new Date();
  const draftNotes = new Set(ledger.map((d) => d.note_id));

  // The window of drawn rows: from the list's scroll position, its height and each row's
  // height as last measured (by Note; an estimate until drawn).
  const [view, setView] = useState({ top: 0, height: 0 });
  const heights = useRef(new Map<string, number>());
  const [, setMeasured] = useState(0);
  const pendingFocus = useRef<number | null>(null);
  /** A row scrolled to by its estimated place: shown whole once drawn (its height known). */
  const reveal = useRef<number | null>(null);
  const height = (i: number) => {
    const n = list[i];
    return (n && heights.current.get(n.id)) ?? ROW_ESTIMATE;
  };
  const win = listWindow(list.length, height, view.top, view.height || VIEWPORT_FALLBACK, OVERSCAN);

  const focusDrawn = (index: number): boolean => {
    const link = listRef.current?.querySelector<HTMLElement>(`[data-index="${index}"] [data-note-link]`);
    if (!link) return false;
    link.focus();
    link.scrollIntoView({ block: "nearest" });
    return true;
  };
  const focusItem = (index: number) => {
    const el = listRef.current;
    if (!el || list.length === 0) return;
    const i = Math.max(0, Math.min(index, list.length - 1));
    if (focusDrawn(i)) return;
    // Not drawn: scroll to it, then focus it once drawn.
    const top = scrollToShow(i, height, el.scrollTop, el.clientHeight);
    el.scrollTop = top;
    pendingFocus.current = i;
    setView({ top, height: el.clientHeight });
  };

  // After each render: measure the drawn rows (a re-render when one differs from what the
  // window was computed with), and focus a row a key moved to.
  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    let changed = false;
    for (const li of el.querySelectorAll<HTMLElement>("li[data-note-id]")) {
      const id = li.dataset.noteId;
      const h = li.offsetHeight;
      if (id && h > 0 && heights.current.get(id) !== h) {
        heights.current.set(id, h);
        changed = true;
      }
    }
    if (el.clientHeight !== view.height || el.scrollTop !== view.top) setView({ top: el.scrollTop, height: el.clientHeight });
    else if (changed) setMeasured((n) => n + 1);
    if (pendingFocus.current !== null && focusDrawn(pendingFocus.current)) pendingFocus.current = null;
    if (reveal.current !== null) {
      el.querySelector(`[data-index="${reveal.current}"]`)?.scrollIntoView({ block: "nearest" });
      reveal.current = null;
    }
  });
  // A Note opened from elsewhere (the quick switcher, a search result, a link) is scrolled
  // into view in the list (drawn, then shown whole).
  useLayoutEffect(() => {
    const el = listRef.current;
    const index = openId === null ? -1 : list.findIndex((n) => n.id === openId);
    if (!el || index < 0) return;
    const top = scrollToShow(index, height, el.scrollTop, el.clientHeight);
    if (top !== el.scrollTop) {
      el.scrollTop = top;
      reveal.current = index;
      setView({ top, height: el.clientHeight });
    }
    // Only when another Note is opened (or the list first arrives), not each time the list
    // changes under it.
  }, [openId, loaded]);
  // The window's height changes with the window's.
  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => setView({ top: el.scrollTop, height: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  return (
    <nav class="sidebar" aria-label="Notes">
      <div class="sidebar-top">
        <button
          type="button"
          class="button primary new-note"
          data-testid={TID.newNote}
          onClick={() => void createNote()}
          aria-keyshortcuts="Control+N"
          title={`New note (${keyLabel("newNote")})`}
        >
          <Icon name="plus" />
          <span>New note</span>
        </button>
        <label class="search-field">
          <Icon name="search" />
          <input
            type="search"
            placeholder="Search titles"
            aria-label="Search Notes by title"
            data-testid={TID.notesSearch}
            value={search}
            onInput={(e) => app.set({ search: e.currentTarget.value })}
            onKeyDown={(e) => {
              if (e.key === "ArrowDown") {
                e.preventDefault();
                focusItem(0);
              } else if (isEnter(e.key) && list[0]) {
                navigate({ kind: "note", noteId: list[0].id });
              } else if (e.key === "Escape" && search !== "") {
                e.stopPropagation();
                app.set({ search: "" });
              }
            }}
          />
        </label>
      </div>
      <ul
        class="notes-list"
        data-testid={TID.notesList}
        data-count={list.length}
        ref={listRef}
        onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
      >
        {!loaded && <li class="notes-empty">Loading…</li>}
        {loaded && error && <li class="notes-empty notes-error">{error}</li>}
        {loaded && !error && notes.length === 0 && (
          <li class="notes-empty">
            No Notes yet. <kbd>{keyLabel("newNote")}</kbd> makes one.
          </li>
        )}
        {loaded && notes.length > 0 && list.length === 0 && <li class="notes-empty">No title matches “{search}”.</li>}
        {win.before > 0 && <li class="notes-spacer" aria-hidden="true" style={{ height: `${win.before}px` }} />}
        {list.slice(win.start, win.end).map((n, k) => {
          const i = win.start + k;
          return (
            <li
              key={n.id}
              class={`notes-item${n.id === openId ? " is-active" : ""}`}
              data-index={i}
              aria-setsize={list.length}
              aria-posinset={i + 1}
              data-testid={TID.notesItem}
              data-note-id={n.id}
              data-active={n.id === openId ? "true" : "false"}
            >
              {renaming?.noteId === n.id && renaming.where === "list" ? (
                <RenameInput
                  value={n.title}
                  testId={TID.notesItemRename}
                  onDone={(title) => (title === null ? app.set({ renaming: null }) : void renameNote(n.id, title))}
                />
              ) : (
                <a
                  href={`#/notes/${encodeURIComponent(n.id)}`}
                  data-note-link
                  aria-current={n.id === openId ? "page" : undefined}
                  onDblClick={(e) => {
                    e.preventDefault();
                    app.set({ renaming: { noteId: n.id, where: "list" } });
                  }}
                  onKeyDown={(e) => {
                    if (e.key === "F2") {
                      e.preventDefault();
                      app.set({ renaming: { noteId: n.id, where: "list" } });
                    } else if (e.key === "ArrowDown") {
                      e.preventDefault();
                      focusItem(i + 1);
                    } else if (e.key === "ArrowUp") {
                      e.preventDefault();
                      focusItem(i - 1);
                    }
                  }}
                  title="Open (F2 or double-click to rename)"
                >
                  <span class="notes-title">{displayTitle(n.title)}</span>
                  <span class="notes-meta">
                    <time dateTime={n.updated_at} title={toDate(n.updated_at).toLocaleString()}>
                      {relativeTime(toDate(n.updated_at), now)}
                    </time>
                    {draftNotes.has(n.id) && (
                      <span class="pill pill-warn" title="This Note has drafts not on the server yet">
                        drafts
                      </span>
                    )}
                    {agentChanged[n.id] && n.id !== openId && (
                      <span
                        class="pill pill-agent-changed"
                        data-testid={TID.notesItemAgentChanged}
                        data-author={agentChanged[n.id]?.author}
                        title={`${agentChanged[n.id]?.author} changed this Note since you last opened it`}
                      >
                        changed by {agentChanged[n.id]?.author}
                      </span>
                    )}
                    {n.agent_access && (
                      <span class="pill pill-agent" title="Agents may read and edit this Note">
                        agent
                      </span>
                    )}
                  </span>
                </a>
              )}
            </li>
          );
        })}
        {win.after > 0 && <li class="notes-spacer" aria-hidden="true" style={{ height: `${win.after}px` }} />}
      </ul>
      <a
        href="#/trash"
        class={`trash-link${route === "trash" ? " is-active" : ""}`}
        data-testid={TID.trashOpen}
        aria-current={route === "trash" ? "page" : undefined}
      >
        <Icon name="trash" /> <span>Trash</span>
      </a>
    </nav>
  );
}

/** An inline text field: Enter or blur commits, Esc cancels (`onDone(null)`). */
export function RenameInput(props: {
  value: string;
  testId: string;
  label?: string;
  onDone: (value: string | null) => void;
  className?: string;
}) {
  const done = useRef(false);
  // Its own state: a re-render of the list (a status event, say) must not reset what is typed.
  const [text, setText] = useState(props.value);
  const finish = (value: string | null) => {
    if (done.current) return;
    done.current = true;
    props.onDone(value);
  };
  return (
    <input
      class={`rename-input ${props.className ?? ""}`}
      data-testid={props.testId}
      aria-label={props.label ?? "New name"}
      value={text}
      onInput={(e) => setText(e.currentTarget.value)}
      ref={(el) => {
        if (el && !el.dataset.focused) {
          el.dataset.focused = "1";
          el.focus();
          el.select();
        }
      }}
      onKeyDown={(e) => {
        if (isEnter(e.key)) {
          e.preventDefault();
          finish(e.currentTarget.value);
        } else if (e.key === "Escape") {
          e.preventDefault();
          e.stopPropagation();
          finish(null);
        }
      }}
      onBlur={(e) => finish(e.currentTarget.value)}
    />
  );
}
