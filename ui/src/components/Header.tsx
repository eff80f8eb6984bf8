// The bar across the top: the quick switcher, the sync status that is always on screen, the
// buttons for the drafts ledger, versions, agent connection and settings, and the app's menu
// (Export all Notes…, Import…, About Quire, Open logs folder).

import { app, flushNow, navigate, openDialog, openLogsFolder, runTransfer, useApp } from "../app-state";
import { REMOTE_HINT } from "../lib/transfer";
import { summarize } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { MenuButton } from "./Menu";
import { keyLabel } from "../app-state/commands";

export function SyncStatus() {
  const status = useApp((s) => s.status);
  const unsent = useApp((s) => s.unsent);
  const version = useApp((s) => s.open?.view?.version ?? null);
  const hasNote = useApp((s) => s.open !== null);
  const ledgerCount = useApp((s) => s.ledger.length);
  const summary = summarize({
    status: hasNote ? status ?? { guard: null, offline: false, tabs: [], queued_writes: 0 } : null,
    version,
    unsentTabs: unsent,
    ledgerCount,
  });
  return (
    <div
      id="sync-status"
      class={`sync-status sync-${summary.state}`}
      data-testid={TID.syncStatus}
      data-state={summary.state}
      role="status"
      aria-live="polite"
    >
      <button
        type="button"
        title={`${summary.detail}\n${keyLabel("saveNow")} saves now.`}
        onClick={() => {
          if (summary.state === "conflict" || summary.state === "offline" || summary.state === "failed") {
            app.set({ panel: "drafts" });
          } else {
            void flushNow();
          }
        }}
      >
        <span class="sync-dot" aria-hidden="true" />
        <span class="sync-text">{summary.text}</span>
      </button>
    </div>
  );
}

export function Header() {
  const appInfo = useApp((s) => s.appInfo);
  const panel = useApp((s) => s.panel);
  const ledgerCount = useApp((s) => s.ledger.length);
  const route = useApp((s) => s.route);
  const hasNote = useApp((s) => s.open?.view != null) && (route.kind === "note" || route.kind === "tab");
  const toggle = (p: "drafts" | "versions") => app.set({ panel: panel === p ? null : p });
  const remote = useApp((s) => s.settings?.mode === "remote");
  const busy = useApp((s) => s.transfer !== null);
  return (
    <header class="app-header">
      <a class="brand" href="#/" aria-label="Quire home">
        <span class="brand-mark" aria-hidden="true">Q</span>
        <span class="brand-name app-title">Quire</span>
      </a>
      <span id="app-version" class="app-version" title={appInfo ? `${appInfo.name} ${appInfo.version}` : undefined}>
        {appInfo ? `v${appInfo.version}` : ""}
      </span>
      <button
        type="button"
        class="switcher-trigger"
        onClick={() => openDialog({ kind: "switcher" })}
        aria-keyshortcuts="Control+K"
        title={`Find a Note (${keyLabel("findNote")})`}
      >
        <Icon name="search" />
        <span>Find a Note…</span>
        <kbd>{keyLabel("findNote")}</kbd>
      </button>
      <div class="header-spacer" />
      <SyncStatus />
      <button
        type="button"
        class={`header-button${panel === "drafts" ? " is-on" : ""}`}
        data-testid={TID.draftsToggle}
        aria-pressed={panel === "drafts"}
        onClick={() => toggle("drafts")}
        title="Unsynced drafts across all Notes"
      >
        <Icon name="drafts" />
        <span>Drafts</span>
        {ledgerCount > 0 && <span class="count-badge">{ledgerCount}</span>}
      </button>
      <button
        type="button"
        class={`header-button${panel === "versions" && hasNote ? " is-on" : ""}`}
        data-testid={TID.versionsToggle}
        aria-pressed={panel === "versions" && hasNote}
        disabled={!hasNote}
        onClick={() => toggle("versions")}
        title="The open Note's history"
      >
        <Icon name="history" />
        <span>Versions</span>
      </button>
      <button
        type="button"
        class={`header-button${route.kind === "agent" ? " is-on" : ""}`}
        data-testid={TID.agentOpen}
        onClick={() => navigate({ kind: "agent" })}
        title="Connect an agent"
      >
        <Icon name="agent" />
        <span>Agent</span>
      </button>
      <button
        type="button"
        class={`header-button icon-only${route.kind === "settings" ? " is-on" : ""}`}
        data-testid={TID.settingsOpen}
        onClick={() => navigate({ kind: "settings" })}
        title="Settings"
        aria-label="Settings"
      >
        <Icon name="settings" />
      </button>
      <MenuButton
        label="Quire menu"
        testId={TID.appMenu}
        className="app-menu"
        align="right"
        items={[
          {
            label: "Export all Notes…",
            testId: TID.appMenuExportAll,
            onSelect: () => void runTransfer("export-all"),
            disabled: remote || busy,
            hint: remote ? REMOTE_HINT : undefined,
          },
          {
            label: "Import…",
            testId: TID.appMenuImport,
            onSelect: () => void runTransfer("import"),
            disabled: remote || busy,
            hint: remote ? REMOTE_HINT : undefined,
          },
          { label: "About Quire", testId: TID.appMenuAbout, onSelect: () => navigate({ kind: "about" }) },
          { label: "Open logs folder", testId: TID.appMenuLogs, onSelect: () => void openLogsFolder() },
        ]}
      >
        <Icon name="more" />
      </MenuButton>
    </header>
  );
}
