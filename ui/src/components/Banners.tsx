// The line above a tab's editor that says what is going on with it: a conflict (with the
// person's choices), a refused save, offline, or who else just changed it.

import type { TabView } from "../api";
import { confirm, discardDraft, openDialog, resolveConflict, restoreNote, retrySave, useApp } from "../app-state";
import { isTrashRefusal } from "../lib/trash";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";

export function TabBanner(props: { tab: TabView }) {
  const { tab } = props;
  const remote = useApp((s) => s.remoteEdits[tab.id]);
  const openId = useApp((s) => s.open?.noteId ?? null);
  const st = tab.status;
  if (st.state === "conflict") {
    const takeTheirs = async () => {
      const ok = await confirm({
        title: st.gone ? "Accept the deletion?" : "Take their version?",
        body: st.gone
          ? "The tab was deleted on the server. Your draft is archived on this computer, not deleted."
          : "The tab will show the server's version. Your draft is archived on this computer, not deleted.",
        confirmLabel: st.gone ? "Accept the deletion" : "Take theirs",
        danger: true,
      });
      if (ok) await resolveConflict(tab.id, { choice: "take_theirs" });
    };
    return (
      <div class="banner banner-conflict" role="alert" data-testid={TID.conflictBanner} data-tab-id={tab.id}>
        <Icon name="warning" />
        <div class="banner-text">
          <strong>
            {st.gone ? "This tab was deleted on the server while you were editing it." : "This tab changed on the server while you were editing it."}
          </strong>{" "}
          Your draft is kept{st.base_version != null ? ` (based on version ${st.base_version}` : ""}
          {st.theirs_version != null ? `; the server is at version ${st.theirs_version})` : st.base_version != null ? ")" : ""}.
          Nothing is saved until you choose.
        </div>
        <div class="banner-actions">
          <button
            type="button"
            class="button primary"
            data-testid={TID.conflictReview}
            onClick={() => openDialog({ kind: "conflict", tabId: tab.id })}
          >
            Review and merge…
          </button>
          {!st.gone && (
            <button
              type="button"
              class="button"
              data-testid={TID.conflictKeepMine}
              onClick={() => void resolveConflict(tab.id, { choice: "keep_mine" })}
              title="Save your draft as the newest version; theirs stays in the history"
            >
              Keep mine
            </button>
          )}
          <button type="button" class="button" data-testid={TID.conflictTakeTheirs} onClick={() => void takeTheirs()}>
            Take theirs
          </button>
        </div>
      </div>
    );
  }
  if (st.state === "failed" && openId !== null && isTrashRefusal(st.last_error)) {
    const noteId = openId;
    return (
      <div class="banner banner-failed" role="alert" data-testid={TID.trashBanner} data-tab-id={tab.id}>
        <Icon name="trash" />
        <div class="banner-text">
          <strong>This Note is in the Trash.</strong> Your draft is kept on this computer; restore the Note to save it.
        </div>
        <div class="banner-actions">
          <button
            type="button"
            class="button primary"
            data-testid={TID.trashBannerRestore}
            onClick={() => void restoreNote(noteId)}
          >
            Restore the Note
          </button>
        </div>
      </div>
    );
  }
  if (st.state === "failed") {
    return (
      <div class="banner banner-failed" role="alert">
        <Icon name="warning" />
        <div class="banner-text">
          <strong>The server refused to save this tab.</strong> {st.last_error?.message ?? ""} Your draft is kept on this
          computer.
        </div>
        <div class="banner-actions">
          <button type="button" class="button" onClick={() => void retrySave(tab.id)}>
            Try again
          </button>
          <button type="button" class="button" onClick={() => void discardDraft(tab.id)}>
            Discard my changes…
          </button>
        </div>
      </div>
    );
  }
  if (st.state === "offline") {
    return (
      <div class="banner banner-offline" role="status">
        <Icon name="offline" />
        <div class="banner-text">
          <strong>Offline.</strong> Your draft is kept on this computer and saved as soon as the server answers.
          {st.last_error && <span class="muted-inline"> ({st.last_error.message})</span>}
        </div>
      </div>
    );
  }
  if (remote) {
    const at = toDate(remote.at);
    return (
      <div
        class={`remote-edit${remote.agent ? " is-agent" : ""}`}
        data-testid={TID.remoteEdit}
        data-author={remote.author}
        data-tab-id={tab.id}
        role="status"
      >
        <span class="remote-dot" aria-hidden="true" />
        Edited by <strong>{remote.author}</strong>
        {remote.agent ? " (agent)" : ""} ·{" "}
        <time dateTime={remote.at} title={at.toLocaleString()}>
          {at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })} ({relativeTime(at, new Date())})
        </time>{" "}
        · version {remote.version}
      </div>
    );
  }
  return null;
}
