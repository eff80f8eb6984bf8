//! A few read-only connections, handed out one caller at a time.

use std::path::Path;
use std::sync::{Condvar, Mutex};

use rusqlite::{Connection, OpenFlags};

use crate::fail::Result;
use quire_store::StoreError;

pub(super) struct ReadPool {
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
}

impl ReadPool {
    pub(super) fn open(path: &Path, size: usize) -> Result<Self> {
        let mut idle = Vec::with_capacity(size);
        for _ in 0..size.max(1) {
            let conn = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_URI,
            )?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            conn.set_prepared_statement_cache_capacity(64);
            idle.push(conn);
        }
        Ok(ReadPool {
            idle: Mutex::new(idle),
            returned: Condvar::new(),
        })
    }

    /// Runs `f` on an idle connection, waiting for one if all are busy. Blocking: call it from
    /// `spawn_blocking`.
    pub(super) fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = {
            let mut idle = self.idle.lock().map_err(|_| poisoned())?;
            loop {
                if let Some(conn) = idle.pop() {
                    break conn;
                }
                idle = self.returned.wait(idle).map_err(|_| poisoned())?;
            }
        };
        let out = f(&conn);
        self.give_back(conn)?;
        out
    }

    /// Runs `f` on a connection that is idle now, on the calling thread; `None` when all are
    /// busy. For one small read (a primary-key row), which costs less than the hop to a
    /// blocking thread and back: it never waits for a connection.
    pub(super) fn try_with<T>(
        &self,
        f: impl FnOnce(&Connection) -> Result<T>,
    ) -> Option<Result<T>> {
        let conn = self.idle.lock().ok()?.pop()?;
        let out = f(&conn);
        Some(self.give_back(conn).and(out))
    }

    /// Puts `conn` back among the idle ones and wakes a caller waiting for one.
    fn give_back(&self, conn: Connection) -> Result<()> {
        self.idle.lock().map_err(|_| poisoned())?.push(conn);
        self.returned.notify_one();
        Ok(())
    }
}

fn poisoned() -> StoreError {
    StoreError::Backend("the read pool's lock is poisoned".to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A read on the calling thread takes a connection only if one is idle: it never waits,
    /// and hands the connection back.
    #[test]
    fn a_read_here_never_waits_for_a_connection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pool.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7);")
            .unwrap();
        let pool = ReadPool::open(&path, 1).unwrap();
        let read = |c: &Connection| Ok(c.query_row("SELECT x FROM t", [], |r| r.get::<_, i64>(0))?);
        // The one connection busy: no read here.
        let inside = pool.with(|_| Ok(pool.try_with(read).is_none())).unwrap();
        assert!(inside);
        // Idle again: read here, and the connection is back for the next caller.
        assert_eq!(pool.try_with(read).unwrap().unwrap(), 7);
        assert_eq!(pool.with(read).unwrap(), 7);
    }
}
