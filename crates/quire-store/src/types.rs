use quire_api::{Conflict, Scope};
use quire_model::{AuthorKind, NoteId, Op, OpError, Timestamp, Version};
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
