//! `quire-export.json`: what is where in a Note's folder.

use quire_model::{FileMeta, Layout, TabKind, Theme};
use serde::{Deserialize, Serialize};

/// The manifest's file name.
pub const MANIFEST: &str = "quire-export.json";

/// This layout's name and version, in every manifest.
pub(crate) const FORMAT: &str = "quire-export";
pub(crate) const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `quire-export`.
    pub format: String,
    pub format_version: u32,
    /// The Note as it was exported (a Note imported from it gets an ID of its own).
    pub note: ManifestNote,
    /// The tabs in their order in the strip.
    pub tabs: Vec<ManifestTab>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestNote {
    pub id: String,
    pub title: String,
    pub version: u64,
}

/// One tab: its kind, label and where its content is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestTab {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: TabKind,
    pub label: String,
    /// The file holding the tab (Markdown, Slides, Sources).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A Sheet tab's sheets, each in its own CSV file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sheets: Vec<ManifestSheet>,
    /// A deck's theme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    /// A deck's slides, in order: what the deck's file does not hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slides: Vec<ManifestSlide>,
    /// The Files tab's attachments (their metadata: the server keeps no content).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileMeta>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestSheet {
    pub id: String,
    pub name: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestSlide {
    pub id: String,
    pub layout: Layout,
}
