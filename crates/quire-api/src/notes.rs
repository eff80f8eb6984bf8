use quire_model::{AuthorKind, Note, NoteId, NoteSummary, OpOutcome, TabId, Version};
use serde::{Deserialize, Serialize};

/// A Note with what the store knows about it beyond its content (`GET /notes/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredNote {
    #[serde(flatten)]
    pub note: Note,
    #[serde(flatten)]
    pub meta: NoteMeta,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoteMeta {
    pub agent_access: bool,
    pub created_at: String,
    /// Metadata only: the version, never this, is what writes are checked against.
    pub updated_at: String,
    /// When the Note was moved to the trash (RFC 3339); `null`: it is not in the trash.
    #[serde(default)]
    pub deleted_at: Option<String>,
}

/// `DELETE /notes/{id}`: the Note is in the trash at `version`, since `deleted_at`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrashedNote {
    pub id: NoteId,
    pub version: Version,
    pub deleted_at: String,
}

/// The stored result of an accepted write; a replay returns it again with `replayed: true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WriteResult {
    pub note_id: NoteId,
    /// The Note's version after this write.
    pub version: Version,
    pub changed_tab_ids: Vec<TabId>,
    pub outcomes: Vec<OpOutcome>,
    #[serde(default)]
    pub replayed: bool,
    /// On a replay: the resent request was not byte-identical to the first (the first result is
    /// returned all the same; a key names an intent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub request_differs: bool,
}

/// A stale write: the Note moved on since `expected_version`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    pub current_version: Version,
    /// Tabs changed by the versions after the expected one.
    pub changed_tab_ids: Vec<TabId>,
}

/// One entry of a Note's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VersionInfo {
    pub version: Version,
    pub author: String,
    /// Whether the person or an agent made this version. Versions stored before authors had a
    /// kind are an agent's when their author is the name of an agent token and of no person
    /// token, else the person's.
    pub author_kind: AuthorKind,
    pub created_at: String,
    pub summary: String,
    pub changed_tab_ids: Vec<TabId>,
}

/// One accepted write, as the event stream (`GET /notes/{id}/events`, event `write`) announces
/// it, and as servers sharing one database tell each other of the writes they committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteEvent {
    pub note_id: NoteId,
    pub version: Version,
    pub author: String,
    pub changed_tab_ids: Vec<TabId>,
    /// RFC 3339, as in the history.
    pub at: String,
}

/// `GET /notes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoteList {
    #[serde(default)]
    pub notes: Vec<NoteSummary>,
}

/// `GET /notes/{id}/versions`: oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionList {
    pub versions: Vec<VersionInfo>,
}
