// Stable `data-testid` values for the end-to-end tests (tests/e2e drives the real app through
// WebDriver). The markup uses these constants and nothing else; renaming one breaks the e2e tests.
//
// Tabs are found by ID, never by label or position: every tab-related element also carries
// `data-tab-id` (and the strip items `data-tab-type`). Other attributes noted below.
//
// For WebDriver (WebKitWebDriver): text is never inside `overflow: hidden` (its Get Element Text
// returns "" there), and a typed "\n" acts as Enter (it arrives as a bare keydown).
//
//   app                        the whole app (data-ready="true" once the first list has loaded)
//   sync-status                the always-visible status: "Saved (version N)", "Saving…",
//                              "Offline (drafts kept)", "Conflict" (data-state: saved|saving|
//                              offline|conflict|failed|idle)
//   error-toast                the last error shown to the person (data-code: the command's code)
//
//   new-note                   the "New note" button (Ctrl+N): the new Note opens and its name is
//                              asked for in the list (notes-item-rename, focused; Enter keeps it)
//   notes-search               the search-by-title field
//   notes-list                 the list; notes-item per Note (data-note-id, data-active)
//   notes-item-rename          a Note's rename input in the list (F2 or double-click)
//   note-title                 the open Note's title (click to rename) / note-title-input
//
//   tab-strip                  the strip; tab per tab (data-tab-id, data-tab-type, data-active,
//                              data-mark: ""|dirty|saving|conflict|offline|failed)
//   tab-add / tab-add-menu / tab-add-sheet / tab-add-slides   (the new tab opens, its label in
//                              tab-rename-input; Enter, Esc or a click elsewhere keeps it)
//   tab-rename-input           the inline rename field (Enter saves, Esc cancels)
//   tab-menu                   the ACTIVE tab's "⋯" button (only that tab has one); tab-menu-rename,
//                              tab-menu-delete,
//                              tab-menu-move-left, tab-menu-move-right
//   tab-gone                   "This tab no longer exists" (data-tab-id: the unknown ID);
//                              tab-gone-link per existing tab (data-tab-id)
//   remote-edit                "Edited by <author> · <time>" on a tab another writer changed
//                              (data-author, data-tab-id)
//   remote-change              a Markdown line another writer's change brought, marked until the
//                              person has seen it (data-author)
//
//   editor-markdown            the CodeMirror host (data-tab-id); its .cm-content is editable
//   markdown-preview-toggle / markdown-preview
//   editor-sheet               the grid host (data-tab-id, data-sheet-id); sheet-cell per drawn
//                              cell (data-row, data-col, zero-based; rows and columns out of view
//                              are not drawn); the cursor cell has the focus: typing edits it,
//                              Enter commits and moves down; sheet-cell-input while editing;
//                              sheet-add-row, sheet-add-column, sheet-switch (data-sheet-id),
//                              sheet-add, sheet-name-input; Ctrl+F: sheet-find-bar with
//                              sheet-find-input, sheet-find-count ("3 of 12"), sheet-find-case,
//                              sheet-replace-input, sheet-replace, sheet-replace-all; found
//                              cells have the classes is-found (is-found-current)
//   editor-slides              (data-tab-id); slide-item (data-slide-id), slide-add,
//                              slide-title, slide-body, slide-notes, slide-layout (select),
//                              slide-theme (select), slide-move-up, slide-move-down,
//                              slide-delete, slides-present, presentation (fullscreen preview),
//                              deck-menu (its items: leave-deck-print, leave-deck-export-pdf,
//                              leave-deck-export-pptx; the Note menu's: leave-note-print,
//                              leave-note-export-pdf), print-view (data-kind: deck or note)
//   editor-sources             source-url, source-title, source-add, source-message (e.g.
//                              "This source is already attached"), source-item (data-source-id),
//                              source-open, source-remove
//   editor-files               file-attach, file-drop, file-item (data-file-id), file-open,
//                              file-save, file-remove
//
//   conflict-banner            on a tab in conflict (data-tab-id); conflict-review,
//                              conflict-keep-mine, conflict-take-theirs
//   conflict-view              the review (base / mine / theirs); conflict-clash per clash
//                              (data-index), conflict-pick (data-pick on each choice button),
//                              conflict-merge, conflict-view-keep-mine,
//                              conflict-view-take-theirs, conflict-close, conflict-message
//
//   drafts-toggle              opens the drafts ledger (shows the count)
//   drafts-ledger              the panel; drafts-item per draft (data-note-id, data-tab-id,
//                              data-state); drafts-empty
//   versions-toggle            opens the versions panel
//   versions-panel             the panel; versions-row per version (data-version,
//                              data-author-kind: person|agent; the newest 100, then versions-older
//                              loads the 100 before); version-open, version-change (what it changed), version-diff,
//                              version-restore, version-message (a refused restore explained),
//                              version-view (the read-only Note at a version), version-close,
//                              version-undo ("Undo this change", each row but version 1),
//                              undo-agent-last (top of the panel, when the newest version is
//                              an agent's), undo-preview (the dialog: what will be taken back,
//                              data-version), undo-confirm, undo-cancel
//
//   app-menu                   the app's menu (header, right); app-menu-about, app-menu-logs
//   about                      the About page; about-version ("Quire 0.1.0"), about-log-dir,
//                              about-open-logs ("Open logs folder")
//   settings-open / settings   the settings screen; settings-mode-embedded,
//                              settings-mode-remote (radios), settings-url, settings-token,
//                              settings-save, settings-message; settings-theme-system,
//                              settings-theme-light, settings-theme-dark (radios); settings-spellcheck (checkbox)
//   settings-server-check      whom the app reached (data-status: unchecked | reached | failed,
//                              data-code: the failure's code); settings-certificate (subject,
//                              issuer) when over verified HTTPS
//   agent-open / agent-panel   "Connect an agent"; agent-mcp-url, agent-token-name,
//                              agent-token-readonly (checkbox), agent-token-create,
//                              agent-token (the new token), agent-config (data-client per
//                              snippet), agent-copy (data-client), agent-approval per Note
//                              (checkbox, data-note-id), agent-approval-record per Note (who
//                              approved or withdrew it, when; data-note-id, data-approved)
//   agent-tokens               the agent tokens: agent-token-row per token (data-name,
//                              data-state: active | expired | revoked), agent-token-revoke
//                              (data-name) on each active one
//
//   quick-switcher / quick-switcher-input / quick-switcher-item (data-note-id)   Ctrl+K, Ctrl+P
//   quick-switcher-search      the switcher's "Search contents for …" choice
//   diff-mark                  in the diff of one version (versions panel: What changed, Undo this
//                              change): a line, cell or slide it brought, marked as the editors
//                              mark another writer's change (data-author)
//   command-palette / command-palette-input / command-palette-item (data-command: the command's
//                              ID; aria-disabled when it cannot run now) / command-palette-shortcut
//                              Ctrl+Shift+P (⇧⌘P on macOS): every action with its shortcut; its
//                              list (#palette-list) carries data-query, the query it was ranked for
//   search-dialog / search-input / search-result (data-note-id, data-tab-id; matched words in
//                              <mark>)   Ctrl+Shift+F: content search; a result opens its tab
//                              with the match selected
//   confirm-dialog / confirm-ok / confirm-cancel
//   toast-action               the button on a toast (Undo after Delete Note)
//
//   note-delete                the open Note's "Delete Note" button (asks first)
//   trash-open                 the sidebar's "Trash" link (#/trash)
//   trash                      the Trash view; trash-item per trashed Note (data-note-id),
//                              trash-restore on each (data-note-id), trash-empty ("Empty
//                              trash", asks first), trash-none (the Trash is empty)
//   trash-banner               on a tab whose draft the trash refused: trash-banner-restore
//   version-restore-tab        in the versions panel, per tab a version deleted (data-tab-id):
//                              brings it back as a new tab with that content
//
//   note-menu                  the open Note's "⋯" menu; note-menu-export (Export Note…)
//   app-menu-export-all        the app menu's Export all Notes…; app-menu-import (Import…)
//                              (all three run the app's folder dialog; off in remote mode)
//   transfer-progress          while an export or import runs (data-action: export-note |
//                              export-all | import, data-done, data-total)
//   transfer-summary           when it is done (its content: data-kind export|import,
//                              data-count: Notes, data-skipped); transfer-summary-text (the
//                              headline), transfer-summary-note per Note (data-note-id; an
//                              imported one opens it), transfer-summary-skipped per entry left
//                              out ("path: why"), transfer-summary-close

export const TID = {
  app: "app",
  syncStatus: "sync-status",
  errorToast: "error-toast",

  newNote: "new-note",
  notesSearch: "notes-search",
  notesList: "notes-list",
  notesItem: "notes-item",
  notesItemRename: "notes-item-rename",
  /** A Note an agent changed since the person last opened it (data-author: the agent). */
  notesItemAgentChanged: "notes-item-agent-changed",
  noteTitle: "note-title",
  noteTitleInput: "note-title-input",
  /** "Linked from": the Notes that link to the open one (shown when there are any). */
  backlinks: "backlinks",
  /** One of them (data-note-id). */
  backlinkItem: "backlink-item",

  tabStrip: "tab-strip",
  tab: "tab",
  tabAdd: "tab-add",
  tabAddMenu: "tab-add-menu",
  tabAddSheet: "tab-add-sheet",
  tabAddSlides: "tab-add-slides",
  tabRenameInput: "tab-rename-input",
  tabMenu: "tab-menu",
  tabMenuRename: "tab-menu-rename",
  tabMenuDelete: "tab-menu-delete",
  tabMenuMoveLeft: "tab-menu-move-left",
  tabMenuMoveRight: "tab-menu-move-right",
  tabGone: "tab-gone",
  tabLoading: "tab-loading",
  tabGoneLink: "tab-gone-link",
  remoteEdit: "remote-edit",
  remoteChange: "remote-change",

  editorMarkdown: "editor-markdown",
  markdownPreviewToggle: "markdown-preview-toggle",
  markdownPreview: "markdown-preview",

  editorSheet: "editor-sheet",
  sheetCell: "sheet-cell",
  sheetCellInput: "sheet-cell-input",
  sheetAddRow: "sheet-add-row",
  sheetAddColumn: "sheet-add-column",
  sheetSwitch: "sheet-switch",
  sheetAdd: "sheet-add",
  sheetNameInput: "sheet-name-input",
  sheetFindBar: "sheet-find-bar",
  sheetFindInput: "sheet-find-input",
  sheetFindCount: "sheet-find-count",
  sheetFindWhere: "sheet-find-where",
  sheetFindCase: "sheet-find-case",
  sheetReplaceInput: "sheet-replace-input",
  sheetReplace: "sheet-replace",
  sheetReplaceAll: "sheet-replace-all",

  editorSlides: "editor-slides",
  slideItem: "slide-item",
  slideAdd: "slide-add",
  slideTitle: "slide-title",
  slideBody: "slide-body",
  slideNotes: "slide-notes",
  slideLayout: "slide-layout",
  slideTheme: "slide-theme",
  slideMoveUp: "slide-move-up",
  slideMoveDown: "slide-move-down",
  slideDelete: "slide-delete",
  slidesPresent: "slides-present",
  presentation: "presentation",

  editorSources: "editor-sources",
  sourceUrl: "source-url",
  sourceTitle: "source-title",
  sourceAdd: "source-add",
  sourceMessage: "source-message",
  sourceItem: "source-item",
  sourceOpen: "source-open",
  sourceRemove: "source-remove",

  editorFiles: "editor-files",
  fileAttach: "file-attach",
  fileDrop: "file-drop",
  fileItem: "file-item",
  fileOpen: "file-open",
  fileSave: "file-save",
  fileRemove: "file-remove",

  conflictBanner: "conflict-banner",
  conflictReview: "conflict-review",
  conflictKeepMine: "conflict-keep-mine",
  conflictTakeTheirs: "conflict-take-theirs",
  conflictView: "conflict-view",
  conflictClash: "conflict-clash",
  conflictPick: "conflict-pick",
  conflictMerge: "conflict-merge",
  conflictViewKeepMine: "conflict-view-keep-mine",
  conflictViewTakeTheirs: "conflict-view-take-theirs",
  conflictClose: "conflict-close",
  conflictMessage: "conflict-message",

  draftsToggle: "drafts-toggle",
  draftsLedger: "drafts-ledger",
  draftsItem: "drafts-item",
  draftsEmpty: "drafts-empty",

  versionsToggle: "versions-toggle",
  versionsPanel: "versions-panel",
  versionsRow: "versions-row",
  versionOpen: "version-open",
  versionDiff: "version-diff",
  versionChange: "version-change",
  versionsOlder: "versions-older",
  versionRestore: "version-restore",
  versionMessage: "version-message",
  versionUndo: "version-undo",
  undoAgentLast: "undo-agent-last",
  undoPreview: "undo-preview",
  undoConfirm: "undo-confirm",
  undoCancel: "undo-cancel",
  versionView: "version-view",
  versionClose: "version-close",

  appMenu: "app-menu",
  appMenuAbout: "app-menu-about",
  appMenuLogs: "app-menu-logs",
  about: "about",
  aboutVersion: "about-version",
  aboutLogDir: "about-log-dir",
  aboutOpenLogs: "about-open-logs",

  settingsOpen: "settings-open",
  settings: "settings",
  settingsModeEmbedded: "settings-mode-embedded",
  settingsThemeSystem: "settings-theme-system",
  settingsThemeLight: "settings-theme-light",
  settingsThemeDark: "settings-theme-dark",
  settingsSpellcheck: "settings-spellcheck",
  settingsModeRemote: "settings-mode-remote",
  settingsUrl: "settings-url",
  settingsToken: "settings-token",
  settingsSave: "settings-save",
  settingsMessage: "settings-message",
  settingsServerCheck: "settings-server-check",
  settingsCertificate: "settings-certificate",

  agentOpen: "agent-open",
  agentPanel: "agent-panel",
  agentMcpUrl: "agent-mcp-url",
  agentTokenName: "agent-token-name",
  agentTokenReadonly: "agent-token-readonly",
  agentTokenCreate: "agent-token-create",
  agentToken: "agent-token",
  agentConfig: "agent-config",
  agentCopy: "agent-copy",
  agentApproval: "agent-approval",
  agentApprovalRecord: "agent-approval-record",
  agentTokens: "agent-tokens",
  agentTokenRow: "agent-token-row",
  agentTokenRevoke: "agent-token-revoke",

  toastAction: "toast-action",
  noteDelete: "note-delete",
  trashOpen: "trash-open",
  trash: "trash",
  trashItem: "trash-item",
  trashRestore: "trash-restore",
  trashEmpty: "trash-empty",
  trashNone: "trash-none",
  trashBanner: "trash-banner",
  trashBannerRestore: "trash-banner-restore",
  versionRestoreTab: "version-restore-tab",

  noteMenu: "note-menu",
  noteMenuExport: "note-menu-export",
  deckMenu: "deck-menu",
  printView: "print-view",
  appMenuExportAll: "app-menu-export-all",
  appMenuImport: "app-menu-import",
  transferProgress: "transfer-progress",
  transferSummary: "transfer-summary",
  transferSummaryText: "transfer-summary-text",
  transferSummaryNote: "transfer-summary-note",
  transferSummarySkipped: "transfer-summary-skipped",
  transferSummaryClose: "transfer-summary-close",

  quickSwitcher: "quick-switcher",
  quickSwitcherInput: "quick-switcher-input",
  quickSwitcherItem: "quick-switcher-item",
  quickSwitcherSearch: "quick-switcher-search",
  diffMark: "diff-mark",
  commandPalette: "command-palette",
  commandPaletteInput: "command-palette-input",
  commandPaletteItem: "command-palette-item",
  commandPaletteShortcut: "command-palette-shortcut",
  searchDialog: "search-dialog",
  searchInput: "search-input",
  searchResult: "search-result",

  confirmDialog: "confirm-dialog",
  confirmOk: "confirm-ok",
  confirmCancel: "confirm-cancel",
} as const;

export type TestId = (typeof TID)[keyof typeof TID];
