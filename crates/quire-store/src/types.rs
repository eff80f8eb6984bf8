use quire_api::{Conflict, Scope};
use quire_model::{AuthorKind, Note, NoteId, Op, OpError, Timestamp, Version};
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

/// What a write does: a batch of operations, a restore of an earlier version, or the Note into
/// the trash and back out (see [`crate::trash`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Ops(Vec<Op>),
    Restore {
        version: Version,
    },
    /// Into the trash: a new version with the same content, "moved to trash" in history.
    Trash,
    /// Out of the trash: a new version with the same content, "restored from trash".
    Undelete,
    /// Version `version` taken back: `note` is what `quire_model::revert` made of the Note at
    /// the expected version, committed on it like any write ("reverted version V").
    Revert {
        version: Version,
        note: Box<Note>,
    },
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

/// A bearer token to store: by its hash only (the token itself is never stored), working
/// until `expires_at` if given.
#[derive(Debug, Clone, PartialEq)]
pub struct HashedToken {
    /// The author recorded in history for this token's writes.
    pub name: String,
    pub scopes: Vec<Scope>,
    pub kind: AuthorKind,
    pub hash: String,
    pub expires_at: Option<Timestamp>,
}

impl HashedToken {
    pub fn new(
        name: &str,
        scopes: &[Scope],
        kind: AuthorKind,
        hash: &str,
        expires_at: Option<Timestamp>,
    ) -> Self {
        HashedToken {
            name: name.to_owned(),
            scopes: scopes.to_vec(),
            kind,
            hash: hash.to_owned(),
            expires_at,
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
    /// When the token stops working, if it was made to (`token create --expires-in-days`).
    pub expires_at: Option<Timestamp>,
    /// When it was revoked (`token revoke`): refused from then on.
    pub revoked_at: Option<Timestamp>,
    /// About when it was last used: recorded at most once a minute (the server decides how
    /// often), never on every request.
    pub last_used_at: Option<Timestamp>,
}

/// Whether a token may be used at a given time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenState {
    Active,
    Expired,
    Revoked,
}

impl TokenState {
    pub fn as_str(self) -> &'static str {
        match self {
            TokenState::Active => "active",
            TokenState::Expired => "expired",
            TokenState::Revoked => "revoked",
        }
    }
}

impl TokenRecord {
    /// The token's state at `now`: a revoked token stays revoked, expired or not; a token
    /// expires at its `expires_at`, that very millisecond included.
    pub fn state(&self, now: Timestamp) -> TokenState {
        if self.revoked_at.is_some() {
            TokenState::Revoked
        } else if self.expires_at.is_some_and(|end| now >= end) {
            TokenState::Expired
        } else {
            TokenState::Active
        }
    }
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
    /// A write on a Note in the trash (only [`Change::Undelete`] may touch it).
    #[error("note {0} is in the trash")]
    NoteInTrash(NoteId),
    /// [`Change::Undelete`] of a Note that is not in the trash.
    #[error("note {0} is not in the trash")]
    NotInTrash(NoteId),
    #[error("no token named {0:?}")]
    TokenNotFound(String),
    #[error("storage failure: {0}")]
    Backend(String),
    #[error("the store is shut down")]
    Closed,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(expires_at: Option<i64>, revoked_at: Option<i64>) -> TokenRecord {
        TokenRecord {
            id: 1,
            name: "claude".to_owned(),
            scopes: vec![Scope::NotesRead],
            kind: AuthorKind::Agent,
            created_at: "2026-12-01T00:00:00.000Z".to_owned(),
            expires_at: expires_at.map(Timestamp),
            revoked_at: revoked_at.map(Timestamp),
            last_used_at: None,
        }
    }

    #[test]
    fn a_token_expires_at_its_end_and_revocation_wins() {
        use TokenState::*;
        let cases = [
            (None, None, 1_000, Active),
            (Some(2_000), None, 1_999, Active),
            (Some(2_000), None, 2_000, Expired),
            (Some(2_000), None, 9_000, Expired),
            (None, Some(500), 1_000, Revoked),
            (Some(2_000), Some(500), 9_000, Revoked),
        ];
        for (expires, revoked, now, want) in cases {
            assert_eq!(
                token(expires, revoked).state(Timestamp(now)),
                want,
                "expires {expires:?}, revoked {revoked:?}, now {now}"
            );
        }
    }
}
