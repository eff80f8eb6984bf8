//! What every experiment needs: seeded randomness, keys and IDs drawn from it, a real SQLite
//! store in a temporary directory, and a real server on loopback with a person's and an
//! agent's token.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use quire_api::{Clock, Scope, SystemClock};
use quire_model::{AuthorKind, NoteId, Timestamp};
use quire_server::RunningServer;
use quire_store::{NewNote, Store};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The lab's random source: ChaCha8, portable across platforms and versions.
pub type LabRng = ChaCha8Rng;

/// Stream `stream` of the generator seeded with `seed`: independent sequences for the actors
/// of one run (the agent, the person, the network) that stay fixed when one actor changes.
pub fn rng(seed: u64, stream: u64) -> LabRng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// A random idempotency key: 32 hex digits from the run's generator.
pub fn key(rng: &mut impl Rng) -> String {
    format!("{:032x}", rng.random::<u128>())
}

/// A UUIDv7 Note ID whose random part comes from the run's generator.
pub fn note_id(rng: &mut impl Rng) -> NoteId {
    let bytes: [u8; 10] = rng.random();
    // 2026-01-01T00:00:00Z: only the random part matters to the lab.
    NoteId::from_uuid(
        uuid::Builder::from_unix_timestamp_millis(1_767_225_600_000, &bytes).into_uuid(),
    )
}

/// Wall-clock time, for the `now` of in-process writes.
pub fn now() -> Timestamp {
    SystemClock.now()
}

/// A uniformly drawn think time in `[lo, hi]` milliseconds.
pub fn think(rng: &mut impl Rng, range_ms: (u64, u64)) -> Duration {
    Duration::from_micros(rng.random_range(range_ms.0 * 1000..=range_ms.1 * 1000))
}

/// `FULL` or `NORMAL`, as SQLite names the setting.
pub fn sync_name(s: Synchronous) -> &'static str {
    match s {
        Synchronous::Full => "FULL",
        Synchronous::Normal => "NORMAL",
    }
}

/// The product's SQLite store on a fresh file in a temporary directory (removed on drop).
pub struct LabStore {
    pub store: Arc<SqliteStore>,
    pub path: PathBuf,
    _dir: tempfile::TempDir,
}

impl LabStore {
    pub fn open(synchronous: Synchronous) -> anyhow::Result<Self> {
        Self::open_with(SqliteOptions {
            synchronous,
            ..SqliteOptions::default()
        })
    }

    pub fn open_with(options: SqliteOptions) -> anyhow::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("quire-lab-")
            .tempdir()
            .context("cannot make a temporary directory")?;
        let path = dir.path().join("quire.db");
        let store = SqliteStore::open(&path, options)
            .with_context(|| format!("cannot open the store at {}", path.display()))?;
        Ok(LabStore {
            store: Arc::new(store),
            path,
            _dir: dir,
        })
    }

    pub fn dyn_store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }
}

/// Creates a Note (approved for agents) directly in `store` and returns its ID.
pub async fn create_note(
    store: &dyn Store,
    rng: &mut impl Rng,
    title: &str,
) -> anyhow::Result<NoteId> {
    let id = note_id(rng);
    let (created, _) = store
        .create_note(NewNote {
            id: id.clone(),
            title: title.to_owned(),
            author: "lab".to_owned(),
            author_kind: AuthorKind::Person,
            now: now(),
            idempotency_key: None,
        })
        .await
        .context("create_note")?;
    store
        .set_agent_access(&created.note.id, true, "lab", now())
        .await
        .context("set_agent_access")?;
    Ok(created.note.id)
}

/// A real Quire server on `127.0.0.1:0` over `store`, with a token for the person (REST) and
/// one for the agent (MCP). Ready when `serve_store` returns: the listener is bound.
pub struct LabServer {
    pub running: RunningServer,
    pub person_token: String,
    pub agent_token: String,
}

impl LabServer {
    pub async fn start(store: Arc<dyn Store>) -> anyhow::Result<Self> {
        let listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 0));
        let scopes = [Scope::NotesRead, Scope::NotesWrite];
        let person_token =
            quire_server::tokens::create(&*store, "person", &scopes, AuthorKind::Person)
                .await
                .context("cannot make the person's token")?
                .token;
        let agent_token =
            quire_server::tokens::create(&*store, "claude", &scopes, AuthorKind::Agent)
                .await
                .context("cannot make the agent's token")?
                .token;
        let running = quire_server::serve_store(store, listen, quire_server::DEFAULT_BODY_LIMIT)
            .await
            .context("cannot start the server")?;
        Ok(LabServer {
            running,
            person_token,
            agent_token,
        })
    }

    pub fn url(&self) -> String {
        self.running.url()
    }

    /// The desktop app's engine for the person on this server, its local store at `db_path`,
    /// with the app's timing.
    pub fn person_engine(&self, db_path: PathBuf) -> anyhow::Result<quire_sync::Engine> {
        Ok(quire_sync::Engine::start(
            quire_sync::EngineConfig {
                server: self.url().parse().context("server URL")?,
                token: self.person_token.clone(),
                db_path,
                timing: quire_sync::machine::Config::default(),
                http: None,
                key_prefix: quire_sync::EngineConfig::fresh_key_prefix(),
            },
            Arc::new(quire_sync::SystemClock),
        )?)
    }

    pub async fn stop(self) -> anyhow::Result<()> {
        self.running.shutdown().await.context("server shutdown")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_repeat_and_differ() {
        let a: Vec<u32> = (0..4).map(|_| rng(7, 1).random()).collect();
        let mut r1 = rng(7, 1);
        let mut r2 = rng(7, 2);
        let x: u64 = r1.random();
        let y: u64 = r2.random();
        assert_ne!(x, y);
        assert_eq!(x, rng(7, 1).random::<u64>());
        assert!(a.iter().all(|v| *v == a[0]));
        let id = note_id(&mut rng(1, 0));
        assert_eq!(id, note_id(&mut rng(1, 0)));
        assert!(id.as_str().parse::<NoteId>().is_ok());
    }
}
