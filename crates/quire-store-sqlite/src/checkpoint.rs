//! Checkpoints off the write path. Copying the WAL back into the database file ends with an
//! fsync of the database; done by the writer (SQLite's automatic checkpoint) it lands on the
//! write that crossed the threshold, as a p99 of milliseconds. A thread of its own runs a
//! PASSIVE checkpoint (which never blocks the writer) ten times a second instead, so that under
//! a light load the writer rarely reaches its own automatic checkpoint (kept at SQLite's
//! default threshold: a bigger WAL made FULL commits slower here, as the file keeps growing).

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::fail::Result;
use quire_store::StoreError;

/// How often the background checkpoint runs.
const EVERY: Duration = Duration::from_millis(100);

/// The WAL size, in pages, at which the writer checkpoints by itself (SQLite's default).
pub(super) const WRITER_THRESHOLD_PAGES: u32 = 1_000;

pub(super) struct Checkpointer {
    stop: Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    pub(super) fn start(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("quire-store-checkpoint".to_owned())
            .spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    let done = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    if let Err(e) = done {
                        tracing::warn!("background checkpoint failed: {e}");
                    }
                }
            })
            .map_err(|e| StoreError::Backend(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(Checkpointer { stop, thread })
    }

    pub(super) fn stop(self) {
        drop(self.stop);
        if self.thread.join().is_err() {
            tracing::error!("the store's checkpoint thread panicked");
        }
    }
}
