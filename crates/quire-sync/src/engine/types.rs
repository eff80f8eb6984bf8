//! What the engine's API takes and gives: its configuration, views and statuses of a Note, the
//! person's choices, events for subscribers, errors as `{code, message}`.

use std::path::PathBuf;

use quire_api::WriteResult;
use quire_model::{NoteId, TabId, TabKind, Version};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

use crate::client::ClientError;
use crate::content::{Content, ContentError};
use crate::local::LocalError;
use crate::machine::{self, NoteSync, Stats, SyncError, TabState};
use crate::merge::{ClashChoice, MergeError, TabMerge};

/// How to start an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub server: Url,
    pub token: String,
    /// The local store's file (in the app's data directory).
    pub db_path: PathBuf,
    pub timing: machine::Config,
    /// The HTTP client to use (default: a fresh one).
    pub http: Option<reqwest::Client>,
    /// Prefix of the idempotency keys this engine mints; must differ per start (see
    /// [`EngineConfig::fresh_key_prefix`]).
    pub key_prefix: String,
}

impl EngineConfig {
    /// A prefix unique to this start: a UUIDv7.
    pub fn fresh_key_prefix() -> String {
        format!("app-{}", uuid::Uuid::now_v7().simple())
    }
}

/// What the person chooses for a conflict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum ConflictChoice {
    /// Write mine as a new version (theirs stays in history).
    KeepMine,
    /// Drop mine (archived, never deleted) and show theirs.
    TakeTheirs,
    /// The three-way merge with one choice per clash (none when it merged cleanly).
    Merge { choices: Vec<ClashChoice> },
    /// The person's own merged content (edited by hand).
    Custom { content: Value },
}

/// What to do with drafts an action would discard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DraftPolicy {
    /// Refuse with [`EngineError::WouldDiscardDrafts`] (the default the UI starts with).
    Refuse,
    /// The person confirmed: archive those drafts, then go ahead.
    ArchiveThem,
}

/// A tab as the strip lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TabSummary {
    pub id: TabId,
    #[serde(rename = "type")]
    pub kind: TabKind,
    pub label: String,
}

/// An editor's edit of a tab, as [`super::Engine::hand_over`] takes it.
#[derive(Debug, Clone, PartialEq)]
pub enum HandOver {
    /// The tab's whole content, in its wire shape.
    Whole(serde_json::Value),
    /// What changed in a Markdown text since the text the editor handed over last.
    Change(TextChange),
}

/// One change of a text, counted as the web view counts (UTF-16 code units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TextChange {
    /// The token of the hand-over whose text this change is made on.
    pub after: u64,
    pub at: usize,
    pub removed: usize,
    pub insert: String,
}

/// An edit taken: the tab's status, and the token a change made on this edit's text names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Taken {
    pub status: TabStatus,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub token: u64,
}

/// The sync status of one tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TabStatus {
    pub tab_id: TabId,
    pub state: TabState,
    pub last_error: Option<SyncError>,
    /// The version the draft is based on (the merge ancestor), when there is a draft.
    pub base_version: Option<Version>,
    /// The server's version in a conflict.
    pub theirs_version: Option<Version>,
    /// The tab no longer exists on the server (only "take theirs" applies).
    pub gone: bool,
    /// Another writer's change was merged into the person's edits of this tab and the editor
    /// has not shown it yet: read the tab again and show it.
    pub unseen: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoteStatus {
    pub note_id: NoteId,
    /// When this status was taken: a later one has a larger number (one count for the whole
    /// process). A status reaches the UI by two paths, events and command replies, in no fixed
    /// order; the reader keeps the one with the largest `seq`.
    pub seq: u64,
    /// The save guard: the last version this app is connected to.
    pub guard: Option<Version>,
    pub offline: bool,
    pub settled: bool,
    pub tabs: Vec<TabStatus>,
    pub queued_writes: usize,
    pub stats: Stats,
}

/// The TypeScript shape of [`TabView`] (exported under that name): `data` follows `type`.
#[cfg(feature = "ts")]
#[derive(ts_rs::TS)]
#[ts(rename = "TabView")]
pub struct TabViewShape {
    pub id: TabId,
    pub label: String,
    #[ts(flatten)]
    pub data: quire_model::ts::TabDataShape,
    pub status: TabStatus,
    /// Set when the view left this tab's data out (`data` is then null): see [`TabView`].
    #[ts(optional)]
    pub deferred: Option<TabOutline>,
}

/// A tab with what the person sees in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabView {
    pub id: TabId,
    #[serde(rename = "type")]
    pub kind: TabKind,
    pub label: String,
    /// The person's draft if there is one, else the server's content; null when `deferred`.
    pub data: Value,
    pub status: TabStatus,
    /// The view left this tab's data out: it is larger than [`DEFER_OVER_BYTES`] and either a
    /// Markdown text (always, shown or not) or not the tab asked for
    /// ([`super::Engine::open_note_showing`]). Read it with [`super::Engine::tab`], a text in
    /// parts with [`super::Engine::text_part`], a sheet's rows with
    /// [`super::Engine::sheet_rows`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<TabOutline>,
}

/// A tab's data is left out of a view that shows another tab when it is larger than this: its
/// text's bytes, or 8 bytes a sheet's cell. Opening a Note then carries (and the page parses)
/// what the person sees first, not every tab at once.
pub const DEFER_OVER_BYTES: usize = 1 << 20;

/// The most rows one [`super::Engine::sheet_rows`] call gives.
pub const SHEET_ROWS_MAX: usize = 10_000;

/// The most bytes of text one [`super::Engine::text_part`] call gives.
pub const TEXT_PART_MAX: usize = 4 << 20;

/// Bytes `start..next` of a Markdown tab's text, as the person sees it (their draft, else the
/// server's), read at `version`: parts read at different versions may differ. A part starts and
/// ends on a character boundary; the text is read once `next` is `total`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TextPart {
    pub version: Version,
    /// The text's length in bytes (UTF-8).
    pub total: usize,
    /// Where this part starts (a byte offset).
    pub start: usize,
    /// Where the next part starts.
    pub next: usize,
    pub text: String,
}

/// What a view says of a tab whose data it left out: for a sheet tab, each sheet's ID, name
/// and row count (the rows come with [`super::Engine::sheet_rows`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TabOutline {
    pub sheets: Vec<SheetOutline>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SheetOutline {
    pub id: String,
    pub name: String,
    pub rows: usize,
}

/// Rows `start..start + rows.len()` of one sheet of a sheet tab, as the person sees it (their
/// draft, else the server's), read at `version`: parts read at different versions may differ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SheetRows {
    pub version: Version,
    /// The sheet's row count.
    pub total: usize,
    #[cfg_attr(feature = "ts", ts(as = "Vec<Vec<quire_model::Cell>>"))]
    pub rows: Vec<quire_model::Row>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoteView {
    pub note_id: NoteId,
    pub title: String,
    pub version: Version,
    #[cfg_attr(feature = "ts", ts(as = "Vec<TabViewShape>"))]
    pub tabs: Vec<TabView>,
    /// Drafts of tabs the server no longer has (never silently dropped).
    #[cfg_attr(feature = "ts", ts(as = "Vec<TabViewShape>"))]
    pub orphan_drafts: Vec<TabView>,
}

/// Base, mine and theirs of a conflict, and the proposed merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConflictView {
    pub tab_id: TabId,
    pub base_version: Version,
    pub base: Content,
    pub mine: Content,
    pub theirs_version: Version,
    /// `None`: the tab was deleted on the server.
    pub theirs: Option<Content>,
    pub merge: Option<TabMerge>,
}

/// What a structural write came to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum WriteOutcome {
    Committed {
        result: WriteResult,
    },
    /// The server could not be reached; the write is queued (persisted) and retried.
    Queued {
        id: String,
    },
}

/// What the engine tells its subscribers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineEvent {
    Status(NoteStatus),
    RemoteApplied {
        note_id: NoteId,
        tab_ids: Vec<TabId>,
        /// The server's version whose change this is: a later version may already be this
        /// app's own save of it (merged into the person's edits), never the change's author.
        version: Version,
    },
    ConflictShown {
        note_id: NoteId,
        tab_id: TabId,
    },
    Saved {
        note_id: NoteId,
        tab_id: TabId,
        version: Version,
        replayed: bool,
        /// The saved content holds another writer's change the editor has not shown yet (it
        /// was merged into the person's edits): the editor is not based on this version until
        /// it takes the tab's content.
        unseen: bool,
    },
    LocalStoreFailed {
        note_id: NoteId,
        message: String,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("tab_id: no tab {tab_id} in this note (tabs: {})", list_tabs(.tabs))]
    TabGone {
        tab_id: TabId,
        tabs: Vec<TabSummary>,
    },
    #[error("note {0} is not open")]
    NotOpen(NoteId),
    #[error("this would discard unsynced drafts of tabs {}", join_ids(.tab_ids))]
    WouldDiscardDrafts { tab_ids: Vec<TabId> },
    #[error("tab {0} has no conflict to resolve")]
    NoConflict(TabId),
    #[error(
        "tab {tab_id} changed again on the server (now version {version}): look at the conflict again"
    )]
    ConflictMoved { tab_id: TabId, version: Version },
    #[error("tab {0} is gone on the server: only take_theirs applies")]
    ChoiceUnavailable(TabId),
    #[error("sheet_id: no sheet {sheet_id} in tab {tab_id}")]
    SheetGone { tab_id: TabId, sheet_id: String },
    #[error("tab_id: tab {0} is not a sheet tab")]
    NotASheet(TabId),
    #[error("tab_id: tab {0} is not a Markdown tab")]
    NotAText(TabId),
    #[error("tab {0} has a save in flight; try again when it settles")]
    SaveInFlight(TabId),
    /// Undoing `version` would clash with later writes in these tabs (as the Note has them
    /// now): nothing was written.
    #[error(
        "version {version} cannot be undone: later changes touched the same lines, cells or slides in {}; nothing was changed",
        quote_labels(.tabs)
    )]
    RevertConflict {
        version: Version,
        tabs: Vec<TabSummary>,
    },
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(transparent)]
    Local(#[from] LocalError),
    /// A change handed over on a text other than the one the editor handed over last (see
    /// [`super::Engine::hand_over`]): nothing was taken; hand the whole text over.
    #[error("change refused: {0}; hand the whole text over")]
    ChangeRefused(&'static str),
    #[error("the engine is shutting down")]
    Stopped,
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
}

fn list_tabs(tabs: &[TabSummary]) -> String {
    tabs.iter()
        .map(|t| format!("{} ({}, {:?})", t.id, t.kind, t.label))
        .collect::<Vec<_>>()
        .join(", ")
}

fn quote_labels(tabs: &[TabSummary]) -> String {
    tabs.iter()
        .map(|t| format!("\u{201c}{}\u{201d}", t.label))
        .collect::<Vec<_>>()
        .join(", ")
}

fn join_ids(ids: &[TabId]) -> String {
    ids.iter().map(TabId::as_str).collect::<Vec<_>>().join(", ")
}

/// `{code, message}`: what crosses into the UI, which switches on `code`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorBody {
    pub code: String,
    pub message: String,
}

impl EngineError {
    pub fn code(&self) -> &str {
        match self {
            EngineError::TabGone { .. } => "tab_gone",
            EngineError::NotOpen(_) => "note_not_open",
            EngineError::WouldDiscardDrafts { .. } => "would_discard_drafts",
            EngineError::NoConflict(_) => "no_conflict",
            EngineError::ChoiceUnavailable(_) => "choice_unavailable",
            EngineError::ConflictMoved { .. } => "conflict_moved",
            EngineError::SaveInFlight(_) => "save_in_flight",
            EngineError::SheetGone { .. } => "sheet_gone",
            EngineError::NotASheet(_) => "not_a_sheet",
            EngineError::NotAText(_) => "not_a_text",
            EngineError::RevertConflict { .. }
            | EngineError::Client(ClientError::RevertConflict { .. }) => "revert_conflict",
            EngineError::Content(_) => "invalid_content",
            EngineError::Merge(_) => "invalid_merge",
            EngineError::Client(ClientError::Conflict { .. }) => "version_conflict",
            EngineError::Client(ClientError::Offline(_)) => "offline",
            EngineError::Client(ClientError::Tls { problem, .. }) => problem.code(),
            EngineError::Client(ClientError::Setup(_)) => "client_setup",
            EngineError::Client(ClientError::Server { code, .. }) => code,
            EngineError::Local(_) => "local_store",
            EngineError::ChangeRefused(_) => "change_refused",
            EngineError::Stopped => "stopped",
            EngineError::Timeout(_) => "timeout",
        }
    }

    pub fn to_body(&self) -> ErrorBody {
        ErrorBody {
            code: self.code().to_owned(),
            message: self.to_string(),
        }
    }
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// The latest state of an open Note.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub sync: NoteSync,
    pub status: NoteStatus,
}
