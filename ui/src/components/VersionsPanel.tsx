// The versions panel: the open Note's history (author, person or agent, time, summary), each
// version viewable read-only, comparable with now, restorable, and undoable on its own ("Undo
// this change": what that version changed is taken back, everything since kept), with the
// agent's last change offered at the top. Restores and undos are guarded writes: when one is
// refused, the panel says why and nothing is lost.

import { useEffect, useMemo, useState } from "preact/hooks";
import * as api from "../api";
import type { Note, VersionInfo } from "../api";
import type { VersionMode } from "../app-state";
import { app, closeDialog, confirm, openDialog, restoreTab, restoreVersion, undoVersion, useApp } from "../app-state";
import { type ComparedNote, diffNotes } from "../lib/diff";
import { explain } from "../lib/errors";
import { cellText } from "../lib/grid";
import { PAGE, hasOlder, withNewest, withOlder } from "../lib/versionPages";
import { deletedTabs } from "../lib/restoretab";
import { relativeTime, toDate } from "../lib/status";
import type { TabType } from "../lib/tabs";
import { agentsLastChange, canUndo, type UndoResult, undoSpan, whose } from "../lib/undo";
import { TID } from "../testids";
import { type MarkedBy, NoteChangesView } from "./DiffViews";
import { Icon } from "./Icon";
import { Modal } from "./Modal";
import { SlideCanvas, type SlideData } from "./SlidesEditor";
import { tabIcon } from "./TabStrip";

/** The history a page at a time: the newest page (read again at each new version), and older pages on request. */
function useHistory(noteId: string | null, version: number | null) {
  const [versions, setVersions] = useState<VersionInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingOlder, setLoadingOlder] = useState(false);
  useEffect(() => setVersions(null), [noteId]);
  useEffect(() => {
    if (!noteId) return;
    let live = true;
    api.historyPage(noteId, PAGE).then(
      (page) => {
        if (live) {
          setVersions((loaded) => withNewest(loaded, page));
          setError(null);
        }
      },
      (e: unknown) => live && setError(explain(e).text),
    );
    return () => {
      live = false;
    };
  }, [noteId, version]);
  const loadOlder = async () => {
    const first = versions?.[0]?.version;
    if (!noteId || first === undefined || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const page = await api.historyPage(noteId, PAGE, first);
      setVersions((loaded) => withOlder(loaded ?? [], page));
    } catch (e) {
      setError(explain(e).text);
    } finally {
      setLoadingOlder(false);
    }
  };
  return { versions, error, loadOlder, loadingOlder };
}

export function VersionsPanel() {
  const noteId = useApp((s) => s.open?.noteId ?? null);
  const current = useApp((s) => s.open?.view?.version ?? null);
  const person = useApp((s) => s.settings?.person_name ?? null);
  const { versions, error, loadOlder, loadingOlder } = useHistory(noteId, current);
  const [message, setMessage] = useState<{ ok: boolean; text: string; detail?: string } | null>(null);
  const now = new Date();
  const newestFirst = useMemo(() => (versions ? versions.slice().reverse() : []), [versions]);
  const tabIds = useApp((s) => s.open?.view?.tabs.map((t) => t.id).join("\n") ?? "");
  const deleted = useMemo(() => deletedTabs(versions ?? [], tabIds.split("\n")), [versions, tabIds]);
  const agentsLast = useMemo(() => agentsLastChange(versions ?? []), [versions]);
  const [undoing, setUndoing] = useState<VersionInfo | null>(null);

  const restore = async (v: VersionInfo) => {
    const ok = await confirm({
      title: `Restore version ${v.version}?`,
      body: "The Note becomes as it was then, as a new version. Nothing is deleted: the current state stays in the history.",
      confirmLabel: `Restore version ${v.version}`,
    });
    if (!ok) return;
    setMessage(null);
    setMessage(await restoreVersion(v.version));
  };

  return (
    <aside class="side-panel" data-testid={TID.versionsPanel} aria-label="Versions">
      <div class="panel-head">
        <h2>Versions</h2>
        <button type="button" class="icon-button" onClick={() => app.set({ panel: null })} title="Close" aria-label="Close">
          <Icon name="close" />
        </button>
      </div>
      {message && (
        <div class={`form-message ${message.ok ? "is-ok" : "is-error"} panel-message`} data-testid={TID.versionMessage} role="status">
          {message.text}
          {message.detail && <div class="muted small">{message.detail}</div>}
        </div>
      )}
      {agentsLast && (
        <div class="undo-agent">
          <div class="undo-agent-text">
            <Icon name="agent" size={14} /> The agent “{agentsLast.author}” made the last change (v{agentsLast.version}
            {agentsLast.summary ? `: ${agentsLast.summary}` : ""}).
          </div>
          <button
            type="button"
            class="button"
            data-testid={TID.undoAgentLast}
            data-version={agentsLast.version}
            onClick={() => setUndoing(agentsLast)}
          >
            Undo the agent's last change…
          </button>
        </div>
      )}
      {undoing && noteId && (
        <UndoPreview
          noteId={noteId}
          version={undoing}
          person={person}
          onClose={() => setUndoing(null)}
          onDone={(m) => {
            setUndoing(null);
            setMessage(m);
          }}
        />
      )}
      {!noteId && <p class="muted panel-intro">Open a Note to see its history.</p>}
      {error && <p class="form-message is-error">{error}</p>}
      {noteId && !versions && !error && <p class="muted panel-intro">Loading…</p>}
      <ol class="versions">
        {newestFirst.map((v) => {
          const isCurrent = v.version === current;
          const at = toDate(v.created_at);
          return (
            <li
              key={v.version}
              class={`version-row${isCurrent ? " is-current" : ""}`}
              data-testid={TID.versionsRow}
              data-version={v.version}
              data-author-kind={v.author_kind}
            >
              <div class="version-line">
                <span class="version-num">v{v.version}</span>
                <VersionAuthor version={v} person={person} />
                <time class="muted" dateTime={v.created_at} title={at.toLocaleString()}>
                  {relativeTime(at, now)}
                </time>
                {isCurrent && <span class="pill pill-muted">current</span>}
              </div>
              <div class="version-summary">{v.summary}</div>
              <div class="version-actions">
                <button
                  type="button"
                  class="link-button"
                  data-testid={TID.versionOpen}
                  onClick={() => openDialog({ kind: "version", version: v.version, mode: "view" })}
                >
                  View
                </button>
                {v.version > 1 && (
                  <button
                    type="button"
                    class="link-button"
                    data-testid={TID.versionChange}
                    title="What this version changed, marked as the editor marks it"
                    onClick={() =>
                      openDialog({
                        kind: "version",
                        version: v.version,
                        mode: "change",
                        by: { author: v.author, agent: v.author_kind === "agent" },
                      })
                    }
                  >
                    What changed
                  </button>
                )}
                <button
                  type="button"
                  class="link-button"
                  data-testid={TID.versionDiff}
                  disabled={isCurrent}
                  onClick={() => openDialog({ kind: "version", version: v.version, mode: "diff" })}
                >
                  Changes since
                </button>
                <button
                  type="button"
                  class="link-button"
                  data-testid={TID.versionRestore}
                  disabled={isCurrent}
                  onClick={() => void restore(v)}
                >
                  Restore…
                </button>
                {canUndo(v) && (
                  <button
                    type="button"
                    class="link-button"
                    data-testid={TID.versionUndo}
                    title="Take back only what this version changed; everything written since stays"
                    onClick={() => setUndoing(v)}
                  >
                    Undo this change…
                  </button>
                )}
              </div>
              {(deleted.get(v.version) ?? []).map((tabId) => (
                <RestoreTabButton
                  key={tabId}
                  noteId={noteId ?? ""}
                  version={v.version - 1}
                  tabId={tabId}
                  onDone={setMessage}
                />
              ))}
            </li>
          );
        })}
      </ol>
      {hasOlder(versions) && (
        <button
          type="button"
          class="button versions-older"
          data-testid={TID.versionsOlder}
          disabled={loadingOlder}
          onClick={() => void loadOlder()}
        >
          {loadingOlder ? "Loading…" : `Show older versions (before v${versions?.[0]?.version ?? ""})`}
        </button>
      )}
    </aside>
  );
}

/**
 * "Undo this change", before it is done: exactly what will be taken back (the version before
 * against the version itself, whatever was written since), then Undo or Cancel. A preview
 * first, rather than an undo at once with an Undo toast: the undo is a write into history the
 * agent also sees, it may span several tabs the person is not looking at, and it can be refused
 * (a later change of the same lines); the person should see what goes before it goes.
 */
function UndoPreview(props: {
  noteId: string;
  version: VersionInfo;
  person: string | null;
  onClose: () => void;
  onDone: (m: UndoResult) => void;
}) {
  const { before, after } = undoSpan(props.version.version);
  const [notes, setNotes] = useState<{ before: Note; after: Note } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    Promise.all([api.versionAt(props.noteId, before), api.versionAt(props.noteId, after)]).then(
      ([b, a]) => live && setNotes({ before: b, after: a }),
      (e: unknown) => live && setError(explain(e).text),
    );
    return () => {
      live = false;
    };
  }, [props.noteId, before, after]);
  const change = useMemo(() => (notes ? diffNotes(notes.before, notes.after) : null), [notes]);
  const who = whose(props.version, props.person);
  return (
    <Modal label={`Undo the change of version ${after}`} onClose={props.onClose} testId={TID.undoPreview} wide>
      <div class="modal-head" data-version={after}>
        <h2>Undo the change of version {after}?</h2>
        <button type="button" class="icon-button" onClick={props.onClose} aria-label="Close">
          <Icon name="close" />
        </button>
      </div>
      <p class="undo-intro">
        This takes back exactly what {who} changed in version {after}, shown below: added lines go, removed lines come
        back. Everything written since stays. It is a new version, so it can be undone in turn.
      </p>
      {error && <p class="form-message is-error">{error}</p>}
      {!change && !error && <p class="muted">Loading…</p>}
      {change && (
        <NoteChangesView
          change={change}
          olderLabel={`version ${before}`}
          newerLabel={`version ${after}`}
          by={{ author: props.version.author, agent: props.version.author_kind === "agent" }}
        />
      )}
      <div class="modal-foot">
        <div class="toolbar-spacer" />
        <button type="button" class="button" data-testid={TID.undoCancel} onClick={props.onClose}>
          Cancel
        </button>
        <button
          type="button"
          class="button primary"
          data-testid={TID.undoConfirm}
          data-autofocus
          disabled={!change || busy}
          onClick={async () => {
            setBusy(true);
            props.onDone(await undoVersion(after));
          }}
        >
          {busy ? "Undoing…" : "Undo this change"}
        </button>
      </div>
    </Modal>
  );
}

/**
 * "Restore this tab": one click brings back a tab this version deleted, as a new tab with the
 * label and content it had at `version` (the one before).
 */
function RestoreTabButton(props: {
  noteId: string;
  version: number;
  tabId: string;
  onDone: (m: { ok: boolean; text: string; detail?: string }) => void;
}) {
  const [label, setLabel] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    api.versionAt(props.noteId, props.version).then(
      (n) => live && setLabel(n.tabs.find((t) => t.id === props.tabId)?.label ?? null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [props.noteId, props.version, props.tabId]);
  return (
    <button
      type="button"
      class="link-button version-restore-tab"
      data-testid={TID.versionRestoreTab}
      data-tab-id={props.tabId}
      disabled={busy}
      title={`Bring back the tab this version deleted (${props.tabId}), as it was in version ${props.version}`}
      onClick={async () => {
        setBusy(true);
        props.onDone(await restoreTab(props.version, props.tabId));
        setBusy(false);
      }}
    >
      <Icon name="history" /> Restore tab “{label ?? props.tabId}”
    </button>
  );
}

/**
 * Who made a version. Whether that was an agent is what the server recorded (`author_kind`),
 * never a guess from the name: an agent's token may carry the person's name.
 */
export function VersionAuthor(props: { version: VersionInfo; person: string | null }) {
  const { author, author_kind } = props.version;
  const agent = author_kind === "agent";
  const you = !agent && author === props.person;
  return (
    <span class={`author ${agent ? "is-agent" : "is-person"}`} title={agent ? `Agent “${author}”` : you ? "You" : `Person “${author}”`}>
      {agent ? <Icon name="agent" size={13} /> : null}
      {you ? "You" : author}
    </span>
  );
}

/** A version of the open Note, read-only; its changes up to now; or what it changed. */
export function VersionDialog(props: { version: number; mode: VersionMode; by?: MarkedBy }) {
  const noteId = useApp((s) => s.open?.noteId ?? null);
  const view = useApp((s) => s.open?.view ?? null);
  const content = useApp((s) => s.content);
  const [note, setNote] = useState<Note | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [mode, setMode] = useState(props.mode);
  const [tabId, setTabId] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  // The version before it, read when "What it changed" is first shown.
  const [previous, setPrevious] = useState<Note | null>(null);
  useEffect(() => {
    if (!noteId || mode !== "change" || previous || props.version <= 1) return;
    let live = true;
    api.versionAt(noteId, props.version - 1).then(
      (n) => live && setPrevious(n),
      (e: unknown) => live && setError(explain(e).text),
    );
    return () => {
      live = false;
    };
  }, [noteId, mode, previous, props.version]);
  const changed = useMemo(() => (note && previous ? diffNotes(previous, note) : null), [note, previous]);

  useEffect(() => {
    if (!noteId) return;
    let live = true;
    api.versionAt(noteId, props.version).then(
      (n) => {
        if (!live) return;
        setNote(n);
        setTabId(n.tabs[0]?.id ?? null);
      },
      (e: unknown) => live && setError(explain(e).text),
    );
    return () => {
      live = false;
    };
  }, [noteId, props.version]);

  // Compared once every tab's data is here (a large tab is read after the Note opens).
  const nowNote: ComparedNote | null =
    view && view.tabs.every((t) => t.id in content)
      ? {
          title: view.title,
          tabs: view.tabs.map((t) => ({ id: t.id, type: t.type, label: t.label, data: content[t.id]?.data })),
        }
      : null;
  const change = useMemo(
    () => (note && nowNote ? diffNotes(note, nowNote) : null),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [note, view, content],
  );
  const tab = note?.tabs.find((t) => t.id === tabId);

  const restore = async () => {
    const ok = await confirm({
      title: `Restore version ${props.version}?`,
      body: "The Note becomes as it was then, as a new version. The current state stays in the history.",
      confirmLabel: `Restore version ${props.version}`,
    });
    if (ok) setMessage(await restoreVersion(props.version));
  };

  return (
    <Modal label={`Version ${props.version}`} onClose={closeDialog} testId={TID.versionView} wide>
      <div class="modal-head">
        <h2>
          Version {props.version} <span class="muted">(read-only)</span>
        </h2>
        <div class="segmented" role="tablist">
          <button type="button" role="tab" aria-selected={mode === "view"} class={mode === "view" ? "is-on" : ""} onClick={() => setMode("view")}>
            As it was
          </button>
          {props.version > 1 && (
            <button
              type="button"
              role="tab"
              aria-selected={mode === "change"}
              class={mode === "change" ? "is-on" : ""}
              onClick={() => setMode("change")}
            >
              What it changed
            </button>
          )}
          <button type="button" role="tab" aria-selected={mode === "diff"} class={mode === "diff" ? "is-on" : ""} onClick={() => setMode("diff")}>
            Changes since
          </button>
        </div>
        <button type="button" class="icon-button" onClick={closeDialog} aria-label="Close" data-testid={TID.versionClose}>
          <Icon name="close" />
        </button>
      </div>
      {error && <p class="form-message is-error">{error}</p>}
      {message && (
        <p class={`form-message ${message.ok ? "is-ok" : "is-error"}`} data-testid={TID.versionMessage} role="status">
          {message.text}
        </p>
      )}
      {!note && !error && <p class="muted">Loading…</p>}
      {note && mode === "view" && (
        <div class="version-view">
          <p class="version-title">
            <strong>{note.title || "Untitled"}</strong>
          </p>
          <div class="version-tabs" role="tablist">
            {note.tabs.map((t) => (
              <button
                key={t.id}
                type="button"
                role="tab"
                aria-selected={t.id === tabId}
                class={`version-tab${t.id === tabId ? " is-on" : ""}`}
                data-tab-id={t.id}
                onClick={() => setTabId(t.id)}
              >
                <Icon name={tabIcon(t.type as TabType)} /> {t.label}
              </button>
            ))}
          </div>
          {tab && <ReadOnlyTab type={tab.type} data={tab.data} />}
        </div>
      )}
      {mode === "change" && !changed && !error && <p class="muted">Loading…</p>}
      {mode === "change" && changed && (
        <NoteChangesView
          change={changed}
          olderLabel={`version ${props.version - 1}`}
          newerLabel={`version ${props.version}`}
          by={props.by}
        />
      )}
      {note && mode === "diff" && change && (
        <NoteChangesView change={change} olderLabel={`version ${props.version}`} newerLabel="now" />
      )}
      <div class="modal-foot">
        <span class="muted">Restoring makes a new version equal to this one; history is kept.</span>
        <div class="toolbar-spacer" />
        <button type="button" class="button" onClick={closeDialog}>
          Close
        </button>
        <button
          type="button"
          class="button primary"
          data-testid={TID.versionRestore}
          disabled={!note || view?.version === props.version}
          onClick={() => void restore()}
        >
          Restore this version
        </button>
      </div>
    </Modal>
  );
}

function ReadOnlyTab(props: { type: string; data: unknown }) {
  const { type, data } = props;
  if (type === "markdown") return <pre class="readonly-text">{typeof data === "string" && data !== "" ? data : "(empty)"}</pre>;
  if (type === "sheet") {
    const sheets = (data as { sheets: { id: string; name: string; rows: unknown[][] }[] }).sheets ?? [];
    return (
      <div class="readonly-sheets">
        {sheets.map((s) => (
          <div key={s.id}>
            <h4>{s.name}</h4>
            {s.rows.length === 0 ? (
              <p class="muted">(empty)</p>
            ) : (
              <table class="cell-table">
                <tbody>
                  {s.rows.slice(0, 200).map((r, i) => (
                    <tr key={i}>
                      <th>{i + 1}</th>
                      {r.map((c, j) => (
                        <td key={j}>{cellText(c as never)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        ))}
      </div>
    );
  }
  if (type === "slides") {
    const deck = data as { theme: string; slides: SlideData[] };
    return (
      <div class="readonly-slides">
        {deck.slides.length === 0 && <p class="muted">(no slides)</p>}
        {deck.slides.map((s) => (
          <div key={s.id} class="readonly-slide">
            <SlideCanvas slide={s} theme={deck.theme} />
          </div>
        ))}
      </div>
    );
  }
  const items = (Array.isArray(data) ? data : []) as { id: string; title?: string; name?: string; url?: string }[];
  return (
    <ul class="item-list">
      {items.length === 0 && <li class="muted">(none)</li>}
      {items.map((x) => (
        <li key={x.id} class="item">
          {x.title ?? x.name} {x.url && <span class="muted">{x.url}</span>}
        </li>
      ))}
    </ul>
  );
}
