//! The server against a local process that holds connections open: headers that trickle in,
//! idle sockets, more connections than the cap, more event streams than a token may hold. The
//! real server in-process on port 0 (short deadlines set through `ServeConfig`), spoken to over
//! raw TCP where the point is what a well-behaved client would not do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use quire_server::{RunningServer, ServeConfig};
use reqwest::StatusCode;
use serde_json::Value;
use support::{Api, SseReader};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};

/// A server on a fresh database with two tokens, configured by `tweak`.
struct Served {
    running: RunningServer,
    api: Api,
    other: Api,
    _dir: tempfile::TempDir,
}

async fn served(tweak: impl FnOnce(&mut ServeConfig)) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("conn.db");
    let store =
        quire_store_sqlite::SqliteStore::open(&db, quire_store_sqlite::SqliteOptions::default())
            .unwrap();
    let scopes = [quire_api::Scope::NotesRead, quire_api::Scope::NotesWrite];
    let made = quire_server::tokens::create(&store, "me", &scopes, quire_model::AuthorKind::Person)
        .await
        .unwrap();
    let other =
        quire_server::tokens::create(&store, "other", &scopes, quire_model::AuthorKind::Person)
            .await
            .unwrap();
    quire_store::Store::close(&store).await.unwrap();
    drop(store);
    let mut config = ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0)));
    tweak(&mut config);
    let running = quire_server::serve(config).await.unwrap();
    let api = Api {
        http: reqwest::Client::new(),
        base: running.url(),
        token: made.token,
    };
    let other = Api {
        token: other.token,
        ..api.clone()
    };
    Served {
        running,
        api,
        other,
        _dir: dir,
    }
}

const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";

/// Reads one whole `/healthz` answer (its body is a small JSON object) from a raw socket.
async fn read_answer(conn: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !got.ends_with(b"}") {
        let n = conn.read(&mut buf).await.unwrap();
        assert!(n > 0, "closed before the answer ended: {got:?}");
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(got).unwrap()
}

/// Waits (at most `within`) for the server to close `conn`; how long that took.
async fn closed_within(conn: &mut TcpStream, within: Duration) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 256];
    let read = timeout(within, async {
        loop {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(read.is_ok(), "still open after {within:?}");
    start.elapsed()
}

/// A request whose headers trickle in (a line every 50 ms, never the blank line that ends
/// them) is closed once its header deadline passes, although bytes keep coming: the deadline
/// runs from the request's first byte, not from the last.
#[tokio::test]
async fn headers_that_trickle_in_are_cut_off_at_the_header_timeout() {
    let header = Duration::from_millis(400);
    let s = served(|c| {
        c.header_timeout = header;
        c.idle_timeout = Duration::from_secs(30);
    })
    .await;
    let conn = TcpStream::connect(s.running.addr()).await.unwrap();
    let (mut read, mut write) = conn.into_split();
    let start = Instant::now();
    let trickle = tokio::spawn(async move {
        write.write_all(b"GET /healthz HTTP/1.1\r\n").await?;
        for i in 0.. {
            tokio::time::sleep(Duration::from_millis(50)).await;
            write
                .write_all(format!("X-Slow-{i}: 1\r\n").as_bytes())
                .await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let mut buf = [0u8; 256];
    let n = timeout(Duration::from_secs(10), read.read(&mut buf))
        .await
        .expect("the trickled request is still open after 10 s");
    let elapsed = start.elapsed();
    assert!(
        matches!(n, Ok(0) | Err(_)),
        "closed without an answer, got {n:?}"
    );
    assert!(
        elapsed >= header,
        "closed after {elapsed:?}, before {header:?}"
    );
    trickle.abort();
}

/// A connection that opens and sends nothing is due its first request's headers: it is closed
/// at the header deadline.
#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed_at_the_header_timeout() {
    let header = Duration::from_millis(300);
    let s = served(|c| {
        c.header_timeout = header;
        c.idle_timeout = Duration::from_secs(30);
    })
    .await;
    let mut conn = TcpStream::connect(s.running.addr()).await.unwrap();
    let took = closed_within(&mut conn, Duration::from_secs(10)).await;
    assert!(took >= header - Duration::from_millis(20), "{took:?}");
}

/// Between requests a connection may idle for the idle timeout (longer than the header
/// deadline), each request starting the count again; then it is closed.
#[tokio::test]
async fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let header = Duration::from_millis(200);
    let idle = Duration::from_millis(900);
    let s = served(|c| {
        c.header_timeout = header;
        c.idle_timeout = idle;
    })
    .await;
    let mut conn = TcpStream::connect(s.running.addr()).await.unwrap();
    // Requests 500 ms apart, well past the header deadline and within the idle one: one
    // connection serves them all.
    for _ in 0..4 {
        conn.write_all(HEALTHZ).await.unwrap();
        let answer = read_answer(&mut conn).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    conn.write_all(HEALTHZ).await.unwrap();
    read_answer(&mut conn).await;
    let took = closed_within(&mut conn, Duration::from_secs(10)).await;
    assert!(
        took >= idle - Duration::from_millis(20),
        "closed after {took:?} idle: the idle timeout is {idle:?}"
    );
}

/// At the connection cap, one more connection waits to be accepted (its request unanswered)
/// while the connections already open are served; it is served once one of them closes.
#[tokio::test]
async fn past_the_connection_cap_a_connection_waits_and_the_others_are_served() {
    let s = served(|c| {
        c.max_connections = 3;
        c.header_timeout = Duration::from_secs(30);
        c.idle_timeout = Duration::from_secs(30);
    })
    .await;
    let addr = s.running.addr();
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut conn = TcpStream::connect(addr).await.unwrap();
        conn.write_all(HEALTHZ).await.unwrap();
        read_answer(&mut conn).await;
        open.push(conn);
    }
    let mut waiting = TcpStream::connect(addr).await.unwrap();
    waiting.write_all(HEALTHZ).await.unwrap();
    let mut buf = [0u8; 64];
    assert!(
        timeout(Duration::from_millis(500), waiting.read(&mut buf))
            .await
            .is_err(),
        "the fourth connection was served at a cap of three"
    );
    // The open connections are still served.
    for conn in &mut open {
        conn.write_all(HEALTHZ).await.unwrap();
        assert!(read_answer(conn).await.starts_with("HTTP/1.1 200"));
    }
    drop(open.pop());
    let answer = timeout(Duration::from_secs(10), read_answer(&mut waiting))
        .await
        .expect("the waiting connection is served once a place is free");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// One token may hold `max_event_streams` event streams; one more is refused with 429 and a
/// problem naming the limit, another token is not affected, and a stream closed gives its
/// place back.
#[tokio::test]
async fn a_token_holds_at_most_its_share_of_event_streams() {
    let s = served(|c| c.max_event_streams = 2).await;
    let note = s.api.new_note().await;
    let path = format!("/notes/{note}/events");
    let open_as = |api: &Api| api.req(reqwest::Method::GET, &path).send();
    let open = || async { open_as(&s.api).await.unwrap() };
    let mut streams = Vec::new();
    for _ in 0..2 {
        let resp = open().await;
        assert_eq!(resp.status(), StatusCode::OK);
        let mut events = SseReader::new(resp);
        assert_eq!(events.next().await.event, "hello");
        streams.push(events);
    }
    let refused = open().await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        refused.headers()["content-type"],
        "application/problem+json"
    );
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["error"], "too_many_streams");
    assert!(
        problem["detail"].as_str().unwrap().contains('2'),
        "{problem}"
    );

    // Another token has its own share.
    let theirs = open_as(&s.other).await.unwrap();
    assert_eq!(theirs.status(), StatusCode::OK);
    assert_eq!(SseReader::new(theirs).next().await.event, "hello");

    // A stream closed by its client gives its place back (the server learns it when the
    // connection closes).
    drop(streams.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let resp = open().await;
        if resp.status() == StatusCode::OK {
            break;
        }
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(Instant::now() < deadline, "the place was never given back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The binary run under a low open-files limit: `ulimit -S -n SOFT`, then `-H -n HARD` when
/// given (the soft one first: it may not exceed the hard one), then `exec quire-server "$@"`
/// (so the server is the process testkit waits on).
#[cfg(target_os = "linux")]
fn under_ulimit(dir: &std::path::Path, soft: u32, hard: Option<u32>) -> quire_testkit::Options {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("quire-server-limited");
    let hard = hard
        .map(|h| format!("ulimit -H -n {h}\n"))
        .unwrap_or_default();
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nset -e\nulimit -S -n {soft}\n{hard}exec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_quire-server")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    quire_testkit::Options::new(script)
}

/// (soft, hard) open-files limits of a running process, from `/proc/PID/limits`.
#[cfg(target_os = "linux")]
fn open_files_limits(pid: u32) -> (u64, u64) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[0], numbers[1])
}

/// Started with a soft open-files limit below the hard one, `serve` raises it to the hard
/// one: the connection cap, not the soft limit, decides how many clients are served.
#[cfg(target_os = "linux")]
#[test]
fn serve_raises_the_open_files_soft_limit_to_the_hard_limit() {
    let dir = tempfile::tempdir().unwrap();
    let server = quire_testkit::ServerProcess::spawn_with(under_ulimit(dir.path(), 256, None))
        .expect("start quire-server under ulimit -S -n 256");
    let (soft, hard) = open_files_limits(server.pid().unwrap());
    assert!(
        hard > 256,
        "this machine's hard limit is {hard}: nothing to raise"
    );
    assert_eq!(soft, hard);
}

/// Under a hard open-files limit of 200, as many idle sockets as the limit do not make the
/// server run out of descriptors: it serves fewer connections at once (the rest wait in the
/// listen backlog), never fails to accept, and a connection it serves can still write (which
/// needs the database's files).
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_past_the_open_files_limit_do_not_exhaust_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = quire_testkit::ServerProcess::spawn_with(under_ulimit(dir.path(), 200, Some(200)))
        .expect("start quire-server under ulimit -n 200");
    let api = support::Api::new(&server);
    let note = api.new_note().await;
    // One connection in, kept: it will write once the others are open.
    let mut first = TcpStream::connect(server.addr).await.unwrap();
    first.write_all(HEALTHZ).await.unwrap();
    read_answer(&mut first).await;
    let mut idle = Vec::new();
    for _ in 0..200 {
        idle.push(TcpStream::connect(server.addr).await.unwrap());
    }
    let body = r#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "still here"}]}"#;
    let request = format!(
        "PATCH /notes/{note} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server.token,
        body.len()
    );
    first.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let n = timeout(Duration::from_secs(10), first.read(&mut buf))
        .await
        .expect("the write was answered")
        .unwrap();
    answer.extend_from_slice(&buf[..n]);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let log = server.log();
    assert!(
        !log.contains("cannot accept") && !log.to_lowercase().contains("too many open files"),
        "{log}"
    );
    drop(idle);
}
