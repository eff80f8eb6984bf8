//! What the server's HTTP benchmarks share: the server on its own runtime and threads, as the
//! binary runs it, and a token made in its database before it starts.
#![allow(dead_code)] // Each benchmark uses what it needs.

use std::net::SocketAddr;
use std::path::Path;

use quire_api::Scope;
use quire_model::AuthorKind;
use quire_server::{ServeConfig, ShutdownHandle};
use quire_store::Store;
use quire_store_sqlite::{SqliteOptions, SqliteStore};

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
