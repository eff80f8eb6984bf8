//! The accept loop, which no local process can wear out: at most `max_connections` connections
//! at once (beyond that, new ones wait in the listen backlog until one closes), a request's
//! headers must arrive within `header_timeout` of its first byte (or of the connection's
//! opening), a connection with no request in progress is closed after `idle_timeout`, and
//! every connection has TCP_NODELAY (an answer written in two parts would otherwise wait for
//! the client's delayed ACK: ~40 ms per call). A request being served, an event stream
//! included, has no deadline here.
//!
//! With TLS, each connection's handshake runs in its own task (a slow client never holds up
//! accepting) and within the first request's header deadline: a client that connects and never
//! says hello is dropped as one that never sends its headers.
//!
//! Shutdown stops accepting, closes every connection with no request in progress, lets the
//! others finish what they are serving (HTTP/1 graceful shutdown), and returns when all have
//! closed.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt;

/// The bounds every connection is held to ([`crate::ServeConfig`] has the numbers).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

/// Serves `app` on `listener` (over TLS when there is an acceptor) until `stop` is cancelled
/// and every connection has closed.
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    bounds: Bounds,
    tls: Option<TlsAcceptor>,
    stop: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(bounds.max_connections));
    let connections = TaskTracker::new();
    loop {
        // A slot first: at the cap, connections wait in the kernel's backlog, not in our fds.
        let slot = tokio::select! {
            () = stop.cancelled() => break,
            slot = Arc::clone(&slots).acquire_owned() => slot,
        };
        let Ok(slot) = slot else { break };
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                // Out of file descriptors or memory: retrying at once would spin.
                tracing::warn!(error = %e, "cannot accept a connection; retrying in 1 s");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                }
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        let (app, tls, stop) = (app.clone(), tls.clone(), stop.clone());
        connections.spawn(async move {
            let opened = Instant::now();
            match tls {
                None => serve_connection(stream, opened, app, bounds, stop).await,
                Some(tls) => {
                    if let Some(stream) = handshake(stream, opened, &tls, bounds, &stop).await {
                        serve_connection(stream, opened, app, bounds, stop).await;
                    }
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    connections.close();
    connections.wait().await;
}

/// Errors of one connection that the listener survives (the peer gave up during the handshake).
fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The TLS handshake of a connection opened at `opened`, given until the header deadline; `None`
/// if it failed, ran out of time, or the server is stopping.
async fn handshake(
    stream: TcpStream,
    opened: Instant,
    tls: &TlsAcceptor,
    bounds: Bounds,
    stop: &CancellationToken,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    let deadline = opened + bounds.header_timeout;
    tokio::select! {
        () = stop.cancelled() => None,
        done = tokio::time::timeout_at(deadline, tls.accept(stream)) => match done {
            Ok(Ok(stream)) => Some(stream),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "TLS handshake failed");
                None
            }
            Err(_) => {
                tracing::debug!("closing a connection whose TLS handshake missed the header deadline");
                None
            }
        },
    }
}

async fn serve_connection<S>(
    stream: S,
    opened: Instant,
    app: Router,
    bounds: Bounds,
    stop: CancellationToken,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Arc::new(Activity::new(opened));
    let io = TokioIo::new(Watched {
        stream,
        activity: Arc::clone(&activity),
    });
    let on_request = Arc::clone(&activity);
    let service = hyper::service::service_fn(move |req: Request<Incoming>| {
        let serving = Serving::begin(&on_request);
        let app = app.clone();
        async move {
            let response = match app.oneshot(req.map(Body::new)).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok::<_, Infallible>(response.map(|body| {
                Body::new(Tracked {
                    body,
                    _serving: serving,
                })
            }))
        }
    });
    let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    let mut conn = std::pin::pin!(conn);
    let mut draining = false;
    loop {
        let deadline = activity.deadline(&bounds);
        tokio::select! {
            served = conn.as_mut() => {
                if let Err(e) = served {
                    tracing::debug!(error = %e, "connection ended");
                }
                return;
            }
            () = stop.cancelled(), if !draining => {
                // Nothing in flight (not even a request whose headers are on their way, which
                // hyper's graceful shutdown would wait for): close now.
                if !matches!(activity.phase(), Phase::Serving(_)) {
                    return;
                }
                conn.as_mut().graceful_shutdown();
                draining = true;
            }
            () = activity.changed.notified() => {}
            () = tokio::time::sleep_until(deadline.unwrap_or_else(far_future)), if deadline.is_some() => {
                if activity.deadline(&bounds).is_some_and(|d| d <= Instant::now()) {
                    tracing::debug!(phase = ?activity.phase(), "closing a connection past its deadline");
                    return;
                }
            }
        }
    }
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400)
}

/// What a connection is doing, as its deadlines see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Opened, or a request's first bytes arrived: its headers are due.
    Headers { since: Instant },
    /// Between requests, nothing of the next one yet.
    Idle { since: Instant },
    /// This many requests are being served (answered, or their answer still streaming).
    Serving(usize),
}

/// A connection's [`Phase`], shared by its socket, its requests and its watchdog.
struct Activity {
    phase: Mutex<Phase>,
    /// Told whenever the phase changes, so that the watchdog moves its deadline.
    changed: Notify,
}

impl Activity {
    /// A connection opened at `opened`: its first request's headers are due from then.
    fn new(opened: Instant) -> Self {
        Activity {
            phase: Mutex::new(Phase::Headers { since: opened }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn phase(&self) -> Phase {
        *self.lock()
    }

    fn set(&self, update: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.lock();
        let next = update(*phase);
        if next != *phase {
            *phase = next;
            drop(phase);
            self.changed.notify_one();
        }
    }

    /// When the connection must be closed if nothing changes; none while serving.
    fn deadline(&self, bounds: &Bounds) -> Option<Instant> {
        match self.phase() {
            Phase::Headers { since } => Some(since + bounds.header_timeout),
            Phase::Idle { since } => Some(since + bounds.idle_timeout),
            Phase::Serving(_) => None,
        }
    }

    /// Bytes arrived: an idle connection starts a request.
    fn read(&self) {
        self.set(|phase| match phase {
            Phase::Idle { .. } => Phase::Headers {
                since: Instant::now(),
            },
            other => other,
        });
    }
}

/// One request in progress on a connection, from its headers to the end of its answer
/// (dropped with the answer's body, or with the request if it never got one).
struct Serving(Arc<Activity>);

impl Serving {
    fn begin(activity: &Arc<Activity>) -> Self {
        activity.set(|phase| match phase {
            Phase::Serving(n) => Phase::Serving(n + 1),
            _ => Phase::Serving(1),
        });
        Serving(Arc::clone(activity))
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.set(|phase| match phase {
            Phase::Serving(n) if n > 1 => Phase::Serving(n - 1),
            _ => Phase::Idle {
                since: Instant::now(),
            },
        });
    }
}

/// An answer's body, holding its request's [`Serving`] until the body is done.
struct Tracked {
    body: Body,
    _serving: Serving,
}

impl http_body::Body for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket (or the TLS stream over it), telling its connection's [`Activity`] when bytes
/// arrive.
struct Watched<S> {
    stream: S,
    activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.read();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Raises the soft limit on open files to the hard limit, so that the connection cap, not the
/// process's limit, decides how many connections are served. Returns the limit now in force.
pub fn raise_fd_limit() -> io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

/// File descriptors kept for everything but client connections: the database and its WAL, the
/// read pool, the listener, logs.
const FDS_KEPT: u64 = 64;

/// `wanted`, lowered to what the process's open-files limit leaves for connections (so that
/// accepting never fails with "too many open files" while the store still needs a file).
pub(crate) fn connection_cap(wanted: usize) -> usize {
    let Ok((soft, _)) = rlimit::getrlimit(rlimit::Resource::NOFILE) else {
        return wanted;
    };
    let room = usize::try_from(soft.saturating_sub(FDS_KEPT)).unwrap_or(usize::MAX);
    if room < wanted {
        tracing::warn!(
            wanted,
            allowed = room.max(1),
            open_files_limit = soft,
            "the open-files limit leaves room for fewer connections than --max-connections"
        );
    }
    wanted.min(room).max(1)
}
