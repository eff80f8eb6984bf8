//! The async driver: runs the pure machine for each open Note, owns the client and the local
//! store, performs the effects, and exposes the API the Tauri commands call.
//!
//! One task per open Note owns its [`NoteSync`] and a mailbox; everything that happens to the
//! Note (an edit, a timer, an HTTP answer, an event from the server) is a message, turned into
//! a [`step`]; the effects of a step are persisted in one local transaction *before* any request
//! they ask for leaves. Readers see the latest state through a `watch` channel.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use quire_api::{AgentAccess, Clock, VersionInfo, WriteResult};
use quire_model::{Note, NoteId, NoteSummary, Op, TabData, TabId, TabKind, Version};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use url::Url;

use crate::client::{Client, ClientError, ServerEvent, ServerIdentity};
use crate::content::{Content, ContentError};
use crate::local::{ArchivedDraft, LedgerEntry, LocalError, LocalStore};
use crate::machine::{
    self, BaseAt, Effect, Event, Failure, NoteSync, Notice, OnConflict, Outgoing, Persist,
    Resolution, Stats, SyncError, TabState, WriteBody, step,
};
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
}

/// A tab with what the person sees in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabView {
    pub id: TabId,
    #[serde(rename = "type")]
    pub kind: TabKind,
    pub label: String,
    /// The person's draft if there is one, else the server's content.
    pub data: Value,
    pub status: TabStatus,
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
    #[error("tab {0} has a save in flight; try again when it settles")]
    SaveInFlight(TabId),
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(transparent)]
    Local(#[from] LocalError),
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
            EngineError::Content(_) => "invalid_content",
            EngineError::Merge(_) => "invalid_merge",
            EngineError::Client(ClientError::Conflict { .. }) => "version_conflict",
            EngineError::Client(ClientError::Offline(_)) => "offline",
            EngineError::Client(ClientError::Tls { problem, .. }) => problem.code(),
            EngineError::Client(ClientError::Setup(_)) => "client_setup",
            EngineError::Client(ClientError::Server { code, .. }) => code,
            EngineError::Local(_) => "local_store",
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

enum Msg {
    Step(Event, Option<oneshot::Sender<Arc<Snapshot>>>),
    /// Waits for the structural write `id` to commit or fail (or go offline).
    AwaitOutgoing(String, oneshot::Sender<Result<WriteOutcome>>),
    Stop,
}

struct Handle {
    tx: mpsc::UnboundedSender<Msg>,
    snapshot: watch::Receiver<Arc<Snapshot>>,
    tasks: Vec<JoinHandle<()>>,
}

struct Inner {
    client: Client,
    local: Mutex<LocalStore>,
    notes: Mutex<HashMap<NoteId, Handle>>,
    events: broadcast::Sender<EngineEvent>,
    clock: Arc<dyn Clock>,
    timing: machine::Config,
    key_prefix: String,
    next_id: std::sync::atomic::AtomicU64,
}

/// The sync engine. Cheap to clone.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Engine {
    /// Opens the local store and readies the client. Notes start syncing when opened.
    pub fn start(config: EngineConfig, clock: Arc<dyn Clock>) -> Result<Self> {
        let local = LocalStore::open(&config.db_path)?;
        let client = match config.http {
            Some(http) => Client::with_http(http, config.server, config.token),
            None => Client::new(config.server, config.token)?,
        };
        let (events, _) = broadcast::channel(4096);
        Ok(Engine {
            inner: Arc::new(Inner {
                client,
                local: Mutex::new(local),
                notes: Mutex::new(HashMap::new()),
                events,
                clock,
                timing: config.timing,
                key_prefix: config.key_prefix,
                next_id: std::sync::atomic::AtomicU64::new(0),
            }),
        })
    }

    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// Points the engine at another server address (e.g. the embedded server restarted).
    pub fn set_server(&self, url: Url) {
        self.inner.client.set_base(url);
        let notes = lock(&self.inner.notes);
        for h in notes.values() {
            // A new address: read the Note again (and resume any waiting save).
            if h.tx.send(Msg::Step(Event::Poll, None)).is_err() {
                tracing::debug!("note task already stopped");
            }
        }
    }

    /// Every engine event (statuses, remote writes applied, conflicts, saves).
    pub fn subscribe(&self) -> broadcast::Receiver<EngineEvent> {
        self.inner.events.subscribe()
    }

    fn mint_id(&self) -> String {
        let n = self
            .inner
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("{}-w{n}", self.inner.key_prefix)
    }

    pub async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
        Ok(self.inner.client.list_notes().await?)
    }

    /// Who the server is, as this engine reaches it ([`Client::identify`]).
    pub async fn identify(&self) -> Result<ServerIdentity> {
        Ok(self.inner.client.identify().await?)
    }

    /// Creates a Note on the server (with an idempotency key) and opens it.
    pub async fn create_note(&self, title: &str) -> Result<NoteView> {
        let key = self.mint_id();
        let stored = self.inner.client.create_note(title, Some(&key)).await?;
        self.open_note(&stored.note.id).await
    }

    /// Starts syncing a Note (if not already) and returns what the person sees.
    pub async fn open_note(&self, note_id: &NoteId) -> Result<NoteView> {
        let opened = self.wait_opened(note_id).await;
        if opened.is_err() {
            self.close_note(note_id);
        }
        opened
    }

    async fn wait_opened(&self, note_id: &NoteId) -> Result<NoteView> {
        let mut rx = self.ensure_open(note_id)?;
        // Ready when the server state is known (fetched, or loaded from the local store),
        // or the first fetch failed with nothing local to show.
        let snap = loop {
            let snap = rx.borrow_and_update().clone();
            if snap.sync.server.is_some() && snap.sync.fetched_once {
                break snap;
            }
            if snap.sync.server.is_some() && snap.status.offline {
                break snap;
            }
            if snap.sync.server.is_none() && snap.status.offline {
                return Err(ClientError::Offline("the server cannot be reached".to_owned()).into());
            }
            if let Some(err) = snap.sync.fetch_error.clone() {
                return Err(EngineError::Client(err_from_failure(&err)));
            }
            if rx.changed().await.is_err() {
                return Err(EngineError::Stopped);
            }
        };
        Ok(view(&snap))
    }

    fn ensure_open(&self, note_id: &NoteId) -> Result<watch::Receiver<Arc<Snapshot>>> {
        let mut notes = lock(&self.inner.notes);
        if let Some(h) = notes.get(note_id) {
            return Ok(h.snapshot.clone());
        }
        let local = lock(&self.inner.local).load(note_id)?;
        let sync = NoteSync::new(
            note_id.clone(),
            self.inner.timing,
            local.base,
            local.drafts,
            local.outbox,
            // Unique per open, not only per engine: the machine counts its keys from 1 again
            // each time a Note is opened, and a reused key replays the earlier write.
            format!("{}-{}", self.mint_id(), short(note_id)),
        );
        let snap = Arc::new(snapshot(sync));
        let (snap_tx, snap_rx) = watch::channel(snap.clone());
        let (tx, rx) = mpsc::unbounded_channel();
        let actor = tokio::spawn(run_note(self.inner.clone(), snap, snap_tx, tx.clone(), rx));
        let events = tokio::spawn(follow_events(
            self.inner.client.clone(),
            note_id.clone(),
            tx.clone(),
            self.inner.timing,
        ));
        if tx.send(Msg::Step(Event::Start, None)).is_err() {
            return Err(EngineError::Stopped);
        }
        notes.insert(
            note_id.clone(),
            Handle {
                tx,
                snapshot: snap_rx.clone(),
                tasks: vec![actor, events],
            },
        );
        Ok(snap_rx)
    }

    fn handle(&self, note_id: &NoteId) -> Result<(mpsc::UnboundedSender<Msg>, Arc<Snapshot>)> {
        let notes = lock(&self.inner.notes);
        let h = notes
            .get(note_id)
            .ok_or_else(|| EngineError::NotOpen(note_id.clone()))?;
        Ok((h.tx.clone(), h.snapshot.borrow().clone()))
    }

    async fn send_step(&self, note_id: &NoteId, event: Event) -> Result<Arc<Snapshot>> {
        let (tx, _) = self.handle(note_id)?;
        let (reply, wait) = oneshot::channel();
        tx.send(Msg::Step(event, Some(reply)))
            .map_err(|_| EngineError::Stopped)?;
        wait.await.map_err(|_| EngineError::Stopped)
    }

    /// The latest state of an open Note (for views, tests and diagnostics).
    pub fn snapshot(&self, note_id: &NoteId) -> Result<Arc<Snapshot>> {
        Ok(self.handle(note_id)?.1)
    }

    /// A receiver that sees every new state of an open Note.
    pub fn watch(&self, note_id: &NoteId) -> Result<watch::Receiver<Arc<Snapshot>>> {
        let notes = lock(&self.inner.notes);
        notes
            .get(note_id)
            .map(|h| h.snapshot.clone())
            .ok_or_else(|| EngineError::NotOpen(note_id.clone()))
    }

    /// Waits until `pred` holds for the Note's state, or `timeout` passes.
    pub async fn wait_until(
        &self,
        note_id: &NoteId,
        timeout: Duration,
        what: &'static str,
        mut pred: impl FnMut(&Snapshot) -> bool,
    ) -> Result<Arc<Snapshot>> {
        let mut rx = self.watch(note_id)?;
        let wait = async {
            loop {
                let snap = rx.borrow_and_update().clone();
                if pred(&snap) {
                    return Ok(snap);
                }
                if rx.changed().await.is_err() {
                    return Err(EngineError::Stopped);
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .map_err(|_| EngineError::Timeout(what))?
    }

    pub fn view(&self, note_id: &NoteId) -> Result<NoteView> {
        Ok(view(&*self.snapshot(note_id)?))
    }

    pub fn status(&self, note_id: &NoteId) -> Result<NoteStatus> {
        Ok(self.snapshot(note_id)?.status.clone())
    }

    /// One tab, by its instance ID only. A tab that no longer exists is [`EngineError::TabGone`]
    /// with the tabs that do; never a tab of the same type or label.
    pub fn tab(&self, note_id: &NoteId, tab_id: &TabId) -> Result<TabView> {
        let snap = self.snapshot(note_id)?;
        let v = view(&snap);
        v.tabs
            .into_iter()
            .find(|t| &t.id == tab_id)
            .ok_or_else(|| tab_gone(&snap, tab_id))
    }

    /// The person's edit: the tab's whole new content (`data` in the tab's wire shape).
    pub async fn edit_tab(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        data: Value,
    ) -> Result<TabStatus> {
        let content = self.parse_edit(note_id, tab_id, data)?;
        let now = self.inner.clock.now();
        let snap = self
            .send_step(
                note_id,
                Event::Edited {
                    tab_id: tab_id.clone(),
                    content,
                    now,
                },
            )
            .await?;
        Ok(tab_status(&snap.sync, tab_id))
    }

    /// The person's edit, made on the tab as it was at `base_version` (the version the editor's
    /// content was loaded at). The machine judges it ([`Event::EditedOn`]) with what the local
    /// store holds of that version: when the server changed this tab after `base_version`, the
    /// other writer's change becomes a conflict instead of being overwritten by an editor that
    /// had not shown it yet, online or not.
    pub async fn edit_tab_on(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        data: Value,
        base_version: Version,
    ) -> Result<TabStatus> {
        let content = self.parse_edit(note_id, tab_id, data)?;
        let base = lock(&self.inner.local)
            .tab_at(note_id, tab_id, base_version)
            .unwrap_or_else(|e| {
                tracing::warn!(note = %note_id, error = %e, "local store read failed");
                BaseAt::Unknown
            });
        let now = self.inner.clock.now();
        let snap = self
            .send_step(
                note_id,
                Event::EditedOn {
                    tab_id: tab_id.clone(),
                    content,
                    now,
                    base_version,
                    base,
                },
            )
            .await?;
        Ok(tab_status(&snap.sync, tab_id))
    }

    /// The person's edit of a tab as its content, in the tab's kind.
    fn parse_edit(&self, note_id: &NoteId, tab_id: &TabId, data: Value) -> Result<Content> {
        let snap = self.snapshot(note_id)?;
        let kind = match (
            snap.sync.drafts.get(tab_id),
            snap.sync.server.as_ref().and_then(|n| n.tab(tab_id)),
        ) {
            (Some(d), _) => d.mine.kind(),
            (None, Some(t)) => t.kind(),
            (None, None) => return Err(tab_gone(&snap, tab_id)),
        };
        Ok(Content::parse(kind, data)?)
    }

    /// Saves every dirty tab now (e.g. when the window closes), skipping the debounce.
    pub async fn flush(&self, note_id: &NoteId) -> Result<NoteStatus> {
        Ok(self.send_step(note_id, Event::Flush).await?.status.clone())
    }

    /// Tries a failed save again.
    pub async fn retry(&self, note_id: &NoteId, tab_id: &TabId) -> Result<TabStatus> {
        let snap = self
            .send_step(
                note_id,
                Event::Retry {
                    tab_id: tab_id.clone(),
                },
            )
            .await?;
        Ok(tab_status(&snap.sync, tab_id))
    }

    /// Base, mine, theirs and the proposed merge of a tab in conflict.
    pub fn conflict(&self, note_id: &NoteId, tab_id: &TabId) -> Result<ConflictView> {
        let snap = self.snapshot(note_id)?;
        conflict_view(&snap.sync, tab_id)
    }

    pub async fn resolve_conflict(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        choice: ConflictChoice,
    ) -> Result<TabStatus> {
        let snap = self.snapshot(note_id)?;
        let cv = conflict_view(&snap.sync, tab_id)?;
        let resolution = match choice {
            ConflictChoice::TakeTheirs => Resolution::TakeTheirs,
            _ if cv.theirs.is_none() => return Err(EngineError::ChoiceUnavailable(tab_id.clone())),
            ConflictChoice::KeepMine => Resolution::KeepMine,
            ConflictChoice::Merge { choices } => {
                let merge = cv.merge.ok_or(MergeError::NotMergeable("this"))?;
                Resolution::Merged(merge.resolve(&choices)?)
            }
            ConflictChoice::Custom { content } => {
                Resolution::Merged(Content::parse(cv.mine.kind(), content)?)
            }
        };
        let now = self.inner.clock.now();
        let snap = self
            .send_step(
                note_id,
                Event::Resolve {
                    tab_id: tab_id.clone(),
                    resolution,
                    theirs_version: cv.theirs_version,
                    now,
                },
            )
            .await?;
        let still = snap.sync.drafts.get(tab_id).and_then(|d| d.theirs.as_ref());
        if let Some(t) = still
            && t.version != cv.theirs_version
        {
            return Err(EngineError::ConflictMoved {
                tab_id: tab_id.clone(),
                version: t.version,
            });
        }
        Ok(tab_status(&snap.sync, tab_id))
    }

    /// Discards the person's draft of a tab, on their explicit request: it is archived (see
    /// [`Engine::archived`]), never deleted.
    pub async fn discard_draft(&self, note_id: &NoteId, tab_id: &TabId) -> Result<TabStatus> {
        let snap = self.snapshot(note_id)?;
        if snap
            .sync
            .drafts
            .get(tab_id)
            .is_some_and(|d| d.pending.is_some())
        {
            return Err(EngineError::SaveInFlight(tab_id.clone()));
        }
        let now = self.inner.clock.now();
        let snap = self
            .send_step(
                note_id,
                Event::Discard {
                    tab_id: tab_id.clone(),
                    now,
                },
            )
            .await?;
        Ok(tab_status(&snap.sync, tab_id))
    }

    /// A structural write (create/rename/move/delete tab, title, sources, files), guarded and
    /// idempotent like every save; re-applied on the new version if the Note moved meanwhile.
    /// Returns when it committed, or `Queued` when the server cannot be reached (it is kept and
    /// retried). Ops that would throw away a draft need [`DraftPolicy::ArchiveThem`].
    pub async fn apply_ops(
        &self,
        note_id: &NoteId,
        ops: Vec<Op>,
        drafts: DraftPolicy,
    ) -> Result<WriteOutcome> {
        let snap = self.snapshot(note_id)?;
        if let Some(server) = &snap.sync.server {
            for op in &ops {
                if let Some(tab_id) = op_tab(op)
                    && server.tab(tab_id).is_none()
                    && !snap.sync.drafts.contains_key(tab_id)
                {
                    return Err(tab_gone(&snap, tab_id));
                }
            }
        }
        let doomed: Vec<TabId> = ops
            .iter()
            .filter_map(discards_draft_of)
            .filter(|t| snap.sync.drafts.contains_key(*t))
            .cloned()
            .collect();
        if !doomed.is_empty() {
            match drafts {
                DraftPolicy::Refuse => {
                    return Err(EngineError::WouldDiscardDrafts { tab_ids: doomed });
                }
                DraftPolicy::ArchiveThem => {
                    for t in &doomed {
                        self.discard_draft(note_id, t).await?;
                    }
                }
            }
        }
        self.enqueue(
            note_id,
            WriteBody::Ops { changes: ops },
            OnConflict::Reapply,
        )
        .await
    }

    /// Restores an earlier version as a new one. Tabs with drafts then show a conflict (the
    /// drafts are kept). A stale restore is returned as a conflict, not re-applied.
    pub async fn restore(&self, note_id: &NoteId, version: Version) -> Result<WriteOutcome> {
        self.enqueue(note_id, WriteBody::Restore { version }, OnConflict::Report)
            .await
    }

    async fn enqueue(
        &self,
        note_id: &NoteId,
        body: WriteBody,
        on_conflict: OnConflict,
    ) -> Result<WriteOutcome> {
        let (tx, _) = self.handle(note_id)?;
        let id = self.mint_id();
        let (reply, wait) = oneshot::channel();
        tx.send(Msg::AwaitOutgoing(id.clone(), reply))
            .map_err(|_| EngineError::Stopped)?;
        tx.send(Msg::Step(
            Event::Enqueue(Outgoing {
                id,
                body,
                key: None,
                expected_version: None,
                on_conflict,
            }),
            None,
        ))
        .map_err(|_| EngineError::Stopped)?;
        wait.await.map_err(|_| EngineError::Stopped)?
    }

    pub async fn history(&self, note_id: &NoteId) -> Result<Vec<VersionInfo>> {
        Ok(self.inner.client.history(note_id).await?)
    }

    pub async fn version(&self, note_id: &NoteId, version: Version) -> Result<Note> {
        Ok(self.inner.client.note_at(note_id, version).await?)
    }

    /// Whether agents may see the Note, and who approved or withdrew it when.
    pub async fn agent_access(&self, note_id: &NoteId) -> Result<AgentAccess> {
        Ok(self.inner.client.agent_access(note_id).await?)
    }

    /// Approves (or withdraws) the Note for agents; the answer carries the record.
    pub async fn set_agent_access(&self, note_id: &NoteId, approved: bool) -> Result<AgentAccess> {
        Ok(self
            .inner
            .client
            .set_agent_access(note_id, approved)
            .await?)
    }

    /// Every unsynced draft across all Notes, open or not.
    pub fn drafts(&self) -> Result<Vec<LedgerEntry>> {
        Ok(lock(&self.inner.local).ledger()?)
    }

    /// The drafts discarded for a Note (take theirs, explicit discards), oldest first.
    pub fn archived(&self, note_id: &NoteId) -> Result<Vec<ArchivedDraft>> {
        Ok(lock(&self.inner.local).archived(note_id)?)
    }

    /// Stops syncing a Note. Its drafts stay in the local store (and the ledger).
    pub fn close_note(&self, note_id: &NoteId) {
        let handle = lock(&self.inner.notes).remove(note_id);
        if let Some(h) = handle {
            stop(h);
        }
    }

    /// Stops every Note's tasks.
    pub fn shutdown(&self) {
        let handles: Vec<Handle> = lock(&self.inner.notes).drain().map(|(_, h)| h).collect();
        for h in handles {
            stop(h);
        }
    }
}

fn stop(h: Handle) {
    if h.tx.send(Msg::Stop).is_err() {
        tracing::debug!("note task already stopped");
    }
    for t in h.tasks {
        t.abort();
    }
}

fn short(note_id: &NoteId) -> String {
    note_id
        .as_str()
        .chars()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

fn op_tab(op: &Op) -> Option<&TabId> {
    match op {
        Op::ReplaceText { tab_id, .. }
        | Op::ReplaceTabData { tab_id, .. }
        | Op::SlideAdd { tab_id, .. }
        | Op::SlidesAddOutline { tab_id, .. }
        | Op::SheetSetRange { tab_id, .. }
        | Op::RenameTab { tab_id, .. }
        | Op::MoveTab { tab_id, .. }
        | Op::DeleteTab { tab_id }
        | Op::SetSlideLayout { tab_id, .. }
        | Op::SetTheme { tab_id, .. } => Some(tab_id),
        Op::CreateTab { .. }
        | Op::SetTitle { .. }
        | Op::AddSource { .. }
        | Op::RemoveSource { .. }
        | Op::AddFile { .. }
        | Op::RemoveFile { .. } => None,
    }
}

/// Ops that replace or remove a tab's content wholesale: they would overwrite the person's draft.
fn discards_draft_of(op: &Op) -> Option<&TabId> {
    match op {
        Op::ReplaceText { tab_id, .. }
        | Op::ReplaceTabData { tab_id, .. }
        | Op::DeleteTab { tab_id } => Some(tab_id),
        _ => None,
    }
}

fn tab_gone(snap: &Snapshot, tab_id: &TabId) -> EngineError {
    EngineError::TabGone {
        tab_id: tab_id.clone(),
        tabs: snap
            .sync
            .server
            .as_ref()
            .map(|n| {
                n.tabs
                    .iter()
                    .map(|t| TabSummary {
                        id: t.id.clone(),
                        kind: t.kind(),
                        label: t.label.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

fn conflict_view(sync: &NoteSync, tab_id: &TabId) -> Result<ConflictView> {
    let d = sync
        .drafts
        .get(tab_id)
        .ok_or_else(|| EngineError::NoConflict(tab_id.clone()))?;
    let theirs = d
        .theirs
        .as_ref()
        .ok_or_else(|| EngineError::NoConflict(tab_id.clone()))?;
    let merge = match &theirs.content {
        Some(t) => Some(TabMerge::of(&d.base, &d.mine, t)?),
        None => None,
    };
    Ok(ConflictView {
        tab_id: tab_id.clone(),
        base_version: d.base_version,
        base: d.base.clone(),
        mine: d.mine.clone(),
        theirs_version: theirs.version,
        theirs: theirs.content.clone(),
        merge,
    })
}

fn tab_status(sync: &NoteSync, tab_id: &TabId) -> TabStatus {
    let d = sync.drafts.get(tab_id);
    TabStatus {
        tab_id: tab_id.clone(),
        state: sync.tab_state(tab_id),
        last_error: d.and_then(|d| d.last_error.clone()),
        base_version: d.map(|d| d.base_version),
        theirs_version: d.and_then(|d| d.theirs.as_ref().map(|t| t.version)),
        gone: d.is_some_and(|d| d.theirs.as_ref().is_some_and(|t| t.content.is_none())),
    }
}

/// The next [`NoteStatus::seq`].
static STATUS_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn snapshot(sync: NoteSync) -> Snapshot {
    let mut ids: Vec<TabId> = sync
        .server
        .as_ref()
        .map(|n| n.tab_ids())
        .unwrap_or_default();
    for t in sync.drafts.keys() {
        if !ids.contains(t) {
            ids.push(t.clone());
        }
    }
    let status = NoteStatus {
        note_id: sync.note_id.clone(),
        seq: STATUS_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        guard: sync.guard(),
        offline: sync.is_offline(),
        settled: sync.is_settled(),
        tabs: ids.iter().map(|t| tab_status(&sync, t)).collect(),
        queued_writes: sync.outbox.len(),
        stats: sync.stats,
    };
    Snapshot { sync, status }
}

fn view(snap: &Snapshot) -> NoteView {
    let sync = &snap.sync;
    let (title, version, tabs) = match &sync.server {
        Some(n) => (n.title.clone(), n.version, n.tabs.as_slice()),
        None => (String::new(), Version(0), &[][..]),
    };
    let shown = |id: &TabId, fallback: &TabData| {
        sync.shown(id)
            .map(|c| c.0.to_value())
            .unwrap_or_else(|| fallback.to_value())
    };
    let views = tabs
        .iter()
        .map(|t| TabView {
            id: t.id.clone(),
            kind: t.kind(),
            label: t.label.clone(),
            data: shown(&t.id, &t.data),
            status: tab_status(sync, &t.id),
        })
        .collect();
    let orphan_drafts = sync
        .drafts
        .values()
        .filter(|d| !tabs.iter().any(|t| t.id == d.tab_id))
        .map(|d| TabView {
            id: d.tab_id.clone(),
            kind: d.mine.kind(),
            label: String::new(),
            data: d.mine.0.to_value(),
            status: tab_status(sync, &d.tab_id),
        })
        .collect();
    NoteView {
        note_id: sync.note_id.clone(),
        title,
        version,
        tabs: views,
        orphan_drafts,
    }
}

fn err_from_failure(f: &Failure) -> ClientError {
    match f {
        Failure::Conflict {
            current_version,
            changed_tab_ids,
        } => ClientError::Conflict {
            current_version: *current_version,
            changed_tab_ids: changed_tab_ids.clone(),
        },
        Failure::Offline(m) => ClientError::Offline(m.clone()),
        Failure::Rejected {
            status,
            code,
            message,
        } => ClientError::Server {
            status: *status,
            code: code.clone(),
            message: message.clone(),
        },
    }
}

fn failure(e: ClientError) -> Failure {
    match e {
        ClientError::Conflict {
            current_version,
            changed_tab_ids,
        } => Failure::Conflict {
            current_version,
            changed_tab_ids,
        },
        ClientError::Offline(m) => Failure::Offline(m),
        // Nothing was sent: the save waits, with its draft, until the server can be reached
        // (the settings screen says why it cannot).
        e @ (ClientError::Tls { .. } | ClientError::Setup(_)) => Failure::Offline(e.to_string()),
        ClientError::Server {
            status,
            code,
            message,
        } => Failure::Rejected {
            status,
            code,
            message,
        },
    }
}

/// The task that owns one Note's state.
async fn run_note(
    inner: Arc<Inner>,
    first: Arc<Snapshot>,
    snap_tx: watch::Sender<Arc<Snapshot>>,
    tx: mpsc::UnboundedSender<Msg>,
    mut rx: mpsc::UnboundedReceiver<Msg>,
) {
    let mut sync = first.sync.clone();
    let note_id = sync.note_id.clone();
    let mut waiters: HashMap<String, oneshot::Sender<Result<WriteOutcome>>> = HashMap::new();
    while let Some(msg) = rx.recv().await {
        let (event, reply) = match msg {
            Msg::Stop => break,
            Msg::AwaitOutgoing(id, reply) => {
                waiters.insert(id, reply);
                continue;
            }
            Msg::Step(event, reply) => (event, reply),
        };
        let mut event = Some(event);
        while let Some(ev) = event.take() {
            let (next, effects) = step(sync, ev);
            sync = next;
            event = run_effects(&inner, &note_id, &sync, effects, &tx, &mut waiters);
        }
        let snap = Arc::new(snapshot(sync.clone()));
        if inner.events.receiver_count() > 0
            && inner
                .events
                .send(EngineEvent::Status(snap.status.clone()))
                .is_err()
        {
            tracing::debug!("no subscriber for status");
        }
        snap_tx.send_replace(snap.clone());
        if let Some(reply) = reply
            && reply.send(snap).is_err()
        {
            tracing::debug!("caller stopped waiting");
        }
    }
}

/// Performs one step's effects; when the local store refuses its writes, performs none and
/// returns the event that tells the machine.
fn run_effects(
    inner: &Arc<Inner>,
    note_id: &NoteId,
    sync: &NoteSync,
    effects: Vec<Effect>,
    tx: &mpsc::UnboundedSender<Msg>,
    waiters: &mut HashMap<String, oneshot::Sender<Result<WriteOutcome>>>,
) -> Option<Event> {
    // 1. Everything to persist, in one transaction, before any request leaves.
    let persists: Vec<&Persist> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Persist(p) => Some(p),
            _ => None,
        })
        .collect();
    if let Err(e) = lock(&inner.local).apply(note_id, &persists) {
        tracing::error!(note = %note_id, error = %e, "local store write failed; not sending");
        publish(
            inner,
            EngineEvent::LocalStoreFailed {
                note_id: note_id.clone(),
                message: e.to_string(),
            },
        );
        return Some(Event::LocalStoreFailed { dropped: effects });
    }
    // 2. The rest, in order.
    for effect in effects {
        match effect {
            Effect::Persist(_) => {}
            Effect::Send(send) => {
                tracing::debug!(
                    note = %note_id, key = %send.key, expected = %send.expected_version,
                    "save sent"
                );
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    let res = match &send.body {
                        WriteBody::Ops { changes } => {
                            client
                                .patch(&note, send.expected_version, changes, Some(&send.key))
                                .await
                        }
                        WriteBody::Restore { version } => {
                            client
                                .restore(&note, *version, send.expected_version, Some(&send.key))
                                .await
                        }
                    };
                    let ev = match res {
                        Ok(r) => {
                            tracing::debug!(
                                %note, key = %send.key, version = %r.version,
                                replayed = r.replayed, "save answered"
                            );
                            Event::SaveSucceeded(Box::new(r))
                        }
                        Err(e) => {
                            tracing::debug!(%note, key = %send.key, error = %e, "save failed");
                            Event::SaveFailed(failure(e))
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::Fetch => {
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    let ev = match client.get_note(&note).await {
                        Ok(n) => {
                            tracing::debug!(%note, version = %n.note.version, "fetched");
                            Event::Fetched(Box::new(n.note))
                        }
                        Err(e) => {
                            tracing::debug!(%note, error = %e, "fetch failed");
                            Event::FetchFailed(failure(e))
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::FetchVersion(version) => {
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    let ev = match client.note_at(&note, version).await {
                        Ok(n) => Event::VersionFetched(Box::new(n)),
                        Err(e) => {
                            tracing::debug!(%note, %version, error = %e, "version fetch failed");
                            Event::VersionFetchFailed {
                                version,
                                failure: failure(e),
                            }
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::StartTimer {
                timer,
                generation,
                after,
            } => {
                let tx = tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    if tx
                        .send(Msg::Step(Event::TimerFired { timer, generation }, None))
                        .is_err()
                    {
                        tracing::debug!("note task stopped before the timer");
                    }
                });
            }
            Effect::Notify(notice) => notify(inner, note_id, sync, notice, waiters),
        }
    }
    // Structural writes waiting while offline come back as queued.
    if sync.is_offline() {
        let queued: Vec<String> = waiters
            .keys()
            .filter(|id| sync.outbox.iter().any(|o| &o.id == *id))
            .cloned()
            .collect();
        for id in queued {
            if let Some(w) = waiters.remove(&id)
                && w.send(Ok(WriteOutcome::Queued { id })).is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
    }
    None
}

fn publish(inner: &Inner, event: EngineEvent) {
    if inner.events.receiver_count() > 0 && inner.events.send(event).is_err() {
        tracing::debug!("no subscriber");
    }
}

fn notify(
    inner: &Inner,
    note_id: &NoteId,
    _sync: &NoteSync,
    notice: Notice,
    waiters: &mut HashMap<String, oneshot::Sender<Result<WriteOutcome>>>,
) {
    match notice {
        Notice::RemoteApplied { tab_ids } => publish(
            inner,
            EngineEvent::RemoteApplied {
                note_id: note_id.clone(),
                tab_ids,
            },
        ),
        Notice::ConflictShown { tab_id } => publish(
            inner,
            EngineEvent::ConflictShown {
                note_id: note_id.clone(),
                tab_id,
            },
        ),
        Notice::TabSaved {
            tab_id,
            version,
            replayed,
        } => publish(
            inner,
            EngineEvent::Saved {
                note_id: note_id.clone(),
                tab_id,
                version,
                replayed,
            },
        ),
        Notice::Rebased { tab_id, version } => {
            tracing::debug!(note = %note_id, tab = %tab_id, %version, "re-applied on a new version");
        }
        Notice::OutgoingDone { id, result } => {
            if let Some(w) = waiters.remove(&id)
                && w.send(Ok(WriteOutcome::Committed { result: *result }))
                    .is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
        Notice::OutgoingFailed { id, failure } => {
            if let Some(w) = waiters.remove(&id)
                && w.send(Err(EngineError::Client(err_from_failure(&failure))))
                    .is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
    }
}

/// Follows the Note's event stream; reconnects with backoff. Every (re)connect asks for a poll,
/// so writes made while the stream was down are picked up; while it is down, each attempt
/// polls.
async fn follow_events(
    client: Client,
    note_id: NoteId,
    tx: mpsc::UnboundedSender<Msg>,
    timing: machine::Config,
) {
    let mut attempt: u32 = 0;
    loop {
        match client.events(&note_id).await {
            Ok(stream) => {
                attempt = 0;
                if tx.send(Msg::Step(Event::Poll, None)).is_err() {
                    return;
                }
                let mut stream = std::pin::pin!(stream);
                while let Some(item) = stream.next().await {
                    let version = match item {
                        Ok(ServerEvent::Hello { version }) => version,
                        Ok(ServerEvent::Write(w)) => w.version,
                        Err(_) => break,
                    };
                    if tx.send(Msg::Step(Event::Remote { version }, None)).is_err() {
                        return;
                    }
                }
            }
            Err(e) => tracing::debug!(note = %note_id, error = %e, "event stream unavailable"),
        }
        // No stream: poll instead, so remote writes still arrive.
        if tx.send(Msg::Step(Event::StreamDown, None)).is_err() {
            return;
        }
        attempt = attempt.saturating_add(1);
        tokio::time::sleep(timing.backoff(attempt)).await;
        if tx.is_closed() {
            return;
        }
    }
}
