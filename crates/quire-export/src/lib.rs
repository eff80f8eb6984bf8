//! A Note as plain files, and back. Pure: the caller reads and writes the files (the server's
//! `export` / `import` commands and `GET /notes/{id}/export`).
//!
//! One folder per Note:
//!
//! - `index.md`: the Markdown text, after a YAML front matter holding the Note's `id`, `title`
//!   and `version`;
//! - one `.csv` per sheet of each Sheet tab (RFC 4180: commas, quotes and line breaks in a
//!   cell survive);
//! - one `.md` per deck: slides separated by `---` lines, each `# title`, its body, and its
//!   speaker notes as `Note:` lines ([`deck`]);
//! - `sources.md`: the cited pages, one link a line;
//! - `quire-export.json`: what is where, the tabs' order and labels, the decks' themes and
//!   layouts, the attachments' metadata ([`Manifest`]).
//!
//! [`read_export`] reads such a folder back; [`read_markdown`] makes a Note of a plain Markdown
//! file (titled by its first `# heading`, else its file name), with a `.csv` of the same stem
//! as its Sheet tab. [`links::relink`] points the links of an imported text at the new Notes
//! and attachments.
#![forbid(unsafe_code)]

pub mod deck;
mod export;
mod import;
pub mod links;
mod manifest;
pub mod names;
pub mod sheet;
pub mod sources;

pub use export::{ExportError, NoteFolder, export_note};
pub use import::{ImportedNote, ImportedTab, plain_notes, read_export, read_markdown};
pub use manifest::{MANIFEST, Manifest, ManifestTab};

/// Why a folder or file could not be read as a Note. Names the file and what is wrong in it.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct ImportError {
    /// The file at fault, relative to the Note's folder.
    pub path: String,
    pub reason: String,
}

impl ImportError {
    pub(crate) fn new(path: impl Into<String>, reason: impl Into<String>) -> Self {
        ImportError {
            path: path.into(),
            reason: reason.into(),
        }
    }
}
