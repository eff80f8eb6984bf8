//! The save engine's brain, pure: `step(state, event) -> (state, effects)`.
//!
//! One [`NoteSync`] per open Note. The driver ([`crate::Engine`]) gathers events (the person's
//! edits, timers, HTTP results, the server's event stream), calls [`step`], and applies the
//! effects in order: persist locally, send, fetch, arm a timer, tell the UI. Nothing in here
//! reads a clock, draws a random number or touches the network, so every path (saved, refused
//! and re-applied, conflict, offline and replayed) is a row in a table test.
//!
//! Invariants:
//! - A draft is persisted before any save of it is sent ([`Effect::Persist`] precedes
//!   [`Effect::Send`] in the same step).
//! - Every save carries `expected_version`; a save whose outcome is unknown (network failure) is
//!   resent with the *same* key, base and content until the server answers, so a save that had
//!   committed is replayed, never applied twice. A refused save (409) never committed: the next
//!   attempt is a new write on a new base, with a new key.
//! - At most one request per Note is in flight (a save or a fetch), so results never race.
//! - A draft is never dropped unless the server holds its content (saved, or identical), or the
//!   person took theirs (then it is archived, not deleted).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use quire_api::WriteResult;
use quire_model::{Note, NoteId, Op, TabId, Timestamp, Version};
use serde::{Deserialize, Serialize};

use crate::content::{Content, is_editable};

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

/// A structural write (create/rename/move/delete tab, title, sources, files, restore).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WriteBody {
    Ops { changes: Vec<Op> },
    Restore { version: Version },
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
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timer {
    Debounce(TabId),
    Retry,
    /// The local store refused a step's writes: write the state again.
    LocalStore,
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
    /// The event stream is down: read the Note instead (within the offline backoff).
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
    StartTimer {
        timer: Timer,
        generation: u64,
        after: Duration,
    },
    Notify(Notice),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Persist {
    Base(Box<Note>),
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
    /// Remote writes changed these clean tabs: the UI shows the new content.
    RemoteApplied {
        tab_ids: Vec<TabId>,
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

/// What is on the wire right now.
#[derive(Debug, Clone, PartialEq)]
enum Busy {
    Idle,
    Fetching,
    FetchingVersion,
    Saving(Target),
}

#[derive(Debug, Clone, PartialEq)]
enum Target {
    Tab(TabId),
    Outgoing(String),
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

/// The sync state of one Note.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteSync {
    pub note_id: NoteId,
    pub config: Config,
    /// The last server state seen; its version is the save guard.
    pub server: Option<Note>,
    pub drafts: BTreeMap<TabId, Draft>,
    pub outbox: VecDeque<Outgoing>,
    pub stats: Stats,
    /// Tabs saved since their last edit (shown as Saved rather than Clean).
    pub saved: BTreeSet<TabId>,
    busy: Busy,
    need_fetch: bool,
    /// The newest version the server announced while a save of ours was on the wire. The
    /// announcement of our own write often arrives before the answer to it; only a version
    /// beyond the one the answer gives us is someone else's, and worth a fetch.
    announced_while_saving: Option<Version>,
    /// Offline: the number of failed attempts in a row; sends wait for the retry timer.
    offline: Option<u32>,
    waiting_retry: bool,
    /// The local store refused a step's writes: nothing is sent until they are written again.
    local_failed: bool,
    /// Tabs whose debounce has elapsed (or that must be re-sent at once).
    ready: BTreeSet<TabId>,
    timers: BTreeMap<Timer, u64>,
    key_prefix: String,
    next_key: u64,
    /// A fetch has come back since this state was loaded.
    pub fetched_once: bool,
    /// The last fetch was refused (e.g. the Note does not exist, or the token is wrong).
    pub fetch_error: Option<Failure>,
}

impl NoteSync {
    /// A Note's sync state as loaded from the local store. `key_prefix` must be unique per
    /// engine start (the driver draws one); keys are `{prefix}-{n}`.
    pub fn new(
        note_id: NoteId,
        config: Config,
        server: Option<Note>,
        drafts: Vec<Draft>,
        outbox: Vec<Outgoing>,
        key_prefix: String,
    ) -> Self {
        NoteSync {
            note_id,
            config,
            server,
            drafts: drafts.into_iter().map(|d| (d.tab_id.clone(), d)).collect(),
            outbox: outbox.into(),
            stats: Stats::default(),
            saved: BTreeSet::new(),
            busy: Busy::Idle,
            need_fetch: false,
            announced_while_saving: None,
            offline: None,
            waiting_retry: false,
            local_failed: false,
            ready: BTreeSet::new(),
            timers: BTreeMap::new(),
            key_prefix,
            next_key: 0,
            fetched_once: false,
            fetch_error: None,
        }
    }

    /// The save guard: the last version this app is connected to.
    pub fn guard(&self) -> Option<Version> {
        self.server.as_ref().map(|n| n.version)
    }

    pub fn is_fetch_in_flight(&self) -> bool {
        self.busy == Busy::Fetching
    }

    pub fn is_offline(&self) -> bool {
        self.offline.is_some()
    }

    /// Nothing to send, nothing in flight, nothing waiting.
    pub fn is_settled(&self) -> bool {
        self.busy == Busy::Idle
            && !self.need_fetch
            && self.outbox.is_empty()
            && self
                .drafts
                .values()
                .all(|d| d.theirs.is_some() || is_failed(d))
    }

    /// What the tab shows now.
    pub fn tab_state(&self, tab_id: &TabId) -> TabState {
        match self.drafts.get(tab_id) {
            Some(d) => self.draft_state(d),
            None if self.saved.contains(tab_id) => TabState::Saved,
            None => TabState::Clean,
        }
    }

    fn draft_state(&self, d: &Draft) -> TabState {
        let inflight = self.busy == Busy::Saving(Target::Tab(d.tab_id.clone()));
        if d.theirs.is_some() {
            TabState::Conflict
        } else if is_failed(d) {
            TabState::Failed
        } else if self.offline.is_some() {
            TabState::Offline
        } else if inflight
            || d.base_missing
            || d.pending.is_some()
            || d.last_error
                .as_ref()
                .is_some_and(|e| e.kind == SyncErrorKind::Refused)
        {
            TabState::Saving
        } else {
            TabState::Dirty
        }
    }

    /// The content the person sees in a tab: their draft, else the server's.
    pub fn shown(&self, tab_id: &TabId) -> Option<Content> {
        if let Some(d) = self.drafts.get(tab_id) {
            return Some(d.mine.clone());
        }
        let tab = self.server.as_ref()?.tab(tab_id)?;
        Some(Content(tab.data.clone()))
    }

    fn new_key(&mut self) -> String {
        self.next_key += 1;
        format!("{}-{}", self.key_prefix, self.next_key)
    }

    fn arm(&mut self, timer: Timer, after: Duration, fx: &mut Vec<Effect>) {
        let generation = self.timers.entry(timer.clone()).or_insert(0);
        *generation += 1;
        fx.push(Effect::StartTimer {
            timer,
            generation: *generation,
            after,
        });
    }

    fn timer_is_current(&self, timer: &Timer, generation: u64) -> bool {
        self.timers.get(timer) == Some(&generation)
    }

    fn persist_draft(&mut self, tab_id: &TabId, fx: &mut Vec<Effect>) {
        let state = match self.drafts.get(tab_id) {
            Some(d) => self.draft_state(d),
            None => return,
        };
        if let Some(d) = self.drafts.get_mut(tab_id) {
            d.state = state;
            fx.push(Effect::Persist(Persist::Draft(Box::new(d.clone()))));
        }
    }

    fn drop_draft(&mut self, tab_id: &TabId, fx: &mut Vec<Effect>) {
        if self.drafts.remove(tab_id).is_some() {
            fx.push(Effect::Persist(Persist::DropDraft(tab_id.clone())));
        }
        self.ready.remove(tab_id);
    }
}

fn is_failed(d: &Draft) -> bool {
    d.pending.is_none()
        && d.last_error
            .as_ref()
            .is_some_and(|e| e.kind == SyncErrorKind::Rejected)
}

fn refused_error(current: Version) -> SyncError {
    SyncError {
        kind: SyncErrorKind::Refused,
        code: "version_conflict".to_owned(),
        message: format!("the note moved on to version {current}; re-applying your change"),
    }
}

fn offline_error(reason: &str) -> SyncError {
    SyncError {
        kind: SyncErrorKind::Offline,
        code: "offline".to_owned(),
        message: reason.to_owned(),
    }
}

/// The pure transition function.
pub fn step(mut s: NoteSync, event: Event) -> (NoteSync, Vec<Effect>) {
    let mut fx = Vec::new();
    match event {
        Event::Start => {
            s.need_fetch = true;
            // Drafts with a pending save resend it (same key) as soon as the fetch is back.
            let pending: Vec<TabId> = s
                .drafts
                .values()
                .filter(|d| d.pending.is_some())
                .map(|d| d.tab_id.clone())
                .collect();
            s.ready.extend(pending);
        }
        Event::Edited {
            tab_id,
            content,
            now,
        } => on_edit(&mut s, tab_id, content, now, None, &mut fx),
        Event::EditedOn {
            tab_id,
            content,
            now,
            base_version,
            base,
        } => on_edit(
            &mut s,
            tab_id,
            content,
            now,
            Some((base_version, base)),
            &mut fx,
        ),
        Event::VersionFetched(note) => {
            if s.busy == Busy::FetchingVersion {
                s.busy = Busy::Idle;
            }
            back_online(&mut s, &mut fx);
            on_version_fetched(&mut s, *note, &mut fx);
        }
        Event::VersionFetchFailed { version, failure } => {
            if s.busy == Busy::FetchingVersion {
                s.busy = Busy::Idle;
            }
            match failure {
                Failure::Offline(reason) => go_offline(&mut s, &reason, &mut fx),
                Failure::Conflict { .. } | Failure::Rejected { .. } => {
                    base_refused(&mut s, version, &mut fx)
                }
            }
        }
        Event::Flush => {
            let dirty: Vec<TabId> = s.drafts.keys().cloned().collect();
            s.ready.extend(dirty);
        }
        Event::TimerFired { timer, generation } => {
            if s.timer_is_current(&timer, generation) {
                match timer {
                    Timer::Debounce(tab_id) => {
                        if s.drafts.contains_key(&tab_id) {
                            s.ready.insert(tab_id);
                        }
                    }
                    Timer::Retry => s.waiting_retry = false,
                    Timer::LocalStore => {
                        s.local_failed = false;
                        persist_all(&mut s, &mut fx);
                    }
                }
            }
        }
        Event::Fetched(note) => {
            if s.busy == Busy::Fetching {
                s.busy = Busy::Idle;
            }
            back_online(&mut s, &mut fx);
            s.fetched_once = true;
            s.fetch_error = None;
            on_fetched(&mut s, *note, &mut fx);
        }
        Event::FetchFailed(failure) => {
            if s.busy == Busy::Fetching {
                s.busy = Busy::Idle;
            }
            match failure {
                Failure::Offline(reason) => {
                    // The read is still owed once the server answers again.
                    s.need_fetch = true;
                    go_offline(&mut s, &reason, &mut fx);
                }
                // A fetch refused (e.g. 401, 404) leaves the local state as it is.
                other @ (Failure::Conflict { .. } | Failure::Rejected { .. }) => {
                    s.fetch_error = Some(other);
                }
            }
        }
        Event::SaveSucceeded(result) => on_saved(&mut s, *result, &mut fx),
        Event::SaveFailed(failure) => on_save_failed(&mut s, failure, &mut fx),
        Event::Remote { version } => {
            if s.guard().is_none_or(|g| version > g) {
                if matches!(s.busy, Busy::Saving(_)) {
                    s.announced_while_saving = s.announced_while_saving.max(Some(version));
                } else {
                    s.need_fetch = true;
                }
            }
        }
        Event::Resolve {
            tab_id,
            resolution,
            theirs_version,
            now,
        } => on_resolve(&mut s, tab_id, resolution, theirs_version, now, &mut fx),
        Event::Discard { tab_id, now } => {
            if let Some(d) = s.drafts.get(&tab_id).cloned()
                && d.pending.is_none()
            {
                fx.push(Effect::Persist(Persist::Archive {
                    draft: Box::new(d),
                    reason: ArchiveReason::Discarded,
                    at: now,
                }));
                s.drop_draft(&tab_id, &mut fx);
            }
        }
        Event::Poll => {
            s.need_fetch = true;
            s.waiting_retry = false;
        }
        Event::StreamDown => s.need_fetch = true,
        Event::Enqueue(outgoing) => {
            fx.push(Effect::Persist(Persist::Outgoing(Box::new(
                outgoing.clone(),
            ))));
            s.outbox.push_back(outgoing);
        }
        Event::LocalStoreFailed { dropped } => on_local_store_failed(&mut s, dropped, &mut fx),
        Event::Retry { tab_id } => {
            if let Some(d) = s.drafts.get_mut(&tab_id)
                && d.theirs.is_none()
            {
                d.last_error = None;
                s.ready.insert(tab_id.clone());
                s.persist_draft(&tab_id, &mut fx);
            }
            s.waiting_retry = false;
        }
    }
    pump(&mut s, &mut fx);
    (s, fx)
}

fn on_edit(
    s: &mut NoteSync,
    tab_id: TabId,
    content: Content,
    now: Timestamp,
    older_base: Option<(Version, BaseAt)>,
    fx: &mut Vec<Effect>,
) {
    // Whether the tab's newest server state is this app's own save, untouched since.
    let own_save_is_newest = s.saved.remove(&tab_id);
    if let Some(d) = s.drafts.get_mut(&tab_id) {
        if d.mine.kind() != content.kind() {
            return;
        }
        d.mine = content;
        d.updated_at = now;
        if is_failed(d) {
            // Editing again is the person's way to retry.
            d.last_error = None;
        }
        let in_conflict = d.theirs.is_some();
        s.persist_draft(&tab_id, fx);
        if !in_conflict {
            s.ready.remove(&tab_id);
            let after = s.config.debounce;
            s.arm(Timer::Debounce(tab_id), after, fx);
        }
        return;
    }
    let Some(server) = &s.server else { return };
    let Some(tab) = server.tab(&tab_id) else {
        return;
    };
    let current = Content(tab.data.clone());
    // An edit made on a base older than this app's own save (it was typed while the save was on
    // the wire) already contains what was saved: nothing else changed the tab, so it is judged
    // against the server's state, not as a conflict with itself.
    let older = older_base.filter(|(version, _)| *version < server.version && !own_save_is_newest);
    let (base_version, base, behind, base_missing) = match older {
        Some((version, BaseAt::Known(base))) if base != current => (version, base, true, false),
        Some((version, BaseAt::Unknown)) => (version, current, false, true),
        // The tab did not change since (or is newer than the editor's version).
        _ => (server.version, current, false, false),
    };
    if !is_editable(base.kind()) || base.kind() != content.kind() || base == content {
        return;
    }
    let draft = Draft {
        note_id: s.note_id.clone(),
        tab_id: tab_id.clone(),
        base_version,
        base,
        mine: content,
        pending: None,
        theirs: None,
        last_error: None,
        state: TabState::Dirty,
        updated_at: now,
        base_missing,
    };
    s.drafts.insert(tab_id.clone(), draft);
    s.persist_draft(&tab_id, fx);
    if base_missing {
        // Judged when the server gives the base (pump asks for it).
        return;
    }
    if behind {
        // Made on an older base: judged against the server now (a conflict if the tab changed).
        reconcile(s, fx);
        if s.drafts.get(&tab_id).is_some_and(|d| d.theirs.is_some()) {
            return;
        }
    }
    let after = s.config.debounce;
    s.arm(Timer::Debounce(tab_id), after, fx);
}

fn go_offline(s: &mut NoteSync, reason: &str, fx: &mut Vec<Effect>) {
    let attempt = s.offline.map_or(1, |n| n + 1);
    s.offline = Some(attempt);
    s.stats.offline_failures += 1;
    s.waiting_retry = true;
    let after = s.config.backoff(attempt);
    s.arm(Timer::Retry, after, fx);
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        if let Some(d) = s.drafts.get_mut(&tab_id)
            && d.theirs.is_none()
            && !is_failed(d)
        {
            d.last_error = Some(offline_error(reason));
            s.persist_draft(&tab_id, fx);
        }
    }
}

/// The server answered: drop the offline marks on every draft.
fn back_online(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    let was_offline = s.offline.take().is_some();
    s.waiting_retry = false;
    if !was_offline {
        return;
    }
    let tabs: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| {
            d.last_error
                .as_ref()
                .is_some_and(|e| e.kind == SyncErrorKind::Offline)
        })
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in tabs {
        if let Some(d) = s.drafts.get_mut(&tab_id) {
            d.last_error = None;
        }
        s.persist_draft(&tab_id, fx);
    }
}

fn on_fetched(s: &mut NoteSync, note: Note, fx: &mut Vec<Effect>) {
    if s.guard().is_some_and(|g| note.version < g) {
        return; // Older than what we already hold.
    }
    let before = s.server.replace(note.clone());
    if before.as_ref() != Some(&note) {
        fx.push(Effect::Persist(Persist::Base(Box::new(note.clone()))));
    }
    // Clean tabs follow the server at once.
    let changed: Vec<TabId> = note
        .tabs
        .iter()
        .filter(|t| !s.drafts.contains_key(&t.id))
        .filter(|t| before.as_ref().and_then(|b| b.tab(&t.id)) != Some(*t))
        .map(|t| t.id.clone())
        .collect();
    for t in &changed {
        s.saved.remove(t);
    }
    if before.is_some() && !changed.is_empty() {
        fx.push(Effect::Notify(Notice::RemoteApplied { tab_ids: changed }));
    }
    reconcile(s, fx);
}

/// Holds every draft against the server state: rebase it when the server did not touch its tab,
/// drop it when the server holds it already, or hand the person a conflict.
fn reconcile(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    let Some(server) = s.server.clone() else {
        return;
    };
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        let inflight = s.busy == Busy::Saving(Target::Tab(tab_id.clone()));
        let Some(d) = s.drafts.get(&tab_id) else {
            continue;
        };
        if inflight || d.pending.is_some() {
            continue; // Outcome unknown: judged when the server answers.
        }
        if d.base_missing {
            continue; // Judged when the server gives the base.
        }
        if d.base_version > server.version {
            s.need_fetch = true;
            continue;
        }
        let refused = d
            .last_error
            .as_ref()
            .is_some_and(|e| e.kind == SyncErrorKind::Refused);
        let Some(t) = server.tab(&tab_id).map(|t| Content(t.data.clone())) else {
            // The tab is gone on the server: the person decides (only "take theirs" applies).
            mark_conflict(s, &tab_id, server.version, None, fx);
            continue;
        };
        if d.theirs.is_none() && d.mine == d.base {
            s.drop_draft(&tab_id, fx);
            continue;
        }
        if t == d.mine {
            // The server holds exactly the person's content: nothing left to save.
            s.drop_draft(&tab_id, fx);
            continue;
        }
        if d.base_version == server.version && d.theirs.is_none() {
            if refused {
                s.ready.insert(tab_id.clone());
            }
            continue;
        }
        if t == d.base {
            // The server did not touch this tab: the draft moves to the new version.
            if let Some(d) = s.drafts.get_mut(&tab_id) {
                d.base_version = server.version;
                d.theirs = None;
                if refused {
                    // Re-applied on the new base: the refusal is dealt with.
                    d.last_error = None;
                }
            }
            if refused {
                s.stats.auto_rebased += 1;
                s.ready.insert(tab_id.clone());
                fx.push(Effect::Notify(Notice::Rebased {
                    tab_id: tab_id.clone(),
                    version: server.version,
                }));
            }
            s.persist_draft(&tab_id, fx);
            continue;
        }
        mark_conflict(s, &tab_id, server.version, Some(t), fx);
    }
}

fn mark_conflict(
    s: &mut NoteSync,
    tab_id: &TabId,
    version: Version,
    theirs: Option<Content>,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get_mut(tab_id) else {
        return;
    };
    if d.theirs.as_ref().is_some_and(|t| t.content == theirs) {
        // Same content at a later version: the conflict the person is looking at is unchanged.
        return;
    }
    let fresh = Some(Theirs {
        version,
        content: theirs,
    });
    let was_conflict = d.theirs.is_some();
    d.theirs = fresh;
    d.last_error = None;
    s.ready.remove(tab_id);
    if !was_conflict {
        s.stats.conflicts_shown += 1;
        fx.push(Effect::Notify(Notice::ConflictShown {
            tab_id: tab_id.clone(),
        }));
    }
    s.persist_draft(tab_id, fx);
}

fn on_saved(s: &mut NoteSync, result: WriteResult, fx: &mut Vec<Effect>) {
    let Busy::Saving(target) = std::mem::replace(&mut s.busy, Busy::Idle) else {
        return;
    };
    back_online(s, fx);
    s.stats.saves_committed += 1;
    if result.replayed {
        s.stats.replays += 1;
    }
    match target {
        Target::Tab(tab_id) => {
            let Some(d) = s.drafts.get_mut(&tab_id) else {
                return;
            };
            let Some(pending) = d.pending.take() else {
                return;
            };
            d.base = pending.content.clone();
            d.base_version = result.version;
            d.last_error = None;
            if let Some(server) = &mut s.server
                && result.version > server.version
            {
                // CAS: the Note is exactly what we had plus this change.
                if let Some(tab) = server.tabs.iter_mut().find(|t| t.id == tab_id) {
                    tab.data = pending.content.0.clone();
                }
                server.version = result.version;
                fx.push(Effect::Persist(Persist::Base(Box::new(server.clone()))));
            }
            fx.push(Effect::Notify(Notice::TabSaved {
                tab_id: tab_id.clone(),
                version: result.version,
                replayed: result.replayed,
            }));
            let unchanged_since = s.drafts.get(&tab_id).is_some_and(|d| d.mine == d.base);
            if unchanged_since {
                s.drop_draft(&tab_id, fx);
                s.saved.insert(tab_id);
            } else {
                s.persist_draft(&tab_id, fx);
            }
            reconcile(s, fx);
        }
        Target::Outgoing(id) => {
            if s.outbox.front().is_some_and(|o| o.id == id) {
                s.outbox.pop_front();
            }
            fx.push(Effect::Persist(Persist::DropOutgoing(id.clone())));
            fx.push(Effect::Notify(Notice::OutgoingDone {
                id,
                result: Box::new(result.clone()),
            }));
            // Structural changes are read back rather than guessed (generated IDs, positions).
            if s.guard().is_none_or(|g| result.version > g) {
                s.need_fetch = true;
            }
        }
    }
}

fn on_save_failed(s: &mut NoteSync, failure: Failure, fx: &mut Vec<Effect>) {
    let Busy::Saving(target) = std::mem::replace(&mut s.busy, Busy::Idle) else {
        return;
    };
    match (&target, &failure) {
        (_, Failure::Offline(reason)) => {
            // Outcome unknown: keep the pending save (same key, same base) for the retry.
            if let Target::Tab(tab_id) = &target {
                s.ready.insert(tab_id.clone());
            }
            go_offline(s, reason, fx);
        }
        (
            Target::Tab(tab_id),
            Failure::Conflict {
                current_version, ..
            },
        ) => {
            s.offline = None;
            s.stats.refused += 1;
            if let Some(d) = s.drafts.get_mut(tab_id) {
                // Refused means not committed: the next attempt is a new write.
                d.pending = None;
                d.last_error = Some(refused_error(*current_version));
            }
            s.persist_draft(tab_id, fx);
            s.need_fetch = true;
        }
        (
            Target::Tab(tab_id),
            Failure::Rejected {
                status,
                code,
                message,
            },
        ) => {
            s.offline = None;
            if let Some(d) = s.drafts.get_mut(tab_id) {
                d.pending = None;
                d.last_error = Some(SyncError {
                    kind: SyncErrorKind::Rejected,
                    code: code.clone(),
                    message: format!("{status}: {message}"),
                });
            }
            s.ready.remove(tab_id);
            s.persist_draft(tab_id, fx);
            if code == "tab_not_found" {
                // Read the strip again: reconcile shows the tab as gone.
                s.need_fetch = true;
            }
        }
        (Target::Outgoing(id), Failure::Conflict { .. }) => {
            s.offline = None;
            s.stats.refused += 1;
            let policy = s.outbox.front().map(|o| o.on_conflict);
            match policy {
                Some(OnConflict::Reapply) => {
                    if let Some(o) = s.outbox.front_mut() {
                        o.key = None;
                        o.expected_version = None;
                        fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
                    }
                }
                _ => {
                    s.outbox.pop_front();
                    fx.push(Effect::Persist(Persist::DropOutgoing(id.clone())));
                    fx.push(Effect::Notify(Notice::OutgoingFailed {
                        id: id.clone(),
                        failure: failure.clone(),
                    }));
                }
            }
            s.need_fetch = true;
        }
        (Target::Outgoing(id), Failure::Rejected { .. }) => {
            s.offline = None;
            s.outbox.pop_front();
            fx.push(Effect::Persist(Persist::DropOutgoing(id.clone())));
            fx.push(Effect::Notify(Notice::OutgoingFailed {
                id: id.clone(),
                failure,
            }));
        }
    }
}

fn on_resolve(
    s: &mut NoteSync,
    tab_id: TabId,
    resolution: Resolution,
    theirs_version: Version,
    now: Timestamp,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get(&tab_id).cloned() else {
        return;
    };
    let Some(theirs) = d.theirs.clone() else {
        return;
    };
    if theirs.version != theirs_version {
        return;
    }
    match resolution {
        Resolution::TakeTheirs => {
            fx.push(Effect::Persist(Persist::Archive {
                draft: Box::new(d),
                reason: ArchiveReason::TookTheirs,
                at: now,
            }));
            s.drop_draft(&tab_id, fx);
        }
        Resolution::KeepMine | Resolution::Merged(_) => {
            let Some(their_content) = theirs.content else {
                return; // The tab is gone on the server: only "take theirs" applies.
            };
            let mine = match resolution {
                Resolution::Merged(c) => c,
                _ => d.mine.clone(),
            };
            if mine.kind() != their_content.kind() {
                return;
            }
            if let Some(d) = s.drafts.get_mut(&tab_id) {
                d.base = their_content;
                d.base_version = theirs.version;
                d.mine = mine;
                d.theirs = None;
                d.last_error = None;
                d.updated_at = now;
            }
            s.ready.insert(tab_id.clone());
            s.persist_draft(&tab_id, fx);
            // Theirs may be older than the guard by now; reconcile against the server again.
            reconcile(s, fx);
        }
    }
}

/// Starts the next request if nothing is on the wire: a fetch first when one is needed, then a
/// pending resend or structural write, then the tabs whose debounce has elapsed.
fn pump(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    // The save is answered (or abandoned): what was announced meanwhile and is newer than
    // what we now hold was someone else's write.
    if !matches!(s.busy, Busy::Saving(_))
        && let Some(version) = s.announced_while_saving.take()
        && s.guard().is_none_or(|g| version > g)
    {
        s.need_fetch = true;
    }
    if s.busy != Busy::Idle || s.waiting_retry || s.local_failed {
        return;
    }
    if s.need_fetch || s.server.is_none() {
        s.need_fetch = false;
        s.busy = Busy::Fetching;
        fx.push(Effect::Fetch);
        return;
    }
    let Some(guard) = s.guard() else { return };

    // 0. A draft's base not known locally.
    if let Some(version) = s
        .drafts
        .values()
        .find(|d| d.base_missing)
        .map(|d| d.base_version)
    {
        s.busy = Busy::FetchingVersion;
        fx.push(Effect::FetchVersion(version));
        return;
    }

    // 1. A save whose outcome is unknown goes out again exactly as it was.
    let resend = s
        .drafts
        .values()
        .find(|d| d.pending.is_some())
        .map(|d| d.tab_id.clone());
    if let Some(tab_id) = resend {
        if let Some(p) = s.drafts.get(&tab_id).and_then(|d| d.pending.clone()) {
            s.busy = Busy::Saving(Target::Tab(tab_id.clone()));
            s.stats.saves_sent += 1;
            fx.push(Effect::Send(SaveRequest {
                key: p.key,
                expected_version: p.expected_version,
                body: WriteBody::Ops {
                    changes: vec![p.content.to_op(&tab_id)],
                },
            }));
        }
        return;
    }

    // 2. Structural writes, in order.
    if let Some(front) = s.outbox.front().cloned() {
        let key = match front.key {
            Some(k) => k,
            None => s.new_key(),
        };
        let expected = front.expected_version.unwrap_or(guard);
        let o = Outgoing {
            key: Some(key.clone()),
            expected_version: Some(expected),
            ..front
        };
        if let Some(f) = s.outbox.front_mut() {
            *f = o.clone();
        }
        fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
        s.busy = Busy::Saving(Target::Outgoing(o.id.clone()));
        s.stats.saves_sent += 1;
        fx.push(Effect::Send(SaveRequest {
            key,
            expected_version: expected,
            body: o.body,
        }));
        return;
    }

    // 3. The next tab ready to save.
    let candidates: Vec<TabId> = s.ready.iter().cloned().collect();
    for tab_id in candidates {
        let Some(d) = s.drafts.get(&tab_id) else {
            s.ready.remove(&tab_id);
            continue;
        };
        if d.theirs.is_some() || is_failed(d) || d.base_missing || d.base_version != guard {
            continue;
        }
        if d.mine == d.base {
            s.drop_draft(&tab_id, fx);
            continue;
        }
        s.ready.remove(&tab_id);
        let key = s.new_key();
        let Some(d) = s.drafts.get_mut(&tab_id) else {
            continue;
        };
        let pending = PendingSave {
            key: key.clone(),
            expected_version: d.base_version,
            content: d.mine.clone(),
        };
        d.pending = Some(pending.clone());
        s.busy = Busy::Saving(Target::Tab(tab_id.clone()));
        // The draft, with its key, is on disk before the request leaves.
        s.persist_draft(&tab_id, fx);
        s.stats.saves_sent += 1;
        fx.push(Effect::Send(SaveRequest {
            key,
            expected_version: pending.expected_version,
            body: WriteBody::Ops {
                changes: vec![pending.content.to_op(&tab_id)],
            },
        }));
        return;
    }
}

/// The server gave the Note at an older version: the drafts waiting for that base are judged
/// against the server state now (a conflict if their tab changed since).
fn on_version_fetched(s: &mut NoteSync, note: Note, fx: &mut Vec<Effect>) {
    let waiting: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| d.base_missing && d.base_version == note.version)
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in &waiting {
        if let Some(d) = s.drafts.get_mut(tab_id) {
            if let Some(t) = note.tab(tab_id).filter(|t| t.kind() == d.mine.kind()) {
                d.base = Content(t.data.clone());
            }
            d.base_missing = false;
        }
        s.persist_draft(tab_id, fx);
    }
    reconcile(s, fx);
    for tab_id in waiting {
        if s.drafts.get(&tab_id).is_some_and(|d| d.theirs.is_none()) {
            s.ready.insert(tab_id);
        }
    }
}

/// The server will not give the base (e.g. that version is gone): the person decides, on the
/// server's content, since what the draft was made on cannot be known.
fn base_refused(s: &mut NoteSync, version: Version, fx: &mut Vec<Effect>) {
    let Some(server) = s.server.clone() else {
        return;
    };
    let waiting: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| d.base_missing && d.base_version == version)
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in waiting {
        if let Some(d) = s.drafts.get_mut(&tab_id) {
            d.base_missing = false;
        }
        let theirs = server.tab(&tab_id).map(|t| Content(t.data.clone()));
        mark_conflict(s, &tab_id, server.version, theirs, fx);
    }
}

/// Nothing of the failed step happened but the change of this state: a request it started did
/// not leave (the draft keeps its pending save, sent again with the same key), a timer it armed
/// is owed. The state is written again after `backoff_min`, before anything is sent.
fn on_local_store_failed(s: &mut NoteSync, dropped: Vec<Effect>, fx: &mut Vec<Effect>) {
    for effect in dropped {
        match effect {
            Effect::Send(_) | Effect::Fetch | Effect::FetchVersion(_) => {
                if matches!(s.busy, Busy::Saving(_)) {
                    s.stats.saves_sent = s.stats.saves_sent.saturating_sub(1);
                }
                if s.busy == Busy::Fetching {
                    s.need_fetch = true;
                }
                s.busy = Busy::Idle;
            }
            Effect::StartTimer {
                timer: Timer::Debounce(tab_id),
                ..
            } => {
                s.ready.insert(tab_id);
            }
            Effect::StartTimer {
                timer: Timer::Retry,
                ..
            } => s.waiting_retry = false,
            Effect::StartTimer {
                timer: Timer::LocalStore,
                ..
            }
            | Effect::Persist(_)
            | Effect::Notify(_) => {}
        }
    }
    s.local_failed = true;
    let after = s.config.backoff_min;
    s.arm(Timer::LocalStore, after, fx);
}

/// Everything the local store holds for this Note, from this state.
fn persist_all(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    if let Some(server) = &s.server {
        fx.push(Effect::Persist(Persist::Base(Box::new(server.clone()))));
    }
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        s.persist_draft(&tab_id, fx);
    }
    for o in &s.outbox {
        fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
    }
}
