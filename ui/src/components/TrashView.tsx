// The Trash: the Notes deleted with Delete Note, most recently deleted first, each with
// Restore; and Empty trash, which erases them for good (asked first).

import { useEffect } from "preact/hooks";
import { emptyTrash, refreshTrash, restoreNote, useApp } from "../app-state";
import { displayTitle } from "../lib/notes";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";

export function TrashView() {
  const trash = useApp((s) => s.trash);
  const loaded = useApp((s) => s.trashLoaded);
  const error = useApp((s) => s.trashError);
  useEffect(() => {
    void refreshTrash();
  }, []);
  const now = new Date();
  return (
    <section class="trash-view" data-testid={TID.trash} aria-label="Trash">
      <div class="trash-head">
        <h1>
          <Icon name="trash" size={20} /> Trash
        </h1>
        <div class="toolbar-spacer" />
        <button
          type="button"
          class="button danger"
          data-testid={TID.trashEmpty}
          disabled={trash.length === 0}
          onClick={() => void emptyTrash()}
          title="Erase every Note in the Trash for good"
        >
          Empty trash
        </button>
      </div>
      <p class="muted">
        Deleted Notes wait here with their history. Agents do not see them. Restore brings one back; only Empty trash
        erases anything.
      </p>
      {!loaded && <p class="muted">Loading…</p>}
      {loaded && error && (
        <p class="banner banner-warn" role="alert">
          {error}
        </p>
      )}
      {loaded && !error && trash.length === 0 && (
        <p class="empty-state" data-testid={TID.trashNone}>
          The Trash is empty.
        </p>
      )}
      <ul class="trash-list">
        {trash.map((n) => (
          <li key={n.id} class="trash-item" data-testid={TID.trashItem} data-note-id={n.id}>
            <span class="notes-title">{displayTitle(n.title)}</span>
            {n.deleted_at && (
              <time class="muted small" dateTime={n.deleted_at} title={toDate(n.deleted_at).toLocaleString()}>
                deleted {relativeTime(toDate(n.deleted_at), now)}
              </time>
            )}
            <div class="toolbar-spacer" />
            <button
              type="button"
              class="button"
              data-testid={TID.trashRestore}
              data-note-id={n.id}
              onClick={() => void restoreNote(n.id)}
            >
              Restore
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
