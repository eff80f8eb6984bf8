//! Notes read from files: an export's folder, or a plain Markdown file.

use std::collections::{BTreeMap, HashSet};

use quire_model::{
    Deck, FileMeta, Layout, Note, NoteId, Sheet, SheetTab, Slide, Source, TabData, TabKind,
};

use crate::ImportError;
use crate::deck;
use crate::export::strip_front_matter;
use crate::manifest::{FORMAT, FORMAT_VERSION, MANIFEST, Manifest, ManifestTab};
use crate::sheet;
use crate::sources;

/// A Note to create from files: its title and its tabs in strip order, the three fixed tabs
/// (Markdown, Files, Sources) exactly once each. Sources and files carry only what a person
/// gives when adding them (a title and a URL; an attachment's metadata, and its exported ID,
/// which the text's image links name).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedNote {
    pub title: String,
    pub tabs: Vec<ImportedTab>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportedTab {
    pub label: String,
    pub data: TabData,
}

impl ImportedNote {
    /// The Note's tabs as a new Note has them: only the fixed ones, empty.
    fn fixed() -> Vec<ImportedTab> {
        let blank = Note::new(NoteId::from_uuid(uuid::Uuid::nil()), String::new());
        blank
            .tabs
            .into_iter()
            .map(|t| ImportedTab {
                label: t.label,
                data: t.data,
            })
            .collect()
    }
}

/// The Note of an export's folder: `files` by path relative to the folder (`/`-separated),
/// `quire-export.json` among them.
pub fn read_export(files: &BTreeMap<String, Vec<u8>>) -> Result<ImportedNote, ImportError> {
    let raw = files
        .get(MANIFEST)
        .ok_or_else(|| ImportError::new(MANIFEST, "missing: not a Quire export"))?;
    let manifest: Manifest = serde_json::from_slice(raw)
        .map_err(|e| ImportError::new(MANIFEST, format!("not a Quire manifest: {e}")))?;
    if manifest.format != FORMAT {
        return Err(ImportError::new(
            MANIFEST,
            format!("format {:?}, not {FORMAT:?}", manifest.format),
        ));
    }
    if manifest.format_version > FORMAT_VERSION {
        return Err(ImportError::new(
            MANIFEST,
            format!(
                "format version {} is newer than this Quire reads ({FORMAT_VERSION})",
                manifest.format_version
            ),
        ));
    }
    let mut tabs = Vec::with_capacity(manifest.tabs.len());
    let mut fixed_seen = HashSet::new();
    for (i, entry) in manifest.tabs.iter().enumerate() {
        if entry.kind.is_fixed() && !fixed_seen.insert(entry.kind) {
            return Err(ImportError::new(
                MANIFEST,
                format!("tabs[{i}]: a second {} tab", entry.kind),
            ));
        }
        tabs.push(ImportedTab {
            label: entry.label.clone(),
            data: read_tab(files, entry, i)?,
        });
    }
    // A fixed tab the manifest leaves out (edited by hand) is there, empty, as in a new Note.
    for tab in ImportedNote::fixed() {
        if fixed_seen.insert(tab.data.kind()) {
            tabs.push(tab);
        }
    }
    Ok(ImportedNote {
        title: manifest.note.title,
        tabs,
    })
}

fn read_tab(
    files: &BTreeMap<String, Vec<u8>>,
    entry: &ManifestTab,
    index: usize,
) -> Result<TabData, ImportError> {
    let text = |path: &Option<String>| -> Result<Option<String>, ImportError> {
        let Some(path) = path else {
            return Ok(None);
        };
        let bytes = files
            .get(path)
            .ok_or_else(|| ImportError::new(path, "missing (the manifest names it)"))?;
        String::from_utf8(bytes.clone())
            .map(Some)
            .map_err(|_| ImportError::new(path, "not UTF-8 text"))
    };
    Ok(match entry.kind {
        TabKind::Markdown => {
            let file = text(&entry.path)?.unwrap_or_default();
            TabData::Markdown(strip_front_matter(&file).unwrap_or(&file).into())
        }
        TabKind::Sheet => {
            if entry.sheets.is_empty() {
                return Err(ImportError::new(
                    MANIFEST,
                    format!("tabs[{index}]: a Sheet tab without sheets"),
                ));
            }
            let mut sheets = Vec::with_capacity(entry.sheets.len());
            for s in &entry.sheets {
                let bytes = files
                    .get(&s.path)
                    .ok_or_else(|| ImportError::new(&s.path, "missing (the manifest names it)"))?;
                let rows = sheet::read(bytes)
                    .map_err(|e| ImportError::new(&s.path, format!("not CSV: {e}")))?;
                sheets.push(Sheet {
                    id: s.id.clone(),
                    name: s.name.clone(),
                    rows,
                });
            }
            TabData::Sheet(SheetTab { sheets })
        }
        TabKind::Slides => {
            let file = text(&entry.path)?.unwrap_or_default();
            let mut ids: HashSet<String> = entry.slides.iter().map(|s| s.id.clone()).collect();
            let mut fresh = 0;
            let slides = deck::read(&file)
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    let (id, layout) = match entry.slides.get(i) {
                        Some(known) => (known.id.clone(), known.layout),
                        None => (unused_id(&mut ids, &mut fresh), Layout::default()),
                    };
                    Slide {
                        id,
                        title: s.title,
                        body: s.body,
                        notes: s.notes,
                        layout,
                    }
                })
                .collect();
            TabData::Slides(Deck {
                theme: entry.theme.unwrap_or_default(),
                slides,
            })
        }
        TabKind::Sources => {
            let file = text(&entry.path)?.unwrap_or_default();
            TabData::Sources(sources::read(&file).into_iter().map(source).collect())
        }
        TabKind::Files => TabData::Files(entry.files.iter().map(attachment).collect()),
    })
}

/// A slide ID no other slide of the deck has (for a slide added to the deck's file by hand).
fn unused_id(ids: &mut HashSet<String>, fresh: &mut usize) -> String {
    loop {
        *fresh += 1;
        let id = format!("imported-{fresh}");
        if ids.insert(id.clone()) {
            return id;
        }
    }
}

fn source(link: sources::Link) -> Source {
    Source {
        id: String::new(),
        title: link.title,
        url: link.url,
        normalized_url: String::new(),
        added_by: String::new(),
        added_at: String::new(),
    }
}

/// An attachment as imported: it keeps its exported `id` (the text's image links name it), the
/// new Note gives it a new one.
fn attachment(file: &FileMeta) -> FileMeta {
    FileMeta {
        added_by: String::new(),
        added_at: String::new(),
        ..file.clone()
    }
}

/// A Note of one plain Markdown file (`file_name` is its name, e.g. `Plan.md`): titled by its
/// first `# heading`, else by its file name; its text kept whole. `csv`: the `.csv` file of
/// the same stem, if any, as its Sheet tab (named after the stem).
pub fn read_markdown(
    file_name: &str,
    text: &[u8],
    csv: Option<(&str, &[u8])>,
) -> Result<ImportedNote, ImportError> {
    let text = std::str::from_utf8(text).map_err(|_| ImportError::new(file_name, "not UTF-8"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let stem = stem(file_name);
    let title = first_heading(text).unwrap_or(stem).to_owned();
    let mut tabs = ImportedNote::fixed();
    for tab in &mut tabs {
        if let TabData::Markdown(t) = &mut tab.data {
            *t = text.into();
        }
    }
    if let Some((csv_name, bytes)) = csv {
        let rows =
            sheet::read(bytes).map_err(|e| ImportError::new(csv_name, format!("not CSV: {e}")))?;
        tabs.push(ImportedTab {
            label: stem.to_owned(),
            data: TabData::Sheet(SheetTab {
                sheets: vec![Sheet {
                    id: "s1".to_owned(),
                    name: "Sheet 1".to_owned(),
                    rows,
                }],
            }),
        });
    }
    Ok(ImportedNote { title, tabs })
}

/// A file name without its extension.
fn stem(file_name: &str) -> &str {
    let base = file_name.rsplit('/').next().unwrap_or(file_name);
    match base.rfind('.') {
        Some(dot) if dot > 0 => &base[..dot],
        _ => base,
    }
}

/// The text of the first `# ` heading outside front matter and code fences.
fn first_heading(text: &str) -> Option<&str> {
    let body = match text.strip_prefix("---\n") {
        Some(rest) => rest.find("\n---\n").map_or(text, |end| &rest[end + 5..]),
        None => text,
    };
    let mut fenced = false;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some(heading) = line.strip_prefix("# ") {
            let heading = heading.trim().trim_end_matches('#').trim();
            if !heading.is_empty() {
                return Some(heading);
            }
        }
    }
    None
}

/// A plain folder's Notes: each Markdown file's path and the path of the `.csv` of the same
/// stem beside it, if any.
pub type PlainNotes = Vec<(String, Option<String>)>;

/// The paths left out of a plain folder's Notes, each with why.
pub type LeftOut = Vec<(String, String)>;

/// What each Note of a plain folder is made of (every `.md` file, with the `.csv` of the same
/// stem beside it), and the paths left out.
pub fn plain_notes(paths: &[String]) -> (PlainNotes, LeftOut) {
    let lower: BTreeMap<String, &String> = paths.iter().map(|p| (p.to_lowercase(), p)).collect();
    let mut notes = Vec::new();
    let mut used = HashSet::new();
    for path in paths {
        let l = path.to_lowercase();
        if let Some(base) = l.strip_suffix(".md") {
            let csv = lower.get(&format!("{base}.csv")).map(|p| (*p).clone());
            if let Some(c) = &csv {
                used.insert(c.clone());
            }
            notes.push((path.clone(), csv));
        }
    }
    let skipped = paths
        .iter()
        .filter(|p| !p.to_lowercase().ends_with(".md") && !used.contains(*p))
        .map(|p| {
            let why = if p.to_lowercase().ends_with(".csv") {
                "a CSV file with no Markdown file of the same name beside it"
            } else {
                "not a Markdown or CSV file"
            };
            (p.clone(), why.to_owned())
        })
        .collect();
    (notes, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_markdown_file_is_titled_by_its_first_heading_else_its_name() {
        let cases: [(&str, &str, &str); 6] = [
            ("Plan.md", "# The plan\n\ntext", "The plan"),
            ("notes/Plan.md", "no heading", "Plan"),
            ("a.b.md", "## only second level", "a.b"),
            (
                "x.md",
                "---\ntitle: fm\n---\n# After front matter #\n",
                "After front matter",
            ),
            ("y.md", "```\n# in code\n```\n# Real\n", "Real"),
            (".md", "", ".md"),
        ];
        for (name, text, want) in cases {
            let note = read_markdown(name, text.as_bytes(), None).expect("reads");
            assert_eq!(note.title, want, "{name}");
            assert_eq!(note.tabs[0].data, TabData::Markdown(text.into()));
            assert_eq!(note.tabs.len(), 3);
        }
        let err = read_markdown("bad.md", b"\xff\xfe", None).expect_err("not UTF-8");
        assert_eq!(err.path, "bad.md");
    }

    #[test]
    fn a_csv_beside_a_note_is_its_sheet_and_the_rest_is_skipped_with_a_reason() {
        let paths: Vec<String> = [
            "Budget.md",
            "Budget.csv",
            "Orphan.csv",
            "img.png",
            "sub/Deep.MD",
        ]
        .map(String::from)
        .to_vec();
        let (notes, skipped) = plain_notes(&paths);
        assert_eq!(
            notes,
            vec![
                ("Budget.md".to_owned(), Some("Budget.csv".to_owned())),
                ("sub/Deep.MD".to_owned(), None),
            ]
        );
        let skipped: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(skipped, ["Orphan.csv", "img.png"]);
        let note =
            read_markdown("Budget.md", b"# Budget", Some(("Budget.csv", b"a,1\n"))).expect("reads");
        assert_eq!(note.tabs.len(), 4);
        assert_eq!(note.tabs[3].label, "Budget");
    }

    #[test]
    fn a_broken_manifest_is_refused_naming_the_file() {
        let mut files = BTreeMap::new();
        assert_eq!(read_export(&files).expect_err("none").path, MANIFEST);
        files.insert(MANIFEST.to_owned(), b"{".to_vec());
        assert_eq!(read_export(&files).expect_err("bad json").path, MANIFEST);
        files.insert(
            MANIFEST.to_owned(),
            br#"{"format":"quire-export","format_version":1,"note":{"id":"x","title":"T","version":3},
                "tabs":[{"id":"t","type":"sheet","label":"S","sheets":[{"id":"s1","name":"A","path":"S.csv"}]}]}"#
                .to_vec(),
        );
        let err = read_export(&files).expect_err("missing csv");
        assert_eq!(err.path, "S.csv");
        files.insert("S.csv".to_owned(), b"1,2\n".to_vec());
        let note = read_export(&files).expect("reads");
        assert_eq!(note.title, "T");
        // The fixed tabs the manifest left out are there, after its own.
        let kinds: Vec<TabKind> = note.tabs.iter().map(|t| t.data.kind()).collect();
        assert_eq!(
            kinds,
            [
                TabKind::Sheet,
                TabKind::Markdown,
                TabKind::Files,
                TabKind::Sources
            ]
        );
    }
}
