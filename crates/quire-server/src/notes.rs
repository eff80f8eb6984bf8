//! The application core every transport calls: scopes, agent approval, the guarded write and
//! the event feed. REST handlers and MCP tools are adapters over these functions.

use std::collections::VecDeque;
use std::sync::Arc;

use quire_api::{
    AgentAccess, Backlink, Clock, NoteMeta, Scope, SearchHit, StoredNote, VersionInfo, WriteEvent,
    WriteResult,
};
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, Timestamp, Version};
use quire_store::search::{QueryError, SearchQuery, SearchScope};
use quire_store::{Change, NewNote, Store, StoreError, TokenRecord, WriteRequest};
use tokio::sync::broadcast;

pub mod trash;

/// The most tabs one backlinks answer reads from the index (a Note linked from more shows the
/// first ones).
pub const MAX_BACKLINKS: usize = 500;

/// Who is calling: the token's name (the author in history), its scopes, whose it is, and
/// which token it is (what per-token limits count).
#[derive(Debug, Clone)]
pub struct Caller {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub token_id: i64,
    pub kind: AuthorKind,
}

impl From<TokenRecord> for Caller {
    fn from(t: TokenRecord) -> Self {
        Caller {
            name: t.name,
            scopes: t.scopes,
            token_id: t.id,
            kind: t.kind,
        }
    }
}

impl Caller {
    /// Who a call through `channel` acts as: the person only with the person's token on the
    /// person's door; every call through MCP is the agent's, whoever's token it carries. An
    /// agent sees only the Notes the person approved, and its writes are the agent's in history.
    pub fn acts_as(&self, channel: Channel) -> AuthorKind {
        match (self.kind, channel) {
            (AuthorKind::Person, Channel::App) => AuthorKind::Person,
            _ => AuthorKind::Agent,
        }
    }
}

/// Which door a call came through: the person's app (REST) or an agent's connector (MCP).
/// Together with the token's kind it decides who the call acts as ([`Caller::acts_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    App,
    Agent,
}

#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    #[error("this token lacks the {} scope", .0.as_str())]
    MissingScope(Scope),
    /// Only the person decides what agents may see.
    #[error(
        "this is an agent's token: only the person's token may see or change a Note's agent access"
    )]
    PersonOnly,
    /// A search query without a word to search for.
    #[error(transparent)]
    EmptyQuery(#[from] QueryError),
    /// Version 1 made the Note: nothing comes before it to go back to.
    #[error(
        "version 1 made the note: there is nothing before it to go back to (delete the note instead)"
    )]
    RevertFirst,
    /// Later writes changed what the version changed.
    #[error(transparent)]
    RevertConflict(#[from] quire_model::RevertConflict),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T, E = NotesError> = std::result::Result<T, E>;

#[derive(Clone)]
pub struct Notes {
    store: Arc<dyn Store>,
    events: broadcast::Sender<WriteEvent>,
    clock: Arc<dyn Clock>,
}

impl Notes {
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        let (events, _) = broadcast::channel(1024);
        Notes {
            store,
            events,
            clock,
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The time now, by this server's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Every accepted write from now on, of every Note, as published (a lagging receiver loses
    /// events, and concurrent writers may publish out of version order). Prefer [`Notes::watch`].
    pub fn subscribe(&self) -> broadcast::Receiver<WriteEvent> {
        self.events.subscribe()
    }

    /// Announces a write committed by another server on the same database to this server's
    /// subscribers (event streams), as if it had been accepted here.
    pub fn publish(&self, event: WriteEvent) {
        if self.events.send(event).is_err() {
            tracing::trace!("a write announced with nobody listening");
        }
    }

    /// The writes to one Note, gap-free and in version order: every version after `since` (or,
    /// without it, after the current version), for as long as the feed is polled. Returns the
    /// current version with the feed, so a client can tell what it missed while away.
    pub async fn watch(
        &self,
        caller: &Caller,
        id: &NoteId,
        channel: Channel,
        since: Option<Version>,
    ) -> Result<(Version, NoteFeed)> {
        // Subscribe before reading the version: a write committed after the read is announced
        // to this receiver; one committed before it is covered by the version (or by history).
        let rx = self.events.subscribe();
        let current = self.get_note(caller, id, channel).await?.note.version;
        let last = since.filter(|v| *v < current).unwrap_or(current);
        let mut feed = NoteFeed {
            store: self.store.clone(),
            note_id: id.clone(),
            rx,
            last,
            backlog: VecDeque::new(),
        };
        if last < current {
            feed.catch_up().await?;
        }
        Ok((current, feed))
    }

    pub async fn create_note(
        &self,
        caller: &Caller,
        channel: Channel,
        title: String,
        idempotency_key: Option<String>,
    ) -> Result<(StoredNote, bool)> {
        require(caller, Scope::NotesWrite)?;
        let now = self.clock.now();
        let id = NoteId::from_uuid(uuid::Uuid::now_v7());
        let created = self
            .store
            .create_note(NewNote {
                id,
                title,
                author: caller.name.clone(),
                author_kind: caller.acts_as(channel),
                now,
                idempotency_key,
            })
            .await?;
        Ok(created)
    }

    /// A Note an agent makes (MCP `create_note`): approved for agents as it is made, so its
    /// maker sees it, and in the person's list at once. The key is the token's (creation keys
    /// are scoped to the author, the token's name): a resend returns the same Note, and does not
    /// approve it again if the person withdrew it since.
    pub async fn create_note_for_agent(
        &self,
        caller: &Caller,
        title: String,
        idempotency_key: String,
    ) -> Result<(StoredNote, bool)> {
        let (created, replayed) = self
            .create_note(caller, Channel::Agent, title, Some(idempotency_key))
            .await?;
        if replayed {
            // As the agent would read it now: refused if it may not see it.
            let stored = self
                .get_note(caller, &created.note.id, Channel::Agent)
                .await?;
            return Ok((stored, true));
        }
        let now = self.clock.now();
        let meta = (self.store)
            .set_agent_access(&created.note.id, true, &caller.name, now)
            .await?;
        Ok((StoredNote { meta, ..created }, false))
    }

    pub async fn list_notes(&self, caller: &Caller, channel: Channel) -> Result<Vec<NoteSummary>> {
        require(caller, Scope::NotesRead)?;
        let mut notes = self.store.list_notes().await?;
        if caller.acts_as(channel) == AuthorKind::Agent {
            notes.retain(|n| n.agent_access);
        }
        Ok(notes)
    }

    /// The `limit` tabs matching `q` best (see [`quire_store::search`]); an agent finds only
    /// the Notes the person approved. The caller bounds `limit`.
    pub async fn search(
        &self,
        caller: &Caller,
        channel: Channel,
        q: &str,
        limit: usize,
    ) -> Result<Vec<SearchHit>> {
        require(caller, Scope::NotesRead)?;
        let query = SearchQuery::parse(q)?;
        let scope = match caller.acts_as(channel) {
            AuthorKind::Person => SearchScope::AllNotes,
            AuthorKind::Agent => SearchScope::AgentApproved,
        };
        Ok(self.store.search(&query, limit, scope).await?)
    }

    /// The Notes that link to `id` (`[title](quire:note/ID)`), each once, by title; the Note
    /// itself and Notes in the trash left out, and for an agent only the approved ones. Found
    /// through the full-text index, which every write updates in its own transaction: the
    /// link's target reads as the phrase "quire note" and the ID's five groups, which nothing
    /// but a link to this Note holds. At most [`MAX_BACKLINKS`].
    pub async fn backlinks(
        &self,
        caller: &Caller,
        channel: Channel,
        id: &NoteId,
    ) -> Result<Vec<Backlink>> {
        require(caller, Scope::NotesRead)?;
        self.check_visible(caller, id, channel).await?;
        let query = SearchQuery::parse(&format!("\"{}\"", quire_api::note_link(id)))?;
        let scope = match caller.acts_as(channel) {
            AuthorKind::Person => SearchScope::AllNotes,
            AuthorKind::Agent => SearchScope::AgentApproved,
        };
        let hits = self.store.search(&query, MAX_BACKLINKS, scope).await?;
        let mut found: Vec<Backlink> = Vec::new();
        for hit in hits {
            if hit.note_id != *id && !found.iter().any(|b| b.note_id == hit.note_id) {
                found.push(Backlink {
                    note_id: hit.note_id,
                    title: hit.title,
                });
            }
        }
        found.sort_by(|a, b| a.title.cmp(&b.title).then(a.note_id.cmp(&b.note_id)));
        Ok(found)
    }

    pub async fn get_note(
        &self,
        caller: &Caller,
        id: &NoteId,
        channel: Channel,
    ) -> Result<StoredNote> {
        require(caller, Scope::NotesRead)?;
        // A Note an agent may not see is refused from its metadata, before its content is
        // read: the answer takes as long as for a Note that does not exist.
        if caller.acts_as(channel) == AuthorKind::Agent {
            self.check_visible(caller, id, channel).await?;
        }
        let note = self.store.get_note(id).await?;
        // The approval may have been withdrawn meanwhile.
        visible(caller, &note.meta, id, channel)?;
        Ok(note)
    }

    /// The guarded write, for both the person and the agent. Publishes an event when a new
    /// version was committed (not for replays or no-op writes).
    pub async fn write(
        &self,
        caller: &Caller,
        channel: Channel,
        note_id: NoteId,
        expected_version: Version,
        idempotency_key: Option<String>,
        change: Change,
    ) -> Result<WriteResult> {
        require(caller, Scope::NotesWrite)?;
        let author_kind = caller.acts_as(channel);
        let now = self.clock.now();
        let req = WriteRequest {
            note_id,
            expected_version,
            idempotency_key,
            author: caller.name.clone(),
            author_kind,
            change,
            now,
        };
        // The agent's write reaches only Notes the person approved and did not trash, checked
        // in the write itself: a Note withdrawn a moment before is as missing as any other.
        let result = match author_kind {
            AuthorKind::Agent => self.store.write_as_agent(req).await,
            AuthorKind::Person => self.store.write(req).await,
        }
        .map_err(|e| match e {
            // A store that checks before it writes may find it trashed in between.
            StoreError::NoteInTrash(id) if author_kind == AuthorKind::Agent => {
                StoreError::NoteNotFound(id)
            }
            e => e,
        })?;
        if !result.replayed && result.version > expected_version {
            // A receiver-less channel is fine: nobody is listening yet.
            let _receivers = self.events.send(WriteEvent {
                note_id: result.note_id.clone(),
                version: result.version,
                author: caller.name.clone(),
                changed_tab_ids: result.changed_tab_ids.clone(),
                at: now.to_rfc3339(),
            });
        }
        Ok(result)
    }

    /// Takes back what version `version` changed, keeping every later change elsewhere: the
    /// revert is computed from the Note at `expected_version` (so a resend computes the same
    /// write) and committed on it as a guarded write, refused as stale if the Note moved on.
    #[allow(clippy::too_many_arguments)]
    pub async fn revert(
        &self,
        caller: &Caller,
        channel: Channel,
        note_id: NoteId,
        version: Version,
        expected_version: Version,
        idempotency_key: Option<String>,
    ) -> Result<WriteResult> {
        require(caller, Scope::NotesWrite)?;
        self.check_visible(caller, &note_id, channel).await?;
        let at = self.store.note_at(&note_id, version).await?;
        if version.0 < 2 {
            return Err(NotesError::RevertFirst);
        }
        let before = self.store.note_at(&note_id, Version(version.0 - 1)).await?;
        let current = self.store.get_note(&note_id).await?.note;
        let stale = expected_version < current.version;
        let now = if stale {
            self.store.note_at(&note_id, expected_version).await?
        } else {
            current
        };
        let reverted = match quire_model::revert(&before, &at, &now) {
            Ok(reverted) => reverted,
            // Stale first: the store answers as for any write sent on an old version (a resend
            // of a revert that was made never clashes: it computes the same merge again).
            Err(_) if stale => Note::clone(&now),
            Err(clash) => return Err(clash.into()),
        };
        let change = Change::Revert {
            version,
            note: Box::new(reverted),
        };
        self.write(
            caller,
            channel,
            note_id,
            expected_version,
            idempotency_key,
            change,
        )
        .await
    }

    pub async fn history(
        &self,
        caller: &Caller,
        id: &NoteId,
        channel: Channel,
    ) -> Result<Vec<VersionInfo>> {
        require(caller, Scope::NotesRead)?;
        self.check_visible(caller, id, channel).await?;
        Ok(self.store.history(id).await?)
    }

    /// One page of the history: the newest `limit` versions before `before`, oldest first.
    pub async fn history_page(
        &self,
        caller: &Caller,
        id: &NoteId,
        before: Option<Version>,
        limit: usize,
        channel: Channel,
    ) -> Result<Vec<VersionInfo>> {
        require(caller, Scope::NotesRead)?;
        self.check_visible(caller, id, channel).await?;
        Ok(self.store.history_page(id, before, limit).await?)
    }

    pub async fn note_at(
        &self,
        caller: &Caller,
        id: &NoteId,
        version: Version,
        channel: Channel,
    ) -> Result<Note> {
        require(caller, Scope::NotesRead)?;
        self.check_visible(caller, id, channel).await?;
        Ok(self.store.note_at(id, version).await?)
    }

    /// The Note exists and this caller may see it through `channel`; reads its metadata only,
    /// never its tabs.
    async fn check_visible(&self, caller: &Caller, id: &NoteId, channel: Channel) -> Result<()> {
        let meta = self.store.note_meta(id).await?;
        visible(caller, &meta, id, channel)
    }

    /// The person approves (or withdraws) a Note for agents, recorded with their name and the
    /// time. Only the person's token, on the person's door, may.
    pub async fn set_agent_access(
        &self,
        caller: &Caller,
        channel: Channel,
        id: &NoteId,
        approved: bool,
    ) -> Result<AgentAccess> {
        require(caller, Scope::NotesWrite)?;
        if caller.acts_as(channel) != AuthorKind::Person {
            return Err(NotesError::PersonOnly);
        }
        let now = self.clock.now();
        let meta = self
            .store
            .set_agent_access(id, approved, &caller.name, now)
            .await?;
        let changes = self.store.agent_access_changes(id).await?;
        Ok(AgentAccess {
            id: id.clone(),
            meta,
            changes,
        })
    }

    /// Whether agents may see the Note, and who approved or withdrew it when. The person's.
    pub async fn agent_access(
        &self,
        caller: &Caller,
        channel: Channel,
        id: &NoteId,
    ) -> Result<AgentAccess> {
        require(caller, Scope::NotesRead)?;
        if caller.acts_as(channel) != AuthorKind::Person {
            return Err(NotesError::PersonOnly);
        }
        let meta = self.store.note_meta(id).await?;
        let changes = self.store.agent_access_changes(id).await?;
        Ok(AgentAccess {
            id: id.clone(),
            meta,
            changes,
        })
    }
}

/// One subscriber's view of one Note's writes (see [`Notes::watch`]). Events arrive from the
/// broadcast; a gap (a lagging receiver, or writers publishing out of order) is filled from the
/// Note's history, so nothing accepted while the feed is alive is skipped.
pub struct NoteFeed {
    store: Arc<dyn Store>,
    note_id: NoteId,
    rx: broadcast::Receiver<WriteEvent>,
    /// The last version handed out.
    last: Version,
    backlog: VecDeque<WriteEvent>,
}

impl NoteFeed {
    /// The next write, in version order. `None` once the server stops publishing.
    pub async fn next(&mut self) -> Result<Option<WriteEvent>> {
        loop {
            if let Some(event) = self.backlog.pop_front() {
                self.last = event.version;
                return Ok(Some(event));
            }
            match self.rx.recv().await {
                Ok(event) if event.note_id != self.note_id || event.version <= self.last => {}
                Ok(event) if event.version == self.last.next() => {
                    self.last = event.version;
                    return Ok(Some(event));
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.catch_up().await?,
                Err(broadcast::error::RecvError::Closed) => return Ok(None),
            }
        }
    }

    /// Queues every version after the last one handed out, from history.
    async fn catch_up(&mut self) -> Result<()> {
        let history = self.store.history(&self.note_id).await?;
        let last = self.last;
        self.backlog.extend(
            history
                .into_iter()
                .filter(|v| v.version > last)
                .map(|v| WriteEvent {
                    note_id: self.note_id.clone(),
                    version: v.version,
                    author: v.author,
                    changed_tab_ids: v.changed_tab_ids,
                    at: v.created_at,
                }),
        );
        Ok(())
    }
}

fn require(caller: &Caller, scope: Scope) -> Result<()> {
    if caller.scopes.contains(&scope) {
        Ok(())
    } else {
        Err(NotesError::MissingScope(scope))
    }
}

/// An agent sees only the Notes the person approved and that are not in the trash: any other
/// is indistinguishable from a missing one.
fn visible(caller: &Caller, meta: &NoteMeta, id: &NoteId, channel: Channel) -> Result<()> {
    if caller.acts_as(channel) == AuthorKind::Agent
        && (!meta.agent_access || meta.deleted_at.is_some())
    {
        return Err(StoreError::NoteNotFound(id.clone()).into());
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use quire_model::{Op, TabId, Timestamp};
    use quire_store_sqlite::{SqliteOptions, SqliteStore};

    use super::*;

    struct FixedClock;

    impl Clock for FixedClock {
        fn now(&self) -> Timestamp {
            Timestamp(1_796_019_881_123)
        }
    }

    fn text(t: &str) -> Change {
        Change::Ops(vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: t.to_owned(),
        }])
    }

    /// Writes the broadcast never carried (as if lagged, or published out of order) are filled
    /// in from history: the feed hands out every version, once, in order.
    #[tokio::test]
    async fn a_feed_fills_gaps_from_history() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("n.db"), SqliteOptions::default()).unwrap();
        let store: Arc<dyn Store> = Arc::new(store);
        let notes = Notes::new(store.clone(), Arc::new(FixedClock));
        let caller = Caller {
            name: "me".to_owned(),
            scopes: vec![Scope::NotesRead, Scope::NotesWrite],
            token_id: 1,
            kind: AuthorKind::Person,
        };
        let (note, _) = notes
            .create_note(&caller, Channel::App, "t".to_owned(), None)
            .await
            .unwrap();
        let id = note.note.id;
        let (current, mut feed) = notes.watch(&caller, &id, Channel::App, None).await.unwrap();
        assert_eq!(current, Version(1));

        // Versions 2 and 3 bypass the broadcast; 4 is announced.
        for (v, t) in [(1, "a"), (2, "b")] {
            store
                .write(WriteRequest {
                    note_id: id.clone(),
                    expected_version: Version(v),
                    idempotency_key: None,
                    author: "elsewhere".to_owned(),
                    author_kind: AuthorKind::Person,
                    change: text(t),
                    now: FixedClock.now(),
                })
                .await
                .unwrap();
        }
        notes
            .write(
                &caller,
                Channel::App,
                id.clone(),
                Version(3),
                None,
                text("c"),
            )
            .await
            .unwrap();
        let mut got = Vec::new();
        for _ in 0..3 {
            let event = feed.next().await.unwrap().unwrap();
            got.push((event.version.0, event.author));
        }
        let want = [(2, "elsewhere"), (3, "elsewhere"), (4, "me")];
        assert_eq!(got, want.map(|(v, a)| (v, a.to_owned())));

        // Resuming from version 2 replays 3 and 4 first.
        let (_, mut resumed) = notes
            .watch(&caller, &id, Channel::App, Some(Version(2)))
            .await
            .unwrap();
        assert_eq!(resumed.next().await.unwrap().unwrap().version, Version(3));
        assert_eq!(resumed.next().await.unwrap().unwrap().version, Version(4));
    }

    fn caller(name: &str, kind: AuthorKind) -> Caller {
        Caller {
            name: name.to_owned(),
            scopes: vec![Scope::NotesRead, Scope::NotesWrite],
            kind,
            token_id: 1,
        }
    }

    /// A fresh store (in the returned directory), the person "Ana" and the agent "claude", and
    /// the Note "Plans" the person made through the app.
    async fn plans() -> (tempfile::TempDir, Notes, Caller, Caller, NoteId) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("n.db"), SqliteOptions::default()).unwrap();
        let notes = Notes::new(Arc::new(store), Arc::new(FixedClock));
        let person = caller("Ana", AuthorKind::Person);
        let agent = caller("claude", AuthorKind::Agent);
        let (note, _) = notes
            .create_note(&person, Channel::App, "Plans".to_owned(), None)
            .await
            .unwrap();
        (dir, notes, person, agent, note.note.id)
    }

    /// Only the person's token, on the person's door, changes what agents may see: an agent's
    /// token is refused whatever the door, and so is the person's token on the agent's door.
    /// A refusal records nothing; an accepted change records who and when.
    #[tokio::test]
    async fn only_the_persons_token_changes_agent_access() {
        let (_dir, notes, person, agent, id) = plans().await;
        for (who, channel) in [
            (&agent, Channel::App),
            (&agent, Channel::Agent),
            (&person, Channel::Agent),
        ] {
            let refused = notes.set_agent_access(who, channel, &id, true).await;
            assert!(
                matches!(refused, Err(NotesError::PersonOnly)),
                "{} on {channel:?}: {refused:?}",
                who.name
            );
            let seen = notes.agent_access(who, channel, &id).await;
            assert!(matches!(seen, Err(NotesError::PersonOnly)), "{seen:?}");
        }
        let access = notes
            .agent_access(&person, Channel::App, &id)
            .await
            .unwrap();
        assert!(!access.meta.agent_access);
        assert_eq!(access.changes, [], "nothing recorded");

        let access = notes
            .set_agent_access(&person, Channel::App, &id, true)
            .await
            .unwrap();
        assert!(access.meta.agent_access);
        assert_eq!(
            access.changes,
            [quire_api::AccessChange {
                approved: true,
                by: "Ana".to_owned(),
                at: FixedClock.now().to_rfc3339(),
            }]
        );
    }

    /// A version records who made it: the person only through the person's door with the
    /// person's token; through MCP every write is the agent's.
    #[tokio::test]
    async fn each_write_records_whether_the_person_or_an_agent_made_it() {
        let (_dir, notes, person, agent, id) = plans().await;
        notes
            .set_agent_access(&person, Channel::App, &id, true)
            .await
            .unwrap();
        for (v, (who, channel)) in [
            (&person, Channel::App),
            (&person, Channel::Agent),
            (&agent, Channel::Agent),
        ]
        .into_iter()
        .enumerate()
        {
            notes
                .write(
                    who,
                    channel,
                    id.clone(),
                    Version(v as u64 + 1),
                    None,
                    text(&v.to_string()),
                )
                .await
                .unwrap();
        }
        let kinds: Vec<AuthorKind> = notes
            .history(&person, &id, Channel::App)
            .await
            .unwrap()
            .into_iter()
            .map(|v| v.author_kind)
            .collect();
        use AuthorKind::{Agent, Person};
        assert_eq!(kinds, [Person, Person, Agent, Agent]);
    }

    /// Backlinks among 10,000 Notes (100 of them link to the target, the others hold text of
    /// their own) come from the index, not from reading the Notes: well under 100 ms.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn backlinks_among_ten_thousand_notes_are_quick() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("n.db"), SqliteOptions::default()).unwrap();
        let store: Arc<dyn Store> = Arc::new(store);
        let notes = Notes::new(store.clone(), Arc::new(FixedClock));
        let person = caller("Ana", AuthorKind::Person);
        let (target, _) = notes
            .create_note(&person, Channel::App, "Target".to_owned(), None)
            .await
            .unwrap();
        let target = target.note.id;
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..10_000 {
            let notes = notes.clone();
            let person = person.clone();
            let target = target.clone();
            tasks.spawn(async move {
                let (n, _) = notes
                    .create_note(&person, Channel::App, format!("Note {i:05}"), None)
                    .await
                    .unwrap();
                let body = if i % 100 == 0 {
                    format!("Day {i}: see [Target](quire:note/{target}) for the plan.")
                } else {
                    format!("Day {i}: notes about the plan, nothing linked.")
                };
                notes
                    .write(
                        &person,
                        Channel::App,
                        n.note.id,
                        Version(1),
                        None,
                        text(&body),
                    )
                    .await
                    .unwrap();
            });
            if tasks.len() >= 256 {
                tasks.join_next().await.unwrap().unwrap();
            }
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap();
        }
        let mut times = Vec::new();
        for _ in 0..5 {
            let start = std::time::Instant::now();
            let found = notes
                .backlinks(&person, Channel::App, &target)
                .await
                .unwrap();
            times.push(start.elapsed());
            assert_eq!(found.len(), 100);
        }
        times.sort();
        eprintln!("backlinks among 10,000 Notes: median {:?}", times[2]);
        assert!(
            times[2] < std::time::Duration::from_millis(100),
            "{times:?}"
        );
    }
}
