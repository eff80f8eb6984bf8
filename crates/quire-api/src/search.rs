//! What a search answers (`GET /search`, MCP `search_notes`).

use quire_model::{NoteId, TabId, TabKind, Version};
use serde::{Deserialize, Serialize};

/// One matching tab, best first. A Note's title counts as part of each of its tabs; a Note
/// found by its title alone comes back with its Markdown tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchHit {
    pub note_id: NoteId,
    pub title: String,
    pub tab_id: TabId,
    pub tab_label: String,
    pub tab_type: TabKind,
    /// Plain text around the first match (the title, for a match in the title alone).
    pub snippet: String,
    pub version: Version,
}

/// `GET /search`'s body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
}

/// A Note whose text links to another (`[title](quire:note/ID)`, see [`note_link`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Backlink {
    pub note_id: NoteId,
    pub title: String,
}

/// `GET /notes/{id}/backlinks`'s body: the Notes not in the trash that link to the Note, most
/// recently changed first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Backlinks {
    pub backlinks: Vec<Backlink>,
}

/// The scheme and path a link to a Note is stored with: `[Title](quire:note/ID)`. The link
/// resolves by the ID; the text in brackets is the title when the link was written (the app
/// shows the current one).
pub const NOTE_LINK_PREFIX: &str = "quire:note/";

/// The target of a link to the Note `id`: `quire:note/ID`.
pub fn note_link(id: &NoteId) -> String {
    format!("{NOTE_LINK_PREFIX}{id}")
}
