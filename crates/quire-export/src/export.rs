//! A Note as the files of its folder.

use quire_model::{Note, TabData};

use crate::deck::{self, SlideText};
use crate::manifest::{
    FORMAT, FORMAT_VERSION, MANIFEST, Manifest, ManifestNote, ManifestSheet, ManifestSlide,
    ManifestTab,
};
use crate::names::{Unique, safe};
use crate::sheet;
use crate::sources::{self, Link};

/// Why a Note could not be written as files (a fault of this code, not of the Note).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("writing a sheet as CSV: {0}")]
    Csv(#[from] csv::Error),
    #[error("writing the manifest: {0}")]
    Json(#[from] serde_json::Error),
}

/// A Note's folder: its files, by path relative to the folder (`/`-separated), in the order
/// written.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteFolder {
    pub files: Vec<(String, Vec<u8>)>,
}

/// The files of `note`'s folder (see the crate docs).
pub fn export_note(note: &Note) -> Result<NoteFolder, ExportError> {
    let mut names = Unique::default();
    for fixed in ["index.md", "sources.md", MANIFEST] {
        names.reserve(fixed);
    }
    let mut files = Vec::new();
    let mut tabs = Vec::with_capacity(note.tabs.len());
    for tab in &note.tabs {
        let mut entry = ManifestTab {
            id: tab.id.as_str().to_owned(),
            kind: tab.kind(),
            label: tab.label.clone(),
            path: None,
            sheets: Vec::new(),
            theme: None,
            slides: Vec::new(),
            files: Vec::new(),
        };
        match &tab.data {
            TabData::Markdown(text) => {
                let path = "index.md".to_owned();
                files.push((path.clone(), index_md(note, text).into_bytes()));
                entry.path = Some(path);
            }
            TabData::Sheet(sheets) => {
                let stem = safe(&tab.label, "Sheet");
                for s in &sheets.sheets {
                    let path = if sheets.sheets.len() == 1 {
                        names.name(&stem, ".csv")
                    } else {
                        names.name(&format!("{stem} - {}", safe(&s.name, "Sheet")), ".csv")
                    };
                    files.push((path.clone(), sheet::write(&s.rows)?));
                    entry.sheets.push(ManifestSheet {
                        id: s.id.clone(),
                        name: s.name.clone(),
                        path,
                    });
                }
            }
            TabData::Slides(d) => {
                let path = names.name(&safe(&tab.label, "Slides"), ".md");
                let slides: Vec<SlideText> = d
                    .slides
                    .iter()
                    .map(|s| SlideText {
                        title: s.title.clone(),
                        body: s.body.clone(),
                        notes: s.notes.clone(),
                    })
                    .collect();
                files.push((path.clone(), deck::write(&slides).into_bytes()));
                entry.path = Some(path);
                entry.theme = Some(d.theme);
                entry.slides = d
                    .slides
                    .iter()
                    .map(|s| ManifestSlide {
                        id: s.id.clone(),
                        layout: s.layout,
                    })
                    .collect();
            }
            TabData::Sources(list) => {
                let links: Vec<Link> = list
                    .iter()
                    .map(|s| Link {
                        title: s.title.clone(),
                        url: s.url.clone(),
                    })
                    .collect();
                let path = "sources.md".to_owned();
                files.push((path.clone(), sources::write(&links).into_bytes()));
                entry.path = Some(path);
            }
            TabData::Files(list) => entry.files = list.clone(),
        }
        tabs.push(entry);
    }
    let manifest = Manifest {
        format: FORMAT.to_owned(),
        format_version: FORMAT_VERSION,
        note: ManifestNote {
            id: note.id.as_str().to_owned(),
            title: note.title.clone(),
            version: note.version.0,
        },
        tabs,
    };
    let mut json = serde_json::to_vec_pretty(&manifest)?;
    json.push(b'\n');
    files.push((MANIFEST.to_owned(), json));
    Ok(NoteFolder { files })
}

/// `index.md`: the front matter (YAML; its strings written as JSON strings, which YAML reads
/// the same), then the text exactly.
fn index_md(note: &Note, text: &str) -> String {
    let quoted = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    format!(
        "---\nid: {}\ntitle: {}\nversion: {}\n---\n{text}",
        quoted(note.id.as_str()),
        quoted(&note.title),
        note.version.0
    )
}

/// The text of an `index.md` this crate wrote, without its front matter.
pub(crate) fn strip_front_matter(file: &str) -> Option<&str> {
    let rest = file.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(&rest[end + "\n---\n".len()..])
}
