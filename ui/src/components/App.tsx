// The window: header, Notes sidebar, the routed main area, an optional side panel (drafts or
// versions), dialogs and toasts; plus the app-wide keyboard shortcuts.

import { useEffect } from "preact/hooks";
import { app, closeDialog, closeWindow, createNote, flushNow, goTab, openDialog, useApp } from "../app-state";
import { SHORTCUTS, keyLabel } from "../app-state/commands";
import { matchesShortcut } from "../lib/commands";
import { cycle } from "../lib/tabs";
import { TID } from "../testids";
import { AboutScreen } from "./AboutScreen";
import { AgentPanel } from "./AgentPanel";
import { CommandPalette } from "./CommandPalette";
import { ConflictDialog } from "./ConflictView";
import { ConfirmDialog, QuickSwitcher, Toasts } from "./Dialogs";
import { SearchDialog } from "./SearchDialog";
import { DraftsLedger } from "./DraftsLedger";
import { Header } from "./Header";
import { Icon } from "./Icon";
import { NoteView } from "./NoteView";
import { NotesList } from "./NotesList";
import { SettingsScreen } from "./SettingsScreen";
import { Presentation } from "./SlidesEditor";
import { TrashView } from "./TrashView";
import { TransferProgressBar, TransferSummaryDialog } from "./TransferViews";
import { VersionDialog, VersionsPanel } from "./VersionsPanel";

function onGlobalKey(e: KeyboardEvent): void {
  const mod = e.ctrlKey || e.metaKey;
  const s = app.get();
  if (mod && !e.altKey && !e.shiftKey && (e.key === "n" || e.key === "N")) {
    e.preventDefault();
    void createNote();
  } else if (matchesShortcut(SHORTCUTS.palette, e)) {
    // Every command, with its shortcut.
    e.preventDefault();
    if (s.dialog?.kind === "palette") closeDialog();
    else openDialog({ kind: "palette" });
  } else if (mod && e.shiftKey && !e.altKey && (e.key === "f" || e.key === "F")) {
    // Search the contents of every Note.
    e.preventDefault();
    if (s.dialog?.kind === "search") closeDialog();
    else openDialog({ kind: "search", q: "" });
  } else if (mod && !e.altKey && (e.key === "k" || e.key === "K" || ((e.key === "p" || e.key === "P") && !e.shiftKey))) {
    e.preventDefault();
    if (s.dialog?.kind === "switcher") closeDialog();
    else openDialog({ kind: "switcher" });
  } else if (mod && !e.altKey && !e.shiftKey && (e.key === "q" || e.key === "Q")) {
    // Quit: held edits are handed over first (as when the window is closed).
    e.preventDefault();
    void closeWindow();
  } else if (mod && !e.altKey && (e.key === "s" || e.key === "S")) {
    e.preventDefault();
    void flushNow();
  } else if (mod && (e.key === "Tab" || e.key === "PageDown" || e.key === "PageUp")) {
    const view = s.open?.view;
    if (!view || s.dialog || s.route.kind !== "tab") return;
    e.preventDefault();
    const back = e.key === "PageUp" || (e.key === "Tab" && e.shiftKey);
    const next = cycle(view.tabs, s.route.tabId, back ? -1 : 1);
    if (next) goTab(view.note_id, next.id);
  } else if (e.key === "Escape" && !s.dialog && !s.confirm && s.panel) {
    const panel = document.querySelector(".side-panel");
    if (panel?.contains(document.activeElement)) {
      e.preventDefault();
      app.set({ panel: null });
    }
  }
}

function Main() {
  const route = useApp((s) => s.route);
  const ready = useApp((s) => s.ready);
  switch (route.kind) {
    case "note":
      return <NoteView noteId={route.noteId} tabId={null} />;
    case "tab":
      return <NoteView noteId={route.noteId} tabId={route.tabId} />;
    case "settings":
      return <SettingsScreen />;
    case "agent":
      return <AgentPanel />;
    case "about":
      return <AboutScreen />;
    case "trash":
      return <TrashView />;
    case "unknown":
      return (
        <div class="empty-state">
          <h2>Nothing here</h2>
          <p>
            The address <code>{route.hash}</code> does not lead anywhere. <a href="#/">Back to the Notes</a>
          </p>
        </div>
      );
    case "home":
      return <Home ready={ready} />;
  }
}

function Home(props: { ready: boolean }) {
  const count = useApp((s) => s.notes.length);
  return (
    <div class="home">
      <div class="home-card">
        <h1>{count === 0 ? "Welcome to Quire" : "Pick a Note"}</h1>
        <p class="muted">
          Write in Markdown, plan in Sheets, present with Slides — alongside an AI agent that edits the same Note without
          ever silently overwriting you.
        </p>
        <div class="home-actions">
          <button type="button" class="button primary" disabled={!props.ready} onClick={() => void createNote()}>
            <Icon name="plus" /> New note <kbd>{keyLabel("newNote")}</kbd>
          </button>
          <button type="button" class="button" onClick={() => openDialog({ kind: "switcher" })}>
            <Icon name="search" /> Find a Note <kbd>{keyLabel("findNote")}</kbd>
          </button>
        </div>
      </div>
    </div>
  );
}

export function App() {
  const ready = useApp((s) => s.ready);
  const onNote = useApp((s) => s.route.kind === "note" || s.route.kind === "tab");
  const chosenPanel = useApp((s) => s.panel);
  // The versions panel belongs to a Note; the drafts ledger is everywhere.
  const panel = chosenPanel === "versions" && !onNote ? null : chosenPanel;
  const dialog = useApp((s) => s.dialog);
  const confirmQuestion = useApp((s) => s.confirm);
  useEffect(() => {
    window.addEventListener("keydown", onGlobalKey, { capture: true });
    return () => window.removeEventListener("keydown", onGlobalKey, { capture: true });
  }, []);
  return (
    <div class={`app${panel ? " has-panel" : ""}`} data-testid={TID.app} data-ready={ready ? "true" : "false"}>
      <Header />
      <NotesList />
      <main class="main" id="main">
        <Main />
      </main>
      {panel === "drafts" && <DraftsLedger />}
      {panel === "versions" && <VersionsPanel />}
      {dialog?.kind === "switcher" && <QuickSwitcher />}
      {dialog?.kind === "palette" && <CommandPalette />}
      {dialog?.kind === "search" && <SearchDialog q={dialog.q} />}
      {dialog?.kind === "conflict" && <ConflictDialog tabId={dialog.tabId} />}
      {dialog?.kind === "present" && <Presentation tabId={dialog.tabId} start={dialog.start} />}
      {dialog?.kind === "version" && <VersionDialog version={dialog.version} mode={dialog.mode} by={dialog.by} />}
      {dialog?.kind === "transfer" && <TransferSummaryDialog summary={dialog.summary} />}
      {confirmQuestion && <ConfirmDialog {...confirmQuestion} />}
      <TransferProgressBar />
      <Toasts />
    </div>
  );
}
