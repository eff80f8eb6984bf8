//! What readers see of a Note's state: its snapshot with the status, the view of its tabs, a
//! conflict's three sides and proposed merge.

use quire_model::{TabData, TabId, Version};

use super::types::{
    ConflictView, EngineError, NoteStatus, NoteView, Result, Snapshot, TabStatus, TabSummary,
    TabView,
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

pub(super) fn view(snap: &Snapshot) -> NoteView {
    let sync = &snap.sync;
    let (title, version, tabs) = match &sync.server {
        Some(n) => (n.title.clone(), n.version, n.tabs.as_slice()),
        None => (String::new(), Version(0), &[][..]),
    };
    let shown = |id: &TabId, fallback: &TabData| {
        sync.shown(id)
            .map(|c| c.0.to_value())
            .unwrap_or_else(|| fallback.to_value())
    };
    let views = tabs
        .iter()
        .map(|t| TabView {
            id: t.id.clone(),
            kind: t.kind(),
            label: t.label.clone(),
            data: shown(&t.id, &t.data),
            status: tab_status(sync, &t.id),
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
