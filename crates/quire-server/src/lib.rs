//! Quire's server: REST for the app, MCP for agents, over one guarded write.
//!
//! [`serve`] opens the store (a SQLite file, or PostgreSQL shared by several servers), binds the
//! listener and serves until its [`RunningServer::shutdown`] (or a [`ShutdownHandle`]) says
//! stop; the binary wraps it with a CLI and signal handling, the desktop app embeds it on loopback, tests start it on port 0.
//!
//! The entry points other crates await ([`serve`], [`serve_store`], [`open_store`],
//! [`mcp::stdio_bridge`]) return a boxed future made in a non-generic, never-inlined function,
//! not an `async fn`'s own future: the body of an `async fn`, with all the generic code it
//! reaches (axum, hyper, rmcp, tokio-postgres), is compiled in whichever crate polls it, so the
//! server's binary, the app and each test binary compiled the whole server again (about 140 s of
//! CPU each in a release build). Boxed here, it is compiled once, in this crate.
#![forbid(unsafe_code)]

pub mod check;
mod connections;
pub mod http;
pub mod logging;
pub mod mcp;
pub mod notes;
pub mod tokens;
pub mod transfer;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use quire_api::{SystemClock, WriteEvent};
use quire_store::{Store, StoreError};
use quire_store_postgres::{PgOptions, PgStore};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

pub use crate::connections::raise_fd_limit;
use crate::http::AppState;
use crate::notes::Notes;
pub use quire_tls::TlsFiles;

/// Default request body limit: 16 MiB.
pub const DEFAULT_BODY_LIMIT: usize = 16 * 1024 * 1024;
/// How long a request's headers may take to arrive, from its first byte (or the connection's
/// opening).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a connection may stay open with no request in progress.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Most connections served at once; more wait to be accepted.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Most event streams (`GET /notes/{id}/events`) one token may hold open at once.
pub const DEFAULT_MAX_EVENT_STREAMS: usize = 64;

/// What [`serve`] needs.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The SQLite file (created if missing), or a `postgres://` URL.
    pub db: PathBuf,
    /// Where to listen; port 0 picks a free port ([`RunningServer::addr`] tells which).
    pub listen: SocketAddr,
    /// Largest request body, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// `Full` (default): acknowledged means durable, also across power loss.
    pub synchronous: Synchronous,
    /// Names `/mcp` accepts in the `Host` header besides loopback (`localhost`, `127.0.0.1`,
    /// `::1`): a server listening on a LAN address names itself here (`NAME` or `NAME:PORT`).
    pub allowed_hosts: Vec<String>,
    /// A request whose headers have not all arrived this long after its first byte (or after
    /// the connection opened) is dropped with its connection.
    pub header_timeout: Duration,
    /// A connection with no request in progress for this long is closed.
    pub idle_timeout: Duration,
    /// Most connections served at once (lowered to what the open-files limit allows); more
    /// wait in the listen backlog until one closes.
    pub max_connections: usize,
    /// Most event streams one token may hold open at once; one more is refused with 429.
    pub max_event_streams: usize,
    /// Serve HTTPS with this certificate and key (checked before anything else starts);
    /// `None`: plain HTTP (the app's embedded server, on loopback).
    pub tls: Option<TlsFiles>,
}

impl ServeConfig {
    pub fn new(db: impl Into<PathBuf>, listen: SocketAddr) -> Self {
        ServeConfig {
            db: db.into(),
            listen,
            body_limit: DEFAULT_BODY_LIMIT,
            synchronous: Synchronous::Full,
            allowed_hosts: Vec::new(),
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_event_streams: DEFAULT_MAX_EVENT_STREAMS,
            tls: None,
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
    #[error("cannot serve HTTPS: {0}")]
    Tls(#[from] quire_tls::ServerTlsError),
}

/// Opens the store `config.db` names (a `postgres://` URL: PostgreSQL, shared with any other
/// server on it; anything else: a SQLite file) and serves on `config.listen`. Returns once the
/// listener is bound: connections are accepted from then on.
#[inline(never)]
pub fn serve(config: ServeConfig) -> BoxFuture<'static, Result<RunningServer, ServerError>> {
    Box::pin(serve_config(config))
}

async fn serve_config(config: ServeConfig) -> Result<RunningServer, ServerError> {
    // A certificate the server cannot serve is refused before a database is opened or made.
    let tls = config.tls.as_ref().map(TlsFiles::acceptor).transpose()?;
    if let Some(url) = postgres_url(&config.db) {
        return serve_postgres(url, &config, tls).await;
    }
    let options = SqliteOptions {
        synchronous: config.synchronous,
        ..SqliteOptions::default()
    };
    let db = config.db.clone();
    let store = tokio::task::spawn_blocking(move || SqliteStore::open(&db, options)).await??;
    let http = HttpConfig::from(&config);
    serve_with(Arc::new(store), config.listen, http, tls, None).await
}

async fn serve_postgres(
    url: &str,
    config: &ServeConfig,
    tls: Option<TlsAcceptor>,
) -> Result<RunningServer, ServerError> {
    let store = Arc::new(PgStore::connect(url, PgOptions::default()).await?);
    // Listening before serving: no write another server commits from now on is missed.
    let others = store.others().await?;
    let http = HttpConfig::from(config);
    serve_with(store, config.listen, http, tls, Some(others)).await
}

/// What the HTTP surface takes from a [`ServeConfig`].
struct HttpConfig {
    body_limit: usize,
    allowed_hosts: Vec<String>,
    connections: connections::Bounds,
    max_event_streams: usize,
}

impl From<&ServeConfig> for HttpConfig {
    fn from(config: &ServeConfig) -> Self {
        HttpConfig {
            body_limit: config.body_limit,
            allowed_hosts: config.allowed_hosts.clone(),
            connections: connections::Bounds {
                header_timeout: config.header_timeout,
                idle_timeout: config.idle_timeout,
                max_connections: config.max_connections,
            },
            max_event_streams: config.max_event_streams,
        }
    }
}

/// The `postgres://` URL in `db`, if it is one.
pub fn postgres_url(db: &Path) -> Option<&str> {
    db.to_str().filter(|s| quire_store::is_postgres_url(s))
}

/// Opens the store `db` names, as [`serve`] does (for the other subcommands).
#[inline(never)]
pub fn open_store(
    db: &Path,
    synchronous: Synchronous,
) -> BoxFuture<'_, Result<Arc<dyn Store>, ServerError>> {
    Box::pin(open(db, synchronous))
}

async fn open(db: &Path, synchronous: Synchronous) -> Result<Arc<dyn Store>, ServerError> {
    if let Some(url) = postgres_url(db) {
        return Ok(Arc::new(PgStore::connect(url, PgOptions::default()).await?));
    }
    let options = SqliteOptions {
        synchronous,
        ..SqliteOptions::default()
    };
    let db = db.to_path_buf();
    Ok(Arc::new(
        tokio::task::spawn_blocking(move || SqliteStore::open(&db, options)).await??,
    ))
}

/// Serves an already open store (any [`Store`] implementation); `/mcp` accepts loopback
/// `Host` names only.
#[inline(never)]
pub fn serve_store(
    store: Arc<dyn Store>,
    listen: SocketAddr,
    body_limit: usize,
) -> BoxFuture<'static, Result<RunningServer, ServerError>> {
    let defaults = ServeConfig::new(PathBuf::new(), listen);
    let http = HttpConfig {
        body_limit,
        ..HttpConfig::from(&defaults)
    };
    Box::pin(serve_with(store, listen, http, None, None))
}

/// Serves `store` (over TLS when there is an acceptor); `others` are the writes other servers
/// commit to the same database, announced to this server's event streams.
async fn serve_with(
    store: Arc<dyn Store>,
    listen: SocketAddr,
    http: HttpConfig,
    tls: Option<TlsAcceptor>,
    others: Option<mpsc::Receiver<WriteEvent>>,
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
        body_limit: http.body_limit,
        allowed_hosts: http.allowed_hosts.into(),
        streams: Arc::new(http::StreamCounts::new(http.max_event_streams)),
        uses: Arc::new(tokens::UseLog::default()),
    };
    if let Some(others) = others {
        tokio::spawn(announce(state.notes.clone(), others, shutdown.clone()));
    }
    let app = http::router(state);
    let stop = shutdown.clone();
    let bounds = connections::Bounds {
        max_connections: connections::connection_cap(http.connections.max_connections),
        ..http.connections
    };
    let scheme = if tls.is_some() { "https" } else { "http" };
    let task = tokio::spawn(async move {
        connections::serve(listener, app, bounds, tls, stop).await;
        // Every in-flight request has been answered; now let queued writes commit.
        store.close().await?;
        Ok(())
    });
    tracing::info!(%addr, scheme, "listening");
    Ok(RunningServer {
        addr,
        scheme,
        shutdown,
        task,
    })
}

/// Hands the writes of other servers to this server's subscribers until shutdown.
async fn announce(notes: Notes, mut others: mpsc::Receiver<WriteEvent>, stop: CancellationToken) {
    loop {
        let write = tokio::select! {
            () = stop.cancelled() => return,
            write = others.recv() => write,
        };
        let Some(write) = write else {
            return;
        };
        notes.publish(write);
    }
}

/// A server started by [`serve`].
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    /// `http`, or `https` when serving TLS.
    scheme: &'static str,
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

    /// `http://<addr>`, or `https://<addr>` when serving TLS.
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
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
