use quire_model::{Note, NoteId, Op, OpError, OpOutcome, TabId, Timestamp, Version};
use serde::{Deserialize, Serialize};

/// A Note to create. The caller passes the ID (a UUIDv7) and the time.
#[derive(Debug, Clone)]
pub struct NewNote {
    pub id: NoteId,
    pub title: String,
    pub author: String,
    pub author_kind: AuthorKind,
    pub now: Timestamp,
    pub idempotency_key: Option<String>,
}

/// A Note with what the store knows about it beyond its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredNote {
    #[serde(flatten)]
    pub note: Note,
    #[serde(flatten)]
    pub meta: NoteMeta,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoteMeta {
    pub agent_access: bool,
    pub created_at: String,
    /// Metadata only: the version, never this, is what writes are checked against.
    pub updated_at: String,
}

/// What a write does: a batch of operations, or a restore of an earlier version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Ops(Vec<Op>),
    Restore { version: Version },
}

/// One guarded write.
#[derive(Debug, Clone)]
pub struct WriteRequest {
    pub note_id: NoteId,
    pub expected_version: Version,
    /// Scoped to the Note. `None`: the write cannot be safely resent.
    pub idempotency_key: Option<String>,
    /// The token's name; recorded in history.
    pub author: String,
    /// Recorded in history beside the name.
    pub author_kind: AuthorKind,
    pub change: Change,
    pub now: Timestamp,
}

/// The stored result of an accepted write; a replay returns it again with `replayed: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WriteResult {
    pub note_id: NoteId,
    /// The Note's version after this write.
    pub version: Version,
    pub changed_tab_ids: Vec<TabId>,
    pub outcomes: Vec<OpOutcome>,
    #[serde(default)]
    pub replayed: bool,
    /// On a replay: the resent request was not byte-identical to the first (the first result is
    /// returned all the same; a key names an intent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request_differs: bool,
}

/// A stale write: the Note moved on since `expected_version`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    pub current_version: Version,
    /// Tabs changed by the versions after the expected one.
    pub changed_tab_ids: Vec<TabId>,
}

/// One entry of a Note's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VersionInfo {
    pub version: Version,
    pub author: String,
    /// Whether the person or an agent made this version. Versions stored before authors had a
    /// kind are an agent's when their author is the name of an agent token and of no person
    /// token, else the person's.
    pub author_kind: AuthorKind,
    pub created_at: String,
    pub summary: String,
    pub changed_tab_ids: Vec<TabId>,
}

/// What a bearer token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Scope {
    #[serde(rename = "notes:read")]
    NotesRead,
    #[serde(rename = "notes:write")]
    NotesWrite,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::NotesRead => "notes:read",
            Scope::NotesWrite => "notes:write",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "notes:read" => Some(Scope::NotesRead),
            "notes:write" => Some(Scope::NotesWrite),
            _ => None,
        }
    }
}

/// Who wrote, or who holds a token: the person, or an agent. A token's kind decides what it
/// may do (an agent's token is refused on the person's REST API and sees only the Notes the
/// person approved); a version's kind says which of them made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum AuthorKind {
    Person,
    Agent,
}

impl AuthorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Person => "person",
            AuthorKind::Agent => "agent",
        }
    }

    /// The stored spelling back; `None` for anything else.
    pub fn parse(s: &str) -> Option<AuthorKind> {
        match s {
            "person" => Some(AuthorKind::Person),
            "agent" => Some(AuthorKind::Agent),
            _ => None,
        }
    }

    /// The kind of a version stored before versions recorded it: an agent's when its author is
    /// one of `agent_only_names` (the names of agent tokens that no person token has; the app
    /// used to call every author but the person an agent), else the person's.
    pub fn of_legacy_version(author: &str, agent_only_names: &[String]) -> AuthorKind {
        if agent_only_names.iter().any(|name| name == author) {
            AuthorKind::Agent
        } else {
            AuthorKind::Person
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub id: i64,
    /// The author name recorded in history for this token's writes.
    pub name: String,
    pub scopes: Vec<Scope>,
    /// Tokens made before tokens had a kind are the person's, until the desktop app settles
    /// those it made for agents ([`crate::Store::settle_token_kinds`]).
    pub kind: AuthorKind,
    pub created_at: String,
}

/// A Note's agent access, as `GET` and `PUT /notes/{id}/agent-access` answer: whether agents
/// may see it now, and every approval and withdrawal, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentAccess {
    pub id: NoteId,
    #[serde(flatten)]
    pub meta: NoteMeta,
    pub changes: Vec<AccessChange>,
}

/// One approval of a Note for agents, or its withdrawal, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AccessChange {
    /// True: approved; false: withdrawn.
    pub approved: bool,
    /// The name of the token that changed it (a person's).
    pub by: String,
    /// RFC 3339.
    pub at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no note {0}")]
    NoteNotFound(NoteId),
    #[error("note {note_id} has no version {version}")]
    VersionNotFound { note_id: NoteId, version: Version },
    #[error("version conflict: the note is at version {}", .0.current_version)]
    Conflict(Conflict),
    #[error(transparent)]
    Invalid(#[from] OpError),
    #[error("idempotency_key: {0}")]
    BadKey(String),
    #[error("storage failure: {0}")]
    Backend(String),
    #[error("the store is shut down")]
    Closed,
}

/// A write committed to a database shared by several servers (by any of them), as its history
/// records it: what a server announces to its event streams when another server wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Committed {
    pub note_id: NoteId,
    pub version: Version,
    pub author: String,
    pub changed_tab_ids: Vec<TabId>,
    /// RFC 3339, as in the history.
    pub at: String,
}
