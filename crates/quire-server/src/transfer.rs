//! Export and import: `quire-server export` / `import` and `GET /notes/{id}/export`. The
//! folder's layout is `quire-export`'s; this module reads Notes from the store and writes
//! their folders, and makes new Notes from folders, each with ordinary guarded writes.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use quire_api::Clock;
use quire_export::links::relink;
use quire_export::names::{Unique, safe};
use quire_export::{
    ImportedNote, MANIFEST, Manifest, NoteFolder, export_note, read_export, read_markdown,
};
use quire_model::{
    ApplyCtx, AuthorKind, NewTabKind, Note, NoteId, Op, OpOutcome, TabData, TabId, TabKind,
    Timestamp, apply, limits,
};
use quire_store::{Change, NewNote, Store, StoreError, WriteRequest};

/// The author recorded in the history of a Note made by `quire-server import`.
pub const IMPORT_AUTHOR: &str = "import";

#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Export(#[from] quire_export::ExportError),
    #[error("writing the zip file: {0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("{0} is not a folder")]
    NotAFolder(PathBuf),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TransferError + '_ {
    move |source| TransferError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// How far a long export or import is: `done` of `total` Notes (an import's `total` counts the
/// Notes it found to make, `done` those made or skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// `report` throttled for a window to show: the first call (`done` 0), the last (`done` ==
/// `total`), and between them at most one per `every`, so 10,000 Notes are not 10,000 events.
pub fn throttled(
    every: std::time::Duration,
    mut report: impl FnMut(Progress),
) -> impl FnMut(Progress) {
    let mut last: Option<std::time::Instant> = None;
    move |p: Progress| {
        let due = last.is_none_or(|at| at.elapsed() >= every);
        if due || p.done == 0 || p.done >= p.total {
            last = Some(std::time::Instant::now());
            report(p);
        }
    }
}

/// What an export wrote.
#[derive(Debug, Default)]
pub struct ExportReport {
    /// Each Note exported and its folder.
    pub notes: Vec<(NoteId, PathBuf)>,
}

/// Writes a folder per Note under `out` (made if missing; names already there are left alone
/// and not reused): the Notes `ids`, or every Note if `ids` is empty. Notes in the trash are
/// not exported (one named in `ids` is refused with `NoteInTrash`). `progress` is called once
/// the Notes are known (`done` 0) and after each Note written.
pub async fn export_to_dir(
    store: &dyn Store,
    out: &Path,
    ids: &[NoteId],
    mut progress: impl FnMut(Progress),
) -> Result<ExportReport, TransferError> {
    std::fs::create_dir_all(out).map_err(io(out))?;
    let mut names = Unique::default();
    for entry in std::fs::read_dir(out).map_err(io(out))? {
        let entry = entry.map_err(io(out))?;
        names.reserve(&entry.file_name().to_string_lossy());
    }
    let ids = match ids {
        [] => store
            .list_notes()
            .await?
            .into_iter()
            .map(|s| s.id)
            .collect(),
        ids => ids.to_vec(),
    };
    let total = ids.len();
    progress(Progress { done: 0, total });
    let mut report = ExportReport::default();
    for (done, id) in (1..).zip(ids) {
        let stored = store.get_note(&id).await?;
        // Trashed Notes are not exported, not even by name.
        if stored.meta.deleted_at.is_some() {
            return Err(StoreError::NoteInTrash(id).into());
        }
        let note = stored.note;
        let folder = export_note(&note)?;
        let dir = out.join(names.name(&safe(&note.title, "Untitled"), ""));
        write_folder(&dir, &folder)?;
        report.notes.push((id, dir));
        progress(Progress { done, total });
    }
    Ok(report)
}

fn write_folder(dir: &Path, folder: &NoteFolder) -> Result<(), TransferError> {
    std::fs::create_dir(dir).map_err(io(dir))?;
    for (name, bytes) in &folder.files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(io(&path))?;
    }
    Ok(())
}

/// One Note's folder as a zip archive (the folder itself at its root): what
/// `GET /notes/{id}/export` answers.
pub fn export_zip(note: &Note) -> Result<(String, Vec<u8>), TransferError> {
    let folder = export_note(note)?;
    let name = safe(&note.title, "Untitled");
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for (path, bytes) in &folder.files {
        zip.start_file(format!("{name}/{path}"), options)?;
        zip.write_all(bytes).map_err(io(Path::new(path)))?;
    }
    Ok((name, zip.finish()?.into_inner()))
}

/// What an import made, and what it left out.
#[derive(Debug, Default)]
pub struct ImportReport {
    /// Each Note made: where it came from, its ID and title.
    pub notes: Vec<(PathBuf, NoteId, String)>,
    /// Each file or folder left out, and why.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Reads `dir` into new Notes: an export's root (a folder per Note), one Note's folder, or a
/// folder of plain Markdown files (subfolders too; hidden ones are left out). `progress` is
/// called once the candidates are found (`done` 0) and after each one made or skipped.
pub async fn import_dir(
    store: &dyn Store,
    clock: &dyn Clock,
    dir: &Path,
    mut progress: impl FnMut(&ImportReport, Progress),
) -> Result<ImportReport, TransferError> {
    if !dir.is_dir() {
        return Err(TransferError::NotAFolder(dir.to_path_buf()));
    }
    let mut exports = Vec::new();
    let mut plain = Vec::new();
    let mut report = ImportReport::default();
    walk(dir, dir, &mut exports, &mut plain, &mut report)?;
    let (notes, skipped) = quire_export::plain_notes(&plain);
    for (path, why) in skipped {
        report.skipped.push((dir.join(path), why));
    }
    let total = exports.len() + notes.len();
    let mut done = 0;
    progress(&report, Progress { done, total });
    // Each exported Note's new ID, known before any is made: a link from one imported Note to
    // another points at the other's new ID.
    let ids: Vec<NoteId> = exports.iter().map(|_| new_note_id()).collect();
    let mut links = NoteLinks::new();
    for (folder, id) in exports.iter().zip(&ids) {
        if let Some(old) = exported_id(folder) {
            links.entry(old).or_insert_with(|| id.to_string());
        }
    }
    for (folder, id) in exports.into_iter().zip(ids) {
        let files = read_tree(&folder)?;
        match read_export(&files) {
            Ok(note) => make(store, clock, &folder, note, id, &links, &mut report).await?,
            Err(e) => report
                .skipped
                .push((folder.join(&e.path), format!("not imported: {}", e.reason))),
        }
        done += 1;
        progress(&report, Progress { done, total });
    }
    for (md, csv) in notes {
        let md_path = dir.join(&md);
        let text = std::fs::read(&md_path).map_err(io(&md_path))?;
        let csv_bytes = match &csv {
            Some(c) => {
                let p = dir.join(c);
                Some(std::fs::read(&p).map_err(io(&p))?)
            }
            None => None,
        };
        let csv = csv.as_deref().zip(csv_bytes.as_deref());
        match read_markdown(&md, &text, csv) {
            Ok(note) => {
                let id = new_note_id();
                make(store, clock, &md_path, note, id, &links, &mut report).await?
            }
            Err(e) => report
                .skipped
                .push((dir.join(&e.path), format!("not imported: {}", e.reason))),
        }
        done += 1;
        progress(&report, Progress { done, total });
    }
    Ok(report)
}

fn new_note_id() -> NoteId {
    NoteId::from_uuid(uuid::Uuid::now_v7())
}

/// The ID the Note of an export's folder had (its manifest's), if the manifest reads.
fn exported_id(folder: &Path) -> Option<String> {
    let raw = std::fs::read(folder.join(MANIFEST)).ok()?;
    let manifest: Manifest = serde_json::from_slice(&raw).ok()?;
    Some(manifest.note.id)
}

/// By exported ID, the new ID of each Note of an import: what a link from one to another is
/// rewritten to.
type NoteLinks = BTreeMap<String, String>;

/// Sorts what is under `at`: export folders (they hold a manifest; not entered further) and
/// plain files (paths relative to `root`, `/`-separated).
fn walk(
    root: &Path,
    at: &Path,
    exports: &mut Vec<PathBuf>,
    plain: &mut Vec<String>,
    report: &mut ImportReport,
) -> Result<(), TransferError> {
    if at.join(MANIFEST).is_file() {
        exports.push(at.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(at)
        .map_err(io(at))?
        .collect::<Result<_, _>>()
        .map_err(io(at))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            report
                .skipped
                .push((path, "hidden (its name starts with a dot)".to_owned()));
            continue;
        }
        let kind = entry.file_type().map_err(io(&path))?;
        if kind.is_dir() {
            walk(root, &path, exports, plain, report)?;
        } else if kind.is_file() {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            plain.push(relative.to_string_lossy().replace('\\', "/"));
        } else {
            report
                .skipped
                .push((path, "not a file or folder (a link?)".to_owned()));
        }
    }
    Ok(())
}

/// Every file under `dir`, by path relative to it.
fn read_tree(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, TransferError> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).map_err(io(&at))? {
            let entry = entry.map_err(io(&at))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(io(&path))?;
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() {
                let relative = path.strip_prefix(dir).unwrap_or(&path);
                let key = relative.to_string_lossy().replace('\\', "/");
                files.insert(key, std::fs::read(&path).map_err(io(&path))?);
            }
        }
    }
    Ok(files)
}

/// Makes one Note of `imported`, as `id`: checked whole first (every change is applied to a new
/// Note in memory, as the store will), so a Note that cannot be made is skipped with the reason
/// and nothing of it is written; then created, and filled with guarded writes. Its text's links
/// to the Notes of this import (`links`) and to its own attachments point at their new IDs.
async fn make(
    store: &dyn Store,
    clock: &dyn Clock,
    from: &Path,
    imported: ImportedNote,
    id: NoteId,
    links: &NoteLinks,
    report: &mut ImportReport,
) -> Result<(), TransferError> {
    let now = clock.now();
    let title: String = imported
        .title
        .trim()
        .chars()
        .take(limits::TITLE_CHARS)
        .collect();
    let Plan { batches, dropped } = match plan(&id, &title, &imported, links, now) {
        Ok(plan) => plan,
        Err(reason) => {
            report
                .skipped
                .push((from.to_path_buf(), format!("not imported: {reason}")));
            return Ok(());
        }
    };
    let (created, _) = store
        .create_note(NewNote {
            id: id.clone(),
            title: title.clone(),
            author: IMPORT_AUTHOR.to_owned(),
            author_kind: AuthorKind::Person,
            now,
            idempotency_key: None,
        })
        .await?;
    let mut version = created.note.version;
    for ops in batches {
        let result = store
            .write(WriteRequest {
                note_id: id.clone(),
                expected_version: version,
                idempotency_key: None,
                author: IMPORT_AUTHOR.to_owned(),
                author_kind: AuthorKind::Person,
                change: Change::Ops(ops),
                now,
            })
            .await?;
        version = result.version;
    }
    for why in dropped {
        report.skipped.push((from.to_path_buf(), why));
    }
    report.notes.push((from.to_path_buf(), id, title));
    Ok(())
}

/// The writes that fill a new Note, and the sources and attachments left out of it.
struct Plan {
    /// Each at most [`limits::OPS`] operations.
    batches: Vec<Vec<Op>>,
    /// What a source or attachment was refused for (e.g. a link that is not a web page's).
    dropped: Vec<String>,
}

/// A tab's imported content: a Markdown text (its links rewritten), or a Sheet's or deck's data.
enum Content<'a> {
    Text(&'a str),
    Data(serde_json::Value),
}

/// The writes that fill a new Note with `imported`, all applied here first to a new Note in
/// memory: a refusal (a limit, a bad cell) is the reason the Note is skipped. A source or
/// attachment that would be refused on its own is left out (and said so), not the Note.
///
/// In order: the Sheet and Slides tabs created; labels, sources and attachments; the tabs'
/// content, the text's links pointing at the new attachments and at the Notes of this import
/// (`links`); the strip's order. The store applies the same batches at the same `now`, so the IDs
/// made here (tabs, attachments) are the ones it makes.
fn plan(
    id: &NoteId,
    title: &str,
    imported: &ImportedNote,
    links: &NoteLinks,
    now: Timestamp,
) -> Result<Plan, String> {
    let ctx = ApplyCtx {
        now,
        author: IMPORT_AUTHOR,
    };
    let mut note = Note::new(id.clone(), title.to_owned());
    let mut batches = Vec::new();
    // Applies `ops` in batches of at most `limits::OPS`; their outcomes, in order.
    let mut run = |note: &mut Note, ops: Vec<Op>| -> Result<Vec<OpOutcome>, String> {
        let mut outcomes = Vec::new();
        for chunk in ops.chunks(limits::OPS) {
            let applied = apply(note, chunk, &ctx).map_err(|e| e.to_string())?;
            outcomes.extend(applied.outcomes);
            *note = applied.note;
            batches.push(chunk.to_vec());
        }
        Ok(outcomes)
    };
    // The tabs to create first: their IDs come from the Note's counter and the time.
    let creations: Vec<Op> = imported
        .tabs
        .iter()
        .filter_map(|t| {
            match t.data.kind() {
                TabKind::Sheet => Some(NewTabKind::Sheet),
                TabKind::Slides => Some(NewTabKind::Slides),
                _ => None,
            }
            .map(|tab_type| Op::CreateTab {
                tab_type,
                label: Some(t.label.clone()),
                slides: None,
            })
        })
        .collect();
    let mut created = run(&mut note, creations)?
        .into_iter()
        .filter_map(|o| match o {
            OpOutcome::TabCreated { tab_id } => Some(tab_id),
            _ => None,
        });
    let mut dropped = Vec::new();
    let mut accepted = |op: Op, what: String| {
        let scratch = Note::new(id.clone(), String::new());
        match apply(&scratch, std::slice::from_ref(&op), &ctx) {
            Ok(_) => Some(op),
            Err(e) => {
                dropped.push(format!("{what} left out: {}", e.reason));
                None
            }
        }
    };
    let mut order = Vec::with_capacity(imported.tabs.len());
    let mut attach = Vec::new();
    // The exported IDs of the attachments added, in order.
    let mut exported_files = Vec::new();
    let mut content = Vec::new();
    for tab in &imported.tabs {
        let tab_id = match tab.data.kind() {
            TabKind::Markdown => TabId::new(TabId::MARKDOWN),
            TabKind::Files => TabId::new(TabId::FILES),
            TabKind::Sources => TabId::new(TabId::SOURCES),
            TabKind::Sheet | TabKind::Slides => created
                .next()
                .ok_or_else(|| "a created tab went missing".to_owned())?,
        };
        let label = note.tab(&tab_id).map(|t| t.label.as_str());
        if tab.data.kind().is_fixed() && label != Some(tab.label.as_str()) {
            attach.push(Op::RenameTab {
                tab_id: tab_id.clone(),
                label: tab.label.clone(),
            });
        }
        match &tab.data {
            TabData::Markdown(text) if !text.is_empty() => {
                content.push((tab_id.clone(), Content::Text(text)));
            }
            TabData::Sheet(_) | TabData::Slides(_) => {
                content.push((tab_id.clone(), Content::Data(tab.data.to_value())));
            }
            TabData::Sources(list) => attach.extend(list.iter().filter_map(|s| {
                let op = Op::AddSource {
                    title: s.title.clone(),
                    url: s.url.clone(),
                };
                accepted(op, format!("source {:?}", s.url))
            })),
            TabData::Files(list) => {
                for f in list {
                    let op = Op::AddFile {
                        name: f.name.clone(),
                        mime: f.mime.clone(),
                        size: f.size,
                        sha256: f.sha256.clone(),
                    };
                    if let Some(op) = accepted(op, format!("attachment {:?}", f.name)) {
                        attach.push(op);
                        exported_files.push(f.id.clone());
                    }
                }
            }
            TabData::Markdown(_) => {}
        }
        order.push(tab_id);
    }
    // With attachments, they are a write of their own first: the text's image links name the
    // IDs that write makes.
    let mut ops = Vec::new();
    let added: Vec<String> = if exported_files.is_empty() {
        ops = attach;
        Vec::new()
    } else {
        run(&mut note, attach)?
            .into_iter()
            .filter_map(|o| match o {
                OpOutcome::FileAdded { file_id } => Some(file_id),
                _ => None,
            })
            .collect()
    };
    let files: BTreeMap<String, String> = exported_files
        .into_iter()
        .zip(added)
        .filter(|(old, _)| !old.is_empty())
        .collect();
    ops.extend(content.into_iter().map(|(tab_id, content)| match content {
        Content::Text(text) => Op::ReplaceText {
            tab_id,
            text: relink(text, links, &files),
        },
        Content::Data(data) => Op::ReplaceTabData { tab_id, data },
    }));
    let current: Vec<TabId> = note.tab_ids();
    if current != order {
        ops.extend(
            order
                .into_iter()
                .enumerate()
                .map(|(index, tab_id)| Op::MoveTab { tab_id, index }),
        );
    }
    run(&mut note, ops)?;
    Ok(Plan { batches, dropped })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use quire_api::SystemClock;
    use quire_store_sqlite::Synchronous;

    use super::*;

    fn at(done: usize, total: usize) -> Progress {
        Progress { done, total }
    }

    async fn store(dir: &Path) -> std::sync::Arc<dyn Store> {
        crate::open_store(&dir.join("notes.db"), Synchronous::Normal)
            .await
            .unwrap()
    }

    #[test]
    fn throttled_progress_keeps_the_first_and_the_last() {
        let mut seen = Vec::new();
        {
            let mut report = throttled(std::time::Duration::MAX, |p| seen.push(p));
            for done in 0..=5 {
                report(at(done, 5));
            }
        }
        assert_eq!(seen, [at(0, 5), at(5, 5)]);
        let mut seen = Vec::new();
        {
            let mut report = throttled(std::time::Duration::ZERO, |p| seen.push(p));
            for done in 0..=2 {
                report(at(done, 2));
            }
        }
        assert_eq!(seen, [at(0, 2), at(1, 2), at(2, 2)]);
    }

    #[tokio::test]
    async fn an_export_reports_its_progress_note_by_note() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path()).await;
        for title in ["One", "Two", "Three"] {
            store
                .create_note(NewNote {
                    id: NoteId::from_uuid(uuid::Uuid::now_v7()),
                    title: title.to_owned(),
                    author: "test".to_owned(),
                    author_kind: AuthorKind::Person,
                    now: SystemClock.now(),
                    idempotency_key: None,
                })
                .await
                .unwrap();
        }
        let mut seen = Vec::new();
        let out = dir.path().join("out");
        let report = export_to_dir(store.as_ref(), &out, &[], |p| seen.push(p))
            .await
            .unwrap();
        assert_eq!(seen, [at(0, 3), at(1, 3), at(2, 3), at(3, 3)]);
        assert_eq!(report.notes.len(), 3);
        assert!(
            report
                .notes
                .iter()
                .all(|(_, dir)| dir.join(MANIFEST).is_file())
        );
    }

    #[tokio::test]
    async fn an_import_reports_its_progress_and_what_it_skipped_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path()).await;
        let vault = dir.path().join("vault");
        std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
        std::fs::write(vault.join("Plan.md"), "# Plan\n").unwrap();
        std::fs::write(vault.join("Budget.md"), "costs\n").unwrap();
        std::fs::write(vault.join("Budget.csv"), "item,cost\nbolt,3\n").unwrap();
        std::fs::write(vault.join("bad.md"), b"\xff\xfe not UTF-8").unwrap();
        std::fs::write(vault.join("img.png"), "png").unwrap();
        let mut seen = Vec::new();
        let report = import_dir(store.as_ref(), &SystemClock, &vault, |r, p| {
            seen.push((p, r.notes.len()));
        })
        .await
        .unwrap();
        // Three candidates (the CSV belongs to Budget.md), in name order: each counted once made
        // or skipped (bad.md, last, is not UTF-8).
        assert_eq!(
            seen,
            [(at(0, 3), 0), (at(1, 3), 1), (at(2, 3), 2), (at(3, 3), 2)]
        );
        let titles: Vec<&str> = report.notes.iter().map(|(_, _, t)| t.as_str()).collect();
        assert_eq!(titles, ["Budget", "Plan"]);
        let why = |name: &str| {
            report
                .skipped
                .iter()
                .find(|(p, _)| p.ends_with(name))
                .map(|(_, why)| why.as_str())
        };
        assert_eq!(
            why(".obsidian"),
            Some("hidden (its name starts with a dot)")
        );
        assert_eq!(why("img.png"), Some("not a Markdown or CSV file"));
        assert!(
            why("bad.md").is_some_and(|w| w.starts_with("not imported")),
            "{report:?}"
        );
        assert_eq!(report.skipped.len(), 3, "{report:?}");
    }
}
