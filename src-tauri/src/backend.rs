//! What the commands call besides the engine: which server the engine talks to (the embedded
//! one or a remote one), the person's and agents' tokens, and attachment contents.
//!
//! One [`Backend`] is managed state of the app. It owns the current [`Engine`] and forwards
//! every [`EngineEvent`] to the UI through the sink it was given; switching servers starts a
//! new engine on the same local store (drafts, save guards and the ledger are kept).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use quire_api::Scope;
use quire_model::{AuthorKind, FileMeta, NoteId, NoteSummary, Op, OpOutcome, TabId, Version};
use quire_server::tokens::Listed;
use quire_server::transfer::{self, Progress, TransferError};
use quire_store::Store;
use quire_sync::{
    Client, ClientError, DraftPolicy, Engine, EngineConfig, EngineError, EngineEvent, ErrorBody,
    NoteView, ServerIdentity, SystemClock, TabState, Trust, WriteOutcome, http_client,
};
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;
use url::Url;

use crate::agent::{self, AgentSnippets};
use crate::embedded::{Embedded, EmbeddedError};
use crate::files::{FileError, FileStore};
use crate::settings::{self, Remote, ServerMode, SettingsError, Stored};

/// Where engine events go (the app emits them to the UI as `engine-event`).
pub type EventSink = Arc<dyn Fn(EngineEvent) + Send + Sync>;

/// Which server the app talks to, as the settings screen shows it. Tokens are never shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Settings {
    pub mode: ServerMode,
    /// The server the engine talks to now.
    pub server_url: String,
    /// The person's name (the author of their writes in the embedded server's history).
    pub person_name: String,
    /// The remote server saved in the settings (used in remote mode).
    pub remote_url: Option<String>,
    pub has_remote_token: bool,
    /// The embedded server's port while it runs.
    pub embedded_port: Option<u16>,
    /// The port the embedded server tries first, so agent configs survive restarts.
    pub preferred_port: u16,
    /// The app's data directory (databases, settings, attachment contents).
    pub data_dir: String,
    /// Certificate authorities trusted besides the system's store, for a team server whose
    /// certificate comes from its own CA: `QUIRE_CA_FILE`, else `ca_file` in settings.json.
    pub ca_file: Option<String>,
    /// What the app last learned from the server it talks to.
    pub server_check: ServerCheck,
}

/// Whether the server the app talks to answered, and who it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ServerCheck {
    /// Not asked since the app started or switched servers.
    Unchecked,
    /// It answered and took the token; over HTTPS, with the certificate the engine verified.
    Reached { identity: ServerIdentity },
    /// It did not: `error.code` says why (`offline`, `certificate_untrusted`,
    /// `certificate_expired`, `certificate_wrong_host`, `tls_handshake`, `unauthorized`, ...).
    Failed { error: ErrorBody },
}

impl ServerCheck {
    fn of(identified: Result<ServerIdentity, EngineError>) -> Self {
        match identified {
            Ok(identity) => ServerCheck::Reached { identity },
            Err(e) => ServerCheck::Failed { error: e.to_body() },
        }
    }
}

/// The "Connect an agent" panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentInfo {
    pub mode: ServerMode,
    /// `http://127.0.0.1:PORT/mcp` (embedded) or the remote server's `/mcp`.
    pub mcp_url: String,
    /// Tokens can be made here (embedded mode only).
    pub can_create_tokens: bool,
    /// In remote mode: how agent tokens are made on that server.
    pub remote_hint: Option<String>,
    /// The Notes agents may see (only approved Notes are visible over MCP).
    pub approved_notes: Vec<NoteSummary>,
    /// Why `approved_notes` is empty when the server could not be asked (e.g. offline).
    pub notes_error: Option<String>,
    /// Configs with a `<TOKEN>` placeholder.
    pub snippets: AgentSnippets,
    /// The agent tokens of the embedded server, oldest first (none in remote mode).
    pub tokens: Vec<AgentTokenInfo>,
}

/// An agent token as the panel lists it: never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentTokenInfo {
    pub name: String,
    pub scopes: Vec<Scope>,
    #[cfg_attr(test, ts(type = "\"active\" | \"expired\" | \"revoked\""))]
    pub state: String,
    /// RFC 3339 UTC, like every time here.
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    /// To the minute: the server records a token's use at most once a minute.
    pub last_used_at: Option<String>,
}

impl From<Listed> for AgentTokenInfo {
    fn from(t: Listed) -> Self {
        AgentTokenInfo {
            name: t.name,
            scopes: t.scopes,
            state: t.state.to_owned(),
            created_at: t.created_at,
            expires_at: t.expires_at,
            revoked_at: t.revoked_at,
            last_used_at: t.last_used_at,
        }
    }
}

/// A new agent token, shown once, inside ready-to-paste configs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentToken {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub token: String,
    pub mcp_url: String,
    pub snippets: AgentSnippets,
}

/// An attached file: its metadata as recorded in the Note, and the write that recorded it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AttachedFile {
    /// The new file's ID in the Files tab (None while the write is queued offline).
    pub file_id: Option<String>,
    pub name: String,
    pub mime: String,
    #[cfg_attr(test, ts(type = "number"))]
    pub size: u64,
    pub sha256: String,
    pub outcome: WriteOutcome,
}

/// Which of the app's transfers a [`TransferSummary`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    Export,
    Import,
}

/// A Note an export wrote or an import made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TransferredNote {
    pub note_id: String,
    /// Export: the folder's name; import: the new Note's title.
    pub title: String,
    /// Export: the folder written; import: the folder or file it came from (relative to the
    /// folder picked).
    pub path: String,
}

/// A file or folder an import left out, and why (or a source or attachment left out of a Note).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SkippedEntry {
    pub path: String,
    pub reason: String,
}

/// What Export Note…, Export all Notes… or Import… did, for the summary the person sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TransferSummary {
    pub kind: TransferKind,
    /// The folder the person picked.
    pub folder: String,
    pub notes: Vec<TransferredNote>,
    pub skipped: Vec<SkippedEntry>,
}

fn relative(path: &Path, folder: &Path) -> String {
    path.strip_prefix(folder)
        .unwrap_or(path)
        .display()
        .to_string()
}

impl TransferSummary {
    fn of_export(folder: &Path, report: transfer::ExportReport) -> Self {
        TransferSummary {
            kind: TransferKind::Export,
            folder: folder.display().to_string(),
            notes: report
                .notes
                .into_iter()
                .map(|(id, dir)| TransferredNote {
                    note_id: id.to_string(),
                    title: relative(&dir, folder),
                    path: dir.display().to_string(),
                })
                .collect(),
            skipped: Vec::new(),
        }
    }

    fn of_import(folder: &Path, report: transfer::ImportReport) -> Self {
        TransferSummary {
            kind: TransferKind::Import,
            folder: folder.display().to_string(),
            notes: report
                .notes
                .into_iter()
                .map(|(from, id, title)| TransferredNote {
                    note_id: id.to_string(),
                    title,
                    path: relative(&from, folder),
                })
                .collect(),
            skipped: report
                .skipped
                .into_iter()
                .map(|(path, reason)| SkippedEntry {
                    path: relative(&path, folder),
                    reason,
                })
                .collect(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    #[error(transparent)]
    Embedded(#[from] EmbeddedError),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    File(#[from] FileError),
    /// Names the field at fault: `url: ...`.
    #[error("{0}")]
    Invalid(String),
    #[error(
        "agent tokens for a remote server are made on that server: \
         quire-server token create --db <DB> --name NAME --agent --scope notes:read \
         [--scope notes:write]"
    )]
    RemoteMode,
    #[error(
        "export and import work on the app's own server; for a remote server, run \
         quire-server export / quire-server import where it runs"
    )]
    TransferRemote,
    #[error(transparent)]
    Transfer(#[from] TransferError),
    #[error("file_id: no file {file_id} in this note")]
    NoSuchFile { file_id: String },
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
}

type Result<T, E = BackendError> = std::result::Result<T, E>;

/// The engine and the server it talks to.
struct Connection {
    engine: Engine,
    server: Url,
    forwarder: JoinHandle<()>,
    check: ServerCheck,
}

pub struct Backend {
    data_dir: PathBuf,
    /// Overrides the stored preferred port (tests: 0).
    port_override: Option<u16>,
    stored: Mutex<Stored>,
    embedded: tokio::sync::Mutex<Option<Embedded>>,
    connection: Mutex<Connection>,
    /// Serialises switches between servers.
    switching: tokio::sync::Mutex<()>,
    files: FileStore,
    sink: EventSink,
    /// Whom the engine trusts over HTTPS (the system's store, plus the CA file).
    trust: Trust,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

const SETTINGS_FILE: &str = "settings.json";
const SERVER_DB: &str = "server.db";
const SYNC_DB: &str = "sync.db";

impl Backend {
    /// Starts the app's side: reads the settings in `data_dir`, starts the embedded server
    /// unless a remote one is configured (making the person's token on first start), and
    /// starts the engine. Must run inside the async runtime.
    pub async fn start(
        data_dir: PathBuf,
        port_override: Option<u16>,
        sink: EventSink,
    ) -> Result<Self> {
        create_private_dir(&data_dir)?;
        let settings_path = data_dir.join(SETTINGS_FILE);
        let mut stored = settings::load(&settings_path)?;
        if stored.person_name.is_none() {
            stored.person_name = Some(settings::default_person_name());
        }
        let remote = match (stored.mode, &stored.remote) {
            (ServerMode::Remote, Some(remote)) => Some(remote.clone()),
            _ => None,
        };
        let (embedded, server, token) = match remote {
            Some(remote) => (None, parse_server_url(&remote.url)?, remote.token),
            None => {
                stored.mode = ServerMode::Embedded;
                let port = port_override.unwrap_or(stored.embedded_port);
                let embedded = Embedded::start(&data_dir.join(SERVER_DB), port).await?;
                let token = person_token(&embedded, &mut stored).await?;
                let url = embedded.url().clone();
                (Some(embedded), url, token)
            }
        };
        settings::save(&settings_path, &stored)?;
        let trust = trust(&stored);
        let engine = start_engine(&data_dir, server.clone(), token, &trust)?;
        let forwarder = forward(&engine, sink.clone());
        Ok(Backend {
            files: FileStore::new(&data_dir),
            data_dir,
            port_override,
            stored: Mutex::new(stored),
            embedded: tokio::sync::Mutex::new(embedded),
            connection: Mutex::new(Connection {
                engine,
                server,
                forwarder,
                check: ServerCheck::Unchecked,
            }),
            switching: tokio::sync::Mutex::new(()),
            sink,
            trust,
        })
    }

    /// The engine every note command calls (cheap to clone).
    pub fn engine(&self) -> Engine {
        lock(&self.connection).engine.clone()
    }

    fn server(&self) -> Url {
        lock(&self.connection).server.clone()
    }

    pub async fn settings(&self) -> Settings {
        let embedded_port = self.embedded.lock().await.as_ref().map(Embedded::port);
        let stored = lock(&self.stored).clone();
        let server_check = lock(&self.connection).check.clone();
        Settings {
            mode: stored.mode,
            server_url: self.server().to_string(),
            person_name: stored.person_name.unwrap_or_default(),
            remote_url: stored.remote.as_ref().map(|r| r.url.clone()),
            has_remote_token: stored.remote.is_some(),
            embedded_port,
            preferred_port: self.port_override.unwrap_or(stored.embedded_port),
            data_dir: self.data_dir.display().to_string(),
            ca_file: self.trust.ca_file().map(|p| p.display().to_string()),
            server_check,
        }
    }

    /// Asks the server the engine talks to who it is ([`Engine::identify`]); the answer, or
    /// why there was none, is the settings' `server_check`.
    pub async fn check_server(&self) -> Settings {
        let (engine, server) = {
            let connection = lock(&self.connection);
            (connection.engine.clone(), connection.server.clone())
        };
        let check = ServerCheck::of(engine.identify().await);
        {
            let mut connection = lock(&self.connection);
            // A switch meanwhile has its own check.
            if connection.server == server {
                connection.check = check;
            }
        }
        self.settings().await
    }

    /// Points the app at a remote server: saved, the engine reconnects, the embedded server
    /// stops. `None` keeps the saved URL / token.
    ///
    /// The server is asked first. A certificate or a token it refuses is the person's to fix:
    /// refused, nothing changes. A server that does not answer may be down for now: the switch
    /// goes ahead (drafts wait for it, as offline) and `server_check` says it was unreachable.
    pub async fn use_remote(&self, url: Option<String>, token: Option<String>) -> Result<Settings> {
        let _switch = self.switching.lock().await;
        let saved = lock(&self.stored).remote.clone();
        let url = url
            .or_else(|| saved.as_ref().map(|r| r.url.clone()))
            .ok_or_else(|| {
                BackendError::Invalid("url: a remote server's URL is required".into())
            })?;
        let server = parse_server_url(&url)?;
        let token = token
            .map(|t| t.trim().to_owned())
            .or_else(|| saved.map(|r| r.token))
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                BackendError::Invalid(
                    "token: a bearer token for that server is required \
                     (quire-server token create on the server)"
                        .into(),
                )
            })?;
        let probe = Client::with_http(
            http_client(&self.trust).map_err(EngineError::from)?,
            server.clone(),
            token.clone(),
        );
        let check = match probe.identify().await {
            Ok(identity) => ServerCheck::Reached { identity },
            Err(unreachable @ ClientError::Offline(_)) => ServerCheck::Failed {
                error: EngineError::from(unreachable).to_body(),
            },
            Err(refused) => return Err(EngineError::from(refused).into()),
        };
        {
            let mut stored = lock(&self.stored);
            stored.mode = ServerMode::Remote;
            stored.remote = Some(Remote {
                url: server.to_string(),
                token: token.clone(),
            });
            settings::save(&self.data_dir.join(SETTINGS_FILE), &stored)?;
        }
        self.connect(server, token, check)?;
        if let Some(embedded) = self.embedded.lock().await.take() {
            embedded.stop().await?;
        }
        Ok(self.settings().await)
    }

    /// Back to the embedded server (started if it is not running): saved, the engine reconnects.
    pub async fn use_embedded(&self) -> Result<Settings> {
        let _switch = self.switching.lock().await;
        let (url, token) = {
            let mut slot = self.embedded.lock().await;
            if slot.is_none() {
                let port = self
                    .port_override
                    .unwrap_or(lock(&self.stored).embedded_port);
                *slot = Some(Embedded::start(&self.data_dir.join(SERVER_DB), port).await?);
            }
            let Some(embedded) = slot.as_ref() else {
                return Err(BackendError::Invalid(
                    "the embedded server did not start".into(),
                ));
            };
            let mut stored = lock(&self.stored).clone();
            let token = person_token(embedded, &mut stored).await?;
            stored.mode = ServerMode::Embedded;
            settings::save(&self.data_dir.join(SETTINGS_FILE), &stored)?;
            *lock(&self.stored) = stored;
            (embedded.url().clone(), token)
        };
        self.connect(url, token, ServerCheck::Unchecked)?;
        Ok(self.check_server().await)
    }

    /// Starts a new engine on `server` (same local store) and stops the old one; `check` is
    /// what is known of the server so far.
    fn connect(&self, server: Url, token: String, check: ServerCheck) -> Result<()> {
        let engine = start_engine(&self.data_dir, server.clone(), token, &self.trust)?;
        let forwarder = forward(&engine, self.sink.clone());
        let old = std::mem::replace(
            &mut *lock(&self.connection),
            Connection {
                engine,
                server,
                forwarder,
                check,
            },
        );
        old.forwarder.abort();
        old.engine.shutdown();
        Ok(())
    }

    pub async fn agent_info(&self) -> Result<AgentInfo> {
        let mode = lock(&self.stored).mode;
        let mcp_url = agent::mcp_url(&self.server());
        let (approved_notes, notes_error) = match self.engine().list_notes().await {
            Ok(notes) => (notes.into_iter().filter(|n| n.agent_access).collect(), None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        let tokens = match self.embedded.lock().await.as_ref() {
            Some(embedded) => embedded.agent_tokens().await?,
            None => Vec::new(),
        };
        Ok(AgentInfo {
            mode,
            snippets: agent::snippets(&mcp_url, agent::TOKEN_PLACEHOLDER, &bridge_program()),
            mcp_url,
            can_create_tokens: mode == ServerMode::Embedded,
            remote_hint: (mode == ServerMode::Remote).then(|| BackendError::RemoteMode.to_string()),
            approved_notes,
            notes_error,
            tokens: tokens.into_iter().map(AgentTokenInfo::from).collect(),
        })
    }

    /// Revokes the embedded server's agent tokens named `name`; the agent tokens after it.
    pub async fn revoke_agent_token(&self, name: &str) -> Result<Vec<AgentTokenInfo>> {
        let embedded = self.embedded.lock().await;
        let Some(embedded) = embedded.as_ref() else {
            return Err(BackendError::RemoteMode);
        };
        embedded.revoke_agent_token(name).await?;
        let tokens = embedded.agent_tokens().await?;
        Ok(tokens.into_iter().map(AgentTokenInfo::from).collect())
    }

    /// Makes an agent token in the embedded server.
    pub async fn create_agent_token(&self, name: &str, scopes: &[Scope]) -> Result<AgentToken> {
        let name = name.trim();
        if name.is_empty() {
            return Err(BackendError::Invalid(
                "name: an agent token needs a name (it is the author shown in history)".into(),
            ));
        }
        let mut scopes = scopes.to_vec();
        scopes.sort_by_key(|s| s.as_str());
        scopes.dedup();
        if scopes.is_empty() {
            return Err(BackendError::Invalid(
                "scopes: give notes:read, and notes:write to let the agent edit".into(),
            ));
        }
        let embedded = self.embedded.lock().await;
        let Some(embedded) = embedded.as_ref() else {
            return Err(BackendError::RemoteMode);
        };
        let made = embedded
            .create_token(name, &scopes, AuthorKind::Agent)
            .await?;
        let mcp_url = agent::mcp_url(embedded.url());
        Ok(AgentToken {
            name: made.record.name,
            scopes: made.record.scopes,
            snippets: agent::snippets(&mcp_url, &made.token, &bridge_program()),
            token: made.token,
            mcp_url,
        })
    }

    /// Opens a Note ([`Engine::open_note`]) and resumes its unsynced drafts: a draft loaded
    /// from the local store (the app quit, or the engine was restarted, before it was sent)
    /// waits for no keystroke to be saved. With `showing`, large tabs other than those come
    /// without their data ([`Engine::open_note_showing`]).
    pub async fn open_note(&self, note_id: &NoteId, showing: Option<&[TabId]>) -> Result<NoteView> {
        let engine = self.engine();
        let view = match showing {
            Some(tabs) => engine.open_note_showing(note_id, tabs).await?,
            None => engine.open_note(note_id).await?,
        };
        let unsent = view
            .tabs
            .iter()
            .chain(&view.orphan_drafts)
            .any(|t| matches!(t.status.state, TabState::Dirty | TabState::Offline));
        if unsent {
            engine.flush(note_id).await?;
        }
        Ok(view)
    }

    /// A structural write ([`Engine::apply_ops`]) that returns once the engine shows its
    /// result: the UI can address a tab it just created at once.
    pub async fn apply_ops(
        &self,
        note_id: &NoteId,
        ops: Vec<Op>,
        policy: DraftPolicy,
    ) -> Result<WriteOutcome> {
        let engine = self.engine();
        let outcome = engine.apply_ops(note_id, ops, policy).await?;
        Ok(read_back(&engine, note_id, outcome).await)
    }

    /// [`Engine::restore`], returning once the engine shows the restored version.
    pub async fn restore(&self, note_id: &NoteId, version: Version) -> Result<WriteOutcome> {
        let engine = self.engine();
        let outcome = engine.restore(note_id, version).await?;
        Ok(read_back(&engine, note_id, outcome).await)
    }

    /// [`Engine::revert`], returning once the engine shows the new version.
    pub async fn revert(&self, note_id: &NoteId, version: Version) -> Result<WriteOutcome> {
        let engine = self.engine();
        let outcome = engine.revert(note_id, version).await?;
        Ok(read_back(&engine, note_id, outcome).await)
    }

    /// Renames a Note (`set_title`, guarded like every write). A Note that is not open (renamed
    /// from the list) is opened for the write and closed again; offline, the write is queued
    /// in the local store and sent when the Note is next opened.
    pub async fn rename_note(&self, note_id: &NoteId, title: String) -> Result<WriteOutcome> {
        let engine = self.engine();
        let was_open = engine.snapshot(note_id).is_ok();
        if !was_open {
            self.open_note(note_id, Some(&[])).await?;
        }
        let written = self
            .apply_ops(note_id, vec![Op::SetTitle { title }], DraftPolicy::Refuse)
            .await;
        if !was_open {
            engine.close_note(note_id);
        }
        written
    }

    /// Keeps the file's content in the data directory and records its metadata in the Note.
    pub async fn attach_file(&self, note_id: &NoteId, path: &Path) -> Result<AttachedFile> {
        let files = self.files.clone();
        let src = path.to_owned();
        let stored = tokio::task::spawn_blocking(move || files.put(&src))
            .await
            .map_err(|e| BackendError::Invalid(format!("attaching stopped: {e}")))??;
        self.record_file(note_id, stored).await
    }

    /// Keeps a pasted or dropped image (PNG, JPEG, GIF or WebP, at most
    /// [`IMAGE_BYTES`](crate::files::IMAGE_BYTES)) and records it in the Note, named `name`
    /// with the image's extension.
    pub async fn attach_image(
        &self,
        note_id: &NoteId,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<AttachedFile> {
        if let Some(why) = crate::files::image_refusal(&bytes) {
            return Err(BackendError::Invalid(why));
        }
        let ext = crate::files::image_extension(&bytes).unwrap_or("png");
        let name = crate::files::image_name(name, ext);
        let files = self.files.clone();
        let stored = tokio::task::spawn_blocking(move || files.put_bytes(&name, &bytes))
            .await
            .map_err(|e| BackendError::Invalid(format!("attaching stopped: {e}")))??;
        self.record_file(note_id, stored).await
    }

    /// The content of the attached image `file_id`, for the preview: refused for a file that
    /// is not an image the preview shows, or is over the limit.
    pub async fn image_bytes(&self, note_id: &NoteId, file_id: &str) -> Result<Vec<u8>> {
        let meta = self.file_meta(note_id, file_id)?;
        if meta.size > crate::files::IMAGE_BYTES as u64 {
            return Err(BackendError::Invalid(format!(
                "file_id: {} is over the limit of {} MB for an image the preview shows",
                meta.name,
                crate::files::IMAGE_BYTES / 1_048_576
            )));
        }
        let files = self.files.clone();
        let bytes = tokio::task::spawn_blocking(move || files.read(&meta.name, &meta.sha256))
            .await
            .map_err(|e| BackendError::Invalid(format!("reading stopped: {e}")))??;
        if let Some(why) = crate::files::image_refusal(&bytes) {
            return Err(BackendError::Invalid(format!("file_id: {why}")));
        }
        Ok(bytes)
    }

    /// Records a kept file's metadata in the Note.
    async fn record_file(
        &self,
        note_id: &NoteId,
        stored: crate::files::Stored,
    ) -> Result<AttachedFile> {
        let op = Op::AddFile {
            name: stored.name.clone(),
            mime: stored.mime.clone(),
            size: stored.size,
            sha256: stored.sha256.clone(),
        };
        let outcome = self
            .apply_ops(note_id, vec![op], DraftPolicy::Refuse)
            .await?;
        let file_id = match &outcome {
            WriteOutcome::Committed { result } => result.outcomes.iter().find_map(|o| match o {
                OpOutcome::FileAdded { file_id } => Some(file_id.clone()),
                _ => None,
            }),
            WriteOutcome::Queued { .. } => None,
        };
        Ok(AttachedFile {
            file_id,
            name: stored.name,
            mime: stored.mime,
            size: stored.size,
            sha256: stored.sha256,
            outcome,
        })
    }

    fn file_meta(&self, note_id: &NoteId, file_id: &str) -> Result<FileMeta> {
        let tab = self.engine().tab(note_id, &TabId::new(TabId::FILES))?;
        let files: Vec<FileMeta> = serde_json::from_value(tab.data)
            .map_err(|e| BackendError::Invalid(format!("the files tab is malformed: {e}")))?;
        files
            .into_iter()
            .find(|f| f.id == file_id)
            .ok_or_else(|| BackendError::NoSuchFile {
                file_id: file_id.to_owned(),
            })
    }

    /// A copy of the attachment under its own name, for the system's default application.
    pub fn file_to_open(&self, note_id: &NoteId, file_id: &str) -> Result<PathBuf> {
        let meta = self.file_meta(note_id, file_id)?;
        Ok(self.files.named_copy(&meta.name, &meta.sha256)?)
    }

    /// The attachment's name (for a save dialog's default).
    pub fn file_name(&self, note_id: &NoteId, file_id: &str) -> Result<String> {
        Ok(self.file_meta(note_id, file_id)?.name)
    }

    /// Writes a copy of the attachment to `dest`.
    pub fn save_file_copy(&self, note_id: &NoteId, file_id: &str, dest: &Path) -> Result<()> {
        let meta = self.file_meta(note_id, file_id)?;
        Ok(self.files.copy_to(&meta.name, &meta.sha256, dest)?)
    }

    /// The embedded server's store, which export and import work on; refused in remote mode
    /// (before any dialog is shown).
    pub async fn transfer_store(&self) -> Result<Arc<dyn Store>> {
        match self.embedded.lock().await.as_ref() {
            Some(embedded) => Ok(embedded.store()),
            None => Err(BackendError::TransferRemote),
        }
    }

    /// Exports the Notes `ids` (every Note if empty) to a folder each under `out`. The open
    /// Notes' waiting saves go out first, so the export holds what the person sees.
    pub async fn export_notes(
        &self,
        ids: &[NoteId],
        out: &Path,
        progress: impl FnMut(Progress) + Send,
    ) -> Result<TransferSummary> {
        let store = self.transfer_store().await?;
        let engine = self.engine();
        let waiting = match ids {
            [] => engine.open_notes(),
            ids => ids.to_vec(),
        };
        for id in &waiting {
            if !engine.send_saves(id).await? {
                tracing::info!(note = %id, "exporting with drafts unsent");
            }
        }
        let report = transfer::export_to_dir(store.as_ref(), out, ids, progress).await?;
        Ok(TransferSummary::of_export(out, report))
    }

    /// Imports `dir` (a Quire export, or a folder of Markdown files) as new Notes.
    pub async fn import_folder(
        &self,
        dir: &Path,
        mut progress: impl FnMut(Progress) + Send,
    ) -> Result<TransferSummary> {
        let store = self.transfer_store().await?;
        let report =
            transfer::import_dir(store.as_ref(), &SystemClock, dir, |_, p| progress(p)).await?;
        Ok(TransferSummary::of_import(dir, report))
    }

    /// On quit: stop syncing, stop the embedded server (in-flight requests finish, the
    /// database closes). Drafts are already on disk.
    pub async fn shutdown(&self) {
        {
            let connection = lock(&self.connection);
            connection.engine.shutdown();
            connection.forwarder.abort();
        }
        if let Some(embedded) = self.embedded.lock().await.take()
            && let Err(e) = embedded.stop().await
        {
            tracing::error!(error = %e, "the embedded server did not stop cleanly");
        }
    }
}

/// How long a committed write may take to be read back before the command returns anyway.
const READ_BACK: Duration = Duration::from_secs(10);

/// Waits until the engine's copy of the Note has the committed write's version (the engine
/// reads structural writes back: generated IDs, positions). A slow read-back is not an error:
/// the write committed, and the Note catches up on its own.
async fn read_back(engine: &Engine, note_id: &NoteId, outcome: WriteOutcome) -> WriteOutcome {
    if let WriteOutcome::Committed { result } = &outcome {
        let version = result.version;
        let seen = engine
            .wait_until(note_id, READ_BACK, "the write to be read back", |snap| {
                snap.sync
                    .server
                    .as_ref()
                    .is_some_and(|note| note.version >= version)
            })
            .await;
        if let Err(e) = seen {
            tracing::warn!(note = %note_id, %version, error = %e, "write committed, not read back yet");
        }
    }
    outcome
}

/// The person's token for the embedded server: the saved one if the server knows it, else a
/// new one (first start, or a fresh database), saved into `stored`. Tokens made before tokens
/// had a kind are settled against it: the others were made by the agent panel.
async fn person_token(embedded: &Embedded, stored: &mut Stored) -> Result<String> {
    let token = match &stored.embedded_token {
        Some(token) if embedded.knows(token).await? => token.clone(),
        _ => {
            let name = stored
                .person_name
                .clone()
                .unwrap_or_else(settings::default_person_name);
            let made = embedded
                .create_token(
                    &name,
                    &[Scope::NotesRead, Scope::NotesWrite],
                    AuthorKind::Person,
                )
                .await?;
            stored.embedded_token = Some(made.token.clone());
            made.token
        }
    };
    embedded.settle_token_kinds(&token).await?;
    Ok(token)
}

/// Whom the engine trusts: the system's CA store, plus the CA file `QUIRE_CA_FILE` names, else
/// the one `ca_file` in settings.json names.
fn trust(stored: &Stored) -> Trust {
    let saved = match &stored.ca_file {
        Some(path) => Trust::with_ca_file(path, "ca_file (settings.json)"),
        None => Trust::system(),
    };
    Trust::from_env().or(saved)
}

fn start_engine(data_dir: &Path, server: Url, token: String, trust: &Trust) -> Result<Engine> {
    let config = EngineConfig {
        server,
        token,
        db_path: data_dir.join(SYNC_DB),
        timing: Default::default(),
        http: Some(http_client(trust).map_err(EngineError::from)?),
        key_prefix: EngineConfig::fresh_key_prefix(),
    };
    Ok(Engine::start(config, Arc::new(SystemClock))?)
}

/// Hands every engine event to `sink` until the engine stops.
fn forward(engine: &Engine, sink: EventSink) -> JoinHandle<()> {
    let mut events = engine.subscribe();
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => sink(event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::warn!(missed, "the UI missed engine events");
                }
                Err(RecvError::Closed) => return,
            }
        }
    })
}

fn parse_server_url(url: &str) -> Result<Url> {
    let parsed = Url::parse(url.trim())
        .map_err(|e| BackendError::Invalid(format!("url: {url:?} is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(BackendError::Invalid(format!(
            "url: {url:?} is not an http(s) server address"
        )));
    }
    Ok(parsed)
}

/// The program for Claude Desktop's stdio config: this app's own binary (it serves
/// `mcp-stdio`), else `quire-server`.
fn bridge_program() -> String {
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "quire-server".to_owned())
}

fn create_private_dir(dir: &Path) -> Result<()> {
    let failed = |source| BackendError::DataDir {
        path: dir.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)?;
    }
    Ok(())
}
