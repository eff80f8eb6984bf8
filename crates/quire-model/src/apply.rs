use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::bounds::{self, Grid, grows_past};
use crate::error::{BATCH, OpError, OpErrorCode};
use crate::ids::generated_id;
use crate::op::{NewTabKind, Op, OpOutcome, SlideInput};
use crate::tab::{Deck, FileMeta, Sheet, SheetTab, Slide, Source, Tab, TabData};
use crate::url_norm::{normalize_url, web_url};
use crate::{Note, TabId, TabKind, Timestamp, limits};

/// What `apply` needs from the outside world: the time and who is writing.
#[derive(Debug, Clone, Copy)]
pub struct ApplyCtx<'a> {
    pub now: Timestamp,
    pub author: &'a str,
}

/// The result of applying a batch: the new Note (its `version` not yet bumped: the store does
/// that when it commits), which tabs changed, and what each operation produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub note: Note,
    /// Tabs whose content, label or position changed, or that were created or deleted, in the
    /// order they were first touched.
    pub changed_tab_ids: Vec<TabId>,
    pub title_changed: bool,
    pub outcomes: Vec<OpOutcome>,
    /// A short human summary for the history.
    pub summary: String,
}

impl Applied {
    /// True when the batch left the Note as it was (e.g. citing a page already attached).
    pub fn is_noop(&self) -> bool {
        self.changed_tab_ids.is_empty() && !self.title_changed
    }
}

/// Applies `ops` to `note`, all or nothing. Pure: the input is untouched, the time and author
/// come from `ctx`, generated IDs come from the Note's own counter.
pub fn apply(note: &Note, ops: &[Op], ctx: &ApplyCtx<'_>) -> Result<Applied, OpError> {
    if ops.is_empty() {
        return Err(OpError::invalid(BATCH, "at least one change is required"));
    }
    if ops.len() > limits::OPS {
        return Err(OpError::over_limit(
            BATCH,
            format!(
                "{} operations in one write; at most {}: send them in several writes",
                ops.len(),
                limits::OPS
            ),
        ));
    }
    let mut draft = Draft::new(note.clone());
    let mut touched = Vec::new();
    let mut outcomes = Vec::with_capacity(ops.len());
    let mut summaries = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let (outcome, summary) =
            apply_one(&mut draft, op, ctx, &mut touched).map_err(|e| OpError { index, ..e })?;
        outcomes.push(outcome);
        summaries.push(summary);
    }
    let next = draft.note;
    check_text(note, &next)?;
    // An operation's word holds only for a tab no other operation touched (a later one may
    // have put back what it changed).
    let mut touches: HashMap<&TabId, usize> = HashMap::new();
    for id in &touched {
        *touches.entry(id).or_default() += 1;
    }
    let surely: HashSet<TabId> = (draft.surely_changed.into_iter())
        .filter(|id| touches.get(id) == Some(&1))
        .collect();
    let changed_tab_ids = really_changed(note, &next, touched, &surely);
    let title_changed = note.title != next.title;
    Ok(Applied {
        note: next,
        changed_tab_ids,
        title_changed,
        outcomes,
        summary: clip(&summaries.join("; "), 240),
    })
}

/// Refuses a batch that leaves the Note holding more text than [`limits::NOTE_TEXT_BYTES`].
/// Counted once, at the end: no operation can add more text than it carries.
fn check_text(before: &Note, after: &Note) -> Result<(), OpError> {
    let bytes = bounds::text_bytes(after);
    if bytes > limits::NOTE_TEXT_BYTES && bytes > bounds::text_bytes(before) {
        return Err(OpError::over_limit(
            BATCH,
            format!(
                "the Note would hold {bytes} bytes of text; at most {} ({} MiB)",
                limits::NOTE_TEXT_BYTES,
                limits::NOTE_TEXT_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

/// The Note a batch is building, with what keeps each operation's cost its own rather than
/// the Note's: the tabs indexed by ID, the sheets' running totals, the cited pages.
struct Draft {
    note: Note,
    /// Each tab's position in `note.tabs`.
    at: HashMap<TabId, usize>,
    /// The cells and rows of every sheet of the Note, counted when a sheet is first changed.
    grid: Option<Grid>,
    /// The Note's sources by normalised URL (their IDs), gathered when a page is first cited.
    cited: Option<HashMap<String, String>>,
    /// Tabs an operation is known to have changed (a cell written with another value): when no
    /// other operation touched them, they need no comparison whole at the end, which costs a
    /// large sheet tens of milliseconds.
    surely_changed: HashSet<TabId>,
}

impl Draft {
    fn new(note: Note) -> Self {
        let mut draft = Draft {
            note,
            at: HashMap::new(),
            grid: None,
            cited: None,
            surely_changed: HashSet::new(),
        };
        draft.reindex();
        draft
    }

    fn reindex(&mut self) {
        self.at = (self.note.tabs.iter().enumerate())
            .map(|(i, t)| (t.id.clone(), i))
            .collect();
    }

    /// After the tabs from `from` on moved: O(tabs), and there are at most a few hundred.
    fn reindex_from(&mut self, from: usize) {
        for (i, tab) in self.note.tabs.iter().enumerate().skip(from) {
            if let Some(at) = self.at.get_mut(&tab.id) {
                *at = i;
            }
        }
    }

    fn position(&self, id: &TabId) -> Result<usize, OpError> {
        self.at.get(id).copied().ok_or_else(|| {
            OpError::new(
                OpErrorCode::TabNotFound,
                "tab_id",
                format!(
                    "no tab {:?} in this note (its tabs: {}); use an exact tab ID",
                    clip(id.as_str(), 80),
                    self.note.tab_ids_in_brief()
                ),
            )
        })
    }

    fn tab_mut(&mut self, id: &TabId) -> Result<&mut Tab, OpError> {
        let at = self.position(id)?;
        Ok(&mut self.note.tabs[at])
    }

    /// The Note's sheet totals, counted now if no operation needed them yet.
    fn grid(&mut self) -> Grid {
        *self.grid.get_or_insert_with(|| Grid::of_note(&self.note))
    }
}

/// A new state equal to `old`, to be committed on top of `current`: restoring a version is an
/// ordinary write (history is never rewritten). The ID counter never goes back.
pub fn restore(current: &Note, old: &Note) -> Applied {
    let mut note = old.clone();
    note.id = current.id.clone();
    note.version = current.version;
    note.seq = current.seq.max(old.seq);
    let mut touched: Vec<TabId> = current.tab_ids();
    touched.extend(old.tab_ids());
    let changed_tab_ids = really_changed(current, &note, touched, &HashSet::new());
    let title_changed = current.title != note.title;
    Applied {
        summary: format!("restored version {}", old.version),
        note,
        changed_tab_ids,
        title_changed,
        outcomes: Vec::new(),
    }
}

/// Keeps the touched tabs whose state differs between `before` and `after`, each once, in the
/// order first touched; those in `surely` are known to differ.
fn really_changed(
    before: &Note,
    after: &Note,
    touched: Vec<TabId>,
    surely: &HashSet<TabId>,
) -> Vec<TabId> {
    let positions = |note: &Note| -> HashMap<TabId, usize> {
        (note.tabs.iter().enumerate())
            .map(|(i, t)| (t.id.clone(), i))
            .collect()
    };
    let (was, is) = (positions(before), positions(after));
    let mut seen = HashSet::new();
    touched
        .into_iter()
        .filter(|id| seen.insert(id.clone()))
        .filter(|id| match (was.get(id), is.get(id)) {
            (Some(&i), Some(&j)) => {
                i != j || surely.contains(id) || !same_tab(&before.tabs[i], &after.tabs[j])
            }
            (None, None) => false,
            _ => true,
        })
        .collect()
}

/// Whether a tab is the same in two states of a Note (then a write that touched it did not
/// change it).
fn same_tab(a: &Tab, b: &Tab) -> bool {
    a.identical(b)
}

/// `s` cut to `max_chars` characters (with an ellipsis when cut); reads no further than that.
fn clip(s: &str, max_chars: usize) -> String {
    if s.char_indices().nth(max_chars).is_none() {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max_chars - 1).collect();
    out.push('…');
    out
}

type OpResult = Result<(OpOutcome, String), OpError>;

fn apply_one(d: &mut Draft, op: &Op, ctx: &ApplyCtx<'_>, touched: &mut Vec<TabId>) -> OpResult {
    match op {
        Op::ReplaceText { tab_id, text } => {
            let tab = d.tab_mut(tab_id)?;
            let TabData::Markdown(current) = &mut tab.data else {
                return Err(wrong_kind(tab, "replace_text", "a markdown"));
            };
            *current = text.clone();
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("replaced the text of {tab_id}"),
            ))
        }
        Op::ReplaceTabData { tab_id, data } => {
            let tab = d.tab_mut(tab_id)?;
            let parsed = parse_tab_data(tab, data)?;
            if let (TabData::Sheet(old), TabData::Sheet(new)) = (&tab.data, &parsed) {
                let (old, new) = (Grid::of_tab(old), Grid::of_tab(new));
                let before = d.grid();
                let after = before.minus(old).plus(new);
                Grid::check(before, after, ("data", "data"))?;
                d.grid = Some(after);
            }
            d.tab_mut(tab_id)?.data = parsed;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("replaced the content of {tab_id}"),
            ))
        }
        Op::SlideAdd {
            tab_id,
            title,
            body,
            notes,
        } => {
            let input = SlideInput {
                title: title.clone(),
                body: body.clone(),
                notes: notes.clone(),
            };
            let slide_ids = add_slides(d, tab_id, std::slice::from_ref(&input), ctx)?;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::SlidesAdded {
                    tab_id: tab_id.clone(),
                    slide_ids,
                },
                format!("added slide \"{}\" to {tab_id}", clip(title, 40)),
            ))
        }
        Op::SlidesAddOutline { tab_id, slides } => {
            check_outline(slides)?;
            let slide_ids = add_slides(d, tab_id, slides, ctx)?;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::SlidesAdded {
                    tab_id: tab_id.clone(),
                    slide_ids,
                },
                format!("added {} slides to {tab_id}", slides.len()),
            ))
        }
        Op::SheetSetRange {
            tab_id,
            sheet_id,
            start_row,
            start_col,
            values,
        } => {
            let before = d.grid();
            let tab = d.tab_mut(tab_id)?;
            let TabData::Sheet(sheets) = &mut tab.data else {
                return Err(wrong_kind(tab, "sheet_set_range", "a sheet"));
            };
            let sheet = match sheet_id {
                Some(id) => sheets
                    .sheets
                    .iter_mut()
                    .find(|s| &s.id == id)
                    .ok_or_else(|| {
                        OpError::new(
                            OpErrorCode::ItemNotFound,
                            "sheet_id",
                            format!("no sheet {:?} in tab {tab_id}", clip(id, 80)),
                        )
                    })?,
                None => sheets
                    .sheets
                    .first_mut()
                    .ok_or_else(|| OpError::invalid("sheet_id", "this tab has no sheet"))?,
            };
            let (cells, after, changed) = set_range(sheet, *start_row, *start_col, values, before)?;
            d.grid = Some(after);
            if changed {
                d.surely_changed.insert(tab_id.clone());
            }
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("set {cells} cells in {tab_id}"),
            ))
        }
        Op::CreateTab {
            tab_type,
            label,
            slides,
        } => {
            if d.note.tabs.len() >= limits::TABS {
                return Err(OpError::over_limit(
                    "tab_type",
                    format!(
                        "the Note has {} tabs; at most {}",
                        d.note.tabs.len(),
                        limits::TABS
                    ),
                ));
            }
            let kind = TabKind::from(*tab_type);
            let label = match label {
                Some(l) => check_label(l)?,
                None => match tab_type {
                    NewTabKind::Slides => "Slides".to_owned(),
                    NewTabKind::Sheet => "Sheet".to_owned(),
                },
            };
            let note = &mut d.note;
            note.seq += 1;
            let id = TabId::new(generated_id(kind.as_str(), note.seq, ctx.now));
            let data = match (tab_type, slides) {
                (NewTabKind::Sheet, Some(_)) => {
                    return Err(OpError::invalid(
                        "slides",
                        "only a slides tab starts from an outline",
                    ));
                }
                (NewTabKind::Sheet, None) => TabData::Sheet(SheetTab {
                    sheets: vec![Sheet {
                        id: "s1".to_owned(),
                        name: "Sheet 1".to_owned(),
                        rows: Vec::new(),
                    }],
                }),
                (NewTabKind::Slides, outline) => {
                    let mut deck = Deck {
                        theme: Default::default(),
                        slides: Vec::new(),
                    };
                    if let Some(outline) = outline {
                        check_outline(outline)?;
                        push_slides(&mut deck, &mut note.seq, outline, ctx.now);
                    }
                    TabData::Slides(deck)
                }
            };
            note.tabs.push(Tab {
                id: id.clone(),
                label,
                data,
            });
            d.at.insert(id.clone(), d.note.tabs.len() - 1);
            touched.push(id.clone());
            Ok((
                OpOutcome::TabCreated { tab_id: id.clone() },
                format!("created {kind} tab {id}"),
            ))
        }
        Op::RenameTab { tab_id, label } => {
            let label = check_label(label)?;
            let tab = d.tab_mut(tab_id)?;
            let summary = format!("renamed {tab_id} to \"{}\"", clip(&label, 40));
            tab.label = label;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                summary,
            ))
        }
        Op::MoveTab { tab_id, index } => {
            let from = d.position(tab_id)?;
            let last = d.note.tabs.len() - 1;
            if *index > last {
                return Err(OpError::invalid(
                    "index",
                    format!("{index} is past the end of the strip (0 to {last})"),
                ));
            }
            let tab = d.note.tabs.remove(from);
            d.note.tabs.insert(*index, tab);
            d.reindex_from(from.min(*index));
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("moved {tab_id} to position {index}"),
            ))
        }
        Op::DeleteTab { tab_id } => {
            let at = d.position(tab_id)?;
            let kind = d.note.tabs[at].kind();
            if kind.is_fixed() {
                return Err(OpError::invalid(
                    "tab_id",
                    format!("the {kind} tab is fixed and cannot be deleted"),
                ));
            }
            if let TabData::Sheet(sheets) = &d.note.tabs[at].data {
                let gone = Grid::of_tab(sheets);
                d.grid = Some(d.grid().minus(gone));
            }
            d.note.tabs.remove(at);
            d.at.remove(tab_id);
            d.reindex_from(at);
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::TabDeleted {
                    tab_id: tab_id.clone(),
                },
                format!("deleted {tab_id}"),
            ))
        }
        Op::SetTitle { title } => {
            let title = title.trim();
            if title.chars().count() > limits::TITLE_CHARS {
                return Err(OpError::invalid(
                    "title",
                    format!("longer than {} characters", limits::TITLE_CHARS),
                ));
            }
            d.note.title = title.to_owned();
            Ok((
                OpOutcome::TitleSet,
                format!("retitled \"{}\"", clip(title, 40)),
            ))
        }
        Op::AddSource { title, url } => {
            let title = title.trim();
            if title.is_empty() {
                return Err(OpError::invalid("title", "must not be empty"));
            }
            check_chars("title", title, limits::SOURCE_TITLE_CHARS)?;
            // Measured before normalising: the normaliser's work grows with its input.
            check_bytes("url", url, limits::URL_BYTES)?;
            let normalized = normalize_url(url)
                .map_err(|e| OpError::new(OpErrorCode::InvalidUrl, "url", e.to_string()))?;
            let display = web_url(url)
                .map_err(|e| OpError::new(OpErrorCode::InvalidUrl, "url", e.to_string()))?;
            check_bytes("url", &normalized, limits::URL_BYTES)?;
            check_bytes("url", &display, limits::URL_BYTES)?;
            let seq = d.note.seq + 1;
            if d.cited.is_none() {
                let by_url = (sources(d, "add_source")?.iter())
                    .map(|s| (s.normalized_url.clone(), s.id.clone()))
                    .collect();
                d.cited = Some(by_url);
            }
            if let Some(existing) = d.cited.as_ref().and_then(|c| c.get(&normalized)) {
                return Ok((
                    OpOutcome::SourceAdded {
                        source_id: existing.clone(),
                        already_attached: true,
                    },
                    format!("source already attached: {normalized}"),
                ));
            }
            let sources = sources(d, "add_source")?;
            if sources.len() >= limits::SOURCES {
                return Err(OpError::over_limit(
                    "url",
                    format!(
                        "the Note cites {} pages; at most {}",
                        sources.len(),
                        limits::SOURCES
                    ),
                ));
            }
            let id = generated_id("src", seq, ctx.now);
            sources.push(Source {
                id: id.clone(),
                title: title.to_owned(),
                url: display,
                normalized_url: normalized.clone(),
                added_by: ctx.author.to_owned(),
                added_at: ctx.now.to_rfc3339(),
            });
            d.note.seq = seq;
            if let Some(cited) = &mut d.cited {
                cited.insert(normalized.clone(), id.clone());
            }
            touched.push(TabId::new(TabId::SOURCES));
            Ok((
                OpOutcome::SourceAdded {
                    source_id: id,
                    already_attached: false,
                },
                format!("cited {normalized}"),
            ))
        }
        Op::RemoveSource { source_id } => {
            let sources = sources(d, "remove_source")?;
            let at = sources
                .iter()
                .position(|s| &s.id == source_id)
                .ok_or_else(|| not_found("source_id", "source", source_id))?;
            let removed = sources.remove(at);
            if let Some(cited) = &mut d.cited {
                cited.remove(&removed.normalized_url);
            }
            touched.push(TabId::new(TabId::SOURCES));
            Ok((
                OpOutcome::Removed {
                    tab_id: TabId::new(TabId::SOURCES),
                    id: source_id.clone(),
                },
                format!("removed source {}", removed.normalized_url),
            ))
        }
        Op::AddFile {
            name,
            mime,
            size,
            sha256,
        } => {
            let name = name.trim();
            if name.is_empty() {
                return Err(OpError::invalid("name", "must not be empty"));
            }
            check_chars("name", name, limits::FILE_NAME_CHARS)?;
            check_bytes("mime", mime, limits::MIME_BYTES)?;
            if !mime.contains('/') {
                return Err(OpError::invalid(
                    "mime",
                    format!("{mime:?} is not a media type such as text/plain"),
                ));
            }
            if sha256.len() != 64
                || !sha256
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                return Err(OpError::invalid(
                    "sha256",
                    "must be 64 lower-case hex digits",
                ));
            }
            let seq = d.note.seq + 1;
            let tab = fixed_tab_mut(d, TabId::FILES)?;
            let TabData::Files(files) = &mut tab.data else {
                return Err(wrong_kind(tab, "add_file", "the files"));
            };
            if files.len() >= limits::FILES {
                return Err(OpError::over_limit(
                    "name",
                    format!(
                        "the Note has {} files; at most {}",
                        files.len(),
                        limits::FILES
                    ),
                ));
            }
            let id = generated_id("file", seq, ctx.now);
            files.push(FileMeta {
                id: id.clone(),
                name: name.to_owned(),
                mime: mime.clone(),
                size: *size,
                sha256: sha256.clone(),
                added_by: ctx.author.to_owned(),
                added_at: ctx.now.to_rfc3339(),
            });
            d.note.seq = seq;
            touched.push(TabId::new(TabId::FILES));
            Ok((
                OpOutcome::FileAdded { file_id: id },
                format!("attached {}", clip(name, 60)),
            ))
        }
        Op::RemoveFile { file_id } => {
            let tab = fixed_tab_mut(d, TabId::FILES)?;
            let TabData::Files(files) = &mut tab.data else {
                return Err(wrong_kind(tab, "remove_file", "the files"));
            };
            let at = files
                .iter()
                .position(|f| &f.id == file_id)
                .ok_or_else(|| not_found("file_id", "file", file_id))?;
            let removed = files.remove(at);
            touched.push(TabId::new(TabId::FILES));
            Ok((
                OpOutcome::Removed {
                    tab_id: TabId::new(TabId::FILES),
                    id: file_id.clone(),
                },
                format!("removed file {}", clip(&removed.name, 60)),
            ))
        }
        Op::SetSlideLayout {
            tab_id,
            slide_id,
            layout,
        } => {
            let deck = deck_mut(d, tab_id, "set_slide_layout")?;
            let slide = deck
                .slides
                .iter_mut()
                .find(|s| &s.id == slide_id)
                .ok_or_else(|| not_found("slide_id", "slide", slide_id))?;
            slide.layout = *layout;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("changed a slide layout in {tab_id}"),
            ))
        }
        Op::SetTheme { tab_id, theme } => {
            let deck = deck_mut(d, tab_id, "set_theme")?;
            deck.theme = *theme;
            touched.push(tab_id.clone());
            Ok((
                OpOutcome::Edited {
                    tab_id: tab_id.clone(),
                },
                format!("changed the theme of {tab_id}"),
            ))
        }
    }
}

fn fixed_tab_mut<'d>(d: &'d mut Draft, id: &str) -> Result<&'d mut Tab, OpError> {
    d.tab_mut(&TabId::new(id))
}

/// The Note's list of sources.
fn sources<'d>(d: &'d mut Draft, op: &str) -> Result<&'d mut Vec<Source>, OpError> {
    let tab = fixed_tab_mut(d, TabId::SOURCES)?;
    if !matches!(tab.data, TabData::Sources(_)) {
        return Err(wrong_kind(tab, op, "the sources"));
    }
    match &mut tab.data {
        TabData::Sources(sources) => Ok(sources),
        _ => Err(OpError::invalid("tab_id", "not the sources tab")),
    }
}

fn deck_mut<'d>(d: &'d mut Draft, id: &TabId, op: &str) -> Result<&'d mut Deck, OpError> {
    let tab = d.tab_mut(id)?;
    if !matches!(tab.data, TabData::Slides(_)) {
        return Err(wrong_kind(tab, op, "a slides"));
    }
    match &mut tab.data {
        TabData::Slides(deck) => Ok(deck),
        _ => Err(OpError::invalid("tab_id", "not a slides tab")),
    }
}

fn wrong_kind(tab: &Tab, op: &str, wanted: &str) -> OpError {
    OpError::invalid(
        "tab_id",
        format!(
            "{:?} is a {} tab; {op} works on {wanted} tab",
            tab.id.as_str(),
            tab.kind()
        ),
    )
}

fn not_found(field: &str, what: &str, id: &str) -> OpError {
    OpError::new(
        OpErrorCode::ItemNotFound,
        field,
        format!("no {what} {:?} in this note", clip(id, 80)),
    )
}

fn check_chars(field: &str, value: &str, limit: usize) -> Result<(), OpError> {
    // `len` first: a string of `limit` bytes or fewer has at most `limit` characters.
    if value.len() > limit && value.chars().count() > limit {
        return Err(OpError::over_limit(
            field,
            format!("longer than {limit} characters"),
        ));
    }
    Ok(())
}

fn check_bytes(field: &str, value: &str, limit: usize) -> Result<(), OpError> {
    if value.len() > limit {
        return Err(OpError::over_limit(
            field,
            format!("{} bytes; at most {limit}", value.len()),
        ));
    }
    Ok(())
}

fn check_label(label: &str) -> Result<String, OpError> {
    let label = label.trim();
    if label.is_empty() {
        return Err(OpError::invalid("label", "must not be empty"));
    }
    if label.chars().count() > limits::LABEL_CHARS {
        return Err(OpError::invalid(
            "label",
            format!("longer than {} characters", limits::LABEL_CHARS),
        ));
    }
    Ok(label.to_owned())
}

fn check_outline(slides: &[SlideInput]) -> Result<(), OpError> {
    if slides.is_empty() {
        return Err(OpError::invalid(
            "slides",
            "minItems 1: an outline needs a slide",
        ));
    }
    if slides.len() > limits::OUTLINE_SLIDES {
        return Err(OpError::invalid(
            "slides",
            format!(
                "maxItems {}: {} slides given; send the rest with another call",
                limits::OUTLINE_SLIDES,
                slides.len()
            ),
        ));
    }
    Ok(())
}

fn check_slide_count(field: &str, before: usize, after: usize) -> Result<(), OpError> {
    if grows_past(before, after, limits::DECK_SLIDES) {
        return Err(OpError::over_limit(
            field,
            format!(
                "the deck would hold {after} slides; at most {}",
                limits::DECK_SLIDES
            ),
        ));
    }
    Ok(())
}

fn add_slides(
    d: &mut Draft,
    tab_id: &TabId,
    slides: &[SlideInput],
    ctx: &ApplyCtx<'_>,
) -> Result<Vec<String>, OpError> {
    let mut seq = d.note.seq;
    let deck = deck_mut(d, tab_id, "adding slides")?;
    check_slide_count(
        "tab_id",
        deck.slides.len(),
        deck.slides.len() + slides.len(),
    )?;
    let ids = push_slides(deck, &mut seq, slides, ctx.now);
    d.note.seq = seq;
    Ok(ids)
}

fn push_slides(
    deck: &mut Deck,
    seq: &mut u64,
    slides: &[SlideInput],
    now: Timestamp,
) -> Vec<String> {
    slides
        .iter()
        .map(|s| {
            *seq += 1;
            let id = generated_id("slide", *seq, now);
            deck.slides.push(Slide {
                id: id.clone(),
                title: s.title.clone(),
                body: s.body.clone(),
                notes: s.notes.clone(),
                layout: Default::default(),
            });
            id
        })
        .collect()
}

fn parse_tab_data(tab: &Tab, data: &Value) -> Result<TabData, OpError> {
    let kind = tab.kind();
    if matches!(kind, TabKind::Sources | TabKind::Files) {
        return Err(OpError::invalid(
            "tab_id",
            format!(
                "the {kind} tab changes only through its own operations (add/remove), not replace_tab_data"
            ),
        ));
    }
    let parsed = TabData::from_value(kind, data.clone())
        .map_err(|e| OpError::invalid("data", format!("not {kind} tab data: {e}")))?;
    match (&tab.data, &parsed) {
        (TabData::Sheet(old), TabData::Sheet(sheets)) => check_sheets(old, sheets)?,
        (TabData::Slides(old), TabData::Slides(deck)) => check_deck(old, deck)?,
        _ => {}
    }
    Ok(parsed)
}

fn check_sheets(old: &SheetTab, tab: &SheetTab) -> Result<(), OpError> {
    if tab.sheets.is_empty() {
        return Err(OpError::invalid(
            "data.sheets",
            "a sheet tab holds at least one sheet",
        ));
    }
    if grows_past(old.sheets.len(), tab.sheets.len(), limits::SHEETS) {
        return Err(OpError::over_limit(
            "data.sheets",
            format!(
                "{} sheets; a sheet tab holds at most {}",
                tab.sheets.len(),
                limits::SHEETS
            ),
        ));
    }
    let mut ids = HashSet::new();
    for (i, sheet) in tab.sheets.iter().enumerate() {
        if sheet.id.trim().is_empty() {
            return Err(OpError::invalid(
                format!("data.sheets[{i}].id"),
                "must not be empty",
            ));
        }
        if !ids.insert(sheet.id.as_str()) {
            return Err(OpError::invalid(
                format!("data.sheets[{i}].id"),
                format!("{:?} is used twice", sheet.id),
            ));
        }
        check_grid(&sheet.rows, &format!("data.sheets[{i}].rows"))?;
    }
    Ok(())
}

fn check_grid(rows: &[Vec<Value>], field: &str) -> Result<(), OpError> {
    if rows.len() > limits::SHEET_ROWS {
        return Err(OpError::over_limit(
            field,
            format!("more than {} rows", limits::SHEET_ROWS),
        ));
    }
    let mut cells = 0usize;
    for (r, row) in rows.iter().enumerate() {
        if row.len() > limits::SHEET_COLS {
            return Err(OpError::over_limit(
                format!("{field}[{r}]"),
                format!("more than {} columns", limits::SHEET_COLS),
            ));
        }
        cells += row.len();
        for (c, cell) in row.iter().enumerate() {
            if cell.is_array() || cell.is_object() {
                return Err(OpError::invalid(
                    format!("{field}[{r}][{c}]"),
                    "a cell is a string, number, boolean or null",
                ));
            }
        }
    }
    if cells > limits::SHEET_CELLS {
        return Err(OpError::over_limit(
            field,
            format!("more than {} cells", limits::SHEET_CELLS),
        ));
    }
    Ok(())
}

fn check_deck(old: &Deck, deck: &Deck) -> Result<(), OpError> {
    check_slide_count("data.slides", old.slides.len(), deck.slides.len())?;
    let mut ids = HashSet::new();
    for (i, slide) in deck.slides.iter().enumerate() {
        if slide.id.trim().is_empty() {
            return Err(OpError::invalid(
                format!("data.slides[{i}].id"),
                "must not be empty",
            ));
        }
        if !ids.insert(slide.id.as_str()) {
            return Err(OpError::invalid(
                format!("data.slides[{i}].id"),
                format!("{:?} is used twice", slide.id),
            ));
        }
    }
    Ok(())
}

/// Writes `values` at (`start_row`, `start_col`), growing the grid with nulls, unless what the
/// Note's sheets would then store (`before`, the Note-wide totals, plus the cells and rows this
/// range adds, its padding included) passes a limit. Returns the number of cells written, the
/// new totals, and whether the sheet surely changed (it grew, or a cell got another value; a
/// write of equal values is left to `same_tab` to judge). Costs the size of `values`, not of
/// the sheet.
fn set_range(
    sheet: &mut Sheet,
    start_row: u64,
    start_col: u64,
    values: &[Vec<Value>],
    before: Grid,
) -> Result<(usize, Grid, bool), OpError> {
    if values.is_empty() {
        return Err(OpError::invalid("values", "at least one row is required"));
    }
    check_grid(values, "values")?;
    let width = values.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let end_row = start_row.saturating_add(values.len() as u64);
    let end_col = start_col.saturating_add(width);
    if end_row > limits::SHEET_ROWS as u64 {
        return Err(OpError::over_limit(
            "start_row",
            format!("the range ends past row {}", limits::SHEET_ROWS),
        ));
    }
    if end_col > limits::SHEET_COLS as u64 {
        return Err(OpError::over_limit(
            "start_col",
            format!("the range ends past column {}", limits::SHEET_COLS),
        ));
    }
    let (start_row, start_col) = (start_row as usize, start_col as usize);
    let added = Grid {
        cells: (values.iter().enumerate())
            .map(|(r, row)| {
                let stored = sheet.rows.get(start_row + r).map_or(0, Vec::len);
                (start_col + row.len()).saturating_sub(stored)
            })
            .sum(),
        rows: (start_row + values.len()).saturating_sub(sheet.rows.len()),
    };
    let after = before.plus(added);
    // Blame the offset when it is the padding it brings in, not the values sent, that passes
    // the limit.
    let sent = Grid::of_rows(values);
    let blame = |sent: usize, before: usize, limit: usize, offset: &'static str| {
        if before + sent <= limit {
            offset
        } else {
            "values"
        }
    };
    Grid::check(
        before,
        after,
        (
            blame(sent.cells, before.cells, limits::SHEET_CELLS, "start_col"),
            blame(sent.rows, before.rows, limits::NOTE_ROWS, "start_row"),
        ),
    )?;
    if sheet.rows.len() < start_row + values.len() {
        sheet.rows.resize_with(start_row + values.len(), Vec::new);
    }
    let mut written = 0;
    let mut changed = added != Grid::default();
    for (r, row) in values.iter().enumerate() {
        let target = &mut sheet.rows[start_row + r];
        if target.len() < start_col + row.len() {
            target.resize(start_col + row.len(), Value::Null);
        }
        for (c, cell) in row.iter().enumerate() {
            let slot = &mut target[start_col + c];
            changed = changed || slot != cell;
            *slot = cell.clone();
            written += 1;
        }
    }
    Ok((written, after, changed))
}
