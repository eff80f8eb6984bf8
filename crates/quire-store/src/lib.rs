//! The `Store` trait — where Quire's guarded write lives — for every backend
//! (`quire-store-sqlite`, `quire-store-postgres`), the one planner of that write they both call
//! ([`guard`]), and the conformance suite they both pass (feature `conformance`).
//!
//! Every write is one transaction: idempotency key first (a hit replays the stored result,
//! whatever the version says now), then the compare-and-swap on the Note's version (stale: a
//! typed [`Conflict`](quire_api::Conflict) naming the tabs changed since), then apply, bump,
//! history, key + result.
#![forbid(unsafe_code)]

#[cfg(feature = "conformance")]
pub mod conformance;
pub mod guard;
pub mod search;
pub mod trash;
mod types;

pub use types::{Change, HashedToken, NewNote, StoreError, TokenRecord, TokenState, WriteRequest};

use async_trait::async_trait;
use quire_api::{AccessChange, NoteMeta, SearchHit, StoredNote, VersionInfo, WriteResult};
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, Timestamp, Version};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// True for a `postgres://` or `postgresql://` URL: a database named so is PostgreSQL
/// (`quire-store-postgres`), anything else a SQLite file.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// A place Notes live. Implementations: `quire-store-sqlite`, `quire-store-postgres`, both held
/// to the same conformance suite (`quire_store::conformance`, feature `conformance`).
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Creates a Note at version 1 with the fixed tabs. A repeated `idempotency_key` (scoped to
    /// the author) returns the first Note, flagged as a replay.
    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)>;

    /// Every Note not in the trash, most recently updated first.
    async fn list_notes(&self) -> Result<Vec<NoteSummary>>;

    /// The current state of a Note.
    async fn get_note(&self, id: &NoteId) -> Result<StoredNote>;

    /// What the store knows about a Note beyond its content (agent approval, times): a cheap
    /// check for callers that need only existence or approval, not the tabs.
    async fn note_meta(&self, id: &NoteId) -> Result<NoteMeta> {
        Ok(self.get_note(id).await?.meta)
    }

    /// The guarded write, as [`guard::GuardedWrite`] plans it: the crate docs give the order.
    async fn write(&self, req: WriteRequest) -> Result<WriteResult>;

    /// The guarded write through the agent's door: as [`write`](Store::write), on a Note
    /// approved for agents and out of the trash only ([`guard::Reach::AgentVisible`]). Any
    /// other is [`StoreError::NoteNotFound`], decided before its key or version is looked at.
    /// The backends decide it in the write's own transaction; this default (for wrappers that
    /// change `write`) reads the Note's metadata first, then writes.
    async fn write_as_agent(&self, req: WriteRequest) -> Result<WriteResult> {
        let meta = self.note_meta(&req.note_id).await?;
        let trashed = meta.deleted_at.is_some();
        guard::Reach::AgentVisible.check(&req.note_id, meta.agent_access, trashed)?;
        self.write(req).await
    }

    /// Every version of the Note, oldest first.
    async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>>;

    /// One page of the history: the newest `limit` versions older than `before` (of all
    /// versions when `None`), oldest first. A Note with 100,000 versions opens its versions
    /// panel on a page; the backends read only the page (this default reads everything).
    async fn history_page(
        &self,
        id: &NoteId,
        before: Option<Version>,
        limit: usize,
    ) -> Result<Vec<VersionInfo>> {
        let mut all = self.history(id).await?;
        all.retain(|v| before.is_none_or(|b| v.version < b));
        let skip = all.len().saturating_sub(limit);
        Ok(all.split_off(skip))
    }

    /// The Note as it was at `version`.
    async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note>;

    /// Whether agents (MCP) may see this Note. Not a content change: no new version. A change
    /// (approving an unapproved Note, or withdrawing an approval) is recorded with who made it
    /// and when, in the same transaction; setting what is already set records nothing.
    async fn set_agent_access(
        &self,
        id: &NoteId,
        approved: bool,
        by: &str,
        now: Timestamp,
    ) -> Result<NoteMeta>;

    /// Every recorded change of the Note's agent access, oldest first.
    async fn agent_access_changes(&self, id: &NoteId) -> Result<Vec<AccessChange>>;

    /// Stores a bearer token by its hash (the token itself is never stored).
    async fn create_token(&self, token: HashedToken) -> Result<TokenRecord>;

    /// The token with this hash, if any, revoked and expired ones included (the caller tells
    /// why it refuses one: [`TokenRecord::state`]). Read from the database on every call, so a
    /// token revoked by another process is seen at once.
    async fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>>;

    /// Every token, revoked and expired ones included, oldest first. Never a hash.
    async fn list_tokens(&self) -> Result<Vec<TokenRecord>>;

    /// Revokes every token named `name` (of `kind`, if given) not revoked yet, at `now`, and
    /// returns how many that was (0 when all were already revoked). No such token at all:
    /// [`StoreError::TokenNotFound`], nothing written.
    async fn revoke_tokens(
        &self,
        name: &str,
        kind: Option<AuthorKind>,
        now: Timestamp,
    ) -> Result<usize>;

    /// Records that the token `id` was used at `at`. A time older than the one recorded
    /// changes nothing; an unknown `id` is no error (the token may be gone).
    async fn record_token_use(&self, id: i64, at: Timestamp) -> Result<()>;

    /// Gives a kind to the tokens made before tokens had one (until then they count as the
    /// person's): the one whose hash is `person_hash` stays the person's, every other becomes
    /// an agent's. For the desktop app, whose own database holds its person token and the
    /// tokens its "Connect an agent" panel made, and nothing else. Returns the names of the
    /// tokens that became agent tokens; once done, does nothing.
    async fn settle_token_kinds(&self, person_hash: &str) -> Result<Vec<String>>;

    /// The trash ([`trash`]): the Notes in it, most recently trashed first. [`list_notes`]
    /// leaves them out.
    ///
    /// [`list_notes`]: Store::list_notes
    async fn list_trash(&self) -> Result<Vec<NoteSummary>>;

    /// Erases for good every Note in the trash that was moved there before `before` (every one
    /// when `None`), with all its versions, keys and records; returns their IDs. A Note not in
    /// the trash is never erased.
    async fn empty_trash(&self, before: Option<Timestamp>) -> Result<Vec<NoteId>>;

    /// The `limit` tabs that match `query` best, best first, among the Notes `scope` lets it
    /// find ([`search`] says what matches). The index is written in the same transaction as
    /// every write, so an acknowledged write is found at once.
    async fn search(
        &self,
        query: &search::SearchQuery,
        limit: usize,
        scope: search::SearchScope,
    ) -> Result<Vec<SearchHit>>;

    /// Stops taking writes and waits until every write already queued is committed and
    /// acknowledged. Later writes fail with [`StoreError::Closed`]. Dropping the store does the
    /// same.
    async fn close(&self) -> Result<()> {
        Ok(())
    }
}
