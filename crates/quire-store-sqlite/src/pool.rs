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
        self.idle.lock().map_err(|_| poisoned())?.push(conn);
        self.returned.notify_one();
        out
    }
}

fn poisoned() -> StoreError {
    StoreError::Backend("the read pool's lock is poisoned".to_owned())
}
