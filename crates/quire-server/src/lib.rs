//! Quire's server: REST for the app, MCP for agents, over one guarded write.
//!
//! [`serve`] opens the SQLite store, binds the listener and serves until its
//! [`RunningServer::shutdown`] (or a [`ShutdownHandle`]) says stop; the binary wraps it with a
//! CLI and signal handling, the desktop app embeds it on loopback, tests start it on port 0.
#![forbid(unsafe_code)]

pub mod http;
pub mod mcp;
pub mod notes;
pub mod tokens;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use quire_store::{SqliteOptions, SqliteStore, Store, StoreError, Synchronous};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::http::AppState;
use crate::notes::{Notes, SystemClock};

/// Default request body limit: 16 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// What [`serve`] needs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The SQLite file (created if missing).
    pub db: PathBuf,
    /// Where to listen; port 0 picks a free port ([`RunningServer::addr`] tells which).
    pub listen: SocketAddr,
    /// Largest request body, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// `Full` (default): acknowledged means durable, also across power loss.
    pub synchronous: Synchronous,
}

impl ServeConfig {
    pub fn new(db: impl Into<PathBuf>, listen: SocketAddr) -> Self {
        ServeConfig {
            db: db.into(),
            listen,
            body_limit: DEFAULT_BODY_LIMIT,
            synchronous: Synchronous::Full,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot open the store: {0}")]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the server failed: {0}")]
    Serve(std::io::Error),
    #[error("a server task ended abnormally: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Opens the store at `config.db` and serves on `config.listen`. Returns once the listener is
/// bound: connections are accepted from then on.
pub async fn serve(config: ServeConfig) -> Result<RunningServer, ServerError> {
    let options = SqliteOptions {
        synchronous: config.synchronous,
        ..SqliteOptions::default()
    };
    let db = config.db.clone();
    let store = tokio::task::spawn_blocking(move || SqliteStore::open(&db, options)).await??;
    serve_store(Arc::new(store), config.listen, config.body_limit).await
}

/// Serves an already open store (any [`Store`] implementation).
pub async fn serve_store(
    store: Arc<dyn Store>,
    listen: SocketAddr,
    body_limit: usize,
) -> Result<RunningServer, ServerError> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| ServerError::Bind {
            addr: listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| ServerError::Bind {
        addr: listen,
        source,
    })?;
    let shutdown = CancellationToken::new();
    let state = AppState {
        notes: Notes::new(store.clone(), Arc::new(SystemClock)),
        shutdown: shutdown.clone(),
        body_limit,
    };
    let app = http::router(state);
    let stop = shutdown.clone();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
        // Every in-flight request has been answered; now let queued writes commit.
        let closed = store.close().await;
        served.map_err(ServerError::Serve)?;
        closed?;
        Ok(())
    });
    tracing::info!(%addr, "listening");
    Ok(RunningServer {
        addr,
        shutdown,
        task,
    })
}

/// A server started by [`serve`].
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), ServerError>>,
}

/// Stops a [`RunningServer`] from elsewhere (a signal handler, the app's quit path).
#[derive(Debug, Clone)]
pub struct ShutdownHandle(CancellationToken);

impl ShutdownHandle {
    /// Stops accepting connections; in-flight requests finish; event streams end.
    pub fn shutdown(&self) {
        self.0.cancel();
    }
}

impl RunningServer {
    /// The bound address (with the real port when the config said port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<addr>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle(self.shutdown.clone())
    }

    /// Graceful shutdown: stop accepting, let in-flight requests finish, drain the store.
    pub async fn shutdown(self) -> Result<(), ServerError> {
        self.shutdown.cancel();
        self.wait().await
    }

    /// Waits until the server has stopped (after a [`ShutdownHandle::shutdown`]).
    pub async fn wait(self) -> Result<(), ServerError> {
        self.task.await?
    }
}
