//! Three-way merges the person can review: the common ancestor (`base`, the content the save
//! guard saw), `mine` (the person's draft) and `theirs` (the server's content now).
//!
//! - Markdown: line-based diff3. Hunks changed on one side only, or identically on both, merge
//!   cleanly; hunks changed differently on both sides come back as structured [`TextHunk::Clash`]
//!   values. Nothing here writes conflict markers unless the person picks
//!   [`ClashChoice::Markers`].
//! - Sheets: cell by cell, sheets matched by their ID.
//! - Slides: slide by slide, matched by slide ID (a slide is the unit: two different edits to one
//!   slide clash as a whole).
//!
//! - Any tab ([`merge_data`]): the clean merge, with no person to ask (a revert, the engine
//!   rebasing a draft): only changes of the same line, cell, slide or item clash.
//!
//! Pure functions, no I/O.

use std::collections::{HashMap, HashSet};

use crate::{Cell, Deck, Row, Sheet, SheetTab, Slide, TabData, Theme};
use serde::{Deserialize, Serialize};

/// What the person picks for one clash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "pick", rename_all = "snake_case")]
pub enum ClashChoice {
    Mine,
    Theirs,
    /// Text only: my lines, then theirs.
    MineThenTheirs,
    /// Text only: their lines, then mine.
    TheirsThenMine,
    /// Text only: keep the ancestor's lines.
    Base,
    /// Text only: `<<<<<<< mine` ... `>>>>>>> theirs`, on the person's explicit request.
    Markers,
    /// Text only: the person's own lines for this hunk.
    Custom {
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("choices: {clashes} clashes need {clashes} choices, got {given}")]
    ChoiceCount { clashes: usize, given: usize },
    #[error("choices[{index}]: {choice} applies to text merges only")]
    TextOnlyChoice { index: usize, choice: &'static str },
    #[error("content: base, mine and theirs are not the same kind of tab")]
    KindMismatch,
    #[error("content: {0} tabs are not merged")]
    NotMergeable(&'static str),
}

// ---------------------------------------------------------------------------------------------
// Text

/// One stretch of a merged text, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextHunk {
    /// Lines both sides agree on (or that only one side changed).
    Clean { lines: Vec<String> },
    /// Lines both sides changed, differently.
    Clash {
        base: Vec<String>,
        mine: Vec<String>,
        theirs: Vec<String>,
    },
}

/// A line-based three-way merge of Markdown text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TextMerge {
    pub hunks: Vec<TextHunk>,
}

/// Lines split on `\n` (a final `\n` yields a last empty line), so joining with `\n` gives the
/// text back byte for byte.
fn lines(text: &str) -> Vec<&str> {
    text.split('\n').collect()
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

/// For each line of `base`, its position in `other` when it is part of the longest common
/// subsequence.
fn matches(base: &[&str], other: &[&str]) -> Vec<Option<usize>> {
    let mut out = vec![None; base.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, other) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for n in 0..len {
                out[old_index + n] = Some(new_index + n);
            }
        }
    }
    out
}

/// diff3: walks the ancestor, emitting stable runs (a line matched in both sides at the next
/// positions) and, between them, unstable chunks resolved by who changed what.
pub fn merge_text(base: &str, mine: &str, theirs: &str) -> TextMerge {
    let o = lines(base);
    let a = lines(mine);
    let b = lines(theirs);
    let ma = matches(&o, &a);
    let mb = matches(&o, &b);
    let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
    let mut hunks: Vec<TextHunk> = Vec::new();
    loop {
        let mut n = 0;
        while i + n < o.len() && ma[i + n] == Some(j + n) && mb[i + n] == Some(k + n) {
            n += 1;
        }
        if n > 0 {
            push_clean(&mut hunks, &o[i..i + n]);
            i += n;
            j += n;
            k += n;
            continue;
        }
        let next = (i..o.len()).find(|&x| ma[x].is_some() && mb[x].is_some());
        let (i2, j2, k2) = match next {
            Some(x) => (x, ma[x].unwrap_or(a.len()), mb[x].unwrap_or(b.len())),
            None => (o.len(), a.len(), b.len()),
        };
        let (oc, ac, bc) = (&o[i..i2], &a[j..j2], &b[k..k2]);
        if ac == oc {
            push_clean(&mut hunks, bc);
        } else if bc == oc || ac == bc {
            push_clean(&mut hunks, ac);
        } else {
            hunks.push(TextHunk::Clash {
                base: owned(oc),
                mine: owned(ac),
                theirs: owned(bc),
            });
        }
        i = i2;
        j = j2;
        k = k2;
        if next.is_none() {
            break;
        }
    }
    TextMerge { hunks }
}

fn push_clean(hunks: &mut Vec<TextHunk>, add: &[&str]) {
    if add.is_empty() {
        return;
    }
    if let Some(TextHunk::Clean { lines }) = hunks.last_mut() {
        lines.extend(add.iter().map(|l| (*l).to_owned()));
    } else {
        hunks.push(TextHunk::Clean { lines: owned(add) });
    }
}

impl TextMerge {
    pub fn clash_count(&self) -> usize {
        self.hunks
            .iter()
            .filter(|h| matches!(h, TextHunk::Clash { .. }))
            .count()
    }

    /// The merged text when nothing clashed.
    pub fn clean(&self) -> Option<String> {
        if self.clash_count() > 0 {
            return None;
        }
        self.resolve(&[]).ok()
    }

    /// The merged text with one choice per clash, in order.
    pub fn resolve(&self, choices: &[ClashChoice]) -> Result<String, MergeError> {
        let picks: Vec<Option<&ClashChoice>> = choices.iter().map(Some).collect();
        Ok(joined(&self.lines_for(&picks)?))
    }

    /// The merged lines for one pick per clash (`None`: undecided, shown as mine then theirs),
    /// each with where it comes from. With every clash decided, the lines of [`Self::resolve`].
    pub fn preview_lines(
        &self,
        picks: &[Option<ClashChoice>],
    ) -> Result<Vec<PreviewLine>, MergeError> {
        let picks: Vec<Option<&ClashChoice>> = picks.iter().map(Option::as_ref).collect();
        self.lines_for(&picks)
    }

    pub fn lines_for(
        &self,
        picks: &[Option<&ClashChoice>],
    ) -> Result<Vec<PreviewLine>, MergeError> {
        check_count(self.clash_count(), picks.len())?;
        let mut out: Vec<PreviewLine> = Vec::new();
        let mut clash = 0;
        for hunk in &self.hunks {
            let (base, mine, theirs) = match hunk {
                TextHunk::Clean { lines } => {
                    out.extend(lines.iter().map(|text| PreviewLine {
                        text: text.clone(),
                        from: LineSource::Clean,
                        clash: None,
                    }));
                    continue;
                }
                TextHunk::Clash { base, mine, theirs } => (base, mine, theirs),
            };
            let mut push = |lines: &[String], from: LineSource| {
                out.extend(lines.iter().map(|text| PreviewLine {
                    text: text.clone(),
                    from,
                    clash: Some(clash),
                }));
            };
            let marker = |text: &str| [text.to_owned()];
            match picks.get(clash).copied().flatten() {
                None => {
                    push(mine, LineSource::Undecided);
                    push(theirs, LineSource::Undecided);
                }
                Some(ClashChoice::Mine) => push(mine, LineSource::Mine),
                Some(ClashChoice::Theirs) => push(theirs, LineSource::Theirs),
                Some(ClashChoice::Base) => push(base, LineSource::Base),
                Some(ClashChoice::MineThenTheirs) => {
                    push(mine, LineSource::Mine);
                    push(theirs, LineSource::Theirs);
                }
                Some(ClashChoice::TheirsThenMine) => {
                    push(theirs, LineSource::Theirs);
                    push(mine, LineSource::Mine);
                }
                Some(ClashChoice::Markers) => {
                    push(&marker("<<<<<<< mine"), LineSource::Marker);
                    push(mine, LineSource::Mine);
                    push(&marker("======="), LineSource::Marker);
                    push(theirs, LineSource::Theirs);
                    push(&marker(">>>>>>> theirs"), LineSource::Marker);
                }
                Some(ClashChoice::Custom { text }) => {
                    let own: Vec<String> = text.split('\n').map(String::from).collect();
                    push(&own, LineSource::Custom);
                }
            }
            clash += 1;
        }
        Ok(out)
    }
}

/// Where a line of a text merge's preview comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LineSource {
    /// A stretch that merged without a clash.
    Clean,
    Mine,
    Theirs,
    Base,
    /// `<<<<<<< mine`, `=======` or `>>>>>>> theirs` ([`ClashChoice::Markers`]).
    Marker,
    /// The person's own lines ([`ClashChoice::Custom`]).
    Custom,
    /// A clash not decided yet: both sides, mine first.
    Undecided,
}

/// One line of a text merge's preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PreviewLine {
    pub text: String,
    pub from: LineSource,
    /// The clash the line belongs to, counted from 0; `None` in a clean stretch.
    pub clash: Option<usize>,
}

pub fn joined(lines: &[PreviewLine]) -> String {
    lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One side's change of the ancestor's lines: `start..end` replaced by `lines`.
#[derive(Debug, PartialEq)]
struct Hunk<'a> {
    start: usize,
    end: usize,
    lines: Vec<&'a str>,
}

/// The changes from `base` to `other`, in order, touching ones joined.
fn hunks<'a>(base: &[&str], other: &[&'a str]) -> Vec<Hunk<'a>> {
    use similar::DiffOp;
    let mut out: Vec<Hunk<'a>> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, other) {
        let (start, end, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_index + old_len, 0..0),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index, old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index,
                old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        match out.last_mut() {
            Some(last) if last.end == start => {
                last.end = end;
                last.lines.extend_from_slice(&other[new]);
            }
            _ => out.push(Hunk {
                start,
                end,
                lines: other[new].to_vec(),
            }),
        }
    }
    out
}

/// Whether two changes of the same ancestor touch the same lines: ranges that overlap, an
/// insertion strictly inside the other's range, or two insertions at one place. Changes of
/// neighbouring lines do not.
fn overlap(a: &Hunk<'_>, b: &Hunk<'_>) -> bool {
    match (a.start == a.end, b.start == b.end) {
        (false, false) => a.start < b.end && b.start < a.end,
        (true, false) => b.start < a.start && a.start < b.end,
        (false, true) => a.start < b.start && b.start < a.end,
        (true, true) => a.start == b.start,
    }
}

/// A line merge where only changes of the same lines clash (None): unlike diff3 ([`merge_text`],
/// which the person reviews), a change of the line next to the other side's change merges. The
/// merge that needs no person: a revert, and the engine rebasing a draft on another writer's
/// change of the same tab.
pub fn merge_lines(base: &str, mine: &str, theirs: &str) -> Option<String> {
    let (b, m, t): (Vec<&str>, Vec<&str>, Vec<&str>) = (
        base.split('\n').collect(),
        mine.split('\n').collect(),
        theirs.split('\n').collect(),
    );
    let (mut all, other) = (hunks(&b, &m), hunks(&b, &t));
    for hunk in other {
        match all.iter().find(|h| overlap(h, &hunk)) {
            // The same change on both sides is made once.
            Some(same) if *same == hunk => {}
            Some(_) => return None,
            None => all.push(hunk),
        }
    }
    // An insertion before a change that starts at its place.
    all.sort_by_key(|h| (h.start, h.end));
    let mut out: Vec<&str> = Vec::with_capacity(b.len());
    let mut at = 0;
    for hunk in &all {
        out.extend_from_slice(&b[at..hunk.start]);
        out.extend_from_slice(&hunk.lines);
        at = hunk.end;
    }
    out.extend_from_slice(&b[at..]);
    Some(out.join("\n"))
}

// ---------------------------------------------------------------------------------------------
// Sheets

/// One cell both sides changed differently (or a sheet one side deleted and the other edited).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SheetClash {
    Cell {
        sheet_id: String,
        row: usize,
        col: usize,
        base: Cell,
        mine: Cell,
        theirs: Cell,
    },
    Name {
        sheet_id: String,
        base: String,
        mine: String,
        theirs: String,
    },
    /// One side deleted the sheet, the other changed it. `mine`/`theirs` is `None` on the side
    /// that deleted it.
    Sheet {
        sheet_id: String,
        mine: Option<Sheet>,
        theirs: Option<Sheet>,
    },
}

/// A cell-level merge of a Sheet tab. `merged` holds every clean change and, at each clash, the
/// person's value (until they choose otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SheetMerge {
    pub merged: SheetTab,
    pub clashes: Vec<SheetClash>,
    /// The merged order of sheet IDs, including sheets in a clash that `merged` leaves out.
    pub order: Vec<String>,
}

pub(crate) fn pick3<T: PartialEq + Clone>(base: &T, mine: &T, theirs: &T) -> Result<T, ()> {
    if mine == base {
        Ok(theirs.clone())
    } else if theirs == base || mine == theirs {
        Ok(mine.clone())
    } else {
        Err(())
    }
}

/// The merged length: a side that did not change the length follows the other; both changed
/// it: the longer (cells beyond a side's length read as empty).
fn merged_len(base: usize, mine: usize, theirs: usize) -> usize {
    pick3(&base, &mine, &theirs).unwrap_or(mine.max(theirs))
}

fn cell(rows: &[Row], r: usize, c: usize) -> Cell {
    rows.get(r)
        .and_then(|row| row.get(c))
        .cloned()
        .unwrap_or(Cell::Null)
}

fn merge_sheet(base: &Sheet, mine: &Sheet, theirs: &Sheet, clashes: &mut Vec<SheetClash>) -> Sheet {
    let name = match pick3(&base.name, &mine.name, &theirs.name) {
        Ok(n) => n,
        Err(()) => {
            clashes.push(SheetClash::Name {
                sheet_id: mine.id.clone(),
                base: base.name.clone(),
                mine: mine.name.clone(),
                theirs: theirs.name.clone(),
            });
            mine.name.clone()
        }
    };
    let rows_n = merged_len(base.rows.len(), mine.rows.len(), theirs.rows.len());
    let mut rows = Vec::with_capacity(rows_n);
    for r in 0..rows_n {
        // A row one side left as it was is the other side's row (shared, not rebuilt).
        if let (Some(o), Some(a), Some(b)) =
            (base.rows.get(r), mine.rows.get(r), theirs.rows.get(r))
            && (o.shares(a) || o.shares(b))
        {
            rows.push(if o.shares(a) { b.clone() } else { a.clone() });
            continue;
        }
        let len = |g: &[Row]| g.get(r).map_or(0, |row| row.len());
        let cols_n = merged_len(len(&base.rows), len(&mine.rows), len(&theirs.rows));
        let mut row = Vec::with_capacity(cols_n);
        for c in 0..cols_n {
            let (o, a, b) = (
                cell(&base.rows, r, c),
                cell(&mine.rows, r, c),
                cell(&theirs.rows, r, c),
            );
            match pick3(&o, &a, &b) {
                Ok(v) => row.push(v),
                Err(()) => {
                    clashes.push(SheetClash::Cell {
                        sheet_id: mine.id.clone(),
                        row: r,
                        col: c,
                        base: o,
                        mine: a.clone(),
                        theirs: b,
                    });
                    row.push(a);
                }
            }
        }
        rows.push(Row::from(row));
    }
    Sheet {
        id: mine.id.clone(),
        name,
        rows,
    }
}

/// Orders the merged items: the skeleton is theirs when I kept the ancestor's order, else mine;
/// items only the other side has go in after their predecessor on that side.
fn merged_order<'a>(
    base: &[&'a str],
    mine: &[&'a str],
    theirs: &[&'a str],
    keep: &HashSet<&'a str>,
) -> Vec<&'a str> {
    let in_base: HashSet<&str> = base.iter().copied().collect();
    let mine_common: Vec<&str> = mine
        .iter()
        .copied()
        .filter(|id| in_base.contains(id))
        .collect();
    let base_common: Vec<&str> = {
        let in_mine: HashSet<&str> = mine.iter().copied().collect();
        base.iter()
            .copied()
            .filter(|id| in_mine.contains(id))
            .collect()
    };
    let (skeleton, other) = if mine_common == base_common {
        (theirs, mine)
    } else {
        (mine, theirs)
    };
    let mut out: Vec<&str> = skeleton
        .iter()
        .copied()
        .filter(|id| keep.contains(id))
        .collect();
    let mut placed: HashSet<&str> = out.iter().copied().collect();
    for (pos, id) in other.iter().enumerate() {
        if placed.contains(id) || !keep.contains(id) {
            continue;
        }
        let after = other[..pos].iter().rev().find(|p| placed.contains(*p));
        let at = match after {
            Some(p) => out.iter().position(|x| x == p).map_or(out.len(), |i| i + 1),
            None => 0,
        };
        out.insert(at, id);
        placed.insert(id);
    }
    out
}

/// Keyed three-way merge of a list of items with IDs: returns the kept items in order, and the
/// clashes (both changed, or one deleted while the other changed).
struct Keyed<'a, T> {
    base: HashMap<&'a str, &'a T>,
    mine: HashMap<&'a str, &'a T>,
    theirs: HashMap<&'a str, &'a T>,
}

enum Verdict<'a, T> {
    Keep(&'a T),
    Drop,
    Clash {
        base: Option<&'a T>,
        mine: Option<&'a T>,
        theirs: Option<&'a T>,
    },
}

impl<'a, T: PartialEq> Keyed<'a, T> {
    fn verdict(&self, id: &str) -> Verdict<'a, T> {
        let (o, a, b) = (
            self.base.get(id).copied(),
            self.mine.get(id).copied(),
            self.theirs.get(id).copied(),
        );
        match (o, a, b) {
            (_, Some(a), Some(b)) if a == b => Verdict::Keep(a),
            (Some(o), Some(a), Some(b)) => {
                if a == o {
                    Verdict::Keep(b)
                } else if b == o {
                    Verdict::Keep(a)
                } else {
                    Verdict::Clash {
                        base: Some(o),
                        mine: Some(a),
                        theirs: Some(b),
                    }
                }
            }
            // Deleted on one side: gone if the other left it as it was.
            (Some(o), None, Some(b)) if b == o => Verdict::Drop,
            (Some(o), Some(a), None) if a == o => Verdict::Drop,
            (Some(_), None, None) | (None, None, None) => Verdict::Drop,
            (Some(o), a, b) => Verdict::Clash {
                base: Some(o),
                mine: a,
                theirs: b,
            },
            // Added on one side only (IDs are never reused, so no ancestor means new).
            (None, Some(a), None) => Verdict::Keep(a),
            (None, None, Some(b)) => Verdict::Keep(b),
            (None, Some(a), Some(_)) => Verdict::Clash {
                base: None,
                mine: Some(a),
                theirs: self.theirs.get(id).copied(),
            },
        }
    }
}

pub fn merge_sheets(base: &SheetTab, mine: &SheetTab, theirs: &SheetTab) -> SheetMerge {
    let ids = |t: &'_ SheetTab| -> Vec<String> { t.sheets.iter().map(|s| s.id.clone()).collect() };
    let (ob, ab, tb) = (ids(base), ids(mine), ids(theirs));
    let keyed = Keyed {
        base: base.sheets.iter().map(|s| (s.id.as_str(), s)).collect(),
        mine: mine.sheets.iter().map(|s| (s.id.as_str(), s)).collect(),
        theirs: theirs.sheets.iter().map(|s| (s.id.as_str(), s)).collect(),
    };
    let mut clashes = Vec::new();
    let mut kept: HashMap<String, Sheet> = HashMap::new();
    let all: Vec<&str> = {
        let mut seen = HashSet::new();
        ab.iter()
            .chain(tb.iter())
            .chain(ob.iter())
            .map(String::as_str)
            .filter(|id| seen.insert(*id))
            .collect()
    };
    for id in &all {
        match keyed.verdict(id) {
            Verdict::Keep(s) => {
                kept.insert((*id).to_owned(), s.clone());
            }
            Verdict::Drop => {}
            Verdict::Clash {
                base: Some(o),
                mine: Some(a),
                theirs: Some(b),
            } => {
                kept.insert((*id).to_owned(), merge_sheet(o, a, b, &mut clashes));
            }
            Verdict::Clash { mine, theirs, .. } => {
                clashes.push(SheetClash::Sheet {
                    sheet_id: (*id).to_owned(),
                    mine: mine.cloned(),
                    theirs: theirs.cloned(),
                });
                // Until the person chooses, keep what they have.
                if let Some(a) = mine {
                    kept.insert((*id).to_owned(), a.clone());
                }
            }
        }
    }
    let mut keep: HashSet<&str> = kept.keys().map(String::as_str).collect();
    for c in &clashes {
        if let SheetClash::Sheet { sheet_id, .. } = c {
            keep.insert(sheet_id.as_str());
        }
    }
    let order = {
        let (o, a, t): (Vec<&str>, Vec<&str>, Vec<&str>) = (
            ob.iter().map(String::as_str).collect(),
            ab.iter().map(String::as_str).collect(),
            tb.iter().map(String::as_str).collect(),
        );
        merged_order(&o, &a, &t, &keep)
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let sheets = order
        .iter()
        .filter_map(|id| kept.get(id).cloned())
        .collect();
    SheetMerge {
        merged: SheetTab { sheets },
        clashes,
        order,
    }
}

impl SheetMerge {
    /// Applies one choice (`Mine` or `Theirs`) per clash, in order.
    pub fn resolve(&self, choices: &[ClashChoice]) -> Result<SheetTab, MergeError> {
        let picks: Vec<Option<&ClashChoice>> = choices.iter().map(Some).collect();
        self.apply(&picks)
    }

    /// One pick per clash; an undecided one (`None`) keeps mine, as `merged` does.
    pub fn apply(&self, picks: &[Option<&ClashChoice>]) -> Result<SheetTab, MergeError> {
        check_count(self.clashes.len(), picks.len())?;
        let mut out = self.merged.clone();
        for (index, (clash, pick)) in self.clashes.iter().zip(picks).enumerate() {
            if !takes_theirs(index, *pick)? {
                continue; // `merged` already holds mine at every clash.
            }
            match clash {
                SheetClash::Cell {
                    sheet_id,
                    row,
                    col,
                    theirs,
                    ..
                } => {
                    if let Some(s) = out.sheets.iter_mut().find(|s| &s.id == sheet_id)
                        && let Some(c) = s.rows.get_mut(*row).and_then(|r| r.get_mut(*col))
                    {
                        *c = theirs.clone();
                    }
                }
                SheetClash::Name {
                    sheet_id, theirs, ..
                } => {
                    if let Some(s) = out.sheets.iter_mut().find(|s| &s.id == sheet_id) {
                        s.name = theirs.clone();
                    }
                }
                SheetClash::Sheet {
                    sheet_id, theirs, ..
                } => {
                    out.sheets.retain(|s| &s.id != sheet_id);
                    if let Some(t) = theirs {
                        out.sheets.push(t.clone());
                    }
                }
            }
        }
        sort_by_order(&mut out.sheets, &self.order, |s| s.id.as_str());
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------------
// Slides

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SlideClash {
    /// Both changed the slide differently, or one deleted it (`None`) while the other changed it.
    Slide {
        slide_id: String,
        base: Option<Box<Slide>>,
        mine: Option<Box<Slide>>,
        theirs: Option<Box<Slide>>,
    },
    Theme {
        base: Theme,
        mine: Theme,
        theirs: Theme,
    },
}

/// A slide-level merge of a deck. `merged` holds mine at each clash until the person chooses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeckMerge {
    pub merged: Deck,
    pub clashes: Vec<SlideClash>,
    /// The merged order of slide IDs, including slides in a clash that `merged` leaves out.
    pub order: Vec<String>,
}

pub fn merge_decks(base: &Deck, mine: &Deck, theirs: &Deck) -> DeckMerge {
    let mut clashes = Vec::new();
    let theme = match pick3(&base.theme, &mine.theme, &theirs.theme) {
        Ok(t) => t,
        Err(()) => {
            clashes.push(SlideClash::Theme {
                base: base.theme,
                mine: mine.theme,
                theirs: theirs.theme,
            });
            mine.theme
        }
    };
    let (ob, ab, tb) = (slide_ids(base), slide_ids(mine), slide_ids(theirs));
    let keyed = Keyed {
        base: base.slides.iter().map(|s| (s.id.as_str(), s)).collect(),
        mine: mine.slides.iter().map(|s| (s.id.as_str(), s)).collect(),
        theirs: theirs.slides.iter().map(|s| (s.id.as_str(), s)).collect(),
    };
    let mut kept: HashMap<&str, Slide> = HashMap::new();
    let mut seen = HashSet::new();
    for id in ab.iter().chain(tb.iter()).chain(ob.iter()).copied() {
        if !seen.insert(id) {
            continue;
        }
        match keyed.verdict(id) {
            Verdict::Keep(s) => {
                kept.insert(id, s.clone());
            }
            Verdict::Drop => {}
            Verdict::Clash { base, mine, theirs } => {
                clashes.push(SlideClash::Slide {
                    slide_id: id.to_owned(),
                    base: base.cloned().map(Box::new),
                    mine: mine.cloned().map(Box::new),
                    theirs: theirs.cloned().map(Box::new),
                });
                match (mine, theirs) {
                    (Some(a), _) => {
                        kept.insert(id, a.clone());
                    }
                    // I deleted it: it stays out until I choose theirs, but keep its place.
                    (None, Some(_)) => {}
                    (None, None) => {}
                }
            }
        }
    }
    // Slides that clash with a deletion on my side get their place from theirs when chosen.
    let mut keep: HashSet<&str> = kept.keys().copied().collect();
    for c in &clashes {
        if let SlideClash::Slide { slide_id, .. } = c {
            keep.insert(slide_id.as_str());
        }
    }
    let order: Vec<String> = merged_order(&ob, &ab, &tb, &keep)
        .into_iter()
        .map(str::to_owned)
        .collect();
    let slides = order
        .iter()
        .filter_map(|id| kept.get(id.as_str()).cloned())
        .collect();
    DeckMerge {
        merged: Deck { theme, slides },
        clashes,
        order,
    }
}

fn slide_ids(d: &Deck) -> Vec<&str> {
    d.slides.iter().map(|s| s.id.as_str()).collect()
}

impl DeckMerge {
    /// Applies one choice (`Mine` or `Theirs`) per clash, in order.
    pub fn resolve(&self, choices: &[ClashChoice]) -> Result<Deck, MergeError> {
        let picks: Vec<Option<&ClashChoice>> = choices.iter().map(Some).collect();
        self.apply(&picks)
    }

    /// One pick per clash; an undecided one (`None`) keeps mine, as `merged` does.
    pub fn apply(&self, picks: &[Option<&ClashChoice>]) -> Result<Deck, MergeError> {
        check_count(self.clashes.len(), picks.len())?;
        let mut out = self.merged.clone();
        for (index, (clash, pick)) in self.clashes.iter().zip(picks).enumerate() {
            if !takes_theirs(index, *pick)? {
                continue;
            }
            match clash {
                SlideClash::Theme { theirs, .. } => out.theme = *theirs,
                SlideClash::Slide {
                    slide_id, theirs, ..
                } => {
                    out.slides.retain(|s| &s.id != slide_id);
                    if let Some(t) = theirs {
                        out.slides.push((**t).clone());
                    }
                }
            }
        }
        sort_by_order(&mut out.slides, &self.order, |s| s.id.as_str());
        Ok(out)
    }
}

/// Puts `items` in the merged order (items not in it, if any, keep their relative order last).
fn sort_by_order<T>(items: &mut [T], order: &[String], id: impl Fn(&T) -> &str) {
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    items.sort_by_key(|it| rank.get(id(it)).copied().unwrap_or(usize::MAX));
}

fn check_count(clashes: usize, given: usize) -> Result<(), MergeError> {
    if clashes != given {
        return Err(MergeError::ChoiceCount { clashes, given });
    }
    Ok(())
}

/// `true` for theirs, `false` for mine or undecided; other choices are text-only.
fn takes_theirs(index: usize, pick: Option<&ClashChoice>) -> Result<bool, MergeError> {
    let Some(choice) = pick else {
        return Ok(false);
    };
    match choice {
        ClashChoice::Mine => Ok(false),
        ClashChoice::Theirs => Ok(true),
        ClashChoice::MineThenTheirs => Err(MergeError::TextOnlyChoice {
            index,
            choice: "mine_then_theirs",
        }),
        ClashChoice::TheirsThenMine => Err(MergeError::TextOnlyChoice {
            index,
            choice: "theirs_then_mine",
        }),
        ClashChoice::Base => Err(MergeError::TextOnlyChoice {
            index,
            choice: "base",
        }),
        ClashChoice::Markers => Err(MergeError::TextOnlyChoice {
            index,
            choice: "markers",
        }),
        ClashChoice::Custom { .. } => Err(MergeError::TextOnlyChoice {
            index,
            choice: "custom",
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Any tab

/// The clean three-way merge of one tab's content, or None where both sides changed the same
/// line, cell, slide or item (or the kinds differ): Markdown by lines ([`merge_lines`]), Sheets
/// by cells, decks by slides, sources and files by item.
pub fn merge_data(base: &TabData, mine: &TabData, theirs: &TabData) -> Option<TabData> {
    if mine.identical(base) {
        return Some(theirs.clone());
    }
    if theirs.identical(base) || mine.identical(theirs) {
        return Some(mine.clone());
    }
    Some(match (base, mine, theirs) {
        (TabData::Markdown(base), TabData::Markdown(mine), TabData::Markdown(theirs)) => {
            TabData::Markdown(merge_lines(base, mine, theirs)?.into())
        }
        (TabData::Sheet(base), TabData::Sheet(mine), TabData::Sheet(theirs)) => {
            let merge = merge_sheets(base, mine, theirs);
            if !merge.clashes.is_empty() {
                return None;
            }
            TabData::Sheet(merge.merged)
        }
        (TabData::Slides(base), TabData::Slides(mine), TabData::Slides(theirs)) => {
            let merge = merge_decks(base, mine, theirs);
            if !merge.clashes.is_empty() {
                return None;
            }
            TabData::Slides(merge.merged)
        }
        (TabData::Sources(base), TabData::Sources(mine), TabData::Sources(theirs)) => {
            TabData::Sources(by_item(base, mine, theirs, |s| &s.id)?)
        }
        (TabData::Files(base), TabData::Files(mine), TabData::Files(theirs)) => {
            TabData::Files(by_item(base, mine, theirs, |f| &f.id)?)
        }
        _ => return None,
    })
}

/// A list of items with IDs (sources, files), merged item by item: an item added on one side
/// is added (at its place on that side), one removed is removed, one changed is changed; both
/// sides changing one item differently is a clash (None).
fn by_item<T: PartialEq + Clone>(
    base: &[T],
    mine: &[T],
    theirs: &[T],
    id: impl Fn(&T) -> &String,
) -> Option<Vec<T>> {
    let find = |list: &[T], key: &String| list.iter().position(|x| id(x) == key);
    let mut out = Vec::with_capacity(mine.len());
    for item in mine {
        match (find(base, id(item)), find(theirs, id(item))) {
            // Added on my side, or on both.
            (None, _) => out.push(item.clone()),
            (Some(b), Some(t)) => out.push(pick3(&base[b], item, &theirs[t]).ok()?),
            // Removed on their side: gone, unless I changed it.
            (Some(b), None) => {
                if *item != base[b] {
                    return None;
                }
            }
        }
    }
    // Added on their side only: at its place there.
    for (index, item) in theirs.iter().enumerate() {
        if find(base, id(item)).is_none() && find(mine, id(item)).is_none() {
            out.insert(index.min(out.len()), item.clone());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::merge_lines;

    /// The boundary, as a table: (ancestor, mine, theirs, merged or None for a clash).
    #[test]
    fn only_changes_of_the_same_lines_clash() {
        let cases: &[(&str, &str, &str, Option<&str>)] = &[
            // Neighbouring lines, either order.
            ("a\nb\nc", "A\nb\nc", "a\nB\nc", Some("A\nB\nc")),
            ("a\nb\nc", "a\nB\nc", "A\nb\nc", Some("A\nB\nc")),
            // The same line, differently; the same change on both sides.
            ("a\nb\nc", "a\nX\nc", "a\nY\nc", None),
            ("a\nb\nc", "a\nX\nc", "a\nX\nc", Some("a\nX\nc")),
            // A line one side deleted and the other changed.
            ("a\nb\nc", "a\nc", "a\nB\nc", None),
            // Two insertions at one place; insertions at different places.
            ("a\nc", "a\nx\nc", "a\ny\nc", None),
            ("a\nc", "x\na\nc", "a\nc\ny", Some("x\na\nc\ny")),
            // An insertion right before a line the other side changed.
            ("a\nb", "a\nx\nb", "a\nB", Some("a\nx\nB")),
        ];
        for (base, mine, theirs, want) in cases {
            assert_eq!(
                merge_lines(base, mine, theirs).as_deref(),
                *want,
                "{base:?} {mine:?} {theirs:?}"
            );
        }
    }
}
