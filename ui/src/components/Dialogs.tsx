// The dialogs that float over everything: the quick switcher (Ctrl+K / Ctrl+P), confirmations,
// and the toasts that report refused actions.

import { useMemo, useRef, useState } from "preact/hooks";
import {
  type Confirm,
  answerConfirm,
  closeDialog,
  createNote,
  dismissToast,
  navigate,
  openDialog,
  runToastAction,
  useApp,
} from "../app-state";
import { hasWords } from "../lib/search";
import { displayTitle, searchNotes } from "../lib/notes";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { Modal } from "./Modal";
import { isEnter } from "../lib/keys";
import { keyLabel } from "../app-state/commands";

export function QuickSwitcher() {
  const notes = useApp((s) => s.notes);
  const [query, setQuery] = useState("");
  const [at, setAt] = useState(0);
  const list = useMemo(() => searchNotes(notes, query).slice(0, 50), [notes, query]);
  const canCreate = query.trim() !== "" && !notes.some((n) => n.title.trim().toLowerCase() === query.trim().toLowerCase());
  // The last choice: search the contents of every Note for these words.
  const canSearch = hasWords(query);
  const searchAt = list.length + (canCreate ? 1 : 0);
  const count = searchAt + (canSearch ? 1 : 0);
  const listRef = useRef<HTMLUListElement>(null);
  const now = new Date();

  const choose = (i: number) => {
    const note = list[i];
    if (canSearch && i === searchAt) {
      openDialog({ kind: "search", q: query });
      return;
    }
    closeDialog();
    if (note) navigate({ kind: "note", noteId: note.id });
    else if (canCreate) void createNote(query.trim());
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || (e.key === "n" && e.ctrlKey)) {
      e.preventDefault();
      setAt((at + 1) % Math.max(1, count));
    } else if (e.key === "ArrowUp" || (e.key === "p" && e.ctrlKey)) {
      e.preventDefault();
      setAt((at - 1 + Math.max(1, count)) % Math.max(1, count));
    } else if (isEnter(e.key)) {
      e.preventDefault();
      choose(at);
    }
    requestAnimationFrame(() => listRef.current?.querySelector(".is-on")?.scrollIntoView({ block: "nearest" }));
  };

  return (
    <Modal label="Find a Note" onClose={closeDialog} testId={TID.quickSwitcher} className="switcher">
      <div class="switcher-input">
        <Icon name="search" />
        <input
          data-autofocus
          data-testid={TID.quickSwitcherInput}
          placeholder="Find a Note by title…"
          value={query}
          role="combobox"
          aria-expanded="true"
          aria-controls="switcher-list"
          aria-activedescendant={`switcher-${at}`}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setAt(0);
          }}
          onKeyDown={onKeyDown}
        />
      </div>
      <ul class="switcher-list" id="switcher-list" role="listbox" ref={listRef}>
        {list.map((n, i) => (
          <li
            key={n.id}
            id={`switcher-${i}`}
            role="option"
            aria-selected={i === at}
            class={`switcher-item${i === at ? " is-on" : ""}`}
            data-testid={TID.quickSwitcherItem}
            data-note-id={n.id}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(i);
            }}
            onMouseMove={() => setAt(i)}
          >
            <span>{displayTitle(n.title)}</span>
            <span class="muted small">{relativeTime(toDate(n.updated_at), now)}</span>
          </li>
        ))}
        {canCreate && (
          <li
            id={`switcher-${list.length}`}
            role="option"
            aria-selected={at === list.length}
            class={`switcher-item create${at === list.length ? " is-on" : ""}`}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(list.length);
            }}
          >
            <Icon name="plus" /> <span>New Note “{query.trim()}”</span>
          </li>
        )}
        {canSearch && (
          <li
            id={`switcher-${searchAt}`}
            role="option"
            aria-selected={at === searchAt}
            class={`switcher-item create${at === searchAt ? " is-on" : ""}`}
            data-testid={TID.quickSwitcherSearch}
            onMouseDown={(e) => {
              e.preventDefault();
              choose(searchAt);
            }}
          >
            <Icon name="search" /> <span>Search contents for “{query.trim()}” ({keyLabel("searchContents")})</span>
          </li>
        )}
        {count === 0 && <li class="switcher-empty muted">No Notes yet.</li>}
      </ul>
      <div class="switcher-foot muted small">↑↓ to choose · Enter to open · Esc to close</div>
    </Modal>
  );
}

export function ConfirmDialog(props: Confirm) {
  const answer = (ok: boolean) => answerConfirm(ok);
  return (
    <Modal label={props.title} onClose={() => answer(false)} testId={TID.confirmDialog}>
      <div class="confirm">
        <h2>{props.title}</h2>
        <p>{props.body}</p>
        <div class="modal-foot">
          <div class="toolbar-spacer" />
          <button type="button" class="button" data-testid={TID.confirmCancel} onClick={() => answer(false)}>
            Cancel
          </button>
          <button
            type="button"
            class={`button ${props.danger ? "danger" : "primary"}`}
            data-testid={TID.confirmOk}
            data-autofocus
            onClick={() => answer(true)}
          >
            {props.confirmLabel}
          </button>
        </div>
      </div>
    </Modal>
  );
}

export function Toasts() {
  const toasts = useApp((s) => s.toasts);
  return (
    <div class="toasts" aria-live="assertive">
      {toasts.map((t) => (
        <div
          key={t.id}
          class={`toast toast-${t.tone}`}
          role={t.tone === "error" ? "alert" : "status"}
          data-testid={TID.errorToast}
          data-code={t.code ?? ""}
          data-tone={t.tone}
        >
          <Icon name={t.tone === "error" ? "warning" : "check"} />
          <div class="toast-text">
            {t.text}
            {t.detail && t.detail !== t.text && <div class="toast-detail">{t.detail}</div>}
          </div>
          {t.action && (
            <button type="button" class="button" data-testid={TID.toastAction} onClick={() => runToastAction(t.id)}>
              {t.action.label}
            </button>
          )}
          <button type="button" class="icon-button" onClick={() => dismissToast(t.id)} aria-label="Dismiss">
            <Icon name="close" />
          </button>
        </div>
      ))}
    </div>
  );
}
