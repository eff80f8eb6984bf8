//! `apply`: a Note and a batch of operations to a new Note, or a refusal naming the field.
//! This module holds the batch (`Draft`, what changed, the dispatcher); each kind of tab has
//! its operations in its own module.

mod deck;
mod files;
mod sheet;
mod sources;
mod tabs;
mod text;

use std::collections::{HashMap, HashSet};

use crate::bounds::{self, Grid};
use crate::error::{BATCH, OpError, OpErrorCode};
use crate::op::{Op, OpOutcome};
use crate::tab::{Tab, TabData};
use crate::{Note, TabId, Text, Timestamp, limits};

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
    /// Per Markdown tab of a batch of text operations alone: how many bytes at the start and
    /// at the end of its new text are surely those of the text it began from (at least; a
    /// store finding what changed need compare only the bytes between). Empty for other
    /// batches.
    pub text_ends_kept: HashMap<TabId, (usize, usize)>,
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
    let mut draft = Draft::new(note, ops);
    let mut outcomes = Vec::with_capacity(ops.len());
    let mut summaries = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let (outcome, summary) =
            apply_one(&mut draft, op, ctx).map_err(|e| OpError { index, ..e })?;
        outcomes.push(outcome);
        summaries.push(summary);
    }
    let Draft {
        note: next,
        touched,
        surely_changed,
        lent,
        text_only,
        ends_kept,
        ..
    } = draft;
    debug_assert!(lent.is_empty(), "a lent text was never written: {lent:?}");
    check_text(note, &next)?;
    // An operation's word holds only for a tab no other operation touched (a later one may
    // have put back what it changed).
    let mut touches: HashMap<&TabId, usize> = HashMap::new();
    for id in &touched {
        *touches.entry(id).or_default() += 1;
    }
    let surely: HashSet<TabId> = (surely_changed.into_iter())
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
        text_ends_kept: if text_only { ends_kept } else { HashMap::new() },
    })
}

/// What one operation produced, and its line in the summary.
type OpResult = Result<(OpOutcome, String), OpError>;

/// One operation on the draft: each kind of tab's module does its own.
fn apply_one(d: &mut Draft, op: &Op, ctx: &ApplyCtx<'_>) -> OpResult {
    match op {
        Op::ReplaceText { tab_id, text } => text::replace_text(d, tab_id, text),
        Op::SpliceText { tab_id, splices } => text::splice_text(d, tab_id, splices),
        Op::EditText { tab_id, edits } => text::edit_text(d, tab_id, edits),
        Op::ReplaceTabData { tab_id, data } => tabs::replace_tab_data(d, tab_id, data),
        Op::SlideAdd {
            tab_id,
            title,
            body,
            notes,
        } => deck::slide_add(d, tab_id, title, body, notes, ctx),
        Op::SlidesAddOutline { tab_id, slides } => deck::slides_add_outline(d, tab_id, slides, ctx),
        Op::SheetSetRange {
            tab_id,
            sheet_id,
            start_row,
            start_col,
            values,
        } => sheet::set_range(
            d,
            tab_id,
            sheet_id.as_deref(),
            (*start_row, *start_col),
            values,
        ),
        Op::CreateTab {
            tab_type,
            label,
            slides,
        } => tabs::create_tab(d, *tab_type, label.as_deref(), slides.as_deref(), ctx),
        Op::RenameTab { tab_id, label } => tabs::rename_tab(d, tab_id, label),
        Op::MoveTab { tab_id, index } => tabs::move_tab(d, tab_id, *index),
        Op::DeleteTab { tab_id } => tabs::delete_tab(d, tab_id),
        Op::SetTitle { title } => tabs::set_title(d, title),
        Op::AddSource { title, url } => sources::add_source(d, title, url, ctx),
        Op::RemoveSource { source_id } => sources::remove_source(d, source_id),
        Op::AddFile {
            name,
            mime,
            size,
            sha256,
        } => files::add_file(d, name, mime, *size, sha256, ctx),
        Op::RemoveFile { file_id } => files::remove_file(d, file_id),
        Op::SetSlideLayout {
            tab_id,
            slide_id,
            layout,
        } => deck::set_slide_layout(d, tab_id, slide_id, *layout),
        Op::SetTheme { tab_id, theme } => deck::set_theme(d, tab_id, *theme),
    }
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
struct Draft<'a> {
    note: Note,
    /// Markdown texts the draft holds no copy of yet (an empty text in their place): the
    /// Note's own, of tabs that only text operations touch. The first such operation writes the
    /// tab's new text from it in one pass (a splice or an edit of a 1 MiB text copied it
    /// once for the draft, then again to change it; a whole new text needs no copy of the old).
    lent: HashMap<TabId, &'a Text>,
    /// Every operation of the batch writes a Markdown text (`replace_text`, `splice_text`,
    /// `edit_text`).
    text_only: bool,
    /// Per Markdown tab the text operations wrote: the bytes at its text's start and end none
    /// of them changed, so far (`replace_text`: none).
    ends_kept: HashMap<TabId, (usize, usize)>,
    /// Each tab's position in `note.tabs`.
    at: HashMap<TabId, usize>,
    /// The cells and rows of every sheet of the Note, counted when a sheet is first changed.
    grid: Option<Grid>,
    /// The Note's sources by normalised URL (their IDs), gathered when a page is first cited.
    cited: Option<HashMap<String, String>>,
    /// The tabs the operations touched, in order, once per touch.
    touched: Vec<TabId>,
    /// Tabs an operation is known to have changed (a cell written with another value): when no
    /// other operation touched them, they need no comparison whole at the end, which costs a
    /// large sheet tens of milliseconds.
    surely_changed: HashSet<TabId>,
}

impl<'a> Draft<'a> {
    /// A draft of `note` for `ops`. When every operation of the batch writes a Markdown text
    /// (`replace_text`, `splice_text`, `edit_text`), the texts they name are lent, not copied:
    /// no other kind of operation reads a text, and each of these either writes its tab's text
    /// or refuses the batch, so no lent text is left unwritten in an `Applied`.
    fn new(note: &'a Note, ops: &[Op]) -> Self {
        fn writes_text(op: &Op) -> Option<&TabId> {
            match op {
                Op::ReplaceText { tab_id, .. }
                | Op::SpliceText { tab_id, .. }
                | Op::EditText { tab_id, .. } => Some(tab_id),
                _ => None,
            }
        }
        let mut lent = HashMap::new();
        let text_only = ops.iter().all(|op| writes_text(op).is_some());
        if text_only {
            let named: HashSet<&TabId> = ops.iter().filter_map(writes_text).collect();
            for tab in note.tabs.iter().filter(|tab| named.contains(&tab.id)) {
                if let TabData::Markdown(text) = &tab.data {
                    lent.insert(tab.id.clone(), text);
                }
            }
        }
        let tabs = (note.tabs.iter())
            .map(|tab| match lent.contains_key(&tab.id) {
                true => Tab {
                    id: tab.id.clone(),
                    label: tab.label.clone(),
                    data: TabData::Markdown(Text::default()),
                },
                false => tab.clone(),
            })
            .collect();
        let note = Note {
            id: note.id.clone(),
            title: note.title.clone(),
            version: note.version,
            tabs,
            seq: note.seq,
        };
        let mut draft = Draft {
            note,
            lent,
            text_only,
            ends_kept: HashMap::new(),
            at: HashMap::new(),
            grid: None,
            cited: None,
            touched: Vec::new(),
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

    /// One of the fixed tabs (`TabId::SOURCES`, `TabId::FILES`).
    fn fixed_tab_mut(&mut self, id: &str) -> Result<&mut Tab, OpError> {
        self.tab_mut(&TabId::new(id))
    }

    /// The Note's sheet totals, counted now if no operation needed them yet.
    fn grid(&mut self) -> Grid {
        *self.grid.get_or_insert_with(|| Grid::of_note(&self.note))
    }

    /// Records that the operation touched `id` and changed it (or may have: `really_changed`
    /// judges at the end), with its summary.
    /// How a summary names a tab: by its label, as the person sees it (`"Budget"`); a tab
    /// that is not there by its ID.
    fn named(&self, id: &TabId) -> String {
        match self.at.get(id) {
            Some(&at) => named(&self.note.tabs[at]),
            None => id.to_string(),
        }
    }

    /// Records that an operation left the first `start` and the last `end` bytes of tab `id`'s
    /// text as they were.
    fn kept_ends(&mut self, id: &TabId, start: usize, end: usize) {
        let kept = self.ends_kept.entry(id.clone()).or_insert((start, end));
        *kept = (kept.0.min(start), kept.1.min(end));
    }

    fn edited(&mut self, id: &TabId, summary: String) -> OpResult {
        self.touched.push(id.clone());
        Ok((OpOutcome::Edited { tab_id: id.clone() }, summary))
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
        text_ends_kept: HashMap::new(),
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
                i != j || surely.contains(id) || !before.tabs[i].identical(&after.tabs[j])
            }
            (None, None) => false,
            _ => true,
        })
        .collect()
}

/// `s` cut to `max_chars` characters (with an ellipsis when cut); reads no further than that.
/// A tab as a summary names it: its label, quoted.
fn named(tab: &Tab) -> String {
    format!("\"{}\"", clip(&tab.label, 40))
}

fn clip(s: &str, max_chars: usize) -> String {
    if s.char_indices().nth(max_chars).is_none() {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max_chars - 1).collect();
    out.push('…');
    out
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

/// Refuses the `i`th item's ID of a list (`data.sheets[2].id`) when it is empty or one of
/// `seen`, the IDs before it.
fn check_id<'a>(
    seen: &mut HashSet<&'a str>,
    list: &str,
    i: usize,
    id: &'a str,
) -> Result<(), OpError> {
    if id.trim().is_empty() {
        return Err(OpError::invalid(
            format!("{list}[{i}].id"),
            "must not be empty",
        ));
    }
    if !seen.insert(id) {
        return Err(OpError::invalid(
            format!("{list}[{i}].id"),
            format!("{id:?} is used twice"),
        ));
    }
    Ok(())
}
