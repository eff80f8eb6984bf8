//! The async driver: runs the pure machine for each open Note, owns the client and the local
//! store, performs the effects, and exposes the API the Tauri commands call.
//!
//! One task per open Note owns its [`NoteSync`] and a mailbox; everything that happens to the
//! Note (an edit, a timer, an HTTP answer, an event from the server) is a message, turned into
//! a [`step`](crate::machine::step); the effects of a step are persisted in one local
//! transaction *before* any request they ask for leaves. Readers see the latest state through a
//! `watch` channel.
//!
//! The machine decides, the engine performs: nothing here judges a save, a conflict or a retry.
//! Here: [`Engine`], the API; `types` what it takes and gives; `actor` the task of one Note;
//! `follower` the server's event stream; `views` snapshots, views and conflicts.

mod actor;
mod follower;
mod types;
mod views;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quire_api::{AgentAccess, Clock, SearchHit, TrashedNote, VersionInfo, WriteResult};
use quire_model::{Note, NoteId, NoteSummary, Op, TabData, TabId, Version};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use url::Url;

use crate::client::{Client, ClientError, ServerIdentity};
use crate::content::{Content, splice_utf16};
use crate::local::{ArchivedDraft, LedgerEntry, LocalStore};
use crate::machine::{self, BaseAt, Event, NoteSync, OnConflict, Outgoing, Resolution, WriteBody};
use crate::merge::{ClashChoice, MergeError, MergePreview};

pub use types::*;
use views::{ViewData, conflict_view, snapshot, tab_gone, tab_status, view, view_with};

/// The server's code for a write refused because the Note is in the trash.
pub const NOTE_IN_TRASH: &str = "note_in_trash";

/// How long the person's delete waits for an open Note's saves to go out first.
const SAVES_BEFORE_TRASH: Duration = Duration::from_secs(10);

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
    /// For each tab edited through [`Engine::hand_over`], the Markdown text handed over last and
    /// its token: what the editor's next change is made on.
    handed: Mutex<HashMap<(NoteId, TabId), Handed>>,
}

/// A text an editor handed over: its token, and the text.
type Handed = (u64, Arc<TabData>);

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
                handed: Mutex::new(HashMap::new()),
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

    /// The server's full-text search: the `limit` tabs that match `q` best.
    pub async fn search(&self, q: &str, limit: usize) -> Result<Vec<SearchHit>> {
        Ok(self.inner.client.search(q, limit).await?)
    }

    /// The Notes that link to `id` ([`Client::backlinks`]).
    pub async fn backlinks(&self, id: &NoteId) -> Result<Vec<quire_api::Backlink>> {
        Ok(self.inner.client.backlinks(id).await?)
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
        Ok(view(&*self.opened(note_id).await?))
    }

    /// [`Engine::open_note`], with the data of every tab not larger than [`DEFER_OVER_BYTES`]
    /// and of the larger ones in `showing` (the tab the person is about to see, and any the
    /// caller knows changed; the first tab when none of them is in the Note) except texts; the
    /// others come `deferred`, to be read apart (a text in parts, [`Engine::text_part`]).
    pub async fn open_note_showing(&self, note_id: &NoteId, showing: &[TabId]) -> Result<NoteView> {
        let snap = self.opened(note_id).await?;
        Ok(view_with(&snap, ViewData::Showing(showing)))
    }

    async fn opened(&self, note_id: &NoteId) -> Result<Arc<Snapshot>> {
        let opened = self.wait_opened(note_id).await;
        if opened.is_err() {
            self.close_note(note_id);
        }
        opened
    }

    async fn wait_opened(&self, note_id: &NoteId) -> Result<Arc<Snapshot>> {
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
                return Err(EngineError::Client(actor::err_from_failure(&err)));
            }
            if rx.changed().await.is_err() {
                return Err(EngineError::Stopped);
            }
        };
        Ok(snap)
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
        let (reconnect_tx, reconnect_rx) = mpsc::unbounded_channel();
        let actor = tokio::spawn(actor::run_note(
            self.inner.clone(),
            snap,
            snap_tx,
            tx.clone(),
            rx,
            reconnect_tx,
        ));
        let events = tokio::spawn(follower::follow_events(
            self.inner.client.clone(),
            note_id.clone(),
            tx.clone(),
            reconnect_rx,
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
        views::tab_view(&snap, tab_id).ok_or_else(|| tab_gone(&snap, tab_id))
    }

    /// Rows `start..start + count` of one sheet of a sheet tab, as the person sees it: a
    /// `deferred` sheet tab read in parts (at most [`SHEET_ROWS_MAX`] rows a call).
    pub fn sheet_rows(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        sheet_id: &str,
        start: usize,
        count: usize,
    ) -> Result<SheetRows> {
        let snap = self.snapshot(note_id)?;
        views::sheet_rows(&snap, tab_id, sheet_id, start, count.min(SHEET_ROWS_MAX))
    }

    /// Bytes `start..start + max_bytes` (at most [`TEXT_PART_MAX`]) of a Markdown tab's text,
    /// each end moved back to a character boundary, at least one character, as the person sees
    /// it: a `deferred` text read in parts (parts asked for at multiples of one size follow one
    /// another exactly).
    pub fn text_part(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        start: usize,
        max_bytes: usize,
    ) -> Result<TextPart> {
        let snap = self.snapshot(note_id)?;
        views::text_part(&snap, tab_id, start, max_bytes.min(TEXT_PART_MAX))
    }

    /// The person's edit: the tab's whole new content (`data` in the tab's wire shape).
    pub async fn edit_tab(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        data: Value,
    ) -> Result<TabStatus> {
        let content = self.parse_edit(note_id, tab_id, data)?;
        self.edit_content(note_id, tab_id, content).await
    }

    async fn edit_content(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        content: Content,
    ) -> Result<TabStatus> {
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
        self.edit_content_on(note_id, tab_id, content, base_version)
            .await
    }

    async fn edit_content_on(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        content: Content,
        base_version: Version,
    ) -> Result<TabStatus> {
        // The ancestor the machine judges it on (see `NoteSync::own_saved`).
        let snap = self.snapshot(note_id)?;
        let ancestor = base_version.max(snap.sync.own_saved(tab_id));
        // That version's content of the tab: at hand when the draft or the Note held is at it
        // (every keystroke of a person alone), else as the local store kept it.
        let draft = snap.sync.drafts.get(tab_id);
        let held = snap.sync.server.as_ref().filter(|n| n.version == ancestor);
        let base = if let Some(d) = draft.filter(|d| d.base_version == ancestor && !d.base_missing)
        {
            BaseAt::Known(d.base.clone())
        } else if let Some(note) = held {
            note.tab(tab_id).map_or(BaseAt::Absent, |t| {
                BaseAt::Known(Content::new(t.data.clone()))
            })
        } else {
            lock(&self.inner.local)
                .tab_at(note_id, tab_id, ancestor)
                .unwrap_or_else(|e| {
                    tracing::warn!(note = %note_id, error = %e, "local store read failed");
                    BaseAt::Unknown
                })
        };
        drop(snap);
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

    /// The person's edit as an editor hands it over: the tab's whole content, or (a Markdown
    /// text) what changed since the text this editor handed over last, named by the token that
    /// hand-over returned, so a keystroke in a 10 MiB text does not carry the text. The edit is
    /// then the editor's whole new text, taken as [`Engine::edit_tab`] (or, with
    /// `base_version`, [`Engine::edit_tab_on`]) takes it. A change on anything else (an older
    /// token, a range not in that text) is refused with nothing taken
    /// ([`EngineError::ChangeRefused`]): the editor then hands the whole text over.
    pub async fn hand_over(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        edit: HandOver,
        base_version: Option<Version>,
    ) -> Result<Taken> {
        let key = (note_id.clone(), tab_id.clone());
        let content = match edit {
            HandOver::Whole(data) => self.parse_edit(note_id, tab_id, data)?,
            HandOver::Change(change) => {
                let handed = lock(&self.inner.handed).get(&key).cloned();
                let text = match handed {
                    Some((token, text)) if token == change.after => text,
                    _ => {
                        return Err(EngineError::ChangeRefused(
                            "not made on the text this editor handed over last",
                        ));
                    }
                };
                let TabData::Markdown(text) = &*text else {
                    return Err(EngineError::ChangeRefused("not a text"));
                };
                let new = splice_utf16(text, change.at, change.removed, &change.insert)
                    .ok_or(EngineError::ChangeRefused("a range outside the text"))?;
                Content::new(TabData::Markdown(new))
            }
        };
        let taken = content.0.clone();
        let status = match base_version {
            Some(base) => self.edit_content_on(note_id, tab_id, content, base).await?,
            None => self.edit_content(note_id, tab_id, content).await?,
        };
        let token = self
            .inner
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut handed = lock(&self.inner.handed);
        if matches!(*taken, TabData::Markdown(_)) {
            handed.insert(key, (token, taken));
        } else {
            handed.remove(&key);
        }
        Ok(Taken { status, token })
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

    /// What [`Engine::resolve_conflict`] with `Merge` would save for the person's picks so far
    /// (one per clash, `None` while undecided), from the conflict the engine holds: no network,
    /// nothing written.
    pub fn preview_resolution(
        &self,
        note_id: &NoteId,
        tab_id: &TabId,
        picks: &[Option<ClashChoice>],
    ) -> Result<MergePreview> {
        let snap = self.snapshot(note_id)?;
        let cv = conflict_view(&snap.sync, tab_id)?;
        let merge = cv
            .merge
            .ok_or_else(|| EngineError::ChoiceUnavailable(tab_id.clone()))?;
        Ok(merge.preview(picks)?)
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
                if let Some(tab_id) = op.tab_id()
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

    /// Takes back what `version` changed, as a new version the server merges into the Note it
    /// holds (every later change elsewhere kept). Guarded like every write; refused as stale,
    /// it is sent again on the new version, since what it takes back does not depend on the
    /// version it was asked on. It never overwrites a draft: the Note is read back, and a tab
    /// whose draft the revert changed under it shows a conflict (the draft kept). A clash with
    /// later writes is [`EngineError::RevertConflict`], naming the tabs by label; nothing is
    /// written.
    pub async fn revert(&self, note_id: &NoteId, version: Version) -> Result<WriteOutcome> {
        let outcome = self
            .enqueue(note_id, WriteBody::Revert { version }, OnConflict::Reapply)
            .await;
        match outcome {
            Err(EngineError::Client(ClientError::RevertConflict { tab_ids, .. })) => {
                // The clash is with the server's Note now: its labels name the tabs (the ones
                // this app last read if it cannot be read).
                let now = match self.inner.client.get_note(note_id).await {
                    Ok(stored) => Some(stored.note),
                    Err(e) => {
                        tracing::debug!(note = %note_id, error = %e, "labels of a revert's clash");
                        self.snapshot(note_id)?.sync.server.as_deref().cloned()
                    }
                };
                let tabs = tab_ids
                    .iter()
                    .filter_map(|id| now.as_ref()?.tab(id))
                    .map(|t| TabSummary {
                        id: t.id.clone(),
                        kind: t.kind(),
                        label: t.label.clone(),
                    })
                    .collect();
                Err(EngineError::RevertConflict { version, tabs })
            }
            other => other,
        }
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

    /// The Notes open now (in no particular order).
    pub fn open_notes(&self) -> Vec<NoteId> {
        lock(&self.inner.notes).keys().cloned().collect()
    }

    /// Sends an open Note's waiting saves now and waits (a while) until nothing is left to send
    /// or in flight, so the server holds what the person sees: before a move into the trash or
    /// an export. A save that cannot go out (offline, refused) stays a draft: false then (and
    /// after the wait), true once settled. A Note that is not open has nothing waiting: true.
    pub async fn send_saves(&self, note_id: &NoteId) -> Result<bool> {
        if self.snapshot(note_id).is_err() {
            return Ok(true);
        }
        self.flush(note_id).await?;
        let sent = self
            .wait_until(note_id, SAVES_BEFORE_TRASH, "saves sent", |s| {
                s.status.settled
            })
            .await;
        Ok(sent.is_ok_and(|s| {
            s.status
                .tabs
                .iter()
                .all(|t| matches!(t.state, machine::TabState::Clean | machine::TabState::Saved))
        }))
    }

    /// Moves the Note into the trash: an open Note's waiting saves go out first, then the trash
    /// is asked for at the version the server holds then (a move into the trash keeps every
    /// content, so it is the one write made on the newest version rather than the one shown).
    /// A draft the trash refuses (`note_in_trash`) stays a draft, with that error, until the
    /// Note is restored.
    pub async fn trash_note(&self, note_id: &NoteId) -> Result<TrashedNote> {
        if !self.send_saves(note_id).await? {
            tracing::info!(note = %note_id, "trashing with drafts unsent");
        }
        let mut attempts = 0;
        loop {
            let version = self.inner.client.get_note(note_id).await?.note.version;
            match self.inner.client.trash(note_id, version).await {
                // Written meanwhile (a save, an agent): the move keeps every content, so it
                // goes on the newer version.
                Err(ClientError::Conflict { .. }) if attempts < 3 => attempts += 1,
                other => return Ok(other?),
            }
        }
    }

    /// Brings the Note back out of the trash; an open Note's drafts the trash refused are sent
    /// again.
    pub async fn undelete_note(&self, note_id: &NoteId) -> Result<WriteResult> {
        let version = self.inner.client.get_note(note_id).await?.note.version;
        let result = self.inner.client.undelete(note_id, version).await?;
        if let Ok(snap) = self.snapshot(note_id) {
            let refused: Vec<TabId> = snap
                .sync
                .drafts
                .values()
                .filter(|d| {
                    d.last_error
                        .as_ref()
                        .is_some_and(|e| e.code == NOTE_IN_TRASH)
                })
                .map(|d| d.tab_id.clone())
                .collect();
            for tab_id in refused {
                self.retry(note_id, &tab_id).await?;
            }
        }
        Ok(result)
    }

    /// The Notes in the trash, most recently trashed first.
    pub async fn list_trash(&self) -> Result<Vec<NoteSummary>> {
        Ok(self.inner.client.list_trash().await?)
    }

    /// Erases the Notes in the trash for good (closing any of them open here); their IDs.
    pub async fn empty_trash(&self) -> Result<Vec<NoteId>> {
        let erased = self.inner.client.empty_trash().await?;
        for id in &erased {
            self.close_note(id);
        }
        Ok(erased)
    }

    pub async fn history(&self, note_id: &NoteId) -> Result<Vec<VersionInfo>> {
        Ok(self.inner.client.history(note_id).await?)
    }

    /// One page of the history (the newest `limit` versions before `before`, oldest first):
    /// what the versions panel and the change marks read, so a long history costs a page.
    pub async fn history_page(
        &self,
        note_id: &NoteId,
        before: Option<Version>,
        limit: usize,
    ) -> Result<Vec<VersionInfo>> {
        Ok(self
            .inner
            .client
            .history_page(note_id, before, limit)
            .await?)
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
        lock(&self.inner.handed).retain(|(note, _), _| note != note_id);
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

/// Ops that replace or remove a tab's content wholesale: they would overwrite the person's draft.
fn discards_draft_of(op: &Op) -> Option<&TabId> {
    match op {
        Op::ReplaceText { tab_id, .. }
        | Op::ReplaceTabData { tab_id, .. }
        | Op::DeleteTab { tab_id } => Some(tab_id),
        _ => None,
    }
}
