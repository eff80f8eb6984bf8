//! Holding drafts against the server: a read of the Note rebases a draft whose tab the server
//! did not touch and hands the person a conflict when it did; their decision; the base of an
//! edit not known locally.

use std::sync::Arc;

use quire_model::merge::merge_data;
use quire_model::{Note, TabId, Timestamp, Version};

use super::{
    ArchiveReason, Busy, Draft, Effect, Held, NoteSync, Notice, Persist, Resolution, SyncErrorKind,
    TabState, Target, Theirs, Unseen,
};
use crate::content::Content;

pub(super) fn on_fetched(s: &mut NoteSync, note: Note, fx: &mut Vec<Effect>) {
    if s.guard().is_some_and(|g| note.version < g) {
        return; // Older than what we already hold.
    }
    let note = Arc::new(note);
    let before = s.server.replace(note.clone());
    if before.as_deref() != Some(&*note) {
        fx.push(Effect::Persist(Persist::Base(note.clone())));
    }
    // Clean tabs follow the server at once.
    let changed: Vec<TabId> = note
        .tabs
        .iter()
        .filter(|t| !s.drafts.contains_key(&t.id))
        .filter(|t| before.as_ref().and_then(|b| b.tab(&t.id)) != Some(*t))
        .map(|t| t.id.clone())
        .collect();
    for t in &changed {
        s.saved.remove(t);
    }
    // Every version this read brings is one of this app's own structural writes (a restore, a
    // rename): nothing in it is another writer's. When any other version is among them, which
    // tab whose it changed is not known here: all are told, as before.
    let own = std::mem::take(&mut s.own_unread);
    let only_own = before.as_ref().is_some_and(|b| {
        note.version > b.version
            && (b.version.0 + 1..=note.version.0).all(|v| own.contains(&Version(v)))
    });
    s.own_unread = own.into_iter().filter(|v| *v > note.version).collect();
    if before.is_some() && !changed.is_empty() && !only_own {
        fx.push(Effect::Notify(Notice::RemoteApplied {
            tab_ids: changed,
            version: note.version,
        }));
    }
    reconcile(s, fx);
}

/// Holds every draft against the server state: rebase it when the server did not touch its tab,
/// drop it when the server holds it already, or hand the person a conflict.
pub(super) fn reconcile(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    let Some(server) = s.server.clone() else {
        return;
    };
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        let inflight = s.busy == Busy::Saving(Target::Tab(tab_id.clone()));
        let Some(d) = s.drafts.get(&tab_id) else {
            continue;
        };
        if inflight || d.pending.is_some() {
            continue; // Outcome unknown: judged when the server answers.
        }
        if d.base_missing {
            continue; // Judged when the server gives the base.
        }
        if d.base_version > server.version {
            s.need_fetch = true;
            continue;
        }
        let refused = d
            .last_error
            .as_ref()
            .is_some_and(|e| e.kind == SyncErrorKind::Refused);
        let Some(t) = server.tab(&tab_id).map(|t| Content::new(t.data.clone())) else {
            // The tab is gone on the server: the person decides (only "take theirs" applies).
            mark_conflict(s, &tab_id, server.version, None, fx);
            continue;
        };
        if d.held.is_some() && d.theirs.is_none() && t == d.mine {
            judge_held(s, &tab_id, server.version, t, fx);
            continue;
        }
        if d.theirs.is_none() && d.mine == d.base && d.held.is_none() {
            s.drop_draft(&tab_id, fx);
            continue;
        }
        if t == d.mine && d.held.is_none() {
            // The server holds exactly the person's content: nothing left to save.
            s.drop_draft(&tab_id, fx);
            continue;
        }
        if d.base_version == server.version && d.theirs.is_none() {
            if refused {
                s.ready.insert(tab_id.clone());
            }
            continue;
        }
        if t == d.base {
            // The server did not touch this tab: the draft moves to the new version.
            if let Some(d) = s.drafts.get_mut(&tab_id) {
                d.base_version = server.version;
                d.theirs = None;
                if refused {
                    // Re-applied on the new base: the refusal is dealt with.
                    d.last_error = None;
                }
            }
            if refused {
                s.stats.auto_rebased += 1;
                s.ready.insert(tab_id.clone());
                fx.push(Effect::Notify(Notice::Rebased {
                    tab_id: tab_id.clone(),
                    version: server.version,
                }));
            }
            s.persist_draft(&tab_id, fx);
            continue;
        }
        // Both changed the tab: where they changed different lines, cells or slides, the
        // draft takes the other writer's change and is saved on the new version.
        if d.theirs.is_none()
            && let Some(merged) = merge_data(&d.base.0, &d.mine.0, &t.0)
        {
            merge_in(s, &tab_id, server.version, t, Content::new(merged), fx);
            continue;
        }
        mark_conflict(s, &tab_id, server.version, Some(t), fx);
    }
}

/// The draft becomes `merged` (its own changes and the server's `theirs`, at `version`), saved
/// on that version. Until the editor shows it, edits made on older versions are merged again.
fn merge_in(
    s: &mut NoteSync,
    tab_id: &TabId,
    version: Version,
    theirs: Content,
    merged: Content,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get_mut(tab_id) else {
        return;
    };
    let editor = std::mem::replace(&mut d.mine, merged);
    d.base = theirs;
    d.base_version = version;
    if d.last_error
        .as_ref()
        .is_some_and(|e| e.kind == SyncErrorKind::Refused)
    {
        d.last_error = None;
    }
    let stages = s.unseen.entry(tab_id.clone()).or_default();
    match stages.last_mut() {
        // Nothing shown changed since the last merge: an editor on an older version has it.
        Some(last) if last.editor == editor => last.version = version,
        _ => stages.push(Unseen { version, editor }),
    }
    s.stats.auto_rebased += 1;
    s.ready.insert(tab_id.clone());
    s.persist_draft(tab_id, fx);
    fx.push(Effect::Notify(Notice::Rebased {
        tab_id: tab_id.clone(),
        version,
    }));
    fx.push(Effect::Notify(Notice::RemoteApplied {
        tab_ids: vec![tab_id.clone()],
        version,
    }));
}

/// An edit made before the editor showed the other writer's change merged into its tab (see
/// [`Unseen`]), merged again onto what the engine holds: the content to take as the edit, or
/// None when it clashed with that change (then held until the merged content is on the server,
/// or a conflict now).
pub(super) fn merge_unseen(
    s: &mut NoteSync,
    tab_id: &TabId,
    stage: usize,
    edit: Content,
    now: Timestamp,
    fx: &mut Vec<Effect>,
) -> Option<Content> {
    // The editor is past the stages before this one: its edit was typed on this one's content.
    let stages = s.unseen.get_mut(tab_id)?;
    stages.drain(..stage);
    let editor = stages.first()?.editor.clone();
    let server = s.server.clone()?;
    let on_server = server.tab(tab_id).map(|t| Content::new(t.data.clone()));
    let holds = match s.drafts.get(tab_id) {
        Some(d) => d.mine.clone(),
        None => on_server.clone()?,
    };
    if let Some(merged) = merge_data(&editor.0, &edit.0, &holds.0) {
        if let Some(u) = s.unseen.get_mut(tab_id).and_then(|u| u.first_mut()) {
            u.editor = edit;
        }
        return Some(Content::new(merged));
    }
    match s.drafts.get_mut(tab_id) {
        Some(d) if d.pending.is_some() || on_server.as_ref() != Some(&d.mine) => {
            // The merged content is not on the server yet: it goes first, the edit waits.
            d.held = Some(Held { editor, edit });
            d.updated_at = now;
            s.ready.insert(tab_id.clone());
            s.persist_draft(tab_id, fx);
            return None;
        }
        Some(d) => {
            d.base = editor;
            d.mine = edit;
            d.updated_at = now;
        }
        None => {
            let draft = Draft {
                note_id: s.note_id.clone(),
                tab_id: tab_id.clone(),
                base_version: server.version,
                base: editor,
                mine: edit,
                pending: None,
                theirs: None,
                last_error: None,
                state: TabState::Dirty,
                updated_at: now,
                base_missing: false,
                held: None,
            };
            s.drafts.insert(tab_id.clone(), draft);
        }
    }
    s.unseen.remove(tab_id);
    s.persist_draft(tab_id, fx);
    mark_conflict(s, tab_id, server.version, on_server, fx);
    None
}

/// The merged content is on the server (`theirs`, at `version`): the held edit is merged onto
/// it, or the person decides (the ancestor is what the editor showed when they typed it).
fn judge_held(
    s: &mut NoteSync,
    tab_id: &TabId,
    version: Version,
    theirs: Content,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get_mut(tab_id) else {
        return;
    };
    let Some(held) = d.held.take() else {
        return;
    };
    match merge_data(&held.editor.0, &held.edit.0, &theirs.0) {
        Some(merged) => {
            d.mine = Content::new(merged);
            d.base = theirs;
            d.base_version = version;
            if let Some(u) = s.unseen.get_mut(tab_id).and_then(|u| u.first_mut()) {
                u.editor = held.edit;
            }
            s.ready.insert(tab_id.clone());
            s.persist_draft(tab_id, fx);
        }
        None => {
            d.base = held.editor;
            d.mine = held.edit;
            s.unseen.remove(tab_id);
            s.persist_draft(tab_id, fx);
            mark_conflict(s, tab_id, version, Some(theirs), fx);
        }
    }
}

pub(super) fn mark_conflict(
    s: &mut NoteSync,
    tab_id: &TabId,
    version: Version,
    theirs: Option<Content>,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get_mut(tab_id) else {
        return;
    };
    if d.theirs.as_ref().is_some_and(|t| t.content == theirs) {
        // Same content at a later version: the conflict the person is looking at is unchanged.
        return;
    }
    let fresh = Some(Theirs {
        version,
        content: theirs,
    });
    let was_conflict = d.theirs.is_some();
    d.theirs = fresh;
    d.last_error = None;
    s.ready.remove(tab_id);
    if !was_conflict {
        s.stats.conflicts_shown += 1;
        fx.push(Effect::Notify(Notice::ConflictShown {
            tab_id: tab_id.clone(),
        }));
    }
    s.persist_draft(tab_id, fx);
}

pub(super) fn on_resolve(
    s: &mut NoteSync,
    tab_id: TabId,
    resolution: Resolution,
    theirs_version: Version,
    now: Timestamp,
    fx: &mut Vec<Effect>,
) {
    let Some(d) = s.drafts.get(&tab_id).cloned() else {
        return;
    };
    let Some(theirs) = d.theirs.clone() else {
        return;
    };
    if theirs.version != theirs_version {
        return;
    }
    match resolution {
        Resolution::TakeTheirs => {
            fx.push(Effect::Persist(Persist::Archive {
                draft: Box::new(d),
                reason: ArchiveReason::TookTheirs,
                at: now,
            }));
            s.drop_draft(&tab_id, fx);
        }
        Resolution::KeepMine | Resolution::Merged(_) => {
            let Some(their_content) = theirs.content else {
                return; // The tab is gone on the server: only "take theirs" applies.
            };
            let mine = match resolution {
                Resolution::Merged(c) => c,
                _ => d.mine.clone(),
            };
            if mine.kind() != their_content.kind() {
                return;
            }
            if let Some(d) = s.drafts.get_mut(&tab_id) {
                d.base = their_content;
                d.base_version = theirs.version;
                d.mine = mine;
                d.theirs = None;
                d.last_error = None;
                d.updated_at = now;
            }
            s.ready.insert(tab_id.clone());
            s.persist_draft(&tab_id, fx);
            // Theirs may be older than the guard by now; reconcile against the server again.
            reconcile(s, fx);
        }
    }
}

/// The server gave the Note at an older version: the drafts waiting for that base are judged
/// against the server state now (a conflict if their tab changed since).
pub(super) fn on_version_fetched(s: &mut NoteSync, note: Note, fx: &mut Vec<Effect>) {
    let waiting: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| d.base_missing && d.base_version == note.version)
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in &waiting {
        if let Some(d) = s.drafts.get_mut(tab_id) {
            if let Some(t) = note.tab(tab_id).filter(|t| t.kind() == d.mine.kind()) {
                d.base = Content::new(t.data.clone());
            }
            d.base_missing = false;
        }
        s.persist_draft(tab_id, fx);
    }
    reconcile(s, fx);
    for tab_id in waiting {
        if s.drafts.get(&tab_id).is_some_and(|d| d.theirs.is_none()) {
            s.ready.insert(tab_id);
        }
    }
}

/// The server will not give the base (e.g. that version is gone): the person decides, on the
/// server's content, since what the draft was made on cannot be known.
pub(super) fn base_refused(s: &mut NoteSync, version: Version, fx: &mut Vec<Effect>) {
    let Some(server) = s.server.clone() else {
        return;
    };
    let waiting: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| d.base_missing && d.base_version == version)
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in waiting {
        if let Some(d) = s.drafts.get_mut(&tab_id) {
            d.base_missing = false;
        }
        let theirs = server.tab(&tab_id).map(|t| Content::new(t.data.clone()));
        mark_conflict(s, &tab_id, server.version, theirs, fx);
    }
}

/// Asks the server for the base of a draft not known locally, if there is one.
pub(super) fn fetch_missing_base(s: &mut NoteSync, fx: &mut Vec<Effect>) -> bool {
    if let Some(version) = s
        .drafts
        .values()
        .find(|d| d.base_missing)
        .map(|d| d.base_version)
    {
        s.busy = Busy::FetchingVersion;
        fx.push(Effect::FetchVersion(version));
        return true;
    }
    false
}
