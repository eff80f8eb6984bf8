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
            Job::SetAgentAccess(id, approved, reply) => {
                let (verdict, outcome) =
                    guarded(conn, undo, |c| guarded::set_agent_access(c, &id, approved));
                (settle(reply, verdict), outcome)
            }
            Job::CreateToken {
                name,
                scopes,
                token_hash,
                reply,
            } => {
                let (verdict, outcome) = guarded(conn, undo, |c| {
                    guarded::create_token(c, &name, &scopes, &token_hash)
                });
                (settle(reply, verdict), outcome)
            }
        }
    }

    /// The job never ran: its batch could not start or was lost before it.
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

/// Runs `f` so that, if it fails, none of its changes survive: under a savepoint (rolled back
/// on failure, alone) or, for a job alone in its batch, leaving the rollback to the caller.
fn guarded<T>(
    conn: &Connection,
    undo: Undo,
    f: impl FnOnce(&Connection) -> Result<T>,
) -> (Result<T>, Outcome) {
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
        return (Err(e.into()), Outcome::Broken);
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
        Err(e) => (Err(e.into()), Outcome::Broken),
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
        commit_batch(&conn, &mut cache, &mut batch);
    }
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
        let e = StoreError::from(e);
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use quire_model::{Op, TabId, Timestamp, Version};

    use super::*;
    use crate::{Change, Conflict};

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
            now: Timestamp(0),
            idempotency_key: None,
        };
        (Job::CreateNote(Box::new(new), reply), verdict)
    }

    fn request(id: &NoteId, expected: u64, key: &str, ops: Vec<Op>) -> WriteRequest {
        WriteRequest {
            note_id: id.clone(),
            expected_version: Version(expected),
            idempotency_key: Some(key.to_owned()),
            author: "a".to_owned(),
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
        (Job::Write(Box::new(req), reply), verdict)
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
            let note = super::super::read::current_note(&reader, id).unwrap().note;
            match &note.tab(&TabId::new(TabId::MARKDOWN)).unwrap().data {
                quire_model::TabData::Markdown(t) => (note.version, t.clone()),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(text_of(&a), (Version(2), "first".to_owned()));
        assert_eq!(text_of(&b), (Version(2), "other".to_owned()));
        let keys: i64 = reader
            .query_row("SELECT count(*) FROM write_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(keys, 2, "only the accepted writes stored their keys");
    }

    /// A job alone in its batch runs without a savepoint; refused, it leaves nothing either.
    #[test]
    fn a_lone_refused_job_leaves_nothing() {
        let (_dir, conn) = open();
        let mut cache = NoteCache::default();
        let a = note(1);
        let (job, created) = create(&a);
        commit_batch(&conn, &mut cache, &mut vec![job]);
        created.blocking_recv().unwrap().unwrap();
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
                &super::super::guarded::fingerprint(&req).unwrap()[..],
                serde_json::to_string(&first).unwrap()
            ],
        )
        .unwrap();

        super::super::schema::migrate(&mut conn).expect("migrate");
        let mut cache = NoteCache::default();
        let (reply, verdict) = oneshot::channel();
        commit_batch(
            &conn,
            &mut cache,
            &mut vec![Job::Write(Box::new(req), reply)],
        );
        let replay = verdict.blocking_recv().unwrap().unwrap();
        assert_eq!(
            replay,
            WriteResult {
                replayed: true,
                ..first
            }
        );
        let (different, verdict) = write(&a, 1, "k", text("second"));
        commit_batch(&conn, &mut cache, &mut vec![different]);
        let replay = verdict.blocking_recv().unwrap().unwrap();
        assert!(replay.replayed && replay.request_differs);
        assert_eq!(replay.version, Version(2));
    }
}
