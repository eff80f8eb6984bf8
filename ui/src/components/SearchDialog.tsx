// Search contents (Ctrl+Shift+F, or from the quick switcher): asks the server as the person
// types (debounced), lists the matching tabs grouped by Note with the matched words marked, and
// opens a result on its tab with the match selected (the editor does that: `takeReveal`).

import { useEffect, useRef, useState } from "preact/hooks";
import * as api from "../api";
import type { SearchHit } from "../bindings/SearchHit";
import { closeDialog, openSearchResult } from "../app-state";
import { isEnter } from "../lib/keys";
import { displayTitle } from "../lib/notes";
import { groupByNote, hasWords, highlight } from "../lib/search";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { Modal } from "./Modal";

/** How long typing pauses before the server is asked. */
const DEBOUNCE_MS = 150;
const LIMIT = 50;

export function SearchDialog(props: { q: string }) {
  const [query, setQuery] = useState(props.q);
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [at, setAt] = useState(0);
  const asked = useRef(0);
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => {
    const ask = ++asked.current;
    if (!hasWords(query)) {
      setHits([]);
      setError(null);
      return;
    }
    const timer = setTimeout(() => {
      api.searchNotes(query, LIMIT).then(
        (found) => {
          if (ask !== asked.current) return; // a newer query is on its way
          setHits(found);
          setError(null);
          setAt(0);
        },
        (e: { message?: string }) => {
          if (ask !== asked.current) return;
          setHits([]);
          setError(e?.message ?? String(e));
        },
      );
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  const open = (i: number) => {
    const hit = hits[i];
    if (hit) openSearchResult(hit.note_id, hit.tab_id, query);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const n = Math.max(1, hits.length);
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setAt((at + 1) % n);
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setAt((at - 1 + n) % n);
    } else if (isEnter(e.key)) {
      e.preventDefault();
      open(at);
    }
    requestAnimationFrame(() => listRef.current?.querySelector(".is-on")?.scrollIntoView({ block: "nearest" }));
  };

  // Results in rank order, grouped by Note; `index` numbers them for the keyboard.
  let index = 0;
  const groups = groupByNote(hits);
  return (
    <Modal label="Search contents" onClose={closeDialog} testId={TID.searchDialog} className="switcher">
      <div class="switcher-input">
        <Icon name="search" />
        <input
          data-autofocus
          data-testid={TID.searchInput}
          placeholder="Search the contents of every Note…"
          value={query}
          role="combobox"
          aria-expanded="true"
          aria-controls="search-list"
          aria-activedescendant={`search-${at}`}
          onInput={(e) => setQuery(e.currentTarget.value)}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul class="switcher-list" id="search-list" role="listbox" ref={listRef}>
        {groups.map((g) => (
          <li key={g.noteId} class="search-group" role="presentation">
            <div class="search-note muted small">{displayTitle(g.title)}</div>
            <ul role="group">
              {g.hits.map((hit) => {
                const i = index++;
                return (
                  <li
                    key={hit.tab_id}
                    id={`search-${i}`}
                    role="option"
                    aria-selected={i === at}
                    class={`switcher-item search-item${i === at ? " is-on" : ""}`}
                    data-testid={TID.searchResult}
                    data-note-id={hit.note_id}
                    data-tab-id={hit.tab_id}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      open(i);
                    }}
                    onMouseMove={() => setAt(i)}
                  >
                    <span class="search-tab small">{hit.tab_label}</span>
                    <span class="search-snippet">
                      {highlight(hit.snippet, query).map((p, k) => (p.hit ? <mark key={k}>{p.text}</mark> : p.text))}
                    </span>
                  </li>
                );
              })}
            </ul>
          </li>
        ))}
        {error !== null && <li class="switcher-empty muted">Search failed: {error}</li>}
        {error === null && hasWords(query) && hits.length === 0 && (
          <li class="switcher-empty muted">Nothing found.</li>
        )}
      </ul>
      <div class="switcher-foot muted small">↑↓ to choose · Enter to open · Esc to close</div>
    </Modal>
  );
}
