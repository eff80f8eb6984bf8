// The app's state and every action the person can take. Components read the state through
// `useApp` and call these functions; all traffic with the engine goes through `api.ts`.
// `state.ts` holds the state and its invariants; each concern has its module.

export { adopted, contentFor, edits, engineContent, localEdit, marksShown } from "./edits";
export { isDeferred, loadDeferred } from "./deferred";
export { onEngineEvent, newerStatus } from "./events";
export {
  attachDropped,
  attachDroppedImages,
  attachImages,
  chooseAndAttach,
  imageRefusal,
  imageUrl,
  imagesOf,
  openAttachment,
  openLink,
  saveAttachmentCopy,
} from "./files";
export { closeWindow, handOverAll, loadSettings, openLogsFolder, start } from "./lifecycle";
export {
  answerConfirm,
  closeDialog,
  confirm,
  dismissToast,
  openDialog,
  runToastAction,
  toast,
  toastError,
} from "./messages";
export { createNote, refreshLedger, refreshNotes, refreshView, renameNote, setAgentAccess } from "./notes";
export { goTab, navigate, openSearchResult, tabLink, takeReveal } from "./routing";
export { deleteNote, emptyTrash, refreshTrash, restoreNote } from "./trash";
export { runTransfer } from "./transfer";
export { LEAVE_ACTIONS, type LeaveAction, runLeaveAction } from "./leave";
export { restoreTab } from "./restore-tab";
export type { AppState, Confirm, Dialog, OpenNote, RemoteEdit, TabContent, Toast, Transfer, VersionMode } from "./state";
export { app, useApp } from "./state";
export type { RestoreResult } from "./writes";
export {
  addTab,
  deleteTab,
  discardDraft,
  flushNow,
  moveTab,
  renameTab,
  resolveConflict,
  restoreVersion,
  retrySave,
  undoVersion,
  write,
} from "./writes";
