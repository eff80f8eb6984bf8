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
//!
//! Here: the state ([`NoteSync`]), [`step`] and the order of requests (`pump`); `types` the
//! events, effects and what a draft holds; `save` a tab's edits and saves; `conflict` drafts held
//! against the server's state, the person's decisions, bases not known locally; `outbox` the
//! structural writes.

mod conflict;
mod outbox;
mod save;
mod types;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use quire_api::WriteResult;
use quire_model::{Note, NoteId, TabData, TabId, Version};

use crate::content::Content;

pub use types::*;

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

/// The sync state of one Note.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteSync {
    pub note_id: NoteId,
    pub config: Config,
    /// The last server state seen; its version is the save guard.
    pub server: Option<Arc<Note>>,
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
    /// The versions this app's structural writes (a restore, a tab renamed or created) made
    /// and the server has not been read at since: the read that brings them is this app's own
    /// change, not another writer's, so it tells the person of no remote edit.
    own_unread: BTreeSet<Version>,
    /// Tabs holding other writers' changes merged into the person's edits that their editor
    /// may not have shown yet, one stage per merge, oldest first (in memory only: a restarted
    /// editor starts from the engine's content).
    unseen: BTreeMap<TabId, Vec<Unseen>>,
    /// For each tab, the newest version this app's own save of it made. An edit on an older
    /// version was typed on what that save sent (the editor handed it over), so that content
    /// is its ancestor, not the older version's.
    own_saved: BTreeMap<TabId, Version>,
    /// The content of this app's last acknowledged save, with its tab: the tab's content at
    /// the version that save made (its `own_saved`, set with it), shared, so that the next
    /// edit's draft takes it as its base instead of copying it out of `server` (10 MiB a
    /// keystroke in a 10 MiB text, and its key computed again).
    last_saved: Option<(TabId, Content)>,
    /// Offline: the number of failed attempts in a row; sends wait for the retry timer.
    offline: Option<u32>,
    waiting_retry: bool,
    /// The local store refused a step's writes: nothing is sent until they are written again.
    local_failed: bool,
    /// The event stream's failed connections in a row (the reconnect backoff).
    stream_failures: u32,
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
            server: server.map(Arc::new),
            drafts: drafts.into_iter().map(|d| (d.tab_id.clone(), d)).collect(),
            outbox: outbox.into(),
            stats: Stats::default(),
            saved: BTreeSet::new(),
            busy: Busy::Idle,
            need_fetch: false,
            announced_while_saving: None,
            own_unread: BTreeSet::new(),
            unseen: BTreeMap::new(),
            own_saved: BTreeMap::new(),
            last_saved: None,
            offline: None,
            waiting_retry: false,
            local_failed: false,
            stream_failures: 0,
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

    /// The newest version this app's own save of the tab made (`Version(0)`: none).
    pub fn own_saved(&self, tab_id: &TabId) -> Version {
        self.own_saved.get(tab_id).copied().unwrap_or(Version(0))
    }

    /// Whether the tab holds another writer's change its editor has not shown yet.
    pub fn is_unseen(&self, tab_id: &TabId) -> bool {
        self.unseen.contains_key(tab_id)
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
            // A held edit is what the person typed last (the merged content goes first).
            return Some(d.held.as_ref().map_or(&d.mine, |h| &h.edit).clone());
        }
        let tab = self.server.as_ref()?.tab(tab_id)?;
        Some(Content::new(tab.data.clone()))
    }

    /// [`NoteSync::shown`], borrowed: no copy of the server's content.
    pub fn shown_data(&self, tab_id: &TabId) -> Option<&TabData> {
        if let Some(d) = self.drafts.get(tab_id) {
            return Some(d.held.as_ref().map_or(&d.mine, |h| &h.edit).0.as_ref());
        }
        Some(&self.server.as_ref()?.tab(tab_id)?.data)
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
        } => save::on_edit(&mut s, tab_id, content, now, None, &mut fx),
        Event::EditedOn {
            tab_id,
            content,
            now,
            base_version,
            base,
        } => save::on_edit(
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
            save::back_online(&mut s, &mut fx);
            conflict::on_version_fetched(&mut s, *note, &mut fx);
        }
        Event::VersionFetchFailed { version, failure } => {
            if s.busy == Busy::FetchingVersion {
                s.busy = Busy::Idle;
            }
            match failure {
                Failure::Offline(reason) => save::go_offline(&mut s, &reason, &mut fx),
                Failure::Conflict { .. }
                | Failure::Rejected { .. }
                | Failure::RevertConflict { .. } => {
                    conflict::base_refused(&mut s, version, &mut fx)
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
                    Timer::Reconnect => fx.push(Effect::Reconnect),
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
            save::back_online(&mut s, &mut fx);
            s.fetched_once = true;
            s.fetch_error = None;
            conflict::on_fetched(&mut s, *note, &mut fx);
        }
        Event::FetchFailed(failure) => {
            if s.busy == Busy::Fetching {
                s.busy = Busy::Idle;
            }
            match failure {
                Failure::Offline(reason) => {
                    // The read is still owed once the server answers again.
                    s.need_fetch = true;
                    save::go_offline(&mut s, &reason, &mut fx);
                }
                // A fetch refused (e.g. 401, 404) leaves the local state as it is.
                other @ (Failure::Conflict { .. }
                | Failure::Rejected { .. }
                | Failure::RevertConflict { .. }) => {
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
        } => conflict::on_resolve(&mut s, tab_id, resolution, theirs_version, now, &mut fx),
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
        Event::StreamUp => {
            s.stream_failures = 0;
            s.need_fetch = true;
            s.waiting_retry = false;
        }
        Event::StreamDown => {
            s.need_fetch = true;
            s.stream_failures = s.stream_failures.saturating_add(1);
            let after = s.config.backoff(s.stream_failures);
            s.arm(Timer::Reconnect, after, &mut fx);
        }
        Event::Enqueue(outgoing) => outbox::enqueue(&mut s, outgoing, &mut fx),
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

fn on_saved(s: &mut NoteSync, result: WriteResult, fx: &mut Vec<Effect>) {
    let Busy::Saving(target) = std::mem::replace(&mut s.busy, Busy::Idle) else {
        return;
    };
    save::back_online(s, fx);
    s.stats.saves_committed += 1;
    if result.replayed {
        s.stats.replays += 1;
    }
    match target {
        Target::Tab(tab_id) => save::on_saved(s, tab_id, result, fx),
        Target::Outgoing(id) => outbox::on_saved(s, id, result, fx),
    }
}

fn on_save_failed(s: &mut NoteSync, failure: Failure, fx: &mut Vec<Effect>) {
    let Busy::Saving(target) = std::mem::replace(&mut s.busy, Busy::Idle) else {
        return;
    };
    match (&target, failure) {
        (_, Failure::Offline(reason)) => {
            // Outcome unknown: keep the pending save (same key, same base) for the retry.
            if let Target::Tab(tab_id) = &target {
                s.ready.insert(tab_id.clone());
            }
            save::go_offline(s, &reason, fx);
        }
        (
            Target::Tab(tab_id),
            Failure::Conflict {
                current_version, ..
            },
        ) => save::on_refused(s, tab_id, current_version, fx),
        (
            Target::Tab(tab_id),
            Failure::Rejected {
                status,
                code,
                message,
            },
        ) => save::on_rejected(s, tab_id, status, &code, &message, fx),
        // A save carries no revert: should a server answer one so, the save is refused for good.
        (Target::Tab(tab_id), Failure::RevertConflict { message, .. }) => {
            save::on_rejected(s, tab_id, 409, "revert_conflict", &message, fx)
        }
        (Target::Outgoing(id), failure @ Failure::Conflict { .. }) => {
            outbox::on_refused(s, id, failure, fx)
        }
        (
            Target::Outgoing(id),
            failure @ (Failure::Rejected { .. } | Failure::RevertConflict { .. }),
        ) => outbox::on_rejected(s, id, failure, fx),
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

    if conflict::fetch_missing_base(s, fx)
        || save::resend_pending(s, fx)
        || outbox::send_next(s, guard, fx)
    {
        return;
    }
    save::send_ready(s, guard, fx);
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
                timer: Timer::Reconnect,
                ..
            } => {
                let after = s.config.backoff(s.stream_failures);
                s.arm(Timer::Reconnect, after, fx);
            }
            // Owed at once: it writes nothing.
            Effect::Reconnect => fx.push(Effect::Reconnect),
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
        fx.push(Effect::Persist(Persist::Base(server.clone())));
    }
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        s.persist_draft(&tab_id, fx);
    }
    for o in &s.outbox {
        fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
    }
}
