//! Checkpoints off the write path. Copying the WAL back into the database file ends with an
//! fsync of the database; done by the writer (SQLite's automatic checkpoint) it lands on the
//! write that crossed the threshold, as a p99 of milliseconds. A thread of its own runs a
//! PASSIVE checkpoint (which never blocks the writer) ten times a second instead, so that under
//! a light load the writer rarely reaches its own automatic checkpoint. Its threshold is twice
//! what the biggest write the limits allow puts in the WAL (a 16 MiB request, about 4,100
//! pages): at SQLite's default (1,000 pages) that one write also paid a checkpoint of its own
//! 16 MiB, a third of its time on the writer.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::fail::Result;
use quire_store::StoreError;

/// How often the background checkpoint runs.
const EVERY: Duration = Duration::from_millis(100);

/// The WAL size, in pages, at which the writer checkpoints by itself (32 MiB of 4 KiB pages).
pub(super) const WRITER_THRESHOLD_PAGES: u32 = 8_192;

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
