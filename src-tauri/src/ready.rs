//! The backend while it starts. The setup hook does not wait for it: the window and its page
//! load while the embedded server opens its database and the engine starts (both on the
//! async runtime), and every command that needs the backend waits here until it is ready.
//! A backend that could not start is an error each such command returns (the UI shows it),
//! not an app that never opens.

use std::sync::Arc;

use tokio::sync::watch;

use crate::backend::{Backend, BackendError};
use crate::error::CommandError;

type Slot = Option<Result<Arc<Backend>, CommandError>>;

/// Managed state: the [`Backend`] once started (or why it did not start).
pub struct BackendReady {
    tx: watch::Sender<Slot>,
}

impl Default for BackendReady {
    fn default() -> Self {
        Self::new()
    }
}

impl BackendReady {
    /// Not started yet: [`wait`](Self::wait) blocks until [`set`](Self::set).
    pub fn new() -> Self {
        Self {
            tx: watch::Sender::new(None),
        }
    }

    /// The start's outcome; waiters wake up. Only the first call counts.
    pub fn set(&self, started: Result<Backend, BackendError>) {
        let outcome = started.map(Arc::new).map_err(|e| {
            let mut error = CommandError::from(e);
            error.message = format!("the app could not start: {}", error.message);
            error
        });
        self.tx.send_if_modified(|slot| {
            if slot.is_some() {
                return false;
            }
            *slot = Some(outcome);
            true
        });
    }

    /// The backend, once it has started (at once if it has).
    pub async fn wait(&self) -> Result<Arc<Backend>, CommandError> {
        let mut rx = self.tx.subscribe();
        let slot = rx
            .wait_for(Option::is_some)
            .await
            .map_err(|_| CommandError::new(crate::error::ErrorCode::Internal, "the app stopped"))?;
        match &*slot {
            Some(outcome) => outcome.clone(),
            None => Err(CommandError::new(
                crate::error::ErrorCode::Internal,
                "the app stopped before it started",
            )),
        }
    }
}
