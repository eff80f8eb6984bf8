//! The machine's vocabulary: its tunables, what it holds per tab, the events it is given and the
//! effects it asks for.

use std::sync::Arc;
use std::time::Duration;

use quire_api::WriteResult;
use quire_model::{Note, NoteId, Op, TabId, Timestamp, Version};
use serde::{Deserialize, Serialize};

use crate::content::Content;

/// Tunables; the driver's defaults are in [`Config::default`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Quiet time after the last keystroke before a save is sent.
    pub debounce: Duration,
    /// First retry delay when offline; doubles per failed attempt up to `backoff_max`.
    pub backoff_min: Duration,
    pub backoff_max: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            debounce: Duration::from_millis(400),
            backoff_min: Duration::from_millis(250),
            backoff_max: Duration::from_secs(15),
        }
    }
}

impl Config {
    /// The delay before retry number `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1).min(16))
            .unwrap_or(u32::MAX);
        self.backoff_min
            .saturating_mul(factor)
            .min(self.backoff_max)
    }
}

/// What a tab looks like to the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TabState {
    /// Shows the server's content; nothing unsaved.
    Clean,
    /// Unsaved changes, a save is coming (debounce).
    Dirty,
    /// A save is on its way, or was refused and is being re-applied on the new version.
    Saving,
    /// The last save went through; nothing unsaved.
    Saved,
    /// The server's content changed under the person's draft: they decide.
    Conflict,
    /// The server cannot be reached; the draft is kept and the save retried.
    Offline,
    /// The server refused the save for a reason retrying will not fix (see `last_error`).
    Failed,
}

/// Why the last attempt to sync a draft did not go through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SyncError {
    pub kind: SyncErrorKind,
    /// A stable code: `version_conflict`, `offline`, or the server's `error` code.
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SyncErrorKind {
    /// 409/412: the Note moved on; re-applied or handed to the person.
    Refused,
    /// No answer; retried with the same key.
    Offline,
    /// Any other refusal; not retried until the person edits or asks.
    Rejected,
}

/// A save whose outcome is not known yet: resent as is (same key, base, content) until the
/// server answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PendingSave {
    pub key: String,
    pub expected_version: Version,
    pub content: Content,
}

/// The server's side of a conflict: the tab's content at `version`, or `None` when the tab was
/// deleted there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Theirs {
    pub version: Version,
    pub content: Option<Content>,
}

/// The person's unsynced content of one tab, persisted locally.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Draft {
    pub note_id: NoteId,
    pub tab_id: TabId,
    /// The version `base` was read at: the common ancestor for a merge.
    pub base_version: Version,
    pub base: Content,
    pub mine: Content,
    pub pending: Option<PendingSave>,
    pub theirs: Option<Theirs>,
    pub last_error: Option<SyncError>,
    /// As last shown (kept for the drafts ledger of Notes that are not open).
    pub state: TabState,
    pub updated_at: Timestamp,
    /// The content at `base_version` is not known yet (the edit was made on a version this
    /// app holds no copy of): `base` is a placeholder, and nothing is saved until the server
    /// gives that version.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub base_missing: bool,
    /// An edit typed before the editor showed another writer's change merged into `mine`,
    /// touching the same lines, cells or slides: judged once the merged `mine` is on the server
    /// (then a conflict unless it merges after all). Until then nothing else is saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub held: Option<Held>,
}

/// See [`Draft::held`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Held {
    /// What the editor showed when the person typed `edit` (the content it last handed over).
    pub editor: Content,
    pub edit: Content,
}

/// Another writer's change merged into a tab the person is editing at `version`, which an
/// editor based on an older version has not shown: an edit made there was typed on `editor`
/// (what the engine showed before that merge, or the editor's last edit since), not on what the
/// engine holds, and is merged again (never taken as is: that would undo the other change).
#[derive(Debug, Clone, PartialEq)]
pub struct Unseen {
    pub version: Version,
    pub editor: Content,
}

/// What this app knows locally of a tab at an older version.
#[derive(Debug, Clone, PartialEq)]
pub enum BaseAt {
    /// Its content then.
    Known(Content),
    /// The version was seen, without this tab.
    Absent,
    /// No copy of that version is kept here.
    Unknown,
}

/// A structural write (create/rename/move/delete tab, title, sources, files, restore, revert).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WriteBody {
    Ops {
        changes: Vec<Op>,
    },
    Restore {
        version: Version,
    },
    /// Take back what `version` changed; the server merges it into the Note it holds then.
    Revert {
        version: Version,
    },
}

/// What to do when a structural write is refused as stale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnConflict {
    /// Send the same intent again on the new version (new key): ops addressed by tab ID.
    Reapply,
    /// Give the conflict back to the caller (a restore the person chose on what they saw).
    Report,
}

/// A queued structural write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outgoing {
    pub id: String,
    pub body: WriteBody,
    /// Set (and persisted) when first sent; kept across network failures, cleared on refusal.
    pub key: Option<String>,
    pub expected_version: Option<Version>,
    pub on_conflict: OnConflict,
}

/// The person's answer to a conflict.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Write my content as a new version on top of theirs (theirs stays in history).
    KeepMine,
    /// Drop my draft (archived, not deleted) and show theirs.
    TakeTheirs,
    /// Write this merged content on top of theirs.
    Merged(Content),
}

/// Why an attempt failed, as the driver classifies the client's error.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    Conflict {
        current_version: Version,
        changed_tab_ids: Vec<TabId>,
    },
    Offline(String),
    Rejected {
        status: u16,
        code: String,
        message: String,
    },
    /// A revert refused because later writes changed the same lines, cells or slides in these
    /// tabs: nothing was written.
    RevertConflict {
        tab_ids: Vec<TabId>,
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timer {
    Debounce(TabId),
    Retry,
    /// The local store refused a step's writes: write the state again.
    LocalStore,
    /// The event stream is down: connect again.
    Reconnect,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The driver is running this Note (after a start or restart): fetch and resend.
    Start,
    Edited {
        tab_id: TabId,
        content: Content,
        now: Timestamp,
    },
    /// The person's edit of the tab as it was at `base_version` (the version the editor's
    /// content was loaded at), with what the local store holds of the tab then. With no draft
    /// and an older base than the server state seen, the draft starts from that base, so a
    /// change made on the server meanwhile is a conflict (or a rebase), never overwritten; a
    /// base not known locally is asked of the server ([`Effect::FetchVersion`]) and the draft
    /// waits for it.
    EditedOn {
        tab_id: TabId,
        content: Content,
        now: Timestamp,
        base_version: Version,
        /// The tab at the newer of `base_version` and [`NoteSync::own_saved`] (the ancestor).
        base: BaseAt,
    },
    /// Save every dirty tab now, without waiting for the debounce.
    Flush,
    TimerFired {
        timer: Timer,
        generation: u64,
    },
    Fetched(Box<Note>),
    FetchFailed(Failure),
    /// The answer to [`Effect::FetchVersion`]: the Note at an older version.
    VersionFetched(Box<Note>),
    VersionFetchFailed {
        version: Version,
        failure: Failure,
    },
    SaveSucceeded(Box<WriteResult>),
    SaveFailed(Failure),
    /// The server says the Note is at `version` (event stream: a write, or its hello).
    Remote {
        version: Version,
    },
    /// The person's decision, made on theirs at `theirs_version`; ignored if theirs has moved
    /// since (the person must look again: a merge made on older content would drop a change).
    Resolve {
        tab_id: TabId,
        resolution: Resolution,
        theirs_version: Version,
        now: Timestamp,
    },
    /// The person deletes their draft of a tab on purpose (confirmed by the caller).
    Discard {
        tab_id: TabId,
        now: Timestamp,
    },
    Enqueue(Outgoing),
    /// Read the Note again now (the event stream reconnected, the server moved): also ends a
    /// wait for the retry timer.
    Poll,
    /// The event stream is up: read the Note (writes made while it was down are picked up).
    StreamUp,
    /// The event stream is down (or would not connect): read the Note instead, and connect again
    /// after a backoff ([`Effect::Reconnect`]).
    StreamDown,
    /// Retry a failed draft (or resume after the person fixed what was refused).
    Retry {
        tab_id: TabId,
    },
    /// The local store refused the last step's writes, so the driver performed none of its
    /// effects (`dropped`): the requests did not leave, the timers were not armed.
    LocalStoreFailed {
        dropped: Vec<Effect>,
    },
}

/// What the driver must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Persist(Persist),
    Send(SaveRequest),
    Fetch,
    /// Read the Note as it was at this version (the base of a draft not known locally).
    FetchVersion(Version),
    /// Connect to the event stream again.
    Reconnect,
    StartTimer {
        timer: Timer,
        generation: u64,
        after: Duration,
    },
    Notify(Notice),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Persist {
    Base(Arc<Note>),
    Draft(Box<Draft>),
    DropDraft(TabId),
    /// Keep a discarded draft for good (take theirs, or an explicit discard).
    Archive {
        draft: Box<Draft>,
        reason: ArchiveReason,
        at: Timestamp,
    },
    Outgoing(Box<Outgoing>),
    DropOutgoing(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ArchiveReason {
    TookTheirs,
    Discarded,
}

impl ArchiveReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ArchiveReason::TookTheirs => "took_theirs",
            ArchiveReason::Discarded => "discarded",
        }
    }
}

/// One guarded write to send.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveRequest {
    pub key: String,
    pub expected_version: Version,
    pub body: WriteBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// Remote writes changed these clean tabs: the UI shows the new content. `version` is the
    /// server's version that brought the change (a later one may be this app's own save of it).
    RemoteApplied {
        tab_ids: Vec<TabId>,
        version: Version,
    },
    ConflictShown {
        tab_id: TabId,
    },
    /// A refused save was re-applied on a new version without troubling the person.
    Rebased {
        tab_id: TabId,
        version: Version,
    },
    TabSaved {
        tab_id: TabId,
        version: Version,
        replayed: bool,
        /// The saved content holds another writer's change the editor has not shown yet: the
        /// editor is not based on this version until it takes the content.
        unseen: bool,
    },
    OutgoingDone {
        id: String,
        result: Box<WriteResult>,
    },
    OutgoingFailed {
        id: String,
        failure: Failure,
    },
}

/// Counters the tests (and the status bar) read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Stats {
    pub saves_sent: u64,
    pub saves_committed: u64,
    pub replays: u64,
    pub refused: u64,
    pub auto_rebased: u64,
    pub conflicts_shown: u64,
    pub offline_failures: u64,
}
