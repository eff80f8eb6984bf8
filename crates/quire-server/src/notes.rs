//! The application core every transport calls: scopes, agent approval, the guarded write and
//! the event feed. REST handlers and MCP tools are adapters over these functions.

use std::sync::Arc;

use quire_model::{Note, NoteId, NoteSummary, TabId, Timestamp, Version};
use quire_store::{
    Change, NewNote, NoteMeta, Scope, Store, StoreError, StoredNote, TokenRecord, VersionInfo,
    WriteRequest, WriteResult,
};
use serde::Serialize;
use tokio::sync::broadcast;

/// Who is calling: the token's name (the author in history) and its scopes.
#[derive(Debug, Clone)]
pub struct Caller {
    pub name: String,
    pub scopes: Vec<Scope>,
}

impl From<TokenRecord> for Caller {
    fn from(t: TokenRecord) -> Self {
        Caller {
            name: t.name,
            scopes: t.scopes,
        }
    }
}

/// Which door a call came through. Agents (MCP) see only the Notes the person approved; any
/// other Note is indistinguishable from a missing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    App,
    Agent,
}

/// One accepted write, as the event stream announces it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoteEvent {
    pub note_id: NoteId,
    pub version: Version,
    pub author: String,
    pub changed_tab_ids: Vec<TabId>,
    pub at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum NotesError {
    #[error("this token lacks the {} scope", .0.as_str())]
    MissingScope(Scope),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T, E = NotesError> = std::result::Result<T, E>;

/// The clock and ID source, passed in so tests and the lab can drive time.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Timestamp(ms)
    }
}

#[derive(Clone)]
pub struct Notes {
    store: Arc<dyn Store>,
    events: broadcast::Sender<NoteEvent>,
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

    /// Every accepted write from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<NoteEvent> {
        self.events.subscribe()
    }

    pub async fn create_note(
        &self,
        caller: &Caller,
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
                now,
                idempotency_key,
            })
            .await?;
        Ok(created)
    }

    pub async fn list_notes(&self, caller: &Caller, channel: Channel) -> Result<Vec<NoteSummary>> {
        require(caller, Scope::NotesRead)?;
        let mut notes = self.store.list_notes().await?;
        if channel == Channel::Agent {
            notes.retain(|n| n.agent_access);
        }
        Ok(notes)
    }

    pub async fn get_note(
        &self,
        caller: &Caller,
        id: &NoteId,
        channel: Channel,
    ) -> Result<StoredNote> {
        require(caller, Scope::NotesRead)?;
        let note = self.store.get_note(id).await?;
        visible(&note.meta, id, channel)?;
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
        if channel == Channel::Agent {
            let stored = self.store.get_note(&note_id).await?;
            visible(&stored.meta, &note_id, channel)?;
        }
        let now = self.clock.now();
        let result = self
            .store
            .write(WriteRequest {
                note_id,
                expected_version,
                idempotency_key,
                author: caller.name.clone(),
                change,
                now,
            })
            .await?;
        if !result.replayed && result.version > expected_version {
            // A receiver-less channel is fine: nobody is listening yet.
            let _receivers = self.events.send(NoteEvent {
                note_id: result.note_id.clone(),
                version: result.version,
                author: caller.name.clone(),
                changed_tab_ids: result.changed_tab_ids.clone(),
                at: now.to_rfc3339(),
            });
        }
        Ok(result)
    }

    pub async fn history(
        &self,
        caller: &Caller,
        id: &NoteId,
        channel: Channel,
    ) -> Result<Vec<VersionInfo>> {
        self.get_note(caller, id, channel).await?;
        Ok(self.store.history(id).await?)
    }

    pub async fn note_at(
        &self,
        caller: &Caller,
        id: &NoteId,
        version: Version,
        channel: Channel,
    ) -> Result<Note> {
        self.get_note(caller, id, channel).await?;
        Ok(self.store.note_at(id, version).await?)
    }

    /// The person approves (or withdraws) a Note for agents. App only.
    pub async fn set_agent_access(
        &self,
        caller: &Caller,
        id: &NoteId,
        approved: bool,
    ) -> Result<NoteMeta> {
        require(caller, Scope::NotesWrite)?;
        Ok(self.store.set_agent_access(id, approved).await?)
    }
}

fn require(caller: &Caller, scope: Scope) -> Result<()> {
    if caller.scopes.contains(&scope) {
        Ok(())
    } else {
        Err(NotesError::MissingScope(scope))
    }
}

fn visible(meta: &NoteMeta, id: &NoteId, channel: Channel) -> Result<()> {
    match channel {
        Channel::Agent if !meta.agent_access => Err(StoreError::NoteNotFound(id.clone()).into()),
        _ => Ok(()),
    }
}
