//! The [`Store`] on SQLite: WAL, one write connection (group commit), a small pool of readers,
//! append-only migrations in `src/migrations/`. The guarded write's decisions are
//! [`quire_store::guard`]'s; this crate gathers what they need and commits what they plan.
#![forbid(unsafe_code)]

mod cache;
mod checkpoint;
mod fail;
mod guarded;
mod pool;
mod read;
mod rebuilt;
mod schema;
mod search;
mod sheet_text;
mod splice;
mod stored_key;
mod trash;
mod writer;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use async_trait::async_trait;
use quire_model::{AuthorKind, Note, NoteId, NoteSummary, Timestamp, Version};
use rusqlite::Connection;
use tokio::sync::oneshot;

use self::checkpoint::Checkpointer;
use self::pool::ReadPool;
use self::rebuilt::Rebuilt;
use self::writer::{Job, Writer};
use quire_api::{AccessChange, NoteMeta, SearchHit, StoredNote, VersionInfo, WriteResult};
use quire_store::{
    HashedToken, NewNote, Result, Store, StoreError, TokenRecord, WriteRequest, guard,
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
    /// How long the search index may lag a written Note before the writer brings it up to date
    /// (a search always has it brought up to date first). Longer: more writes of a burst
    /// indexed at once, and the Note as the index holds it kept longer.
    pub search_delay: std::time::Duration,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        SqliteOptions {
            synchronous: Synchronous::Full,
            readers: 4,
            max_batch: 512,
            search_delay: std::time::Duration::from_secs(1),
        }
    }
}

/// Notes in one SQLite file (WAL). One write connection commits whatever is queued as one
/// transaction, a savepoint per write (group commit); under NORMAL a writer that finds it free
/// commits on its own thread. A caller hears back after the `COMMIT` returned. Reads go to a
/// small pool of read-only connections, off the async threads. Dropping the store (or
/// [`Store::close`]) waits until every queued write is committed and answered.
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    readers: ReadPool,
    /// Long texts the readers rebuilt from their splices (`rebuilt.rs`).
    rebuilt: Rebuilt,
    writer: Arc<Writer>,
    threads: Mutex<Option<Threads>>,
}

/// The store's own threads, stopped when it closes.
struct Threads {
    writer: JoinHandle<()>,
    checkpointer: Checkpointer,
}

/// Creates the database file, if it does not exist yet, readable and writable by its owner only
/// (0600): it holds every Note and the tokens' hashes. SQLite creates the `-wal` and `-shm`
/// files beside it with the database file's mode. An existing file keeps the mode it has.
fn create_private(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Backend(format!(
            "cannot create {}: {e}",
            path.display()
        ))),
    }
}

impl SqliteStore {
    /// How long the writer has spent committing since the store opened: every other write
    /// waits while it commits one (for benchmarks and diagnostics).
    pub fn writer_busy(&self) -> std::time::Duration {
        self.inner.writer.busy()
    }

    /// Opens (creating if needed) the database at `path`, brings its schema up to date and
    /// starts the writer thread.
    pub fn open(path: &Path, opts: SqliteOptions) -> Result<Self> {
        Ok(Self::open_file(path, opts)?)
    }

    fn open_file(path: &Path, opts: SqliteOptions) -> fail::Result<Self> {
        create_private(path)?;
        let mut conn = Connection::open(path)?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Backend(format!(
                "{}: cannot use write-ahead logging (journal_mode is {mode})",
                path.display()
            ))
            .into());
        }
        let synchronous = match opts.synchronous {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        };
        conn.pragma_update(None, "synchronous", synchronous)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(
            None,
            "wal_autocheckpoint",
            checkpoint::WRITER_THRESHOLD_PAGES,
        )?;
        conn.set_prepared_statement_cache_capacity(64);
        schema::migrate(&mut conn)?;

        let readers = ReadPool::open(path, opts.readers)?;
        let checkpointer = Checkpointer::start(path)?;
        let callers_commit = opts.synchronous == Synchronous::Normal;
        let writer = Arc::new(Writer::new(
            conn,
            opts.max_batch,
            callers_commit,
            opts.search_delay,
        ));
        let thread = std::thread::Builder::new()
            .name("quire-store-writer".to_owned())
            .spawn({
                let writer = Arc::clone(&writer);
                move || writer.run()
            })
            .map_err(|e| StoreError::Backend(format!("cannot start the writer thread: {e}")))?;
        Ok(SqliteStore {
            inner: Arc::new(Inner {
                readers,
                rebuilt: Rebuilt::default(),
                writer,
                threads: Mutex::new(Some(Threads {
                    writer: thread,
                    checkpointer,
                })),
            }),
        })
    }

    /// Brings the search index up to every Note's newest version now, rather than when the
    /// writer next finds it due (a search does this itself first): how many lagging Notes it
    /// indexed. For a caller that reads the index's tables, or wants a quiet file.
    pub async fn catch_up_search(&self) -> Result<usize> {
        self.submit(|reply| Job::CatchUp(Some(reply))).await
    }

    /// Hands a job to the writer and waits for its verdict, given after the commit.
    async fn submit<T>(&self, job: impl FnOnce(oneshot::Sender<Result<T>>) -> Job) -> Result<T> {
        let (reply, verdict) = oneshot::channel();
        self.inner.writer.submit(job(reply))?;
        verdict.await.map_err(|_| StoreError::Closed)?
    }

    /// Runs a query on a read connection, off the async threads, given the texts the readers
    /// keep (a read of content).
    async fn read_kept<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection, &Rebuilt) -> fail::Result<T> + Send + 'static,
    ) -> Result<T> {
        let inner = Arc::clone(&self.inner);
        Ok(
            tokio::task::spawn_blocking(move || inner.readers.with(|c| f(c, &inner.rebuilt)))
                .await
                .map_err(|e| StoreError::Backend(format!("a read task failed: {e}")))??,
        )
    }

    /// Runs a query on a read connection, off the async threads.
    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> fail::Result<T> + Send + 'static,
    ) -> Result<T> {
        self.read_kept(move |c, _| f(c)).await
    }
}

impl Inner {
    /// Stops the writer after it has committed everything queued, then closes the write
    /// connection (after a commit in progress on a caller's thread). Blocking.
    fn stop_writer(&self) {
        let threads = match self.threads.lock() {
            Ok(mut t) => t.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(Threads {
            writer,
            checkpointer,
        }) = threads
        {
            self.writer.close_queue();
            if writer.join().is_err() {
                tracing::error!("the store's writer thread panicked");
            }
            self.writer.close_connection();
            checkpointer.stop();
        }
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        self.inner.stop_writer();
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_note(&self, new: NewNote) -> Result<(StoredNote, bool)> {
        guard::check_key(new.idempotency_key.as_deref())?;
        self.submit(|reply| Job::CreateNote(Box::new(new), reply))
            .await
    }

    async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
        self.read(read::list_notes).await
    }

    async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
        let id = id.clone();
        self.read_kept(move |c, kept| read::current_note(c, &id, Some(kept)))
            .await
    }

    async fn note_meta(&self, id: &NoteId) -> Result<NoteMeta> {
        let id = id.clone();
        self.read(move |c| read::meta(c, &id)).await
    }

    async fn write(&self, req: WriteRequest) -> Result<WriteResult> {
        // The request is hashed here, before it waits for the writer.
        let req = guard::Fingerprinted::new(req)?;
        self.submit(|reply| Job::Write(Box::new(req), reply)).await
    }

    async fn write_as_agent(&self, req: WriteRequest) -> Result<WriteResult> {
        let req = guard::Fingerprinted::reaching(req, guard::Reach::AgentVisible)?;
        self.submit(|reply| Job::Write(Box::new(req), reply)).await
    }

    async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>> {
        let id = id.clone();
        self.read(move |c| read::history(c, &id)).await
    }

    async fn history_page(
        &self,
        id: &NoteId,
        before: Option<Version>,
        limit: usize,
    ) -> Result<Vec<VersionInfo>> {
        let id = id.clone();
        self.read(move |c| read::history_page(c, &id, before, limit))
            .await
    }

    async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note> {
        let id = id.clone();
        self.read_kept(move |c, kept| read::note_at(c, &id, version, Some(kept)))
            .await
    }

    async fn set_agent_access(
        &self,
        id: &NoteId,
        approved: bool,
        by: &str,
        now: Timestamp,
    ) -> Result<NoteMeta> {
        let (id, by) = (id.clone(), by.to_owned());
        self.submit(|reply| Job::SetAgentAccess {
            id,
            approved,
            by,
            now,
            reply,
        })
        .await
    }

    async fn agent_access_changes(&self, id: &NoteId) -> Result<Vec<AccessChange>> {
        let id = id.clone();
        self.read(move |c| read::agent_access_changes(c, &id)).await
    }

    async fn create_token(&self, token: HashedToken) -> Result<TokenRecord> {
        self.submit(|reply| Job::CreateToken { token, reply }).await
    }

    async fn list_tokens(&self) -> Result<Vec<TokenRecord>> {
        self.read(read::list_tokens).await
    }

    async fn revoke_tokens(
        &self,
        name: &str,
        kind: Option<AuthorKind>,
        now: Timestamp,
    ) -> Result<usize> {
        let name = name.to_owned();
        self.submit(|reply| Job::RevokeTokens {
            name,
            kind,
            now,
            reply,
        })
        .await
    }

    async fn record_token_use(&self, id: i64, at: Timestamp) -> Result<()> {
        self.submit(|reply| Job::RecordTokenUse { id, at, reply })
            .await
    }

    async fn find_token(&self, token_hash: &str) -> Result<Option<TokenRecord>> {
        // Every request reads its token: one primary-key row, read here when a connection is
        // idle (the hop to a blocking thread and back costs more), else off the async threads.
        if let Some(found) = (self.inner.readers).try_with(|c| read::find_token(c, token_hash)) {
            return Ok(found?);
        }
        let hash = token_hash.to_owned();
        self.read(move |c| read::find_token(c, &hash)).await
    }

    async fn settle_token_kinds(&self, person_hash: &str) -> Result<Vec<String>> {
        let hash = person_hash.to_owned();
        self.submit(|reply| Job::SettleTokenKinds(hash, reply))
            .await
    }

    async fn list_trash(&self) -> Result<Vec<NoteSummary>> {
        self.read(trash::list_trash).await
    }

    async fn empty_trash(&self, before: Option<Timestamp>) -> Result<Vec<NoteId>> {
        self.submit(|reply| Job::EmptyTrash { before, reply }).await
    }

    async fn search(
        &self,
        query: &quire_store::search::SearchQuery,
        limit: usize,
        scope: quire_store::search::SearchScope,
    ) -> Result<Vec<SearchHit>> {
        // Every write acknowledged before this point is committed; where the index lags one,
        // it is brought up to date (by a catch-up that starts after those commits) first.
        let first = query.clone();
        let found = self
            .read(move |c| match search::behind(c)? {
                true => Ok(None),
                false => search::search(c, &first, limit, scope).map(Some),
            })
            .await?;
        if let Some(hits) = found {
            return Ok(hits);
        }
        self.submit(|reply| Job::CatchUp(Some(reply))).await?;
        let query = query.clone();
        self.read(move |c| search::search(c, &query, limit, scope))
            .await
    }

    async fn close(&self) -> Result<()> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || inner.stop_writer())
            .await
            .map_err(|e| StoreError::Backend(format!("closing the store failed: {e}")))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// A store in a new file holding one Note, titled `title`, made by "me" at the time given.
    async fn store_with_a_note(title: &str) -> (tempfile::TempDir, SqliteStore, NoteId, Timestamp) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = SqliteStore::open(&dir.path().join("notes.db"), SqliteOptions::default())
            .expect("open");
        let id: NoteId = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse().expect("id");
        let now = Timestamp(1_796_019_882_000);
        store
            .create_note(quire_store::NewNote {
                id: id.clone(),
                title: title.into(),
                author: "me".into(),
                author_kind: AuthorKind::Person,
                now,
                idempotency_key: None,
            })
            .await
            .expect("create");
        (dir, store, id, now)
    }

    /// A version whose history entry is the one before's (a person typing) names that row
    /// instead of spelling the entry out (schema 12), and every reader gives the entry back as
    /// written: the history, a replay's result, a conflict's changed tabs; another author, another
    /// summary or a writer that has not seen the Note since it opened spells it out again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_entry_like_the_one_before_is_not_spelled_out_again() {
        use quire_model::{Op, TabId};
        use quire_store::Change;

        let (dir, store, id, now) = store_with_a_note("Typed").await;
        let path = dir.path().join("notes.db");
        let open = || SqliteStore::open(&path, SqliteOptions::default()).expect("open");
        let markdown = TabId::new(TabId::MARKDOWN);
        let typed = |v: u64, author: &str, kind: AuthorKind| WriteRequest {
            note_id: id.clone(),
            expected_version: Version(v),
            idempotency_key: Some(format!("key-{v}")),
            author: author.into(),
            author_kind: kind,
            change: Change::Ops(vec![Op::ReplaceText {
                tab_id: markdown.clone(),
                text: format!("typed {v}"),
            }]),
            now,
        };
        // v2-v5 by me, v6 by the agent, v7 by me, v8 a new tab by me.
        let mut results = Vec::new();
        for v in 1..=6 {
            let (author, kind) = match v {
                5 => ("claude", AuthorKind::Agent),
                _ => ("me", AuthorKind::Person),
            };
            results.push(store.write(typed(v, author, kind)).await.expect("write"));
        }
        store
            .write(WriteRequest {
                change: Change::Ops(vec![Op::CreateTab {
                    tab_type: quire_model::NewTabKind::Sheet,
                    label: Some("Figures".into()),
                    slides: None,
                }]),
                ..typed(7, "me", AuthorKind::Person)
            })
            .await
            .expect("add a tab");
        // A writer that opened the file since: its first write spells its entry out.
        store.close().await.expect("close");
        drop(store);
        let store = open();
        store
            .write(typed(8, "me", AuthorKind::Person))
            .await
            .expect("write after opening");
        store
            .write(typed(9, "me", AuthorKind::Person))
            .await
            .expect("write");
        let listed = store.list_notes().await.expect("list");
        assert_eq!(
            listed[0].title, "Typed",
            "the newest row's title is its like's"
        );
        // v11 renames the Note, v12 and v13 type under the new title.
        store
            .write(WriteRequest {
                change: Change::Ops(vec![Op::SetTitle {
                    title: "Renamed".into(),
                }]),
                ..typed(10, "me", AuthorKind::Person)
            })
            .await
            .expect("rename");
        for v in 11..=12 {
            store
                .write(typed(v, "me", AuthorKind::Person))
                .await
                .expect("write");
        }
        // Another Note, made an hour before: the list puts it after this one, whose newest row
        // stores only its time of day (the date is its like's).
        let other: NoteId = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f52".parse().expect("id");
        store
            .create_note(quire_store::NewNote {
                id: other.clone(),
                title: "Older".into(),
                author: "me".into(),
                author_kind: AuthorKind::Person,
                now: Timestamp(now.0 - 3_600_000),
                idempotency_key: None,
            })
            .await
            .expect("create");
        let listed = store.list_notes().await.expect("list");
        assert_eq!(
            (listed[0].title.as_str(), listed[0].version),
            ("Renamed", Version(13))
        );
        assert_eq!(listed[0].updated_at, now.to_rfc3339());
        assert_eq!(listed[1].id, other);
        // A day later, like v12 still: its row spells its whole time out.
        let tomorrow = Timestamp(now.0 + 86_400_000);
        store
            .write(WriteRequest {
                now: tomorrow,
                ..typed(13, "me", AuthorKind::Person)
            })
            .await
            .expect("write a day later");
        let listed = store.list_notes().await.expect("list");
        assert_eq!(listed[0].updated_at, tomorrow.to_rfc3339());

        type Row = (Option<i64>, String, String, String);
        let rows: Vec<Row> = store
            .inner
            .readers
            .with(|c| {
                let mut stmt = c.prepare(
                    "SELECT entry_at, title, strip, created_at FROM versions
                     WHERE key >> 32 = (SELECT nid FROM notes WHERE id = ?1) ORDER BY key",
                )?;
                let rows = stmt.query_map([id.as_str()], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .expect("rows");
        // A row like another on the same date stores its time of day only.
        let times: Vec<usize> = rows.iter().map(|r| r.3.len()).collect();
        let (whole, time_of_day) = (24, 13);
        let mut want = vec![whole; 14];
        for v in [3, 4, 5, 10, 13] {
            want[v - 1] = time_of_day;
        }
        assert_eq!(times, want);
        let entry_at: Vec<Option<i64>> = rows.iter().map(|r| r.0).collect();
        let like = |v: i64| Some(v);
        assert_eq!(
            entry_at,
            [
                None,
                None,
                like(2),
                like(2),
                like(2),
                None,
                None,
                None,
                None,
                like(9),
                None,
                None,
                like(12),
                like(12)
            ]
        );
        // A row like another spells out neither its title nor (its tabs in that row's places
        // but those it changed) its strip; every other row spells both out.
        for (i, (like, title, strip, _)) in rows.iter().enumerate() {
            assert_eq!(like.is_some(), title.is_empty(), "v{}: {title:?}", i + 1);
            assert_eq!(like.is_some(), strip.is_empty(), "v{}: {strip:?}", i + 1);
        }
        // Every version reads back with its title, its tabs and where their contents are.
        for v in 1..=13u64 {
            let note = store.note_at(&id, Version(v)).await.expect("note_at");
            let title = if v >= 11 { "Renamed" } else { "Typed" };
            assert_eq!(note.title, title, "v{v}");
            assert_eq!(note.tabs.len(), if v >= 8 { 4 } else { 3 }, "v{v}");
            let quire_model::TabData::Markdown(text) = &note.tab(&markdown).expect("tab").data
            else {
                panic!("v{v}: not markdown");
            };
            let want = match v {
                1 => String::new(),
                8 => "typed 6".to_owned(),
                11 => "typed 9".to_owned(),
                v => format!("typed {}", v - 1),
            };
            assert_eq!(text.as_str(), want, "v{v}");
        }

        let history = store.history(&id).await.expect("history");
        let times: Vec<&str> = history.iter().map(|v| v.created_at.as_str()).collect();
        let (today, next_day) = (now.to_rfc3339(), tomorrow.to_rfc3339());
        let mut want = vec![today.as_str(); 13];
        want.push(&next_day);
        assert_eq!(times, want, "every entry's whole time");
        let seen: Vec<(u64, &str, AuthorKind, &str, Vec<&str>)> = history
            .iter()
            .map(|v| {
                (
                    v.version.0,
                    v.author.as_str(),
                    v.author_kind,
                    v.summary.as_str(),
                    v.changed_tab_ids.iter().map(TabId::as_str).collect(),
                )
            })
            .collect();
        let edited = history[1].summary.as_str();
        assert!(edited.contains("text"), "{edited}");
        let (me, agent) = (AuthorKind::Person, AuthorKind::Agent);
        assert_eq!(seen[0], (1, "me", me, "created", seen[0].4.clone()));
        for (i, (author, kind)) in [
            ("me", me),
            ("me", me),
            ("me", me),
            ("me", me),
            ("claude", agent),
            ("me", me),
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(
                seen[i + 1],
                (i as u64 + 2, author, kind, edited, vec!["markdown"])
            );
        }
        assert_ne!(seen[7].3, edited, "adding a tab says so");
        assert_eq!(seen[8], (9, "me", me, edited, vec!["markdown"]));
        assert_eq!(seen[9], (10, "me", me, edited, vec!["markdown"]));
        assert_ne!(seen[10].3, edited, "renaming says so");
        assert_eq!(seen[12], (13, "me", me, edited, vec!["markdown"]));
        // The page reader gives the same entries, its rows' named entries read from older rows.
        let page = store
            .history_page(&id, Some(Version(5)), 2)
            .await
            .expect("page");
        assert_eq!(page, history[2..4]);

        // A resent write is answered from the row it made, whose entry is v2's.
        let replayed = store
            .write(typed(3, "me", AuthorKind::Person))
            .await
            .expect("replay");
        assert!(replayed.replayed);
        assert_eq!(replayed.version, Version(4));
        assert_eq!(replayed.changed_tab_ids, results[2].changed_tab_ids);
        assert_eq!(replayed.outcomes, results[2].outcomes);
        // A stale write learns the tabs changed since, read through the named entries.
        let stale = WriteRequest {
            idempotency_key: Some("late".into()),
            ..typed(2, "me", AuthorKind::Person)
        };
        match store.write(stale).await {
            Err(StoreError::Conflict(c)) => {
                assert_eq!(c.current_version, Version(14));
                let ids: Vec<&str> = c.changed_tab_ids.iter().map(TabId::as_str).collect();
                assert_eq!(ids.len(), 2, "{ids:?}");
                assert_eq!(ids[0], "markdown");
            }
            other => panic!("not a conflict: {other:?}"),
        }
    }

    /// A person typing into a long text: each full chain of splices is rebased on the splices
    /// earlier rebases stacked (`splice::rebase_point`), not on the whole text every time, so
    /// the history stores each character a few times, not once per rebase since the whole text;
    /// every version reads back, and no chain is longer than 32 splices.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn typing_into_a_long_text_stores_each_character_a_few_times() {
        use quire_model::{Op, TabId, TextSplice};
        use quire_store::Change;

        let (_dir, store, id, now) = store_with_a_note("Typed").await;
        let markdown = TabId::new(TabId::MARKDOWN);
        let mut text: String = (0..3_000)
            .map(|n| format!("line {n} of a long text\n"))
            .collect();
        assert!(text.len() > 64 * 1024);
        let write = |expected: u64, op: Op| WriteRequest {
            note_id: id.clone(),
            expected_version: Version(expected),
            idempotency_key: None,
            author: "me".into(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(vec![op]),
            now,
        };
        let replace = Op::ReplaceText {
            tab_id: markdown.clone(),
            text: text.clone(),
        };
        store
            .write(write(1, replace))
            .await
            .expect("the whole text");
        let mut texts = vec![String::new(), String::new(), text.clone()];
        // 1,200 characters, in runs of 100 at places apart (all ASCII: a byte is a character).
        let typed = 1_200;
        let mut at = 0;
        for i in 0..typed {
            if i % 100 == 0 {
                at = (i * 7_919) % text.len();
            }
            let splice = TextSplice {
                at: at as u64,
                delete: 0,
                insert: "x".into(),
            };
            text.insert(at, 'x');
            at += 1;
            let op = Op::SpliceText {
                tab_id: markdown.clone(),
                splices: vec![splice],
            };
            let v = texts.len() as u64 - 1;
            store.write(write(v, op)).await.expect("a character");
            texts.push(text.clone());
        }

        let stored: Vec<(u64, Option<String>)> = store
            .inner
            .readers
            .with(|c| {
                let mut stmt =
                    c.prepare("SELECT key & 4294967295, deltas FROM versions ORDER BY key")?;
                let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            })
            .expect("rows");
        let mut put = 0;
        let mut base_of = std::collections::HashMap::new();
        for (version, deltas) in &stored {
            let Some(deltas) = deltas else { continue };
            let splice = splice::stored(deltas, Version(*version))
                .expect("splices")
                .remove("markdown")
                .expect("a splice");
            put += splice.put.len() + splice.more.iter().map(|h| h.put.len()).sum::<usize>();
            // A row names its splice's base only when it is not the version before, and
            // leaves out what cuts nothing.
            let named = deltas.contains("\"base\"");
            assert_eq!(named, splice.base.0 + 1 != *version, "{version}: {deltas}");
            assert!(!deltas.contains("\"cut\":0"), "{version}: {deltas}");
            base_of.insert(*version, splice.base.0);
        }
        // Rebased on the whole text every 32 saves, it stored ~24,000 bytes put for 1,200 typed.
        assert!(
            put < 4 * typed,
            "{put} bytes put for {typed} characters typed"
        );
        for version in 3..texts.len() as u64 {
            let (mut depth, mut at) = (0, version);
            while let Some(&base) = base_of.get(&at) {
                (depth, at) = (depth + 1, base);
            }
            assert_eq!(at, 2, "version {version} stands on the whole text");
            assert!(depth <= 32, "version {version}: a chain of {depth}");
        }
        for (v, expected) in texts.iter().enumerate().skip(2).step_by(7) {
            let note = store
                .note_at(&id, Version(v as u64))
                .await
                .expect("note_at");
            let quire_model::TabData::Markdown(read) = &note.tab(&markdown).expect("markdown").data
            else {
                panic!("not markdown");
            };
            assert!(
                read.as_str() == expected,
                "version {v} reads back otherwise"
            );
        }
    }

    /// The versions panel's pages are read by one statement planned once: paging through a long
    /// history does not plan it again for every page.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn history_pages_are_read_without_planning_again() {
        use quire_model::{Op, TabId};
        use quire_store::Change;

        let (_dir, store, id, now) = store_with_a_note("Paged").await;
        for v in 1..=9 {
            let change = Change::Ops(vec![Op::ReplaceText {
                tab_id: TabId::new(TabId::MARKDOWN),
                text: format!("version {}", v + 1),
            }]);
            store
                .write(WriteRequest {
                    note_id: id.clone(),
                    expected_version: Version(v),
                    idempotency_key: None,
                    author: "me".into(),
                    author_kind: AuthorKind::Person,
                    change,
                    now,
                })
                .await
                .expect("write");
        }
        let (pages, runs, plans) = store
            .inner
            .readers
            .with(|c| {
                let mut pages = Vec::new();
                for (before, limit) in [(None, 4), (Some(Version(7)), 4), (Some(Version(3)), 4)] {
                    let page = read::history_page(c, &id, before, limit)?;
                    pages.push(page.iter().map(|v| v.version.0).collect::<Vec<_>>());
                }
                let stmt = c.prepare_cached(read::HISTORY_PAGE)?;
                Ok((
                    pages,
                    stmt.get_status(rusqlite::StatementStatus::Run),
                    stmt.get_status(rusqlite::StatementStatus::RePrepare),
                ))
            })
            .expect("pages");
        assert_eq!(pages, [vec![7, 8, 9, 10], vec![3, 4, 5, 6], vec![1, 2]]);
        assert_eq!(runs, 3);
        assert_eq!(plans, 0, "planned again");
    }

    /// A long text read back from its splices is kept (`rebuilt.rs`) and read again from
    /// there, the same text; each version is its own entry; the next version is rebuilt from
    /// the kept text under it, checked by its splice's hash; an erased Note is not found
    /// although its text was kept.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn long_texts_rebuilt_from_splices_are_kept_for_the_next_read() {
        use quire_model::{Op, TabId, TextEdit};
        use quire_store::Change;

        let (_dir, store, id, now) = store_with_a_note("Long").await;
        let lines: Vec<String> = (0..3_000)
            .map(|n| format!("line {n} of the long text"))
            .collect();
        let write = |expected: u64, change: Change| WriteRequest {
            note_id: id.clone(),
            expected_version: Version(expected),
            idempotency_key: None,
            author: "me".into(),
            author_kind: AuthorKind::Person,
            change,
            now,
        };
        let tab_id = TabId::new(TabId::MARKDOWN);
        let whole = Change::Ops(vec![Op::ReplaceText {
            tab_id: tab_id.clone(),
            text: lines.join("\n"),
        }]);
        store.write(write(1, whole)).await.expect("fill");
        for (v, n) in [(2, 10), (3, 2_000), (4, 500)] {
            let edit = Change::Ops(vec![Op::EditText {
                tab_id: tab_id.clone(),
                edits: vec![TextEdit {
                    old_text: format!("line {n} of"),
                    new_text: format!("LINE {n} of"),
                }],
            }]);
            store.write(write(v, edit)).await.expect("edit");
        }
        let expected = lines
            .join("\n")
            .replace("line 10 of", "LINE 10 of")
            .replace("line 2000 of", "LINE 2000 of")
            .replace("line 500 of", "LINE 500 of");
        let text = |note: &Note| match &note.tab(&tab_id).expect("tab").data {
            quire_model::TabData::Markdown(t) => t.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(store.inner.rebuilt.len(), 0);
        let first = store.get_note(&id).await.expect("read");
        assert_eq!(text(&first.note), expected);
        assert_eq!(store.inner.rebuilt.len(), 1, "the newest text is kept");
        let again = store.get_note(&id).await.expect("read again");
        assert_eq!(again, first);
        assert_eq!(store.inner.rebuilt.len(), 1, "and read from there");
        // Version 4: the second edit made, not the third.
        let older = text(&store.note_at(&id, Version(4)).await.expect("version 4"));
        assert!(older.contains("LINE 2000 of") && !older.contains("LINE 500 of"));
        assert_eq!(
            store.inner.rebuilt.len(),
            2,
            "another version, another entry"
        );

        // The next version is rebuilt from the kept text under it: one splice, checked by its
        // hash like any other, so a wrong kept text is refused, never served.
        let v5 = text(&first.note);
        let mut wrong = v5.clone();
        wrong.replace_range(0..4, "LINE");
        store
            .inner
            .rebuilt
            .put(&id, &tab_id, Version(5), &wrong.into(), 3);
        let edit = Change::Ops(vec![Op::EditText {
            tab_id: tab_id.clone(),
            edits: vec![TextEdit {
                old_text: "line 1000 of".into(),
                new_text: "LINE 1000 of".into(),
            }],
        }]);
        store.write(write(5, edit)).await.expect("edit");
        let refused = store
            .get_note(&id)
            .await
            .expect_err("built on the wrong text");
        assert!(
            refused.to_string().contains("cannot be rebuilt"),
            "{refused}"
        );
        store
            .inner
            .rebuilt
            .put(&id, &tab_id, Version(5), &v5.clone().into(), 3);
        let v6 = store.get_note(&id).await.expect("built on the kept text");
        assert_eq!(text(&v6.note), v5.replace("line 1000 of", "LINE 1000 of"));

        store
            .write(write(6, Change::Trash))
            .await
            .expect("to the trash");
        store.empty_trash(None).await.expect("erase");
        assert!(matches!(
            store.get_note(&id).await,
            Err(StoreError::NoteNotFound(_))
        ));
    }

    /// Callers commit on their own thread under NORMAL only (see `writer`).
    #[test]
    fn callers_commit_under_normal_only() {
        let dir = tempfile::tempdir().expect("temporary directory");
        for (synchronous, expected) in [(Synchronous::Normal, true), (Synchronous::Full, false)] {
            let path = dir.path().join(format!("{synchronous:?}.db"));
            let opts = SqliteOptions {
                synchronous,
                ..SqliteOptions::default()
            };
            let store = SqliteStore::open(&path, opts).expect("open");
            assert_eq!(store.inner.writer.callers_commit(), expected);
        }
    }
}
