//! The one writer: a thread that owns the write connection and drains a queue of jobs. All the
//! jobs found waiting are committed together (group commit): one `BEGIN IMMEDIATE`, a
//! savepoint per job so that each keeps its own verdict, one `COMMIT` (one fsync) for the
//! batch. Callers hear back only after the `COMMIT` returned: acknowledged means durable.

use std::sync::mpsc::Receiver;

use quire_model::NoteId;
use rusqlite::Connection;
use tokio::sync::oneshot;

use super::cache::NoteCache;
use super::guarded;
use crate::{
    NewNote, NoteMeta, Result, Scope, StoreError, StoredNote, TokenRecord, WriteRequest,
    WriteResult,
};

type Reply<T> = oneshot::Sender<Result<T>>;

/// A write waiting for the writer, with the channel its result goes back on.
pub(super) enum Job {
    Write(Box<WriteRequest>, Reply<WriteResult>),
    CreateNote(Box<NewNote>, Reply<(StoredNote, bool)>),
    SetAgentAccess(NoteId, bool, Reply<NoteMeta>),
    CreateToken {
        name: String,
        scopes: Vec<Scope>,
        token_hash: String,
        reply: Reply<TokenRecord>,
    },
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

impl Job {
    /// Runs the job inside the open transaction. The flag is true when the savepoint itself
    /// failed, leaving the transaction in a state that must not be committed.
    fn run(self, conn: &Connection, cache: &mut NoteCache) -> (Settle, bool) {
        match self {
            Job::Write(req, reply) => {
                let (verdict, broken) = in_savepoint(conn, |c| guarded::write(c, cache, &req));
                (settle(reply, verdict), broken)
            }
            Job::CreateNote(new, reply) => {
                let (verdict, broken) = in_savepoint(conn, |c| guarded::create_note(c, &new));
                (settle(reply, verdict), broken)
            }
            Job::SetAgentAccess(id, approved, reply) => {
                let (verdict, broken) =
                    in_savepoint(conn, |c| guarded::set_agent_access(c, &id, approved));
                (settle(reply, verdict), broken)
            }
            Job::CreateToken {
                name,
                scopes,
                token_hash,
                reply,
            } => {
                let (verdict, broken) = in_savepoint(conn, |c| {
                    guarded::create_token(c, &name, &scopes, &token_hash)
                });
                (settle(reply, verdict), broken)
            }
        }
    }

    /// The job never ran: its batch could not start.
    fn refuse(self, e: &StoreError) {
        let lost = Some(e);
        match self {
            Job::Write(_, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::CreateNote(_, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::SetAgentAccess(_, _, reply) => settle(reply, Err(StoreError::Closed))(lost),
            Job::CreateToken { reply, .. } => settle(reply, Err(StoreError::Closed))(lost),
        }
    }
}

fn exec(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}

/// Runs `f` under a savepoint: kept if it succeeds, rolled back (and only it) if it fails.
fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T>,
) -> (Result<T>, bool) {
    if let Err(e) = exec(conn, "SAVEPOINT job") {
        return (Err(e.into()), true);
    }
    let verdict = f(conn);
    let closed = if verdict.is_err() {
        exec(conn, "ROLLBACK TO job").and_then(|()| exec(conn, "RELEASE job"))
    } else {
        exec(conn, "RELEASE job")
    };
    match closed {
        Ok(()) => (verdict, false),
        Err(e) => (Err(e.into()), true),
    }
}

/// The writer thread's loop: until every sender is gone and the queue is empty, take what is
/// queued (at most `max_batch` jobs) and commit it as one batch.
pub(super) fn run(conn: Connection, jobs: Receiver<Job>, max_batch: usize) {
    let mut batch = Vec::with_capacity(max_batch);
    let mut cache = NoteCache::default();
    while let Ok(first) = jobs.recv() {
        batch.push(first);
        while batch.len() < max_batch {
            match jobs.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        commit_batch(&conn, &mut cache, batch.drain(..));
    }
}

fn commit_batch(conn: &Connection, cache: &mut NoteCache, batch: impl Iterator<Item = Job>) {
    if let Err(e) = exec(conn, "BEGIN IMMEDIATE") {
        let e = StoreError::from(e);
        tracing::error!("cannot start a write transaction: {e}");
        batch.for_each(|job| job.refuse(&e));
        return;
    }
    let mut verdicts = Vec::new();
    let mut broken = None;
    for job in batch {
        if let Some(e) = &broken {
            job.refuse(e);
            continue;
        }
        let (verdict, failed) = job.run(conn, cache);
        verdicts.push(verdict);
        if failed {
            broken = Some(StoreError::Backend(
                "a savepoint failed; the batch was rolled back".to_owned(),
            ));
        }
    }
    let lost = match broken {
        Some(e) => Some(e),
        None => exec(conn, "COMMIT").err().map(StoreError::from),
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
