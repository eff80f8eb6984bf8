//! The `Store` trait on PostgreSQL, for several `quire-server` processes sharing one database.
//! Same guarantees as the SQLite store, held to the same conformance suite
//! (`quire_store::conformance`).
//!
//! The guarded write is at most two round trips at READ COMMITTED, no explicit transaction:
//! 1. one `SELECT` reads the Note's current state together with the stored result of the
//!    request's idempotency key, if any (a hit is a replay, whatever the version says now);
//!    skipped when this store last read or wrote the Note at the expected version (a Note's
//!    content at a version never changes; see `recent.rs`);
//! 2. the operations are applied in Rust ([`quire_model::apply`]); then one statement
//!    (data-modifying CTEs, atomic like any statement) does the compare-and-swap
//!    `UPDATE notes SET version = version + 1 ... WHERE id = $1 AND version = $2`, the history
//!    entry, the changed tabs' contents and the key with its result. Zero rows updated: another
//!    writer got there first. A duplicate key (two racing resends): the statement fails whole.
//!    Either way the write reads again, and ends as a replay (the key is there now) or a
//!    conflict (the version moved on). Nothing refused is stored, not even the key.
//!
//! Several servers on one database: each store announces its commits (NOTIFY, after the
//! commit) and [`PgStore::others`] hears the other stores' (LISTEN); see `notify.rs`.
//! Migrations: `migrations/NNNN_*.sql`, listed in `schema.rs`, beside SQLite's in
//! `crates/quire-store-sqlite/src/migrations/`.
#![forbid(unsafe_code)]

mod guarded;
mod notify;
mod read;
mod recent;
mod schema;
mod search;
mod trash;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::recent::Recent;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use quire_api::{AccessChange, NoteMeta, StoredNote, VersionInfo, WriteEvent, WriteResult};
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, OpError, Timestamp, Version};
use quire_store::{
    HashedToken, NewNote, Result, Store, StoreError, TokenRecord, WriteRequest, guard, guard::Reach,
};
use tokio::sync::{RwLock, RwLockReadGuard, mpsc};
use tokio::task::JoinHandle;
use tokio_postgres::NoTls;

pub use quire_store::is_postgres_url;

#[derive(Debug, Clone)]
pub struct PgOptions {
    /// Most connections this store holds open (each server process has its own pool).
    pub max_connections: usize,
    /// How many Notes the store keeps as last read or written, so that a write at that
    /// version commits in one round trip instead of two. 0: always read first.
    pub recent_notes: usize,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            max_connections: 16,
            recent_notes: 256,
        }
    }
}

/// Notes in one PostgreSQL database, shared by any number of processes.
pub struct PgStore {
    pool: Pool,
    /// True while the store takes writes; [`Store::close`] takes it exclusively, so it waits
    /// for the writes in flight.
    open: RwLock<bool>,
    recent: Recent,
    /// Names this store in its announcements, so that it skips its own.
    origin: Arc<str>,
    config: tokio_postgres::Config,
    /// The queue of the announcer task (see `notify.rs`) and the task; taken by `close`.
    announcer: Mutex<Option<Announcer>>,
}

struct Announcer {
    queue: mpsc::UnboundedSender<String>,
    task: JoinHandle<()>,
}

/// What went wrong inside this crate, before it becomes a [`StoreError`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum Fail {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{}", describe(.0))]
    Db(#[from] tokio_postgres::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("stored JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("stored value out of range: {0}")]
    Range(#[from] std::num::TryFromIntError),
}

impl From<OpError> for Fail {
    fn from(e: OpError) -> Self {
        Fail::Store(StoreError::Invalid(e))
    }
}

impl From<Fail> for StoreError {
    fn from(fail: Fail) -> Self {
        match fail {
            Fail::Store(e) => e,
            Fail::Pool(deadpool_postgres::PoolError::Closed) => StoreError::Closed,
            other => StoreError::Backend(other.to_string()),
        }
    }
}

/// tokio-postgres says "db error" and keeps the server's message in the source.
fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!(
            "postgres: {} ({}){}",
            db.message(),
            db.code().code(),
            db.detail().map(|d| format!(": {d}")).unwrap_or_default()
        ),
        None => match std::error::Error::source(e) {
            Some(cause) => format!("postgres: {e}: {cause}"),
            None => format!("postgres: {e}"),
        },
    }
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`), brings its schema up
    /// to date (safe when several servers start at once) and keeps a pool of connections.
    pub async fn connect(url: &str, opts: PgOptions) -> Result<Self> {
        let config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Backend(format!("invalid PostgreSQL URL: {e}")))?;
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(opts.max_connections.max(1))
            .build()
            .map_err(|e| StoreError::Backend(format!("cannot build the connection pool: {e}")))?;
        let mut client = pool.get().await.map_err(Fail::from)?;
        schema::migrate(&mut client).await?;
        drop(client);
        let (queue, rx) = mpsc::unbounded_channel();
        Ok(PgStore {
            open: RwLock::new(true),
            recent: Recent::new(opts.recent_notes),
            origin: uuid::Uuid::now_v7().simple().to_string().into(),
            config,
            announcer: Mutex::new(Some(Announcer {
                task: tokio::spawn(notify::announce(pool.clone(), rx)),
                queue,
            })),
            pool,
        })
    }

    /// The writes other stores (other servers) commit to this database from now on, as
    /// PostgreSQL announces them (LISTEN / NOTIFY); returns once listening. The stream goes on
    /// until the receiver is dropped, reconnecting if the connection drops (what is announced
    /// while it is down is missed).
    pub async fn others(&self) -> Result<mpsc::Receiver<WriteEvent>> {
        Ok(notify::Listener {
            config: self.config.clone(),
            pool: self.pool.clone(),
            origin: Arc::clone(&self.origin),
        }
        .start()
        .await?)
    }

    /// Queues the announcement of a committed write for the other servers.
    fn announce(&self, write: WriteEvent) {
        let payload = match notify::payload(&self.origin, write) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("a write could not be announced: {e}");
                return;
            }
        };
        let queued = match self.announcer.lock() {
            Ok(a) => a.as_ref().map(|a| a.queue.send(payload).is_ok()),
            Err(_) => None,
        };
        if queued != Some(true) {
            tracing::warn!("a write was committed after the announcer stopped");
        }
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, Fail> {
        Ok(self.pool.get().await?)
    }

    /// A connection for a write, with the store held open until it is dropped: refused once
    /// the store is closed, waited for by `close`.
    /// The guarded write on a Note within `reach`, announced when it made a version.
    async fn write_reaching(&self, req: WriteRequest, reach: Reach) -> Result<WriteResult> {
        guard::check_key(req.idempotency_key.as_deref())?;
        let w = self.writer().await?;
        let result = guarded::write(&w.db, &self.recent, &req, reach).await?;
        if !result.replayed && result.version > req.expected_version {
            self.announce(WriteEvent {
                note_id: result.note_id.clone(),
                version: result.version,
                author: req.author,
                changed_tab_ids: result.changed_tab_ids.clone(),
                at: req.now.to_rfc3339(),
            });
        }
        Ok(result)
    }

    async fn writer(&self) -> Result<Writer<'_>, Fail> {
        let open = self.open.read().await;
        if !*open {
            return Err(Fail::Store(StoreError::Closed));
        }
        Ok(Writer {
            db: self.client().await?,
            _open: open,
        })
    }
}

struct Writer<'a> {
    db: deadpool_postgres::Object,
    _open: RwLockReadGuard<'a, bool>,
}

#[async_trait]
impl Store for PgStore {
    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
        guard::check_key(new.idempotency_key.as_deref())?;
        let w = self.writer().await?;
        let (created, replayed) = guarded::create_note(&w.db, &new).await?;
        if !replayed {
            self.recent.put(Arc::new(created.note.clone()));
        }
        Ok((created, replayed))
    }

    async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
        let db = self.client().await?;
        Ok(read::list_notes(&db).await?)
    }

    async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
        let db = self.client().await?;
        let state = read::current(&db, id, None)
            .await?
            .ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
        self.recent.put(Arc::new(state.note.clone()));
        Ok(StoredNote {
            note: state.note,
            meta: state.meta,
        })
    }

    async fn note_meta(&self, id: &NoteId) -> Result<NoteMeta> {
        let db = self.client().await?;
        read::note_meta(&db, id)
            .await?
            .ok_or_else(|| StoreError::NoteNotFound(id.clone()))
    }

    async fn write(&self, req: WriteRequest) -> Result<WriteResult> {
        self.write_reaching(req, Reach::AnyNote).await
    }

    async fn write_as_agent(&self, req: WriteRequest) -> Result<WriteResult> {
        self.write_reaching(req, Reach::AgentVisible).await
    }

    async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>> {
        let db = self.client().await?;
        Ok(read::history(&db, id).await?)
    }

    async fn history_page(
        &self,
        id: &NoteId,
        before: Option<Version>,
        limit: usize,
    ) -> Result<Vec<VersionInfo>> {
        let db = self.client().await?;
        Ok(read::history_page(&db, id, before, limit).await?)
    }

    async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note> {
        let db = self.client().await?;
        match read::note_at(&db, id, version).await? {
            Some(note) => Ok(note),
            None if !read::note_exists(&db, id).await? => Err(StoreError::NoteNotFound(id.clone())),
            None => Err(StoreError::VersionNotFound {
                note_id: id.clone(),
                version,
            }),
        }
    }

    async fn set_agent_access(
        &self,
        id: &NoteId,
        approved: bool,
        by: &str,
        now: Timestamp,
    ) -> Result<NoteMeta> {
        let w = self.writer().await?;
        Ok(guarded::set_agent_access(&w.db, id, approved, by, now).await?)
    }

    async fn agent_access_changes(&self, id: &NoteId) -> Result<Vec<AccessChange>> {
        let db = self.client().await?;
        Ok(read::agent_access_changes(&db, id).await?)
    }

    async fn create_token(&self, token: HashedToken) -> Result<TokenRecord> {
        let w = self.writer().await?;
        Ok(guarded::create_token(&w.db, &token).await?)
    }

    async fn list_tokens(&self) -> Result<Vec<TokenRecord>> {
        let db = self.client().await?;
        Ok(read::list_tokens(&db).await?)
    }

    async fn revoke_tokens(
        &self,
        name: &str,
        kind: Option<AuthorKind>,
        now: Timestamp,
    ) -> Result<usize> {
        let w = self.writer().await?;
        Ok(guarded::revoke_tokens(&w.db, name, kind, now).await?)
    }

    async fn record_token_use(&self, id: i64, at: Timestamp) -> Result<()> {
        let w = self.writer().await?;
        Ok(guarded::record_token_use(&w.db, id, at).await?)
    }

    async fn settle_token_kinds(&self, person_hash: &str) -> Result<Vec<String>> {
        let w = self.writer().await?;
        Ok(guarded::settle_token_kinds(&w.db, person_hash).await?)
    }

    async fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
        let db = self.client().await?;
        Ok(read::find_token(&db, token_hash).await?)
    }

    async fn list_trash(&self) -> Result<Vec<NoteSummary>> {
        let db = self.client().await?;
        Ok(trash::list_trash(&db).await?)
    }

    async fn empty_trash(&self, before: Option<Timestamp>) -> Result<Vec<NoteId>> {
        let w = self.writer().await?;
        // `recent` may keep an erased Note: a write on it finds no row to update, reads again
        // and is told the Note is gone.
        Ok(trash::empty_trash(&w.db, before).await?)
    }

    async fn search(
        &self,
        query: &quire_store::search::SearchQuery,
        limit: usize,
        scope: quire_store::search::SearchScope,
    ) -> Result<Vec<quire_api::SearchHit>> {
        let db = self.client().await?;
        Ok(search::search(&db, query, limit, scope).await?)
    }

    async fn close(&self) -> Result<()> {
        let mut open = self.open.write().await;
        *open = false;
        // Every write is done: send what they announced, then let the connections go.
        let announcer = match self.announcer.lock() {
            Ok(mut a) => a.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(Announcer { queue, task }) = announcer {
            drop(queue);
            if let Err(e) = task.await {
                tracing::warn!("the announcer task failed: {e}");
            }
        }
        self.pool.close();
        Ok(())
    }
}
