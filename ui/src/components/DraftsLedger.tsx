// The drafts ledger: every change not yet on the server, across all Notes, open or not. It is
// the person's proof that nothing is lost: each line says where the draft is, why it is not
// saved yet, and leads to it.

import { app, goTab, refreshLedger, useApp } from "../app-state";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";

const STATE_TEXT: Record<string, string> = {
  dirty: "Waiting to save",
  saving: "Saving…",
  conflict: "Conflict: your decision",
  offline: "Offline: kept here",
  failed: "Refused: kept here",
  clean: "Kept",
  saved: "Saved",
};

export function DraftsLedger() {
  const ledger = useApp((s) => s.ledger);
  const now = new Date();
  return (
    <aside class="side-panel" data-testid={TID.draftsLedger} aria-label="Drafts ledger">
      <div class="panel-head">
        <h2>Drafts</h2>
        <button type="button" class="icon-button" onClick={() => void refreshLedger()} title="Refresh" aria-label="Refresh">
          <Icon name="history" />
        </button>
        <button type="button" class="icon-button" onClick={() => app.set({ panel: null })} title="Close" aria-label="Close">
          <Icon name="close" />
        </button>
      </div>
      <p class="panel-intro muted">
        Changes kept on this computer that the server does not have yet. They survive closing the app.
      </p>
      {ledger.length === 0 ? (
        <div class="panel-empty" data-testid={TID.draftsEmpty}>
          <Icon name="check" size={22} />
          <p>Every change is on the server.</p>
        </div>
      ) : (
        <ul class="ledger">
          {ledger.map((d) => (
            <li key={`${d.note_id}/${d.tab_id}`}>
              <button
                type="button"
                class={`ledger-item state-${d.state}`}
                data-testid={TID.draftsItem}
                data-note-id={d.note_id}
                data-tab-id={d.tab_id}
                data-state={d.state}
                onClick={() => goTab(d.note_id, d.tab_id)}
              >
                <span class="ledger-title">
                  {d.note_title || "Untitled"} <span class="muted">›</span>{" "}
                  <span class="ledger-tab">{d.tab_label ?? d.tab_id}</span>
                </span>
                <span class={`pill state-pill state-${d.state}`}>{STATE_TEXT[d.state] ?? d.state}</span>
                <span class="ledger-meta muted">
                  based on version {d.base_version}
                  {d.has_pending_save ? " · a save is on its way" : ""} · {relativeTime(toDate(d.updated_at), now)}
                </span>
                {d.last_error && <span class="ledger-error">{d.last_error.message}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
