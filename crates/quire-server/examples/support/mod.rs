//! What the server's HTTP benchmarks share: the server on its own runtime and threads, as the
//! binary runs it (with its allocator), a token made in its database before it starts, and an
//! agent's MCP client.
#![allow(dead_code)] // Each benchmark uses what it needs.

use std::net::SocketAddr;
use std::path::Path;

use quire_api::Scope;
use quire_model::AuthorKind;
use quire_server::{ServeConfig, ShutdownHandle};
use quire_store::Store;
use quire_store_sqlite::{SqliteOptions, SqliteStore};
use serde_json::{Value, json};

/// The benchmarks allocate as the `quire-server` binary does: jemalloc.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// A server running on two worker threads of its own; stopped by [`Served::stop`].
pub struct Served {
    pub addr: SocketAddr,
    shutdown: ShutdownHandle,
    thread: std::thread::JoinHandle<()>,
}

/// Starts the server on `config`; returns once it listens.
pub fn serve(config: ServeConfig) -> Served {
    let (ready, started) = std::sync::mpsc::channel::<(SocketAddr, ShutdownHandle)>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let running = quire_server::serve(config).await.unwrap();
            ready
                .send((running.addr(), running.shutdown_handle()))
                .unwrap();
            running.wait().await.unwrap();
        });
    });
    let (addr, shutdown) = started.recv().unwrap();
    Served {
        addr,
        shutdown,
        thread,
    }
}

impl Served {
    /// Stops the server and waits for its thread.
    pub fn stop(self) {
        self.shutdown.shutdown();
        self.thread.join().unwrap();
    }
}

/// A token with read and write scopes, made in the database at `db` (before a server opens it).
pub fn make_token(db: &Path, name: &str, kind: AuthorKind) -> String {
    let store = SqliteStore::open(db, SqliteOptions::default()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let made = quire_server::tokens::create(
            &store,
            name,
            &[Scope::NotesRead, Scope::NotesWrite],
            kind,
        )
        .await
        .unwrap();
        store.close().await.unwrap();
        made.token
    })
}

/// One `tools/call`: the bytes each way and the structured result.
pub struct Call {
    pub request: usize,
    pub response: usize,
    pub result: Value,
}

/// An MCP client as a bare HTTP client: stateless MCP 2026-07-28 `tools/call` messages on one
/// keep-alive connection, every byte of each request and answer body counted.
pub struct Mcp {
    http: reqwest::Client,
    url: String,
    token: String,
    id: u64,
}

impl Mcp {
    pub fn new(addr: SocketAddr, token: String) -> Mcp {
        Mcp {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .build()
                .unwrap(),
            url: format!("http://{addr}/mcp"),
            token,
            id: 0,
        }
    }

    /// Calls tool `name`; panics unless it answers a result that is not an error.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Call {
        self.id += 1;
        let body = json!({"jsonrpc": "2.0", "id": self.id, "method": "tools/call",
                          "params": {"name": name, "arguments": arguments, "_meta": {
                              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                              "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string();
        let request = body.len();
        let res = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status();
        let text = res.text().await.unwrap();
        assert!(status.is_success(), "{name}: {status} {text}");
        let message = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:").map(str::trim))
            .find(|data| !data.is_empty())
            .unwrap_or(text.as_str());
        let message: Value = serde_json::from_str(message).unwrap();
        let result = &message["result"];
        assert_eq!(result["isError"], false, "{name}: {message}");
        Call {
            request,
            response: text.len(),
            result: result["structuredContent"].clone(),
        }
    }
}
