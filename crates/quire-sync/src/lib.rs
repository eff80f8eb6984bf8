//! Quire's sync engine: everything the desktop app knows about saving, with no UI in it.
//!
//! - [`machine`]: the pure state machine, `step(state, event) -> (state, effects)`.
//! - [`merge`]: three-way merges for Markdown (diff3), Sheets (cells) and Slides (slides).
//! - [`local`]: the local store (SQLite): base, save guard, drafts, archive, outbox.
//! - [`client`]: the REST + SSE client.
//! - [`engine`]: the async driver the Tauri commands call.
#![forbid(unsafe_code)]

pub mod client;
pub mod content;
pub mod engine;
pub mod local;
pub mod machine;
pub mod merge;

pub use client::{Client, ClientError, ServerEvent, WriteEvent};
pub use content::{Content, ContentError};
pub use engine::{
    Clock, ConflictChoice, DraftPolicy, Engine, EngineConfig, EngineError, EngineEvent, ErrorBody,
    NoteStatus, NoteView, Snapshot, SystemClock, TabStatus, TabSummary, TabView, WriteOutcome,
};
pub use local::{ArchivedDraft, LedgerEntry, LocalError, LocalStore};
pub use machine::{NoteSync, TabState};
pub use merge::{ClashChoice, TabMerge};
