//! What crosses the wire between Quire's server and its clients, declared once: the server
//! serialises these types and the app's engine (and the TypeScript bindings) read the very same
//! ones. The stores return them too, so a Note read from a database is what a client receives.
//!
//! - [`StoredNote`], [`NoteMeta`], [`WriteResult`], [`Conflict`], [`VersionInfo`]: what the
//!   REST API answers; [`WriteEvent`]: one accepted write, as the event stream announces it.
//! - [`Scope`], [`AgentAccess`], [`AccessChange`]: what a token may do, what agents may see.
//! - [`CreateNote`], [`PatchNote`], [`RestoreNote`], [`SetAgentAccess`]: the request bodies.
//! - [`Clock`]: where a write's `now` comes from, on either side of the wire.
//!
//! The domain itself (Notes, tabs, operations, [`AuthorKind`](quire_model::AuthorKind)) is
//! `quire-model`'s; this crate adds no I/O but the wall clock of [`SystemClock`].
#![forbid(unsafe_code)]

mod access;
mod clock;
mod notes;
mod requests;
mod search;

pub use access::{AccessChange, AgentAccess, Scope};
pub use clock::{Clock, SystemClock};
pub use notes::{
    Conflict, NoteList, NoteMeta, StoredNote, TrashedNote, VersionInfo, VersionList, WriteEvent,
    WriteResult,
};
pub use requests::{CreateNote, PatchNote, RestoreNote, RevertNote, SetAgentAccess, UndeleteNote};
pub use search::{Backlink, Backlinks, NOTE_LINK_PREFIX, SearchHit, SearchResults, note_link};
