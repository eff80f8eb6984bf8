//! Quire's sync engine: everything the desktop app knows about saving, with no UI in it.
//!
//! - [`machine`]: the pure state machine, `step(state, event) -> (state, effects)`.
//! - [`merge`]: three-way merges for Markdown (diff3), Sheets (cells) and Slides (slides).
//! - [`local`]: the local store (SQLite): base, save guard, drafts, archive, outbox.
//! - [`client`]: the REST + SSE client.
//! - [`engine`]: the async driver the Tauri commands call.
//!
//! For the desktop app: start one [`Engine`] (server URL, token, a file in the app's data
//! directory, a [`Clock`]); every command is one call on it — `open_note`, `edit_tab(note, tab,
//! data)`, `status`, `conflict` (base, mine, theirs and the proposed merge),
//! `resolve_conflict(note, tab, ConflictChoice)`, `apply_ops` (structural writes),
//! `drafts` (the ledger), `history` / `version` / `restore` — and `subscribe()` pushes
//! [`EngineEvent`]s. Every type crossing that boundary is serde-serialisable; errors map to
//! `{code, message}` with [`EngineError::to_body`].
//!
//! Architecture invariants: the machine is pure (no clock, no randomness, no I/O); a draft is
//! on disk before its save is sent; a save whose outcome is unknown is resent with the same
//! idempotency key; a tab is only ever found by its instance ID.
#![forbid(unsafe_code)]

pub mod client;
pub mod content;
pub mod engine;
pub mod local;
pub mod machine;
pub mod merge;

pub use client::{Client, ClientError, ServerEvent, ServerIdentity, http_client};
pub use content::{Content, ContentError};
pub use engine::{
    ConflictChoice, DraftPolicy, Engine, EngineConfig, EngineError, EngineEvent, ErrorBody,
    NOTE_IN_TRASH, NoteStatus, NoteView, Snapshot, TabStatus, TabSummary, TabView, WriteOutcome,
};
pub use local::{ArchivedDraft, LedgerEntry, LocalError, LocalStore};
pub use machine::{NoteSync, TabState};
pub use merge::{ClashChoice, MergePreview, TabMerge};
/// What [`Engine::start`] takes for time (the server is given the same).
pub use quire_api::{Clock, SystemClock};
pub use quire_tls::{CA_FILE_VAR, PeerCertificate, TlsProblem, Trust};
