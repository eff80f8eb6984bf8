//! Undo one write: the inverse of version V, merged three-way into the Note as it is now
//! ([`revert`]). Pure, as every merge here: the server's revert and the app's engine share it.
//!
//! The merge's ancestor is V itself, one side the Note now (every change since V), the other
//! the Note before V (V taken back). Per tab kind: Markdown by lines, Sheets by cells, decks by
//! slides (the merges of [`crate::merge`]), sources and files by item. A tab V created goes
//! (unless a later write edited it), a tab V deleted comes back with its ID, place and content,
//! tabs V moved go back where they were (unless a later write moved them again), a label V
//! changed goes back (unless renamed since). Where a later write changed the very line, cell,
//! slide or item V changed, the revert clashes: [`RevertConflict`] names the tabs, and nothing
//! is taken back.

use std::collections::HashSet;

use crate::merge::{merge_decks, merge_sheets};
use crate::{Note, Tab, TabData, TabId, Version};

/// Taking version `version` back would clash with later writes in these tabs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("version {version}: later writes changed what it changed, in {}", names(.tab_ids))]
pub struct RevertConflict {
    pub version: Version,
    pub tab_ids: Vec<TabId>,
}

fn names(ids: &[TabId]) -> String {
    ids.iter().map(TabId::as_str).collect::<Vec<_>>().join(", ")
}

/// The Note `now` with version `at` taken back (`before`: the version `at` was made on). The
/// result keeps `now`'s version and ID counter; the caller writes it as a new version.
pub fn revert(before: &Note, at: &Note, now: &Note) -> Result<Note, RevertConflict> {
    let mut clashes = Vec::new();
    let mut tabs: Vec<Tab> = Vec::with_capacity(now.tabs.len());
    for tab in &now.tabs {
        match (before.tab(&tab.id), at.tab(&tab.id)) {
            // V created it: it goes, unless edited since.
            (None, Some(made)) => {
                if !tab.identical(made) {
                    clashes.push(tab.id.clone());
                    tabs.push(tab.clone());
                }
            }
            (Some(old), Some(made)) => match merged(old, made, tab) {
                Some(back) => tabs.push(back),
                None => {
                    clashes.push(tab.id.clone());
                    tabs.push(tab.clone());
                }
            },
            // Made after V, or V deleted it and it was brought back since: V did not touch
            // what it is now.
            _ => tabs.push(tab.clone()),
        }
    }
    if !clashes.is_empty() {
        return Err(RevertConflict {
            version: at.version,
            tab_ids: clashes,
        });
    }
    restore_order(before, at, &mut tabs);
    // V deleted it: back with its ID, at its place.
    for (index, old) in before.tabs.iter().enumerate() {
        if at.tab(&old.id).is_none() && tabs.iter().all(|t| t.id != old.id) {
            tabs.insert(index.min(tabs.len()), old.clone());
        }
    }
    let title = if at.title != before.title && now.title == at.title {
        before.title.clone()
    } else {
        now.title.clone()
    };
    Ok(Note {
        id: now.id.clone(),
        title,
        version: now.version,
        tabs,
        seq: now.seq,
    })
}

/// Tab `now` with what V changed in it taken back (`old`: before V, `made`: at V), or None if
/// a later write changed the same part.
fn merged(old: &Tab, made: &Tab, now: &Tab) -> Option<Tab> {
    let label = pick(&made.label, &now.label, &old.label)?;
    let data = if old.data.identical(&made.data) {
        now.data.clone()
    } else if now.data.identical(&made.data) {
        old.data.clone()
    } else {
        match (&made.data, &now.data, &old.data) {
            (TabData::Markdown(base), TabData::Markdown(mine), TabData::Markdown(theirs)) => {
                TabData::Markdown(merge_lines(base, mine, theirs)?)
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
        }
    };
    Some(Tab {
        id: now.id.clone(),
        label,
        data,
    })
}

/// Three-way pick of one value: the side that changed it, or None if both did, differently.
fn pick<T: PartialEq + Clone>(base: &T, mine: &T, theirs: &T) -> Option<T> {
    if mine == base {
        Some(theirs.clone())
    } else if theirs == base || mine == theirs {
        Some(mine.clone())
    } else {
        None
    }
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
            (Some(b), Some(t)) => out.push(pick(&base[b], item, &theirs[t])?),
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

/// If V moved tabs (their order before V differs from theirs at V) and no later write moved
/// them since, the tabs all three hold take back their order from before V, in the places
/// they hold now.
fn restore_order(before: &Note, at: &Note, tabs: &mut [Tab]) {
    let everywhere: HashSet<&TabId> = at
        .tabs
        .iter()
        .filter(|t| before.tab(&t.id).is_some() && tabs.iter().any(|n| n.id == t.id))
        .map(|t| &t.id)
        .collect();
    let order = |list: &[Tab]| -> Vec<TabId> {
        list.iter()
            .filter(|t| everywhere.contains(&t.id))
            .map(|t| t.id.clone())
            .collect()
    };
    let (was, made, now) = (order(&before.tabs), order(&at.tabs), order(tabs));
    if was == made || now != made {
        return;
    }
    let slots: Vec<usize> = (0..tabs.len())
        .filter(|&i| everywhere.contains(&tabs[i].id))
        .collect();
    let mut moved: Vec<Tab> = Vec::with_capacity(slots.len());
    for id in &was {
        if let Some(tab) = tabs.iter().find(|t| &t.id == id) {
            moved.push(tab.clone());
        }
    }
    for (slot, tab) in slots.into_iter().zip(moved) {
        tabs[slot] = tab;
    }
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

/// A line merge where only changes of the same lines clash (None): unlike diff3, a change of
/// the line next to the other side's change merges.
fn merge_lines(base: &str, mine: &str, theirs: &str) -> Option<String> {
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
