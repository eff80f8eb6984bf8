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
