use serde::{Deserialize, Serialize};

/// Who wrote, or who holds a token: the person, or an agent. A token's kind decides what it
/// may do (an agent's token is refused on the person's REST API and sees only the Notes the
/// person approved); a version's kind says which of them made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum AuthorKind {
    Person,
    Agent,
}

impl AuthorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AuthorKind::Person => "person",
            AuthorKind::Agent => "agent",
        }
    }

    /// The stored spelling back; `None` for anything else.
    pub fn parse(s: &str) -> Option<AuthorKind> {
        match s {
            "person" => Some(AuthorKind::Person),
            "agent" => Some(AuthorKind::Agent),
            _ => None,
        }
    }

    /// The kind of a version stored before versions recorded it: an agent's when its author is
    /// one of `agent_only_names` (the names of agent tokens that no person token has; the app
    /// used to call every author but the person an agent), else the person's.
    pub fn of_legacy_version(author: &str, agent_only_names: &[String]) -> AuthorKind {
        if agent_only_names.iter().any(|name| name == author) {
            AuthorKind::Agent
        } else {
            AuthorKind::Person
        }
    }
}
