// The app's command API: one typed wrapper per Tauri command, and the engine's event stream.
//
// Every type here is generated from the Rust types (ui/src/bindings/, written by
// `UPDATE_BINDINGS=1 cargo test -p quire-app bindings`): do not edit those files by hand.
//
// Every command rejects with a `CommandError` `{code, message, tabs?}`: switch on `code`, never
// on `message`. Codes the app produces (`lib/errors.ts` reads them):
//   tab_gone              the tab ID is not in the Note (`tabs` lists the ones that are)
//   note_not_open         call openNote first
//   would_discard_drafts  the action would drop unsynced drafts: ask, then pass
//                         policy "archive_them" (applyOps) / confirm true (discardDraft)
//   no_conflict, conflict_moved, choice_unavailable, save_in_flight
//   invalid_content, invalid_merge, invalid_argument
//   version_conflict      a restore was refused because the Note moved on
//   revert_conflict       "Undo this change" clashes with a later change of the same lines,
//                         cells or slides: nothing was written (the message names the tabs)
//   note_in_trash         the Note is in the trash: restore it (undeleteNote) to write to it
//   note_not_in_trash     an undelete of a Note that is not in the trash
//   offline               the server cannot be reached
//   remote_mode           agent tokens are made on the remote server itself; export and
//                         import work on the embedded server only
//   not_found, unauthorized, forbidden, agent_token, invalid_op, tab_not_found, ... (the
//                         server's codes; agent_token: an agent's token on the person's API)
//   local_store, io, internal, stopped, timeout

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { ComputedSheet } from "./lib/formulas";

import type {
  AgentAccess,
  Backlink,
  AgentInfo,
  AgentToken,
  AgentTokenInfo,
  AppInfo,
  ArchivedDraft,
  AttachedFile,
  ClashChoice,
  ConflictChoice,
  ConflictView,
  DraftPolicy,
  EngineEvent,
  FilesDropped,
  FirstPaint,
  LedgerEntry,
  MergePreview,
  Note,
  NoteStatus,
  NoteSummary,
  NoteView,
  Op,
  Scope,
  SearchHit,
  Settings,
  SheetRows,
  TextPart,
  TabStatus,
  Taken,
  TextChange,
  TabView,
  TransferProgress,
  TransferSummary,
  TrashedNote,
  VersionInfo,
  WriteOutcome,
  WriteResult,
} from "./bindings";

export type * from "./bindings";

// ---- app and settings ------------------------------------------------------------------

/** The app's name, version and where its log files are. */
export const appInfo = (): Promise<AppInfo> => invoke("app_info");

/**
 * Opens the folder of the app's log files in the system's file manager. Rejects with
 * `not_found` when nothing was logged yet (no folder), `io` when no file manager could start.
 */
export const openLogsFolder = (): Promise<void> => invoke("open_logs_folder");

/** Called once by the UI after its first frame (for the start-up benchmark). */
/** Spell-check on for the window (the first Markdown editor asks; later calls do nothing). */
export const enableSpelling = (): Promise<void> => invoke("enable_spelling");

export const reportFirstPaint = (
  navigationStartedAtUnixMs: number,
  mountedAtUnixMs: number,
  paintedAtUnixMs: number,
): Promise<FirstPaint> => invoke("report_first_paint", { navigationStartedAtUnixMs, mountedAtUnixMs, paintedAtUnixMs });

/** Which server the app talks to (embedded or remote) and who the person is. */
export const getSettings = (): Promise<Settings> => invoke("get_settings");

/**
 * Points the app at a remote server. Omitted `url` / `token` keep the remote ones saved before
 * (the first time both are required). Persisted; the engine reconnects: open Notes must be
 * opened again (the app emits no note events for the old connection afterwards).
 */
export const setRemoteServer = (url?: string, token?: string): Promise<Settings> =>
  invoke("set_remote_server", { url: url ?? null, token: token ?? null });

/**
 * Asks the server the app talks to who it is: the settings with a fresh `server_check` (its
 * certificate over HTTPS, or why it could not be reached or refused the token).
 */
export const checkServer = (): Promise<Settings> => invoke("check_server");

/** Back to the embedded server (started if needed). Persisted; the engine reconnects. */
export const useEmbeddedServer = (): Promise<Settings> => invoke("use_embedded_server");

// ---- connect an agent ------------------------------------------------------------------

/** The MCP URL, config snippets (with a `<TOKEN>` placeholder) and the Notes agents may see. */
export const agentInfo = (): Promise<AgentInfo> => invoke("agent_info");

/**
 * Makes an agent token in the embedded server (`name` is the author shown in history, e.g.
 * "claude"; scopes `["notes:read", "notes:write"]` or `["notes:read"]`). The token is shown
 * once, inside ready-to-paste snippets. In remote mode rejects with `remote_mode`.
 */
export const createAgentToken = (name: string, scopes: Scope[]): Promise<AgentToken> =>
  invoke("create_agent_token", { name, scopes });

/**
 * Revokes the embedded server's agent tokens named `name` (never the person's own token): the
 * server refuses them from the next request on. Resolves with the agent tokens after it;
 * rejects with `not_found` for a name no agent token has, `remote_mode` with a remote server.
 */
export const revokeAgentToken = (name: string): Promise<AgentTokenInfo[]> => invoke("revoke_agent_token", { name });

/**
 * Approves (or withdraws) a Note for agents: only approved Notes are visible over MCP. Resolves
 * to the Note's access with its record (who approved or withdrew it, when).
 */
export const setAgentAccess = (noteId: string, approved: boolean): Promise<AgentAccess> =>
  invoke("set_agent_access", { noteId, approved });

/** Whether agents may see the Note, and every approval and withdrawal, oldest first. */
export const agentAccess = (noteId: string): Promise<AgentAccess> => invoke("agent_access", { noteId });

// ---- notes -----------------------------------------------------------------------------

/** Every Note (no contents), with `updated_at` and `agent_access`. */
export const listNotes = (): Promise<NoteSummary[]> => invoke("list_notes");

/** Full-text search on the server: the `limit` (1 to 100) best matching tabs, best first. */
export const searchNotes = (q: string, limit: number): Promise<SearchHit[]> => invoke("search_notes", { q, limit });

/** Creates a Note (tabs markdown, files, sources) and opens it. */
export const createNote = (title: string): Promise<NoteView> => invoke("create_note", { title });

/** Renames a Note (a guarded `set_title` write). */
export const renameNote = (noteId: string, title: string): Promise<WriteOutcome> =>
  invoke("rename_note", { noteId, title });

/**
 * Starts syncing a Note and returns what the person sees (drafts included). With `showing`
 * (the tab about to be shown, and any known to have changed), a large tab other than those
 * comes `deferred`, without its data: read it with `tabView`, a sheet's rows with `sheetRows`.
 */
export const openNote = (noteId: string, showing?: string[]): Promise<NoteView> =>
  invoke("open_note", showing ? { noteId, showing } : { noteId });

/** Stops syncing a Note; its drafts stay (see `drafts`). */
export const closeNote = (noteId: string): Promise<void> => invoke("close_note", { noteId });

/** The Note's sync status (also pushed as `engine-event` `{kind: "status"}`). */
export const noteStatus = (noteId: string): Promise<NoteStatus> => invoke("note_status", { noteId });

/** One tab by its instance ID. A gone tab rejects with `tab_gone` and the list of `tabs`. */
export const tabView = (noteId: string, tabId: string): Promise<TabView> => invoke("tab_view", { noteId, tabId });

/** Rows `start..start + count` (at most 10,000) of one sheet of a sheet tab, as the person sees it. */
/** Bytes from `start` of a Markdown tab's text, at most `maxBytes` (a deferred text, read in parts). */
export const textPart = (noteId: string, tabId: string, start: number, maxBytes: number): Promise<TextPart> =>
  invoke("text_part", { noteId, tabId, start, maxBytes });

export const sheetRows = (noteId: string, tabId: string, sheetId: string, start: number, count: number): Promise<SheetRows> =>
  invoke("sheet_rows", { noteId, tabId, sheetId, start, count });

/** What each formula of a Sheet tab's content (as the editor holds it) computes to, per sheet. */
export const computeFormulas = (content: unknown): Promise<ComputedSheet[]> => invoke("compute_formulas", { content });

/**
 * The person's edit: the tab's whole new `data` (Markdown: the text as a string; Sheet:
 * `SheetTab`; Slides: `Deck`). Saved after the debounce; returns the tab's status at once.
 *
 * `baseVersion`: the Note version the editor's content was loaded at (the `version` of the
 * NoteView / TabView read the editor started from). Pass it: when another writer changed this
 * tab after that version and the engine already shows their change, the edit becomes a conflict
 * (the draft is kept, the banner shows) instead of silently overwriting their change with text
 * typed on the older content. Without it, the edit applies to whatever the engine holds now.
 */
export const editTab = (
  noteId: string,
  tabId: string,
  content: unknown,
  baseVersion?: number,
): Promise<TabStatus> => invoke("edit_tab", { noteId, tabId, content, baseVersion: baseVersion ?? null });

/**
 * Hands an editor's edit over as `edit_tab` does, and returns a token: the next edit can then be
 * handed over as what changed since this one (`handOverChange`), not as the whole text.
 */
export const handOver = (
  noteId: string,
  tabId: string,
  content: unknown,
  baseVersion?: number,
): Promise<Taken> => invoke("hand_over", { noteId, tabId, content, change: null, baseVersion: baseVersion ?? null });

/**
 * What changed in a Markdown text since the hand-over whose token is `change.after`. Refused
 * (`change_refused`, nothing taken) when that is not the text the engine took last from this
 * editor: hand the whole text over then.
 */
export const handOverChange = (
  noteId: string,
  tabId: string,
  change: TextChange,
  baseVersion?: number,
): Promise<Taken> => invoke("hand_over", { noteId, tabId, content: null, change, baseVersion: baseVersion ?? null });

/** Saves every dirty tab of the Note now, skipping the debounce. */
export const flush = (noteId: string): Promise<NoteStatus> => invoke("flush", { noteId });

/** Tries a failed save again. */
export const retry = (noteId: string, tabId: string): Promise<TabStatus> => invoke("retry", { noteId, tabId });

/** Base, mine, theirs and the proposed merge of a tab in conflict. */
export const conflict = (noteId: string, tabId: string): Promise<ConflictView> =>
  invoke("conflict", { noteId, tabId });

/**
 * What Merge would save for the picks so far, as the engine computes it: one `ClashChoice` per
 * clash, `null` while undecided (an undecided text clash shows both sides, mine first; a Sheet or
 * deck keeps mine). Sends and writes nothing; rejects with `invalid_merge` for a wrong count.
 */
export const previewConflictResolution = (
  noteId: string,
  tabId: string,
  picks: (ClashChoice | null)[],
): Promise<MergePreview> => invoke("preview_conflict_resolution", { noteId, tabId, picks });

/**
 * Resolves a conflict: `{choice: "keep_mine"}`, `{choice: "take_theirs"}`,
 * `{choice: "merge", choices: [...]}` (one `ClashChoice` per clash; `[]` when it merged cleanly)
 * or `{choice: "custom", content}` (the person's hand-merged data).
 */
export const resolveConflict = (noteId: string, tabId: string, choice: ConflictChoice): Promise<TabStatus> =>
  invoke("resolve_conflict", { noteId, tabId, choice });

/**
 * Drops the person's draft of a tab (archived, see `archived`). Without `confirm: true` it
 * rejects with `would_discard_drafts`: ask the person first.
 */
export const discardDraft = (noteId: string, tabId: string, confirm: boolean): Promise<TabStatus> =>
  invoke("discard_draft", { noteId, tabId, confirm });

/**
 * Structural edits, all or nothing: create/rename/move/delete tab, sources, files, title,
 * theme, slide layout. `policy` "refuse" rejects with `would_discard_drafts` when an op would
 * overwrite a draft; "archive_them" (after asking) archives those drafts first. Resolves when
 * committed, or `{status: "queued"}` when offline (kept and retried).
 */
export const applyOps = (noteId: string, ops: Op[], policy: DraftPolicy = "refuse"): Promise<WriteOutcome> =>
  invoke("apply_ops", { noteId, ops, policy });

// ---- versions --------------------------------------------------------------------------

/**
 * The Note's history, oldest first: version, author (token name), `author_kind` (person or
 * agent: what the server recorded), time, summary.
 */
export const history = (noteId: string): Promise<VersionInfo[]> => invoke("history", { noteId });

/** Most versions in one page of the history (the server's limit). */
export const HISTORY_PAGE_MAX = 1000;

/**
 * One page of the history: the newest `limit` (1 to HISTORY_PAGE_MAX) versions before `before`
 * (of all, without it), oldest first. A long history is read a page at a time.
 */
export const historyPage = (noteId: string, limit: number, before?: number): Promise<VersionInfo[]> =>
  invoke("history", { noteId, limit, before: before ?? null });

/** The Note as it was at `version` (read-only). */
export const versionAt = (noteId: string, version: number): Promise<Note> => invoke("version_at", { noteId, version });

/** Restores `version` as a new version (guarded: a stale restore rejects with `version_conflict`). */
export const restore = (noteId: string, version: number): Promise<WriteOutcome> =>
  invoke("restore", { noteId, version });

/**
 * Takes back what `version` changed, as a new version merged into the Note now (guarded; a
 * clash with later writes rejects with `revert_conflict`, naming the tabs, nothing written).
 */
export const revert = (noteId: string, version: number): Promise<WriteOutcome> =>
  invoke("revert", { noteId, version });

// ---- the trash -------------------------------------------------------------------------

/**
 * Moves the Note to the trash (a new version; its waiting saves go out first). It leaves the
 * list, agents no longer see it, and `undeleteNote` brings it back with its history.
 */
export const deleteNote = (noteId: string): Promise<TrashedNote> => invoke("delete_note", { noteId });

/** Brings a Note back out of the trash; drafts the trash refused (`note_in_trash`) go out again. */
export const undeleteNote = (noteId: string): Promise<WriteResult> => invoke("undelete_note", { noteId });

/** The Notes in the trash, most recently trashed first, each with `deleted_at`. */
export const listTrash = (): Promise<NoteSummary[]> => invoke("list_trash");

/** Erases every Note in the trash for good; their IDs. */
export const emptyTrash = (): Promise<string[]> => invoke("empty_trash");

// ---- drafts ----------------------------------------------------------------------------

/** The drafts ledger: every unsynced draft across all Notes, open or not. */
export const drafts = (): Promise<LedgerEntry[]> => invoke("drafts");

/** Drafts discarded for a Note (take theirs, explicit discards), oldest first. */
export const archived = (noteId: string): Promise<ArchivedDraft[]> => invoke("archived", { noteId });

// ---- files and links -------------------------------------------------------------------

// No command takes a path from the page: the app runs the system's dialogs itself, and dropped
// files stay on the app's side (the page names a drop by its number).

/**
 * Asks the person for a file with the system's open dialog and attaches it: its content is kept
 * in the app's data directory, its metadata (name, mime, size, sha256) added to the Note.
 * Resolves to null when the dialog was cancelled.
 */
export const attachFile = (noteId: string): Promise<AttachedFile | null> => invoke("attach_file", { noteId });

/** Attaches the files of a drop announced by `onFilesDropped` (each drop once), in order. */
export const attachDropped = (noteId: string, dropId: number): Promise<AttachedFile[]> =>
  invoke("attach_dropped", { noteId, dropId });

/** Most bytes an image pasted or dropped into the Markdown editor may have (the app's limit). */
export const IMAGE_BYTES = 10 * 1024 * 1024;

/**
 * Attaches an image pasted or dropped into the Markdown editor (PNG, JPEG, GIF or WebP, at most
 * `IMAGE_BYTES`): the bytes go as the raw body, the Note and the name as headers.
 */
export const attachImage = (noteId: string, name: string, bytes: Uint8Array): Promise<AttachedFile> =>
  invoke("attach_image", bytes, {
    headers: { "quire-note-id": encodeURIComponent(noteId), "quire-file-name": encodeURIComponent(name) },
  });

/** The content of an attached image, for the preview. */
export const imageContent = (noteId: string, fileId: string): Promise<ArrayBuffer> =>
  invoke("image_content", { noteId, fileId });

/** The Notes that link to `noteId` (`[title](quire:note/ID)`), by title; trashed ones left out. */
export const noteBacklinks = (noteId: string): Promise<Backlink[]> => invoke("note_backlinks", { noteId });

/** Opens an attachment with the system's default application. */
export const openFile = (noteId: string, fileId: string): Promise<void> => invoke("open_file", { noteId, fileId });

/**
 * Saves a copy of an attachment where the person picks in the system's save dialog. Resolves to
 * the path written, or null when the dialog was cancelled.
 */
export const saveFileCopy = (noteId: string, fileId: string): Promise<string | null> =>
  invoke("save_file_copy", { noteId, fileId });

// ---- export and import ----------------------------------------------------------------

// The folder is picked in the system's folder dialog, which the app runs itself. `job` is any
// number the caller chooses: the `onTransferProgress` events of this call carry it. Each
// resolves to the summary, or null when the dialog was cancelled; in remote mode each rejects
// with `remote_mode` before any dialog.

/** Export Note…: the Note's folder (index.md, a CSV per Sheet, …) under the folder picked. */
export const exportNote = (noteId: string, job: number): Promise<TransferSummary | null> =>
  invoke("export_note", { noteId, job });

/** Export all Notes…: a folder per Note (the Trash's left out) under the folder picked. */
export const exportAllNotes = (job: number): Promise<TransferSummary | null> => invoke("export_all_notes", { job });

/**
 * Import…: the folder picked, a Quire export or a folder of Markdown files (an Obsidian vault;
 * a `.csv` beside a note becomes its Sheet), as new Notes; `skipped` says what was left out, why.
 */
export const importNotes = (job: number): Promise<TransferSummary | null> => invoke("import_notes", { job });

/** Opens an http(s) URL in the system browser (anything else rejects with `invalid_argument`). */
export const openUrl = (url: string): Promise<void> => invoke("open_url", { url });

// ---- events ----------------------------------------------------------------------------

/**
 * Every engine event: `status` (a Note's whole `NoteStatus`), `remote_applied` (another
 * writer's change is now shown in these clean tabs: re-read them with `tabView`),
 * `conflict_shown`, `saved` and `local_store_failed`. Returns the function that stops listening.
 */
export function onEngineEvent(callback: (event: EngineEvent) => void): Promise<UnlistenFn> {
  return listen<EngineEvent>("engine-event", (event) => callback(event.payload));
}

/**
 * The person closed the window. The app keeps it open until `closeWindow` (or a few seconds),
 * so edits held here can be handed over first.
 */
export function onCloseRequested(callback: () => void): Promise<UnlistenFn> {
  return listen("close-requested", () => callback());
}

/** The person dropped files on the window: the drop's number (for `attachDropped`) and names. */
export function onFilesDropped(callback: (dropped: FilesDropped) => void): Promise<UnlistenFn> {
  return listen<FilesDropped>("files-dropped", (event) => callback(event.payload));
}

/** How far an export or import is (throttled; the first and the last always arrive). */
export function onTransferProgress(callback: (progress: TransferProgress) => void): Promise<UnlistenFn> {
  return listen<TransferProgress>("transfer-progress", (event) => callback(event.payload));
}

/** Closes the window now (after `onCloseRequested`'s work); the app quits with its last window. */
export function closeWindow(): Promise<void> {
  return invoke<void>("close_window");
}

// ---- decks and Notes leaving the app -------------------------------------------------------

/** Export PowerPoint…: saves the file's bytes where the person picks; the path, or null. */
export const exportPptx = (fileName: string, bytes: Uint8Array): Promise<string | null> =>
  invoke("export_pptx", { fileName, bytes: Array.from(bytes) });

/**
 * Export PDF…: the webview prints the print view to a PDF where the person picks, on pages of
 * that size and margin (Linux: WebKitGTK's print operation); the path, or null if cancelled.
 */
export const exportPdf = (
  fileName: string,
  page: { widthMm: number; heightMm: number; marginMm: number },
): Promise<string | null> => invoke("export_pdf", { fileName, ...page });

/**
 * Print…: the system's print dialog over the window for the print view, the page offered as
 * in Export PDF (Linux: WebKitGTK's print operation); whether the person printed.
 */
export const printPage = (page: { widthMm: number; heightMm: number; marginMm: number }): Promise<boolean> =>
  invoke("print_page", { ...page });
