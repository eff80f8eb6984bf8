//! What readers see of a Note's state: its snapshot with the status, the view of its tabs, a
//! conflict's three sides and proposed merge.

use quire_model::{Tab, TabData, TabId, Version};

use serde_json::Value;

use super::types::{
    ConflictView, DEFER_OVER_BYTES, EngineError, NoteStatus, NoteView, Result, SheetOutline,
    SheetRows, Snapshot, TabOutline, TabStatus, TabSummary, TabView, TextPart,
};
use crate::machine::NoteSync;
use crate::merge::TabMerge;

pub(super) fn conflict_view(sync: &NoteSync, tab_id: &TabId) -> Result<ConflictView> {
    let d = sync
        .drafts
        .get(tab_id)
        .ok_or_else(|| EngineError::NoConflict(tab_id.clone()))?;
    let theirs = d
        .theirs
        .as_ref()
        .ok_or_else(|| EngineError::NoConflict(tab_id.clone()))?;
    let merge = match &theirs.content {
        Some(t) => Some(TabMerge::of(&d.base, &d.mine, t)?),
        None => None,
    };
    Ok(ConflictView {
        tab_id: tab_id.clone(),
        base_version: d.base_version,
        base: d.base.clone(),
        mine: d.mine.clone(),
        theirs_version: theirs.version,
        theirs: theirs.content.clone(),
        merge,
    })
}

pub(super) fn tab_status(sync: &NoteSync, tab_id: &TabId) -> TabStatus {
    let d = sync.drafts.get(tab_id);
    TabStatus {
        tab_id: tab_id.clone(),
        state: sync.tab_state(tab_id),
        last_error: d.and_then(|d| d.last_error.clone()),
        base_version: d.map(|d| d.base_version),
        theirs_version: d.and_then(|d| d.theirs.as_ref().map(|t| t.version)),
        gone: d.is_some_and(|d| d.theirs.as_ref().is_some_and(|t| t.content.is_none())),
        unseen: sync.is_unseen(tab_id),
    }
}

/// The next [`NoteStatus::seq`].
static STATUS_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(super) fn snapshot(sync: NoteSync) -> Snapshot {
    let mut ids: Vec<TabId> = sync
        .server
        .as_ref()
        .map(|n| n.tab_ids())
        .unwrap_or_default();
    for t in sync.drafts.keys() {
        if !ids.contains(t) {
            ids.push(t.clone());
        }
    }
    let status = NoteStatus {
        note_id: sync.note_id.clone(),
        seq: STATUS_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        guard: sync.guard(),
        offline: sync.is_offline(),
        settled: sync.is_settled(),
        tabs: ids.iter().map(|t| tab_status(&sync, t)).collect(),
        queued_writes: sync.outbox.len(),
        stats: sync.stats,
    };
    Snapshot { sync, status }
}

/// Which tabs' data a view carries.
#[derive(Debug, Clone, Copy)]
pub(super) enum ViewData<'a> {
    /// Every tab's.
    All,
    /// These tabs' (the first tab's when none of them is in the Note: the one the person sees
    /// then) and every other tab's not larger than [`DEFER_OVER_BYTES`]; the others are
    /// `deferred`.
    Showing(&'a [TabId]),
}

pub(super) fn view(snap: &Snapshot) -> NoteView {
    view_with(snap, ViewData::All)
}

pub(super) fn view_with(snap: &Snapshot, data_for: ViewData<'_>) -> NoteView {
    let sync = &snap.sync;
    let (title, version, tabs) = match &sync.server {
        Some(n) => (n.title.clone(), n.version, n.tabs.as_slice()),
        None => (String::new(), Version(0), &[][..]),
    };
    let first = match data_for {
        ViewData::Showing(want) if !tabs.iter().any(|t| want.contains(&t.id)) => {
            tabs.first().map(|t| &t.id)
        }
        _ => None,
    };
    let views = tabs
        .iter()
        .map(|t| {
            // A long text comes in parts even when shown: no answer carries more than
            // DEFER_OVER_BYTES of it (a 10 MiB answer held the window's frames for 100 ms).
            let defer = match data_for {
                ViewData::Showing(_) if matches!(t.data, TabData::Markdown(_)) => true,
                ViewData::Showing(want) => !want.contains(&t.id) && first != Some(&t.id),
                ViewData::All => false,
            };
            view_of(sync, t, defer)
        })
        .collect();
    let orphan_drafts = sync
        .drafts
        .values()
        .filter(|d| !tabs.iter().any(|t| t.id == d.tab_id))
        .map(|d| TabView {
            id: d.tab_id.clone(),
            kind: d.mine.kind(),
            label: String::new(),
            data: d.mine.0.to_value(),
            status: tab_status(sync, &d.tab_id),
            deferred: None,
        })
        .collect();
    NoteView {
        note_id: sync.note_id.clone(),
        title,
        version,
        tabs: views,
        orphan_drafts,
    }
}

/// One tab's view, with its data (whatever its size); `None` when the Note has no such tab.
pub(super) fn tab_view(snap: &Snapshot, tab_id: &TabId) -> Option<TabView> {
    let sync = &snap.sync;
    Some(view_of(sync, sync.server.as_ref()?.tab(tab_id)?, false))
}

/// The view of the server's tab `t` as the person sees it (their edits over the server's data);
/// with `defer`, a tab larger than [`DEFER_OVER_BYTES`] comes without its data, outlined.
fn view_of(sync: &NoteSync, t: &Tab, defer: bool) -> TabView {
    let data = sync.shown_data(&t.id).unwrap_or(&t.data);
    let deferred = (defer && weight(data) > DEFER_OVER_BYTES).then(|| outline(data));
    TabView {
        id: t.id.clone(),
        kind: t.kind(),
        label: t.label.clone(),
        data: if deferred.is_some() {
            Value::Null
        } else {
            data.to_value()
        },
        status: tab_status(sync, &t.id),
        deferred,
    }
}

/// The data of the server's tab `tab_id` as the person sees it. A tab the server's Note does
/// not hold is gone, even where a draft of it is left.
fn shown_tab<'a>(snap: &'a Snapshot, tab_id: &TabId) -> Result<&'a TabData> {
    let sync = &snap.sync;
    match sync.server.as_ref().and_then(|n| n.tab(tab_id)) {
        Some(t) => Ok(sync.shown_data(tab_id).unwrap_or(&t.data)),
        None => Err(tab_gone(snap, tab_id)),
    }
}

/// Rows `start..start + count` (fewer at the end) of the sheet `sheet_id` of a sheet tab, as
/// the person sees it.
pub(super) fn sheet_rows(
    snap: &Snapshot,
    tab_id: &TabId,
    sheet_id: &str,
    start: usize,
    count: usize,
) -> Result<SheetRows> {
    let sync = &snap.sync;
    let TabData::Sheet(tab) = shown_tab(snap, tab_id)? else {
        return Err(EngineError::NotASheet(tab_id.clone()));
    };
    let sheet = tab
        .sheets
        .iter()
        .find(|s| s.id == sheet_id)
        .ok_or_else(|| EngineError::SheetGone {
            tab_id: tab_id.clone(),
            sheet_id: sheet_id.to_owned(),
        })?;
    let total = sheet.rows.len();
    let from = start.min(total);
    let to = from.saturating_add(count).min(total);
    Ok(SheetRows {
        version: sync.server.as_ref().map_or(Version(0), |n| n.version),
        total,
        rows: sheet.rows[from..to].to_vec(),
    })
}

/// Bytes of a Markdown tab's text as the person sees it from the character boundary at or
/// before `start` to the one at or before `start + max` (at least one character): parts of
/// `max` bytes asked for at `0, max, 2 max, ...` follow one another exactly, so they can be
/// asked for at once.
pub(super) fn text_part(
    snap: &Snapshot,
    tab_id: &TabId,
    start: usize,
    max: usize,
) -> Result<TextPart> {
    let sync = &snap.sync;
    let TabData::Markdown(text) = shown_tab(snap, tab_id)? else {
        return Err(EngineError::NotAText(tab_id.clone()));
    };
    let total = text.len();
    let floor = |mut at: usize| {
        at = at.min(total);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let (start, mut next) = (floor(start), floor(start.saturating_add(max)));
    if next == start && start < total {
        next = start + 1;
        while !text.is_char_boundary(next) {
            next += 1;
        }
    }
    Ok(TextPart {
        version: sync.server.as_ref().map_or(Version(0), |n| n.version),
        total,
        start,
        next,
        // Read from its pieces if it is in pieces (a keystroke's text): not written out and
        // kept whole beside the text its pieces stand on.
        text: text
            .part(start, next)
            .map(|part| part.into_owned())
            .unwrap_or_default(),
    })
}

/// What a tab's data weighs, for [`DEFER_OVER_BYTES`]: a text's bytes, 8 bytes a cell; lists
/// and decks count nothing (their limits keep them small).
fn weight(data: &TabData) -> usize {
    match data {
        TabData::Markdown(text) => text.len(),
        TabData::Sheet(tab) => tab
            .sheets
            .iter()
            .map(|s| s.rows.iter().map(|r| r.len()).sum::<usize>())
            .sum::<usize>()
            .saturating_mul(8),
        TabData::Slides(_) | TabData::Sources(_) | TabData::Files(_) => 0,
    }
}

fn outline(data: &TabData) -> TabOutline {
    let sheets = match data {
        TabData::Sheet(tab) => tab
            .sheets
            .iter()
            .map(|s| SheetOutline {
                id: s.id.clone(),
                name: s.name.clone(),
                rows: s.rows.len(),
            })
            .collect(),
        _ => Vec::new(),
    };
    TabOutline { sheets }
}

pub(super) fn tab_gone(snap: &Snapshot, tab_id: &TabId) -> EngineError {
    EngineError::TabGone {
        tab_id: tab_id.clone(),
        tabs: snap
            .sync
            .server
            .as_ref()
            .map(|n| {
                n.tabs
                    .iter()
                    .map(|t| TabSummary {
                        id: t.id.clone(),
                        kind: t.kind(),
                        label: t.label.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}
