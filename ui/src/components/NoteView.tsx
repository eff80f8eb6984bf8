// The open Note: its title, the tab strip and the tab named by the route. An unknown tab ID
// shows "This tab no longer exists" with links to the tabs there are: never another tab.

import { useEffect, useState } from "preact/hooks";
import { type Backlink, noteBacklinks, type TabView } from "../api";
import {
  LEAVE_ACTIONS,
  app,
  deleteNote,
  edits,
  loadDeferred,
  navigate,
  renameNote,
  runLeaveAction,
  runTransfer,
  tabLink,
  useApp,
} from "../app-state";
import { displayTitle } from "../lib/notes";
import { REMOTE_HINT } from "../lib/transfer";
import { resolveTab } from "../lib/route";
import { type TabType, typeName } from "../lib/tabs";
import { lazy, loader } from "../lazy";
import { TID } from "../testids";
import { TabBanner } from "./Banners";
import { FilesEditor } from "./FilesEditor";
import { Icon } from "./Icon";
import { MenuButton } from "./Menu";
import { RenameInput } from "./NotesList";
import { SheetEditor } from "./SheetEditor";
import { SlidesEditor } from "./SlidesEditor";
import { SourcesEditor } from "./SourcesEditor";
import { TabStrip, tabIcon } from "./TabStrip";

/** The Markdown editor (CodeMirror, marked): its own chunk, loaded on first use or preloaded. */
export const markdownEditor = loader(() => import("./MarkdownEditor").then((m) => m.MarkdownEditor));

const MarkdownEditor = lazy(markdownEditor, (error) => (
  <div class="md-editor" aria-busy={error === null}>
    {error === null ? (
      <div class="skeleton skeleton-body" />
    ) : (
      <p class="banner banner-warn" role="alert">
        The editor could not be loaded: {error}
      </p>
    )}
  </div>
));

export function NoteView(props: { noteId: string; tabId: string | null }) {
  const open = useApp((s) => s.open);
  const renaming = useApp((s) => s.renaming);
  const guard = useApp((s) => s.status?.guard ?? null);
  const remote = useApp((s) => s.settings?.mode === "remote");
  const busy = useApp((s) => s.transfer !== null);
  if (!open || open.noteId !== props.noteId || (open.loading && !open.view)) {
    return (
      <section class="note note-loading" aria-busy="true">
        <div class="skeleton skeleton-title" />
        <div class="skeleton skeleton-strip" />
        <div class="skeleton skeleton-body" />
      </section>
    );
  }
  if (!open.view) {
    return (
      <section class="note">
        <div class="empty-state" role="alert">
          <h2>This Note could not be opened</h2>
          <p>{open.error?.text ?? "Unknown error."}</p>
          <p>
            <a href="#/">Back to the Notes</a>
          </p>
        </div>
      </section>
    );
  }
  const view = open.view;
  const resolved = props.tabId === null ? null : resolveTab(view.tabs, props.tabId);
  const activeId = resolved?.kind === "found" ? resolved.tab.id : null;
  return (
    <section class="note" aria-label={displayTitle(view.title)}>
      <div class="note-head">
        {renaming?.noteId === view.note_id && renaming.where === "title" ? (
          <RenameInput
            value={view.title}
            testId={TID.noteTitleInput}
            label="Note title"
            className="note-title-input"
            onDone={(title) => (title === null ? app.set({ renaming: null }) : void renameNote(view.note_id, title))}
          />
        ) : (
          <h1 class="note-title" data-testid={TID.noteTitle}>
            <button
              type="button"
              onClick={() => app.set({ renaming: { noteId: view.note_id, where: "title" } })}
              title="Rename this Note"
            >
              {displayTitle(view.title)}
            </button>
          </h1>
        )}
        <span class="note-version" title="The Note's version on the server">
          v{Math.max(view.version, guard ?? 0)}
        </span>
        <div class="toolbar-spacer" />
        <button
          type="button"
          class="button danger-quiet"
          data-testid={TID.noteDelete}
          onClick={() => void deleteNote(view.note_id)}
          title="Move this Note to the Trash (you can restore it from there)"
        >
          <Icon name="trash" /> Delete Note
        </button>
        <MenuButton
          label="Note menu"
          testId={TID.noteMenu}
          className="note-menu"
          align="right"
          items={[
            {
              label: "Export Note…",
              testId: TID.noteMenuExport,
              onSelect: () => void runTransfer("export-note", view.note_id),
              disabled: remote || busy,
              hint: remote ? REMOTE_HINT : undefined,
            },
            ...LEAVE_ACTIONS.filter((a) => a.scope === "note").map((a) => ({
              label: a.label,
              testId: `leave-${a.id}`,
              onSelect: () => void runLeaveAction(a.id),
            })),
          ]}
        >
          <Icon name="more" />
        </MenuButton>
      </div>
      <Backlinks noteId={view.note_id} />
      <TabStrip noteId={view.note_id} tabs={view.tabs} activeId={activeId} />
      {view.orphan_drafts.length > 0 && <OrphanDrafts tabs={view.orphan_drafts} />}
      {resolved?.kind === "found" && <TabPane noteId={view.note_id} tab={resolved.tab} />}
      {resolved?.kind === "gone" && <TabGone noteId={view.note_id} tabId={resolved.tabId} tabs={resolved.tabs} />}
    </section>
  );
}

/**
 * "Linked from": the Notes whose text links to this one, from the server's index (asked again
 * when the list of Notes changes: a save or a rename anywhere). Nothing shown when none do.
 */
function Backlinks(props: { noteId: string }) {
  const listed = useApp((s) => s.notes);
  const [links, setLinks] = useState<{ noteId: string; list: Backlink[] } | null>(null);
  useEffect(() => {
    let live = true;
    noteBacklinks(props.noteId).then(
      (list) => live && setLinks({ noteId: props.noteId, list }),
      () => live && setLinks(null),
    );
    return () => {
      live = false;
    };
  }, [props.noteId, listed]);
  const list = links?.noteId === props.noteId ? links.list : [];
  if (list.length === 0) return null;
  return (
    <nav class="backlinks" data-testid={TID.backlinks} aria-label="Linked from">
      <span class="muted small">Linked from</span>
      {list.map((b) => (
        <a
          key={b.note_id}
          href="#"
          class="backlink"
          data-testid={TID.backlinkItem}
          data-note-id={b.note_id}
          onClick={(e) => {
            e.preventDefault();
            navigate({ kind: "note", noteId: b.note_id });
          }}
        >
          <Icon name="link" size={14} /> {displayTitle(b.title)}
        </a>
      ))}
    </nav>
  );
}

function TabPane(props: { noteId: string; tab: TabView }) {
  const { tab } = props;
  // A large tab the Note was opened without is read after the shown one: no editor until its
  // data is here (an editor on nothing would save nothing over it).
  const here = useApp((s) => tab.id in s.content);
  if (!here) return <TabLoading noteId={props.noteId} tab={tab} />;
  const editor = (() => {
    switch (tab.type) {
      case "markdown":
        return <MarkdownEditor key={tab.id} tab={tab} />;
      case "sheet":
        return <SheetEditor key={tab.id} tab={tab} />;
      case "slides":
        return <SlidesEditor key={tab.id} tab={tab} />;
      case "sources":
        return <SourcesEditor key={tab.id} tab={tab} />;
      case "files":
        return <FilesEditor key={tab.id} tab={tab} />;
    }
  })();
  return (
    <div class="tab-pane" role="tabpanel" aria-label={tab.label} data-tab-id={tab.id}>
      <TabBanner tab={tab} />
      {editor}
    </div>
  );
}

function TabLoading(props: { noteId: string; tab: TabView }) {
  useEffect(() => {
    void loadDeferred(props.noteId);
  }, [props.noteId, props.tab.id]);
  const rows = props.tab.deferred?.sheets.reduce((n, s) => n + s.rows, 0) ?? 0;
  return (
    <div class="tab-pane" role="tabpanel" aria-label={props.tab.label} data-tab-id={props.tab.id} aria-busy="true">
      <div class="tab-loading" data-testid={TID.tabLoading} role="status">
        <p class="muted">Loading {rows > 0 ? `${rows.toLocaleString("en")} rows` : "this tab"}…</p>
        <div class="skeleton skeleton-body" />
      </div>
    </div>
  );
}

export function TabGone(props: { noteId: string; tabId: string; tabs: TabView[] }) {
  const unsaved = edits.unsentContent(props.noteId, props.tabId);
  return (
    <div class="tab-gone" data-testid={TID.tabGone} data-tab-id={props.tabId} role="alert">
      <div class="tab-gone-card">
        <Icon name="warning" size={22} />
        <h2>This tab no longer exists</h2>
        <p>
          There is no tab <code>{props.tabId}</code> in this Note. It may have been deleted; the Versions panel can
          bring it back. These are the Note's tabs:
        </p>
        <ul class="tab-gone-list">
          {props.tabs.map((t) => (
            <li key={t.id}>
              <a href={tabLink(props.noteId, t.id)} data-testid={TID.tabGoneLink} data-tab-id={t.id}>
                <Icon name={tabIcon(t.type as TabType)} />
                <span>{t.label}</span>
                <span class="muted">
                  {typeName(t.type as TabType)} · {t.id}
                </span>
              </a>
            </li>
          ))}
        </ul>
        {unsaved !== undefined && (
          <div class="salvage">
            <p>
              <strong>Your last text in this tab was not saved before it disappeared.</strong> It is here so you can copy
              it:
            </p>
            <pre class="mine-copy">{typeof unsaved === "string" ? unsaved : JSON.stringify(unsaved, null, 2)}</pre>
          </div>
        )}
      </div>
    </div>
  );
}

function OrphanDrafts(props: { tabs: TabView[] }) {
  return (
    <div class="banner banner-warn" role="status">
      <Icon name="warning" />
      <div>
        <strong>
          {props.tabs.length === 1 ? "A draft of a tab" : `${props.tabs.length} drafts of tabs`} that no longer exist on
          the server {props.tabs.length === 1 ? "is" : "are"} kept.
        </strong>{" "}
        Open the drafts ledger to review {props.tabs.length === 1 ? "it" : "them"}; nothing is thrown away.
      </div>
      <button type="button" class="button" onClick={() => app.set({ panel: "drafts" })}>
        Drafts ledger
      </button>
    </div>
  );
}
