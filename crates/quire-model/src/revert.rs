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

use crate::merge::{merge_data, pick3};
use crate::{Note, Tab, TabId, Version};

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
    let label = pick3(&made.label, &now.label, &old.label).ok()?;
    // V's change is the other side of a merge whose ancestor is V itself.
    let data = merge_data(&made.data, &now.data, &old.data)?;
    Some(Tab {
        id: now.id.clone(),
        label,
        data,
    })
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
