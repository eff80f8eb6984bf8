//! The one write connection and the queue in front of it. All the jobs found waiting are
//! committed together (group commit): one `BEGIN IMMEDIATE`, a savepoint per job so that each
//! keeps its own verdict, one `COMMIT` (one fsync) for the batch. Callers hear back only after
//! the `COMMIT` returned: acknowledged means durable.
//!
//! Who commits: the writer thread commits what is queued, with everything queued meanwhile,
//! as soon as the connection is free (concurrent writers share one commit). Under
//! `synchronous=NORMAL` a caller that finds the connection free commits its own job (and
//! whatever is queued) on its own thread instead, so a lone writer pays no hop to another thread
//! and back: a third of a NORMAL write's latency. Under FULL the commit waits for the disk and
//! the caller queues: a tokio worker blocked that long hands its runtime to another thread
//! (`block_in_place`), which cost more over HTTP than the hop it saves (BENCHMARKS.md).
//!
//! The search index lags the guarded writes (`search.rs`): once a Note has been listed as
//! lagging for `search_delay`, the next batch brings the index up to date before its `COMMIT`
//! (the writer thread runs one of its own when no job comes), and a search asks for it first.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, TryLockError};
use std::time::{Duration, Instant};

use quire_model::{AuthorKind, NoteId, Timestamp};
use rusqlite::Connection;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::oneshot;

use super::cache::NoteCache;
use super::{guarded, search, trash};
use crate::fail;
use quire_api::{NoteMeta, StoredNote, WriteResult};
use quire_store::guard::Fingerprinted;
use quire_store::{HashedToken, NewNote, Result, StoreError, TokenRecord};

type Reply<T> = oneshot::Sender<Result<T>>;

/// A write waiting for the writer, with the channel its result goes back on.
pub(super) enum Job {
    Write(Box<Fingerprinted>, Reply<WriteResult>),
    CreateNote(Box<NewNote>, Reply<(StoredNote, bool)>),
    SetAgentAccess {
        id: NoteId,
        approved: bool,
        by: String,
        now: Timestamp,
        reply: Reply<NoteMeta>,
    },
    CreateToken {
        token: HashedToken,
        reply: Reply<TokenRecord>,
    },
    SettleTokenKinds(String, Reply<Vec<String>>),
    RevokeTokens {
        name: String,
        kind: Option<AuthorKind>,
        now: Timestamp,
        reply: Reply<usize>,
    },
    RecordTokenUse {
        id: i64,
        at: Timestamp,
        reply: Reply<()>,
    },
    EmptyTrash {
        before: Option<Timestamp>,
        reply: Reply<Vec<NoteId>>,
    },
    /// Brings the search index up to every listed Note's newest version (`search::catch_up`),
    /// answering how many it indexed: asked by a search (`Some`), or added to a batch by the
    /// writer once the listing is due (`None`).
    CatchUp(Option<Reply<usize>>),
}

/// A job's verdict, held until the batch's fate is known. Called with `None` after a
/// successful `COMMIT` (the verdict stands), or with the error that lost the batch.
type Settle = Box<dyn FnOnce(Option<&StoreError>) + Send>;

fn settle<T: Send + 'static>(reply: Reply<T>, verdict: Result<T>) -> Settle {
    Box::new(move |lost| {
        let out = match lost {
            Some(e) => Err(StoreError::Backend(format!(
                "the write was not committed: {e}"
            ))),
            None => verdict,
        };
        if reply.send(out).is_err() {
            tracing::debug!("a caller went away before its write was acknowledged");
        }
    })
}

/// How a refused job's changes are undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Undo {
    /// The job is alone in its batch: a refusal rolls the whole transaction back.
    Transaction,
    /// The job shares its batch: it runs under a savepoint of its own.
    Savepoint,
}

/// What became of a job inside the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Kept,
    Refused,
    /// Undoing it failed: the transaction must not be committed.
    Broken,
}

impl Job {
    /// Runs the job inside the open transaction.
    fn run(self, conn: &Connection, cache: &mut NoteCache, undo: Undo) -> (Settle, Outcome) {
        match self {
            Job::Write(req, reply) => {
                let (verdict, outcome) = guarded(conn, undo, |c| guarded::write(c, cache, &req));
                (settle(reply, verdict), outcome)
            }
            Job::CreateNote(new, reply) => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| guarded::create_note(c, cache, &new));
                (settle(reply, verdict), outcome)
            }
            Job::SetAgentAccess {
                id,
                approved,
                by,
                now,
                reply,
            } => {
                let (verdict, outcome) = guarded(conn, undo, |c| {
                    guarded::set_agent_access(c, &id, approved, &by, now)
                });
                (settle(reply, verdict), outcome)
            }
            Job::CreateToken { token, reply } => {
                let (verdict, outcome) = guarded(conn, undo, |c| guarded::create_token(c, &token));
                (settle(reply, verdict), outcome)
            }
            Job::RevokeTokens {
                name,
                kind,
                now,
                reply,
            } => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| guarded::revoke_tokens(c, &name, kind, now));
                (settle(reply, verdict), outcome)
            }
            Job::RecordTokenUse { id, at, reply } => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| guarded::record_token_use(c, id, at));
                (settle(reply, verdict), outcome)
            }
            Job::SettleTokenKinds(person_hash, reply) => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| guarded::settle_token_kinds(c, &person_hash));
                (settle(reply, verdict), outcome)
            }
            Job::EmptyTrash { before, reply } => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| trash::empty_trash(c, cache, before));
                (settle(reply, verdict), outcome)
            }
            Job::CatchUp(reply) => {
                let (verdict, outcome) = guarded(conn, undo, |c| search::catch_up(c, cache));
                if verdict.is_err() {
                    cache.retry_later();
                }
                match reply {
                    Some(reply) => (settle(reply, verdict), outcome),
                    None => {
                        if let Err(e) = &verdict {
                            tracing::error!("bringing the search index up to date failed: {e}");
                        }
                        (Box::new(|_| {}), outcome)
                    }
                }
            }
        }
    }

    /// The job never ran: its batch could not start or was lost before it.
    fn refuse(self, e: &StoreError) {
        let lost = Some(e);
        match self {
            Job::Write(_, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::CreateNote(_, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::SetAgentAccess { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
            Job::CreateToken { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
            Job::SettleTokenKinds(_, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::RevokeTokens { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
            Job::RecordTokenUse { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
            Job::EmptyTrash { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
            Job::CatchUp(Some(reply)) => settle(reply, Err(StoreError::Closed))(lost),
            Job::CatchUp(None) => {}
        }
    }
}

fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// Runs `f` so that, if it fails, none of its changes survive: under a savepoint (rolled back
/// on failure, alone) or, for a job alone in its batch, leaving the rollback to the caller.
fn guarded<T>(
    conn: &Connection,
    undo: Undo,
    f: impl FnOnce(&Connection) -> fail::Result<T>,
) -> (Result<T>, Outcome) {
    let f = |conn| f(conn).map_err(StoreError::from);
    if undo == Undo::Transaction {
        let verdict = f(conn);
        let outcome = if verdict.is_ok() {
            Outcome::Kept
        } else {
            Outcome::Refused
        };
        return (verdict, outcome);
    }
    if let Err(e) = exec(conn, "SAVEPOINT job") {
        return (Err(fail::sqlite(e)), Outcome::Broken);
    }
    let verdict = f(conn);
    let (closed, outcome) = if verdict.is_err() {
        let undone = exec(conn, "ROLLBACK TO job").and_then(|()| exec(conn, "RELEASE job"));
        (undone, Outcome::Refused)
    } else {
        (exec(conn, "RELEASE job"), Outcome::Kept)
    };
    match closed {
        Ok(()) => (verdict, outcome),
        Err(e) => (Err(fail::sqlite(e)), Outcome::Broken),
    }
}

/// The write connection with the writer's copies of the Notes it wrote last.
struct Connected {
    conn: Connection,
    cache: NoteCache,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// False once the store is closing: no job is taken any more.
    open: bool,
}

/// The write side of the store: the connection (`None` once closed) and the queue of jobs
/// waiting for it. Lock order: `conn` before `queue`.
pub(super) struct Writer {
    conn: Mutex<Option<Connected>>,
    queue: Mutex<Queue>,
    queued: Condvar,
    max_batch: usize,
    /// Whether a caller that finds the connection free commits on its own thread.
    callers_commit: bool,
    /// Nanoseconds spent committing batches, since the store opened.
    busy: AtomicU64,
    /// How long a Note's search index may lag it before a batch brings it up to date.
    search_delay: Duration,
    /// When the search index is due to be brought up to date: nanoseconds after `opened`, plus
    /// one (0: nothing lags). Follows the cache's `behind_since` after every batch.
    search_due: AtomicU64,
    opened: Instant,
}

impl Writer {
    pub(super) fn new(
        conn: Connection,
        max_batch: usize,
        callers_commit: bool,
        search_delay: Duration,
    ) -> Self {
        let mut cache = NoteCache::default();
        // A listing left by a process that stopped before its index caught up.
        if search::behind(&conn).unwrap_or(true) {
            cache.may_be_behind();
        }
        let opened = Instant::now();
        let writer = Writer {
            conn: Mutex::new(Some(Connected { conn, cache })),
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                open: true,
            }),
            queued: Condvar::new(),
            max_batch: max_batch.max(1),
            callers_commit,
            busy: AtomicU64::new(0),
            search_delay,
            search_due: AtomicU64::new(0),
            opened,
        };
        if let Ok(mut conn) = writer.conn.lock()
            && let Some(connected) = conn.as_mut()
        {
            writer.follow_search_lag(&connected.cache);
        }
        writer
    }

    /// When the search index is due to be brought up to date, if anything lags.
    fn search_due(&self) -> Option<Instant> {
        match self.search_due.load(Ordering::Acquire) {
            0 => None,
            n => Some(self.opened + Duration::from_nanos(n - 1)),
        }
    }

    /// Sets the due time from the cache's `behind_since`; wakes the writer thread when something
    /// newly lags (it times the catch-up when no job comes).
    fn follow_search_lag(&self, cache: &NoteCache) {
        let due = cache.behind_since().map(|since| {
            let after = (since + self.search_delay).saturating_duration_since(self.opened);
            u64::try_from(after.as_nanos()).unwrap_or(u64::MAX - 1) + 1
        });
        let was = self.search_due.swap(due.unwrap_or(0), Ordering::AcqRel);
        if was == 0 && due.is_some() {
            // Under the queue's lock: the writer thread is either about to read the due time
            // or waiting already, never between the two.
            drop(self.queue.lock());
            self.queued.notify_one();
        }
    }

    /// How long the writer has spent committing since the store opened.
    pub(super) fn busy(&self) -> Duration {
        Duration::from_nanos(self.busy.load(Ordering::Relaxed))
    }

    /// Commits a batch, timed; brings the search index up to date in it when that is due.
    fn commit(&self, connected: &mut Connected, batch: &mut Vec<Job>) {
        let start = Instant::now();
        if self.search_due().is_some_and(|due| due <= start)
            && !batch.iter().any(|job| matches!(job, Job::CatchUp(_)))
        {
            batch.push(Job::CatchUp(None));
        }
        commit_batch(&connected.conn, &mut connected.cache, batch);
        self.follow_search_lag(&connected.cache);
        let took = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.busy.fetch_add(took, Ordering::Relaxed);
    }

    /// Hands a job over: committed here and now if callers commit, the connection is free and
    /// this thread may block (a multi-threaded runtime), else queued for the writer thread. Its
    /// verdict goes to the job's reply, after the commit. `Closed` if the store is closing (the
    /// job is dropped unanswered).
    pub(super) fn submit(&self, job: Job) -> Result<()> {
        if self.callers_commit && may_block_here() {
            match self.conn.try_lock() {
                Ok(mut conn) => return self.lead(&mut conn, job),
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Poisoned(poisoned)) => {
                    return self.lead(&mut poisoned.into_inner(), job);
                }
            }
        }
        let mut queue = self.lock_queue()?;
        if !queue.open {
            return Err(StoreError::Closed);
        }
        queue.jobs.push_back(job);
        drop(queue);
        self.queued.notify_one();
        Ok(())
    }

    /// Commits `job` and whatever is queued, on the caller's thread (the runtime moves its
    /// other tasks elsewhere meanwhile).
    fn lead(&self, conn: &mut Option<Connected>, job: Job) -> Result<()> {
        let Some(connected) = conn.as_mut() else {
            return Err(StoreError::Closed);
        };
        let mut batch = {
            let mut queue = self.lock_queue()?;
            if !queue.open {
                return Err(StoreError::Closed);
            }
            let mut batch = Vec::with_capacity(queue.jobs.len().min(self.max_batch) + 1);
            batch.push(job);
            take(&mut queue, &mut batch, self.max_batch);
            batch
        };
        tokio::task::block_in_place(|| self.commit(connected, &mut batch));
        Ok(())
    }

    /// The writer thread's loop: until the store closes and the queue is empty, wait for a
    /// job (or for the search index to be due), then take the connection and commit what is
    /// queued (at most `max_batch` jobs) as one batch. A caller that led meanwhile may have
    /// taken the jobs already. Before it returns, the index catches up.
    pub(super) fn run(&self) {
        let mut batch = Vec::with_capacity(self.max_batch);
        loop {
            {
                let Ok(mut queue) = self.lock_queue() else {
                    return;
                };
                while queue.jobs.is_empty() && queue.open {
                    let now = Instant::now();
                    queue = match self.search_due() {
                        Some(due) if due <= now => break,
                        Some(due) => match self.queued.wait_timeout(queue, due - now) {
                            Ok((q, _)) => q,
                            Err(_) => return,
                        },
                        None => match self.queued.wait(queue) {
                            Ok(q) => q,
                            Err(_) => return,
                        },
                    };
                }
                if queue.jobs.is_empty() && !queue.open {
                    drop(queue);
                    self.catch_up_before_closing();
                    return;
                }
            }
            // A panic while committing leaves the connection usable: `commit_batch` closes a
            // transaction left open before it starts.
            let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(connected) = conn.as_mut() else {
                return;
            };
            if let Ok(mut queue) = self.lock_queue() {
                take(&mut queue, &mut batch, self.max_batch);
            }
            let due = self.search_due().is_some_and(|due| due <= Instant::now());
            if !batch.is_empty() || due {
                self.commit(connected, &mut batch);
            }
        }
    }

    /// The last batch: the search index brought up to date, if anything lags.
    fn catch_up_before_closing(&self) {
        if self.search_due().is_none() {
            return;
        }
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(connected) = conn.as_mut() {
            commit_batch(
                &connected.conn,
                &mut connected.cache,
                &mut vec![Job::CatchUp(None)],
            );
            self.follow_search_lag(&connected.cache);
        }
    }

    /// Stops taking jobs; the writer thread commits what is queued and returns.
    pub(super) fn close_queue(&self) {
        let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.open = false;
        drop(queue);
        self.queued.notify_all();
    }

    /// Closes the connection, after any commit in progress. Call after the writer thread
    /// returned.
    pub(super) fn close_connection(&self) {
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(connected) = conn.take()
            && let Err((_, e)) = connected.conn.close()
        {
            tracing::error!("closing the write connection failed: {e}");
        }
        // Jobs that raced the close: refused, never dropped unanswered.
        let closing = StoreError::Closed;
        if let Ok(mut queue) = self.queue.lock() {
            queue.jobs.drain(..).for_each(|job| job.refuse(&closing));
        }
    }

    #[cfg(test)]
    pub(super) fn callers_commit(&self) -> bool {
        self.callers_commit
    }

    fn lock_queue(&self) -> Result<MutexGuard<'_, Queue>> {
        self.queue.lock().map_err(|_| StoreError::Closed)
    }
}

/// Whether blocking this thread is allowed: outside any runtime, or on a multi-threaded one
/// (`block_in_place`). A current-thread runtime must not block: its jobs go to the queue.
fn may_block_here() -> bool {
    Handle::try_current().map_or(true, |h| h.runtime_flavor() == RuntimeFlavor::MultiThread)
}

/// Moves queued jobs into `batch` until it holds `max_batch`.
fn take(queue: &mut Queue, batch: &mut Vec<Job>, max_batch: usize) {
    let n = max_batch.saturating_sub(batch.len()).min(queue.jobs.len());
    batch.extend(queue.jobs.drain(..n));
}

/// Opens the batch's transaction and checks the writer's copies are still current; on failure
/// no transaction is left open and the copies are forgotten.
fn begin(conn: &Connection, cache: &mut NoteCache) -> rusqlite::Result<()> {
    exec(conn, "BEGIN IMMEDIATE")?;
    let checked = cache.check_data_version(conn);
    if checked.is_err() {
        cache.clear();
        if let Err(rollback) = exec(conn, "ROLLBACK") {
            tracing::error!("rollback failed: {rollback}");
        }
    }
    checked
}

/// One transaction for the whole batch; verdicts are delivered after the `COMMIT` returned.
fn commit_batch(conn: &Connection, cache: &mut NoteCache, batch: &mut Vec<Job>) {
    if !conn.is_autocommit()
        && let Err(e) = exec(conn, "ROLLBACK")
    {
        tracing::error!("cannot close a transaction left open: {e}");
    }
    if let Err(e) = begin(conn, cache) {
        let e = fail::sqlite(e);
        tracing::error!("cannot start a write transaction: {e}");
        batch.drain(..).for_each(|job| job.refuse(&e));
        return;
    }
    let undo = if batch.len() == 1 {
        Undo::Transaction
    } else {
        Undo::Savepoint
    };
    let mut verdicts = Vec::with_capacity(batch.len());
    let mut broken = None;
    let mut kept = 0;
    for job in batch.drain(..) {
        if let Some(e) = &broken {
            job.refuse(e);
            continue;
        }
        let (verdict, outcome) = job.run(conn, cache, undo);
        verdicts.push(verdict);
        match outcome {
            Outcome::Kept => kept += 1,
            Outcome::Refused => {}
            Outcome::Broken => {
                broken = Some(StoreError::Backend(
                    "a savepoint failed; the batch was rolled back".to_owned(),
                ));
            }
        }
    }
    let lost = match broken {
        Some(e) => Some(e),
        // A lone refused job: nothing to keep. Its verdict stands whatever the rollback does.
        None if kept == 0 => {
            if let Err(e) = exec(conn, "ROLLBACK") {
                tracing::error!("rollback failed: {e}");
            }
            None
        }
        None => exec(conn, "COMMIT").err().map(fail::sqlite),
    };
    if let Some(e) = &lost {
        tracing::error!("a write batch was lost: {e}");
        cache.clear();
        if !conn.is_autocommit()
            && let Err(rollback) = exec(conn, "ROLLBACK")
        {
            tracing::error!("rollback failed: {rollback}");
        }
    }
    for verdict in verdicts {
        verdict(lost.as_ref());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use quire_model::{Op, TabId, Timestamp, Version};

    use super::*;
    use quire_api::Conflict;
    use quire_store::{Change, WriteRequest};

    fn open() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut conn = Connection::open(dir.path().join("w.db")).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        super::super::schema::migrate(&mut conn).expect("migrate");
        (dir, conn)
    }

    fn note(n: u8) -> NoteId {
        NoteId::from_uuid(
            uuid::Builder::from_unix_timestamp_millis(1_796_019_881_000, &[n; 10]).into_uuid(),
        )
    }

    fn create(id: &NoteId) -> (Job, oneshot::Receiver<Result<(StoredNote, bool)>>) {
        let (reply, verdict) = oneshot::channel();
        let new = NewNote {
            id: id.clone(),
            title: "t".to_owned(),
            author: "a".to_owned(),
            author_kind: AuthorKind::Person,
            now: Timestamp(0),
            idempotency_key: None,
        };
        (Job::CreateNote(Box::new(new), reply), verdict)
    }

    /// Creates Note `id` in a batch of its own and waits for it.
    fn create_alone(conn: &Connection, cache: &mut NoteCache, id: &NoteId) {
        let (job, created) = create(id);
        commit_batch(conn, cache, &mut vec![job]);
        created.blocking_recv().unwrap().unwrap();
    }

    fn request(id: &NoteId, expected: u64, key: &str, ops: Vec<Op>) -> WriteRequest {
        WriteRequest {
            note_id: id.clone(),
            expected_version: Version(expected),
            idempotency_key: Some(key.to_owned()),
            author: "a".to_owned(),
            author_kind: AuthorKind::Person,
            change: Change::Ops(ops),
            now: Timestamp(1),
        }
    }

    fn write(
        id: &NoteId,
        expected: u64,
        key: &str,
        ops: Vec<Op>,
    ) -> (Job, oneshot::Receiver<Result<WriteResult>>) {
        let (reply, verdict) = oneshot::channel();
        let req = request(id, expected, key, ops);
        (
            Job::Write(Box::new(Fingerprinted::new(req).unwrap()), reply),
            verdict,
        )
    }

    /// Commits `req` as a batch of its own and returns its verdict.
    fn commit_alone(
        conn: &Connection,
        cache: &mut NoteCache,
        req: WriteRequest,
    ) -> Result<WriteResult> {
        let (reply, verdict) = oneshot::channel();
        commit_batch(
            conn,
            cache,
            &mut vec![Job::Write(
                Box::new(Fingerprinted::new(req).unwrap()),
                reply,
            )],
        );
        verdict.blocking_recv().unwrap()
    }

    fn text(t: &str) -> Vec<Op> {
        vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: t.to_owned(),
        }]
    }

    /// One batch, one transaction: each job keeps its own verdict, a refused job leaves nothing
    /// (not even its key), the others commit.
    #[test]
    fn each_job_in_a_batch_keeps_its_own_verdict() {
        let (_dir, conn) = open();
        let mut cache = NoteCache::default();
        let (a, b) = (note(1), note(2));
        let (job_a, created_a) = create(&a);
        let (job_b, created_b) = create(&b);
        commit_batch(&conn, &mut cache, &mut vec![job_a, job_b]);
        assert!(!created_a.blocking_recv().unwrap().unwrap().1);
        assert!(!created_b.blocking_recv().unwrap().unwrap().1);

        let (first, first_v) = write(&a, 1, "k1", text("first"));
        let (racer, racer_v) = write(&a, 1, "k2", text("racer"));
        let (invalid, invalid_v) = write(
            &b,
            1,
            "k3",
            vec![
                text("undone").remove(0),
                Op::DeleteTab {
                    tab_id: TabId::new("nope"),
                },
            ],
        );
        let (other, other_v) = write(&b, 1, "k4", text("other"));
        let (replay, replay_v) = write(&a, 1, "k1", text("first"));
        let mut batch = vec![first, racer, invalid, other, replay];
        commit_batch(&conn, &mut cache, &mut batch);

        let first = first_v.blocking_recv().unwrap().unwrap();
        assert_eq!(first.version, Version(2));
        assert!(matches!(
            racer_v.blocking_recv().unwrap(),
            Err(StoreError::Conflict(Conflict {
                current_version: Version(2),
                ..
            }))
        ));
        assert!(matches!(
            invalid_v.blocking_recv().unwrap(),
            Err(StoreError::Invalid(_))
        ));
        assert_eq!(
            other_v.blocking_recv().unwrap().unwrap().version,
            Version(2)
        );
        let replay = replay_v.blocking_recv().unwrap().unwrap();
        assert!(replay.replayed);
        assert_eq!(replay.version, Version(2));

        // Committed, as a reader on another connection sees it.
        let reader = Connection::open(_dir.path().join("w.db")).unwrap();
        let text_of = |id: &NoteId| {
            let note = super::super::read::current_note(&reader, id, None)
                .unwrap()
                .note;
            match &note.tab(&TabId::new(TabId::MARKDOWN)).unwrap().data {
                quire_model::TabData::Markdown(t) => (note.version, t.to_string()),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(text_of(&a), (Version(2), "first".to_owned()));
        assert_eq!(text_of(&b), (Version(2), "other".to_owned()));
        let keys: i64 = reader
            .query_row(
                "SELECT (SELECT count(*) FROM write_keys)
                      + (SELECT count(*) FROM versions WHERE idem_key IS NOT NULL)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(keys, 2, "only the accepted writes stored their keys");
    }

    /// A store's writer whose connection counts its commits; no writer thread yet.
    fn counted_writer(
        callers_commit: bool,
    ) -> (
        tempfile::TempDir,
        std::sync::Arc<Writer>,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    ) {
        let (dir, conn) = open();
        let commits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = std::sync::Arc::clone(&commits);
        conn.commit_hook(Some(move || {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            false
        }));
        let writer = Writer::new(conn, 512, callers_commit, Duration::from_secs(1));
        (dir, std::sync::Arc::new(writer), commits)
    }

    async fn answered<T: std::fmt::Debug>(verdict: oneshot::Receiver<Result<T>>) -> T {
        tokio::time::timeout(std::time::Duration::from_secs(30), verdict)
            .await
            .expect("answered")
            .expect("a verdict")
            .expect("accepted")
    }

    /// A caller that finds the connection free commits on its own thread: no writer thread is
    /// running here, yet the write is committed and answered.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lone_caller_commits_on_its_own_thread() {
        let (_dir, writer, commits) = counted_writer(true);
        let a = note(1);
        let (job, created) = create(&a);
        writer.submit(job).expect("submitted");
        answered(created).await;
        let (job, written) = write(&a, 1, "k", text("mine"));
        writer.submit(job).expect("submitted");
        assert_eq!(answered(written).await.version, Version(2));
        assert_eq!(commits.load(std::sync::atomic::Ordering::SeqCst), 2);
        writer.close_queue();
        writer.close_connection();
        let (job, refused) = write(&a, 2, "k2", text("late"));
        assert!(matches!(writer.submit(job), Err(StoreError::Closed)));
        assert!(
            refused.await.is_err(),
            "dropped unanswered, never committed"
        );
    }

    /// Callers that find the connection busy queue their jobs without blocking; the writer
    /// thread commits everything queued in one transaction once the connection is free.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn jobs_queued_while_the_connection_is_busy_share_one_commit() {
        let (_dir, writer, commits) = counted_writer(true);
        let busy = writer.conn.lock().expect("the connection");
        let mut verdicts = Vec::new();
        for n in 1..=5 {
            let (job, created) = create(&note(n));
            writer.submit(job).expect("queued");
            verdicts.push(created);
        }
        assert_eq!(writer.queue.lock().expect("queue").jobs.len(), 5);
        let thread = std::thread::spawn({
            let writer = std::sync::Arc::clone(&writer);
            move || writer.run()
        });
        drop(busy);
        for created in verdicts {
            assert!(!answered(created).await.1);
        }
        assert_eq!(commits.load(std::sync::atomic::Ordering::SeqCst), 1);
        writer.close_queue();
        thread.join().expect("the writer thread");
        writer.close_connection();
    }

    /// A current-thread runtime must not block: its jobs go to the writer thread.
    #[tokio::test(flavor = "current_thread")]
    async fn a_current_thread_runtime_hands_its_jobs_to_the_writer_thread() {
        queued_for_the_writer_thread(true).await;
    }

    /// Where callers do not commit (FULL), a free connection is no exception: the job queues.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_callers_committing_every_job_goes_to_the_writer_thread() {
        queued_for_the_writer_thread(false).await;
    }

    async fn queued_for_the_writer_thread(callers_commit: bool) {
        let (_dir, writer, commits) = counted_writer(callers_commit);
        let (job, created) = create(&note(1));
        writer.submit(job).expect("queued");
        assert_eq!(writer.queue.lock().expect("queue").jobs.len(), 1);
        let thread = std::thread::spawn({
            let writer = std::sync::Arc::clone(&writer);
            move || writer.run()
        });
        answered(created).await;
        assert_eq!(commits.load(std::sync::atomic::Ordering::SeqCst), 1);
        writer.close_queue();
        thread.join().expect("the writer thread");
        writer.close_connection();
    }

    /// A job alone in its batch runs without a savepoint; refused, it leaves nothing either.
    #[test]
    fn a_lone_refused_job_leaves_nothing() {
        let (_dir, conn) = open();
        let mut cache = NoteCache::default();
        let a = note(1);
        create_alone(&conn, &mut cache, &a);
        let (invalid, verdict) = write(
            &a,
            1,
            "k",
            vec![
                text("undone").remove(0),
                Op::DeleteTab {
                    tab_id: TabId::new(TabId::MARKDOWN),
                },
            ],
        );
        commit_batch(&conn, &mut cache, &mut vec![invalid]);
        assert!(matches!(
            verdict.blocking_recv().unwrap(),
            Err(StoreError::Invalid(_))
        ));
        assert!(conn.is_autocommit(), "the transaction is closed");
        let (retry, verdict) = write(&a, 1, "k", text("fixed"));
        commit_batch(&conn, &mut cache, &mut vec![retry]);
        let result = verdict.blocking_recv().unwrap().unwrap();
        assert!(!result.replayed);
        assert_eq!(result.version, Version(2));
    }

    /// Migrating a schema-3 file: its keys stay in `write_keys` (and replay), and its Notes'
    /// keys count as indexed through their newest version, so no history is scanned for keys.
    #[test]
    fn a_schema_3_file_has_its_keys_indexed_through_the_newest_version() {
        // Rows as this build writes them, for the schema-3 file below.
        let (_new_dir, new) = open();
        let mut cache = NoteCache::default();
        let a = note(1);
        create_alone(&new, &mut cache, &a);
        let req = request(&a, 1, "old", text("first"));
        let first = commit_alone(&new, &mut cache, req.clone()).unwrap();
        let columns = "key, author, created_at, summary, changed_tab_ids, title, seq, strip, \
                       data, outcomes";
        let mut rows = new
            .prepare(&format!("SELECT {columns} FROM versions ORDER BY key"))
            .unwrap();
        let rows: Vec<Vec<rusqlite::types::Value>> = rows
            .query_map([], |r| (0..10).map(|i| r.get(i)).collect())
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(rows.len(), 2);

        let dir = tempfile::tempdir().expect("temporary directory");
        let mut conn = Connection::open(dir.path().join("old.db")).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        for sql in [
            include_str!("migrations/0001_init.sql"),
            include_str!("migrations/0002_small_write_keys.sql"),
            include_str!("migrations/0003_compact_strip.sql"),
        ] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 3).unwrap();
        let nid: i64 = new
            .query_row("SELECT nid FROM notes", [], |r| r.get(0))
            .unwrap();
        conn.execute(
            "INSERT INTO notes (nid, id, created_at) VALUES (?1, ?2, 't')",
            rusqlite::params![nid, a.as_str()],
        )
        .unwrap();
        for row in &rows {
            conn.execute(
                &format!("INSERT INTO versions ({columns}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
                rusqlite::params_from_iter(row),
            )
            .unwrap();
        }
        conn.execute(
            "INSERT INTO write_keys (nid, key, fingerprint, version) VALUES (?1, 'old', ?2, 2)",
            rusqlite::params![
                nid,
                &quire_store::guard::Fingerprint::of(&req)
                    .unwrap()
                    .as_bytes()[..]
            ],
        )
        .unwrap();

        super::super::schema::migrate(&mut conn).expect("migrate");
        let through: i64 = conn
            .query_row("SELECT keys_through FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(through, 2);
        let mut cache = resent_replays(&conn, req, first);
        let (next, verdict) = write(&a, 2, "new", text("second"));
        commit_batch(&conn, &mut cache, &mut vec![next]);
        assert_eq!(
            verdict.blocking_recv().unwrap().unwrap().version,
            Version(3)
        );
    }

    /// A key stored under the first schema (its whole result in `idempotency`) still replays
    /// once the database is migrated, with its first result.
    #[test]
    fn a_key_stored_under_schema_1_still_replays() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut conn = Connection::open(dir.path().join("old.db")).expect("open");
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("wal");
        conn.execute_batch(include_str!("migrations/0001_init.sql"))
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        let a = note(1);
        conn.execute(
            "INSERT INTO notes (nid, id, created_at) VALUES (7, ?1, 't')",
            [a.as_str()],
        )
        .unwrap();
        let req = request(&a, 1, "k", text("first"));
        let first = WriteResult {
            note_id: a.clone(),
            version: Version(2),
            changed_tab_ids: vec![TabId::new(TabId::MARKDOWN)],
            outcomes: Vec::new(),
            replayed: false,
            request_differs: false,
        };
        conn.execute(
            "INSERT INTO idempotency (nid, key, fingerprint, result) VALUES (7, 'k', ?1, ?2)",
            rusqlite::params![
                &quire_store::guard::Fingerprint::of(&req)
                    .unwrap()
                    .as_bytes()[..],
                serde_json::to_string(&first).unwrap()
            ],
        )
        .unwrap();

        super::super::schema::migrate(&mut conn).expect("migrate");
        let mut cache = resent_replays(&conn, req, first);
        let (different, verdict) = write(&a, 1, "k", text("second"));
        commit_batch(&conn, &mut cache, &mut vec![different]);
        let replay = verdict.blocking_recv().unwrap().unwrap();
        assert!(replay.replayed && replay.request_differs);
        assert_eq!(replay.version, Version(2));
    }

    /// A resend of `req` on the migrated `conn` replays `first`; the writer's cache, for what
    /// follows.
    fn resent_replays(conn: &Connection, req: WriteRequest, first: WriteResult) -> NoteCache {
        let mut cache = NoteCache::default();
        let replay = commit_alone(conn, &mut cache, req).unwrap();
        assert_eq!(
            replay,
            WriteResult {
                replayed: true,
                ..first
            }
        );
        cache
    }

    /// A full chain of splices on a long text is rebased on the whole text under it, or on the
    /// splices earlier rebases stacked on it, without reading a row again: the writer keeps the
    /// text it wrote whole, the one its first rebase after a restart read, and the text its last
    /// stacked rebase made. Shown by changing the rows under the writer (on its own connection,
    /// so its cache stays): the rebase still stores one splice, where a text made from the rows
    /// would not rebuild the new text and be stored whole.
    #[test]
    fn a_full_chain_is_rebased_on_the_root_the_writer_kept() {
        let (_dir, conn) = open();
        let mut cache = NoteCache::default();
        let a = note(3);
        create_alone(&conn, &mut cache, &a);
        let mut doc: String = (0..2_000)
            .map(|n| format!("line {n} of a long text\n"))
            .collect();
        assert!(doc.len() > 40 * 1024);
        doc.push_str(&"x".repeat(64 * 1024));
        let nid: i64 = conn
            .query_row("SELECT nid FROM notes", [], |r| r.get(0))
            .unwrap();
        let key = |v: u64| (nid << 32) | v as i64;
        // Types one more character and saves the whole text (the store finds the splice).
        let save = |cache: &mut NoteCache, doc: &mut String, version: &mut u64| {
            doc.push('!');
            let req = request(&a, *version, &format!("k{version}"), text(doc));
            *version = commit_alone(&conn, cache, req).unwrap().version.0;
            *version
        };
        let mut version = 1;
        // Version 2 holds the text whole.
        assert_eq!(save(&mut cache, &mut doc, &mut version), 2);
        // What a row holds: its whole text, or the version its splice stands on.
        let stored = |v: u64| -> (bool, Option<u64>) {
            conn.query_row(
                "SELECT data IS NOT NULL AND data LIKE '%line 0%', \
                 CASE WHEN json_type(deltas, '$.markdown') IS NOT NULL THEN \
                 coalesce(json_extract(deltas, '$.markdown.base'), (key & 4294967295) - 1) END \
                 FROM versions WHERE key = ?1",
                [key(v)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
        };
        assert_eq!(stored(2), (true, None));
        let original: String = conn
            .query_row("SELECT data FROM versions WHERE key = ?1", [key(2)], |r| {
                r.get(0)
            })
            .unwrap();
        let other = original.replace("line 7 of", "LINE 7 of");
        let change_root = |data: &str| {
            conn.execute(
                "UPDATE versions SET data = ?2 WHERE key = ?1",
                rusqlite::params![key(2), data],
            )
            .unwrap();
        };
        // 32 splices (versions 3 to 34), then the chain is full.
        for _ in 0..32 {
            save(&mut cache, &mut doc, &mut version);
        }
        assert_eq!((version, stored(34).1), (34, Some(33)));
        change_root(&other);
        assert_eq!(save(&mut cache, &mut doc, &mut version), 35);
        assert_eq!(
            stored(35),
            (false, Some(2)),
            "rebased on the text written whole"
        );
        change_root(&original);

        // A restart: the writer knows no text; its first rebase reads the row and keeps it.
        let mut cache = NoteCache::default();
        for _ in 0..32 {
            save(&mut cache, &mut doc, &mut version);
        }
        // The next full chain is rebased on the splice the first rebase stacked on the root
        // (`splice::rebase_point`), its text made from the root's row.
        assert_eq!(
            (version, stored(67)),
            (67, (false, Some(35))),
            "rebased on the stack over the row read"
        );
        change_root(&other);
        // And the stack's first splice: the text the stack makes is the one the writer kept
        // when its rebase made it, not made again from the rows.
        conn.execute(
            "UPDATE versions SET deltas = replace(deltas, '!', '?') WHERE key = ?1",
            [key(35)],
        )
        .unwrap();
        // 31 more: the chain above the stack of two is full again.
        for _ in 0..31 {
            save(&mut cache, &mut doc, &mut version);
        }
        assert_eq!(version, 98);
        assert_eq!(
            stored(98),
            (false, Some(67)),
            "rebased on the stack's top the writer kept"
        );
    }
}
