use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Timestamp;

/// A Note's identity: a UUIDv7 in its canonical hyphenated text form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
#[serde(try_from = "String", into = "String")]
pub struct NoteId(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a note id (expected a UUIDv7 such as 01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50): {0:?}")]
pub struct NoteIdError(pub String);

impl NoteId {
    /// Wraps a freshly generated UUIDv7. The caller owns the clock and the randomness.
    pub fn from_uuid(uuid: uuid::Uuid) -> Self {
        Self(uuid.hyphenated().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for NoteId {
    type Err = NoteIdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match uuid::Uuid::try_parse(s) {
            Ok(u) if u.get_version_num() == 7 && u.hyphenated().to_string() == s => {
                Ok(Self(s.to_owned()))
            }
            _ => Err(NoteIdError(s.to_owned())),
        }
    }
}

impl TryFrom<String> for NoteId {
    type Error = NoteIdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<NoteId> for String {
    fn from(id: NoteId) -> Self {
        id.0
    }
}

impl fmt::Display for NoteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A tab's instance ID: `markdown`, `files`, `sources`, or a generated `sheet-<n>-<base36 ms>` /
/// `slides-<n>-<base36 ms>`. Tabs are addressed by this ID only, never by type, label or position.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
#[serde(transparent)]
pub struct TabId(String);

impl TabId {
    pub const MARKDOWN: &'static str = "markdown";
    pub const FILES: &'static str = "files";
    pub const SOURCES: &'static str = "sources";

    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TabId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for TabId {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

/// A Note's version: a per-Note counter, +1 for every accepted write. Never a timestamp.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "number"))]
#[serde(transparent)]
pub struct Version(pub u64);

impl Version {
    pub fn next(self) -> Self {
        Self(self.0 + 1)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The five kinds of tab a Note holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum TabKind {
    Markdown,
    Sheet,
    Slides,
    Sources,
    Files,
}

impl TabKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TabKind::Markdown => "markdown",
            TabKind::Sheet => "sheet",
            TabKind::Slides => "slides",
            TabKind::Sources => "sources",
            TabKind::Files => "files",
        }
    }

    /// Fixed kinds exist exactly once per Note, under their own name as ID.
    pub fn is_fixed(self) -> bool {
        matches!(self, TabKind::Markdown | TabKind::Sources | TabKind::Files)
    }
}

impl fmt::Display for TabKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lower-case base 36 of a non-negative number (`mh8z1k2a` for a 2025 millisecond time).
pub fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    out.into_iter().map(char::from).collect()
}

/// `<prefix>-<n>-<base36 ms>`: the shape of every generated ID in a Note (tabs, slides,
/// sources, files). `n` comes from the Note's counter, which never goes back, so an ID is never
/// reused even if the clock does.
pub fn generated_id(prefix: &str, n: u64, now: Timestamp) -> String {
    format!("{prefix}-{n}-{}", base36(now.0.max(0) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base36_matches_javascript_to_string_36() {
        // (1761800000000).toString(36) in JavaScript
        assert_eq!(base36(1_761_800_000_000), "mhcy8c8w");
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }

    #[test]
    fn generated_ids_have_the_reference_shape() {
        assert_eq!(
            generated_id("slides", 9, Timestamp(1_761_800_000_000)),
            "slides-9-mhcy8c8w"
        );
    }

    #[test]
    fn note_ids_must_be_canonical_uuid_v7() {
        let v7 = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
        assert!(v7.parse::<NoteId>().is_ok());
        assert!(
            "01936F0E-7C1A-7B2E-9F00-2A5C1D3E4F50"
                .parse::<NoteId>()
                .is_err()
        );
        assert!(
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
                .parse::<NoteId>()
                .is_err(),
            "v1"
        );
        assert!("note-1".parse::<NoteId>().is_err());
        assert!(serde_json::from_str::<NoteId>("\"x\"").is_err());
    }
}
