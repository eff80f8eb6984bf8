//! Shared by the tests against the real server: the `quire-server` binary on port 0
//! (quire-testkit), engines on temporary local stores, the agent on MCP (rmcp client), a small
//! TCP proxy that can lose answers, and the engine in a child process (`quire-sync-probe`).
#![allow(clippy::unwrap_used, dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use quire_model::{NoteId, TabId};
use quire_sync::machine::Config;
use quire_sync::{Client, Engine, EngineConfig, SystemClock};
use quire_testkit::{Options, ServerProcess};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The `quire-server` binary: `$QUIRE_SERVER_BIN`, else built once by cargo for this run (a
/// dev-dependency cannot carry another package's binary).
pub fn server_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("QUIRE_SERVER_BIN") {
            return PathBuf::from(bin);
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args([
                "build",
                "-p",
                "quire-server",
                "--bin",
                "quire-server",
                "--message-format=json-render-diagnostics",
            ])
            .stderr(std::process::Stdio::inherit())
            .output()
            .expect("run cargo build -p quire-server");
        assert!(out.status.success(), "cargo build -p quire-server failed");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "quire-server")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no quire-server executable")
    })
    .clone()
}

/// A real server on a fresh SQLite file, ready (it printed its address).
pub fn server() -> ServerProcess {
    let mut options = Options::new(server_bin());
    options.token_name = "person".to_owned();
    ServerProcess::spawn_with(options).expect("start quire-server")
}

pub fn url(s: &str) -> url::Url {
    s.parse().unwrap()
}

pub fn timing() -> Config {
    Config {
        debounce: Duration::from_millis(25),
        backoff_min: Duration::from_millis(25),
        backoff_max: Duration::from_millis(300),
    }
}

/// An engine on its own local store in `dir`.
pub fn engine(server_url: &str, token: &str, dir: &Path, http: Option<reqwest::Client>) -> Engine {
    engine_with(server_url, token, dir, http, timing())
}

pub fn engine_with(
    server_url: &str,
    token: &str,
    dir: &Path,
    http: Option<reqwest::Client>,
    timing: Config,
) -> Engine {
    Engine::start(
        EngineConfig {
            server: url(server_url),
            token: token.to_owned(),
            db_path: dir.join("sync.db"),
            timing,
            http,
            key_prefix: EngineConfig::fresh_key_prefix(),
        },
        Arc::new(SystemClock),
    )
    .unwrap()
}

/// One request per connection (so the proxy sees each request on its own connection).
pub fn fresh_connections() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// A plain REST client (the test's own eyes on the server).
pub fn rest(server: &ServerProcess) -> Client {
    Client::new(url(&server.url()), server.token.clone()).unwrap()
}

pub async fn markdown_on_server(server: &ServerProcess, note: &NoteId) -> String {
    let n = rest(server).get_note(note).await.unwrap();
    match &n.note.tab(&TabId::new("markdown")).unwrap().data {
        quire_model::TabData::Markdown(t) => t.to_string(),
        other => panic!("markdown tab holds {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The agent, on MCP.

pub type Agent = RunningService<RoleClient, ClientConfig>;

pub async fn agent(server: &ServerProcess, name: &str) -> Agent {
    let token = server
        .create_agent_token(name, &["notes:read", "notes:write"])
        .unwrap();
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", server.url()))
            .auth_header(token),
    );
    ClientConfig::default()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("connect the MCP client")
}

pub async fn call(agent: &Agent, name: &str, args: Value) -> (bool, Value) {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let result: CallToolResult = agent
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let body = result.structured_content.clone().unwrap_or(Value::Null);
    (result.is_error != Some(true), body)
}

pub fn key() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// The agent reads the Markdown tab: (version, text).
pub async fn agent_read(agent: &Agent, note: &NoteId) -> (u64, String) {
    let (ok, tab) = call(
        agent,
        "read_note_tab",
        json!({"note_id": note, "tab_id": "markdown"}),
    )
    .await;
    assert!(ok, "read_note_tab: {tab}");
    (
        tab["version"].as_u64().unwrap(),
        tab["data"].as_str().unwrap().to_owned(),
    )
}

pub fn append(text: &str, line: &str) -> String {
    if text.is_empty() {
        line.to_owned()
    } else {
        format!("{text}\n{line}")
    }
}

/// The agent appends `line` to the Markdown tab the right way: on a conflict it re-reads and
/// redoes the change (new key). Returns the number of conflicts it met.
pub async fn agent_append(agent: &Agent, note: &NoteId, line: &str) -> usize {
    let mut conflicts = 0;
    let (mut version, mut text) = agent_read(agent, note).await;
    loop {
        let (ok, out) = call(
            agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text",
                   "text": append(&text, line)}),
        )
        .await;
        if ok {
            return conflicts;
        }
        assert_eq!(out["error"], "version_conflict", "{out}");
        conflicts += 1;
        (version, text) = agent_read(agent, note).await;
    }
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn ms(&mut self, lo: u64, hi: u64) -> Duration {
        Duration::from_millis(lo + self.next() % (hi - lo + 1))
    }
}

// ---------------------------------------------------------------------------------------------
// A proxy that can lose answers.

/// What the proxy does with the next write requests (PATCH/POST); reads always pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Pass,
    /// Forward the request, wait for the server's full answer, then close the connection
    /// without passing the answer on (committed, answer lost). Back to `Pass` after `n`.
    DropAnswer(usize),
    /// Keep the request: do not forward it, keep the connection open.
    HoldRequest,
    /// Forward the request, read the full answer, keep it: the client waits forever.
    HoldAnswer,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// A write request was held before reaching the server.
    Held { request_line: String },
    /// A write request reached the server and its answer (with this status line) was
    /// dropped or held.
    Committed {
        request_line: String,
        status_line: String,
    },
}

pub struct Proxy {
    pub addr: SocketAddr,
    mode: Arc<Mutex<Mode>>,
    held: Arc<Mutex<Vec<TcpStream>>>,
    pub seen: mpsc::UnboundedReceiver<Seen>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(Mode::Pass));
        let held = Arc::new(Mutex::new(Vec::new()));
        let (tx, seen) = mpsc::unbounded_channel();
        let task = {
            let mode = mode.clone();
            let held = held.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((conn, _)) = listener.accept().await else {
                        return;
                    };
                    let (mode, held, tx) = (mode.clone(), held.clone(), tx.clone());
                    tokio::spawn(async move {
                        if let Err(e) = serve(conn, upstream, mode, held, tx).await {
                            eprintln!("proxy: {e}");
                        }
                    });
                }
            })
        };
        Proxy {
            addr,
            mode,
            held,
            seen,
            task,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    /// Closes the connections held so far.
    pub fn release(&self) {
        self.held.lock().unwrap().clear();
    }
}

/// Reads one HTTP/1.1 message head and its `Content-Length` body.
async fn read_message(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::other("connection closed mid-message"));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::other("connection closed mid-body"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(buf)
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

async fn serve(
    mut client: TcpStream,
    upstream: SocketAddr,
    mode: Arc<Mutex<Mode>>,
    held: Arc<Mutex<Vec<TcpStream>>>,
    seen: mpsc::UnboundedSender<Seen>,
) -> std::io::Result<()> {
    let request = read_message(&mut client).await?;
    let request_line = first_line(&request);
    let is_write = request_line.starts_with("PATCH ") || request_line.starts_with("POST ");
    let current = *mode.lock().unwrap();
    let mut server = TcpStream::connect(upstream).await?;
    match (is_write, current) {
        (false, _) | (true, Mode::Pass) => {
            server.write_all(&request).await?;
            tokio::io::copy_bidirectional(&mut client, &mut server).await?;
        }
        (true, Mode::HoldRequest) => {
            held.lock().unwrap().push(client);
            seen.send(Seen::Held { request_line }).ok();
        }
        (true, Mode::DropAnswer(_) | Mode::HoldAnswer) => {
            server.write_all(&request).await?;
            let answer = read_message(&mut server).await?;
            let status_line = first_line(&answer);
            {
                let mut m = mode.lock().unwrap();
                if let Mode::DropAnswer(n) = *m {
                    *m = if n <= 1 {
                        Mode::Pass
                    } else {
                        Mode::DropAnswer(n - 1)
                    };
                }
            }
            if current == Mode::HoldAnswer {
                held.lock().unwrap().push(client);
            } else {
                drop(client);
            }
            seen.send(Seen::Committed {
                request_line,
                status_line,
            })
            .ok();
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The engine in a child process.

pub struct Probe {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Probe {
    pub fn spawn(server_url: &str, token: &str, db: &Path) -> Probe {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_quire-sync-probe"))
            .args(["--server", server_url, "--token", token, "--db"])
            .arg(db)
            .args(["--debounce-ms", "20", "--fresh-connections"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start quire-sync-probe");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Probe {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends a command; returns `ok` or panics with the error.
    pub async fn ok(&mut self, cmd: Value) -> Value {
        match self.send(cmd.clone()).await {
            Ok(v) => v,
            Err(e) => panic!("probe {cmd}: {e}"),
        }
    }

    pub async fn send(&mut self, cmd: Value) -> Result<Value, Value> {
        self.stdin
            .write_all(format!("{cmd}\n").as_bytes())
            .await
            .unwrap();
        self.stdin.flush().await.unwrap();
        let line = self
            .stdout
            .next_line()
            .await
            .unwrap()
            .expect("the probe answered");
        let mut v: Value = serde_json::from_str(&line).unwrap();
        match v.get_mut("ok") {
            Some(ok) => Ok(ok.take()),
            None => Err(v["error"].clone()),
        }
    }

    /// SIGKILL: no shutdown, no flush; whatever it had not written is gone.
    pub async fn kill9(mut self) {
        self.child.kill().await.unwrap();
    }
}
