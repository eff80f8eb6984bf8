//! The SQLite store: WAL, one writer thread (group commit), a small pool of readers.

mod cache;
mod guarded;
mod pool;
mod read;
mod schema;
mod writer;

use std::path::Path;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use async_trait::async_trait;
use quire_model::{Note, NoteId, NoteSummary, Version};
use rusqlite::Connection;
use tokio::sync::oneshot;

use self::pool::ReadPool;
use self::writer::Job;
use crate::{
    NewNote, NoteMeta, Result, Scope, Store, StoreError, StoredNote, TokenRecord, VersionInfo,
    WriteRequest, WriteResult,
};

/// How long a commit waits for the disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Synchronous {
    /// Every commit is on disk (fsync) before it is acknowledged. The default.
    #[default]
    Full,
    /// A commit survives a crash of the process but may be lost on power loss.
    Normal,
}

#[derive(Debug, Clone)]
pub struct SqliteOptions {
    pub synchronous: Synchronous,
    /// Read connections in the pool.
    pub readers: usize,
    /// Most writes committed together in one transaction (group commit). 1 commits every write
    /// on its own: for benchmarks only.
    pub max_batch: usize,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            synchronous: Synchronous::Full,
            readers: 4,
            max_batch: 512,
        }
    }
}

/// Notes in one SQLite file.
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    readers: ReadPool,
    writer: Mutex<Option<Writer>>,
}

struct Writer {
    jobs: Sender<Job>,
    thread: JoinHandle<()>,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Backend(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Backend(format!("stored JSON: {e}"))
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, brings its schema up to date and
    /// starts the writer thread.
    pub fn open(path: &Path, opts: SqliteOptions) -> Result<Self> {
        let mut conn = Connection::open(path)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend(format!(
                "{}: cannot use write-ahead logging (journal_mode is {mode})",
                path.display()
            )));
        }
        let synchronous = match opts.synchronous {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        };
        conn.pragma_update(None, "synchronous", synchronous)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(64);
        schema::migrate(&mut conn)?;

        let readers = ReadPool::open(path, opts.readers)?;
        let (jobs, queue) = mpsc::channel();
        let max_batch = opts.max_batch.max(1);
        let thread = std::thread::Builder::new()
            .name("quire-store-writer".to_owned())
            .spawn(move || writer::run(conn, queue, max_batch))
            .map_err(|e| StoreError::Backend(format!("cannot start the writer thread: {e}")))?;
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                readers,
                writer: Mutex::new(Some(Writer { jobs, thread })),
            }),
        })
    }

    /// Queues a job for the writer and waits for its verdict, given after the commit.
    async fn submit<T>(&self, job: impl FnOnce(oneshot::Sender<Result<T>>) -> Job) -> Result<T> {
        let (reply, verdict) = oneshot::channel();
        {
            let writer = self.inner.writer.lock().map_err(|_| StoreError::Closed)?;
            let writer = writer.as_ref().ok_or(StoreError::Closed)?;
            writer
                .jobs
                .send(job(reply))
                .map_err(|_| StoreError::Closed)?;
        }
        verdict.await.map_err(|_| StoreError::Closed)?
    }

    /// Runs a query on a read connection, off the async threads.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || inner.readers.with(f))
            .await
            .map_err(|e| StoreError::Backend(format!("a read task failed: {e}")))?
    }
}

impl Inner {
    /// Stops the writer after it has committed everything queued. Blocking.
    fn stop_writer(&self) {
        let writer = match self.writer.lock() {
            Ok(mut w) => w.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(Writer { jobs, thread }) = writer {
            drop(jobs);
            if thread.join().is_err() {
                tracing::error!("the store's writer thread panicked");
            }
        }
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.inner.stop_writer();
    }
}

/// 1 to 255 characters.
fn check_key(key: Option<&String>) -> Result<()> {
    match key {
        Some(k) if k.is_empty() => Err(StoreError::BadKey("must not be empty".to_owned())),
        Some(k) if k.chars().count() > 255 => {
            Err(StoreError::BadKey("longer than 255 characters".to_owned()))
        }
        _ => Ok(()),
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
        check_key(new.idempotency_key.as_ref())?;
        self.submit(|reply| Job::CreateNote(Box::new(new), reply))
            .await
    }

    async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
        self.read(read::list_notes).await
    }

    async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
        let id = id.clone();
        self.read(move |c| read::current_note(c, &id)).await
    }

    async fn write(&self, req: WriteRequest) -> Result<WriteResult> {
        check_key(req.idempotency_key.as_ref())?;
        self.submit(|reply| Job::Write(Box::new(req), reply)).await
    }

    async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>> {
        let id = id.clone();
        self.read(move |c| read::history(c, &id)).await
    }

    async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note> {
        let id = id.clone();
        self.read(move |c| match read::note_at(c, &id, version)? {
            Some(note) => Ok(note),
            None if read::note_row(c, &id)?.is_none() => Err(StoreError::NoteNotFound(id)),
            None => Err(StoreError::VersionNotFound {
                note_id: id,
                version,
            }),
        })
        .await
    }

    async fn set_agent_access(&self, id: &NoteId, approved: bool) -> Result<NoteMeta> {
        let id = id.clone();
        self.submit(|reply| Job::SetAgentAccess(id, approved, reply))
            .await
    }

    async fn create_token(
        &self,
        name: &str,
        scopes: &[Scope],
        token_hash: &str,
    ) -> Result<TokenRecord> {
        let (name, scopes, token_hash) = (name.to_owned(), scopes.to_vec(), token_hash.to_owned());
        self.submit(|reply| Job::CreateToken {
            name,
            scopes,
            token_hash,
            reply,
        })
        .await
    }

    async fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
        let hash = token_hash.to_owned();
        self.read(move |c| read::find_token(c, &hash)).await
    }

    async fn close(&self) -> Result<()> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || inner.stop_writer())
            .await
            .map_err(|e| StoreError::Backend(format!("closing the store failed: {e}")))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tmp_probe {
    use super::*;
    use quire_model::{Op, TabId, Timestamp};
    use std::time::Instant;

    #[test]
    fn direct_cost() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("p.db")).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
        schema::migrate(&mut conn).unwrap();
        let id = NoteId::from_uuid(uuid::Uuid::now_v7());
        let new = NewNote {
            id: id.clone(),
            title: "t".into(),
            author: "a".into(),
            now: Timestamp(0),
            idempotency_key: None,
        };
        guarded::create_note(&conn, &new).unwrap();
        let mut samples = Vec::new();
        let mut cache = cache::NoteCache::default();
        for i in 0..20000u64 {
            let req = WriteRequest {
                note_id: id.clone(),
                expected_version: Version(i + 1),
                idempotency_key: Some(format!("k{i}")),
                author: "a".into(),
                change: crate::Change::Ops(vec![Op::ReplaceText {
                    tab_id: TabId::new("markdown"),
                    text: format!("{i:>10}{}", "x".repeat(190)),
                }]),
                now: Timestamp(i as i64),
            };
            let t = Instant::now();
            conn.prepare_cached("BEGIN IMMEDIATE")
                .unwrap()
                .execute([])
                .unwrap();
            conn.prepare_cached("SAVEPOINT job")
                .unwrap()
                .execute([])
                .unwrap();
            guarded::write(&conn, &mut cache, &req).unwrap();
            conn.prepare_cached("RELEASE job")
                .unwrap()
                .execute([])
                .unwrap();
            conn.prepare_cached("COMMIT").unwrap().execute([]).unwrap();
            samples.push(t.elapsed());
        }
        samples.sort();
        eprintln!(
            "direct guarded: median {:?} p99 {:?}",
            samples[10000], samples[19800]
        );
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, '')").unwrap();
        let mut samples = Vec::new();
        for i in 0..20000u64 {
            let text = format!("{i:>10}{}", "x".repeat(190));
            let t = Instant::now();
            conn.prepare_cached("BEGIN IMMEDIATE").unwrap().execute([]).unwrap();
            conn.prepare_cached("UPDATE t SET v = ?1 WHERE id = 1").unwrap().execute([&text]).unwrap();
            conn.prepare_cached("COMMIT").unwrap().execute([]).unwrap();
            samples.push(t.elapsed());
        }
        samples.sort();
        eprintln!("bare: median {:?} p99 {:?}", samples[10000], samples[19800]);
        // hop cost through the real store
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let store = SqliteStore::open(
                &dir.path().join("q.db"),
                SqliteOptions {
                    synchronous: Synchronous::Normal,
                    ..Default::default()
                },
            )
            .unwrap();
            let mut samples = Vec::new();
            for _ in 0..20000 {
                let t = Instant::now();
                let e = store.set_agent_access(&id, true).await;
                assert!(e.is_err());
                samples.push(t.elapsed());
            }
            samples.sort();
            eprintln!(
                "hop (missing-note job): median {:?} p99 {:?}",
                samples[10000], samples[19800]
            );
        });
    }
}
