use quire_model::NoteId;
use serde::{Deserialize, Serialize};

use crate::NoteMeta;

/// What a bearer token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Scope {
    #[serde(rename = "notes:read")]
    NotesRead,
    #[serde(rename = "notes:write")]
    NotesWrite,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::NotesRead => "notes:read",
            Scope::NotesWrite => "notes:write",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "notes:read" => Some(Scope::NotesRead),
            "notes:write" => Some(Scope::NotesWrite),
            _ => None,
        }
    }
}

/// A Note's agent access, as `GET` and `PUT /notes/{id}/agent-access` answer: whether agents
/// may see it now, and every approval and withdrawal, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentAccess {
    pub id: NoteId,
    #[serde(flatten)]
    pub meta: NoteMeta,
    pub changes: Vec<AccessChange>,
}

/// One approval of a Note for agents, or its withdrawal, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AccessChange {
    /// True: approved; false: withdrawn.
    pub approved: bool,
    /// The name of the token that changed it (a person's).
    pub by: String,
    /// RFC 3339.
    pub at: String,
}
