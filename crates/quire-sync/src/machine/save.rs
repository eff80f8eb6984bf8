//! Saving a tab: the person's edits become a draft, the draft a guarded save; what the server
//! answers (committed, refused, rejected, no answer) and the offline marks.

use quire_api::WriteResult;
use std::sync::Arc;

use quire_model::{Note, Tab, TabData, TabId, Timestamp, Version};

use super::{
    BaseAt, Busy, Draft, Effect, NoteSync, Notice, PendingSave, Persist, SaveRequest, SyncError,
    SyncErrorKind, TabState, Target, Timer, WriteBody, conflict, is_failed, offline_error,
    refused_error,
};
use crate::content::{Content, is_editable};

/// The person's edit of a tab. With no draft yet, `older_base` (the editor's version and what is
/// known locally of the tab then) decides the draft's base: the server's state, the older
/// content (then judged at once), or unknown (then the draft waits for the server to give it).
pub(super) fn on_edit(
    s: &mut NoteSync,
    tab_id: TabId,
    content: Content,
    now: Timestamp,
    older_base: Option<(Version, BaseAt)>,
    fx: &mut Vec<Effect>,
) {
    if let Some(d) = s.drafts.get_mut(&tab_id)
        && let Some(held) = &mut d.held
    {
        // Typing goes on over a held edit: the newest is what is judged.
        if held.edit.kind() == content.kind() {
            held.edit = content;
            d.updated_at = now;
            s.persist_draft(&tab_id, fx);
        }
        return;
    }
    // An edit typed before the editor showed another writer's change merged into this tab is
    // merged again; an edit on what the engine holds ends that.
    let stage = s.unseen.get(&tab_id).and_then(|stages| {
        let (version, _) = older_base.as_ref()?;
        stages.iter().position(|u| *version < u.version)
    });
    let (content, older_base) = match stage {
        Some(stage) => match conflict::merge_unseen(s, &tab_id, stage, content, now, fx) {
            Some(merged) => (merged, None),
            None => return,
        },
        None => {
            s.unseen.remove(&tab_id);
            (content, older_base)
        }
    };
    // Whether the tab's newest server state is this app's own save, untouched since.
    let own_save_is_newest = s.saved.remove(&tab_id);
    if let Some(d) = s.drafts.get_mut(&tab_id) {
        if d.mine.kind() != content.kind() {
            return;
        }
        d.mine = content;
        d.updated_at = now;
        if is_failed(d) {
            // Editing again is the person's way to retry.
            d.last_error = None;
        }
        let in_conflict = d.theirs.is_some();
        s.persist_draft(&tab_id, fx);
        if !in_conflict {
            s.ready.remove(&tab_id);
            let after = s.config.debounce;
            s.arm(Timer::Debounce(tab_id), after, fx);
        }
        return;
    }
    let Some(server) = &s.server else { return };
    let Some(tab) = server.tab(&tab_id) else {
        return;
    };
    // The tab's content at the server's version: this app's own save that made it, if so.
    let current = match &s.last_saved {
        Some((id, saved)) if *id == tab_id && s.own_saved(&tab_id) == server.version => {
            saved.clone()
        }
        _ => Content::new(tab.data.clone()),
    };
    // An edit made on a base older than this app's own save (it was typed while the save was on
    // the wire) already contains what was saved: nothing else changed the tab, so it is judged
    // against the server's state, not as a conflict with itself.
    let older = older_base
        .map(|(version, base)| (version.max(s.own_saved(&tab_id)), base))
        .filter(|(version, _)| *version < server.version && !own_save_is_newest);
    let (base_version, base, behind, base_missing) = match older {
        Some((version, BaseAt::Known(base))) if base != current => (version, base, true, false),
        Some((version, BaseAt::Unknown)) => (version, current, false, true),
        // The tab did not change since (or is newer than the editor's version).
        _ => (server.version, current, false, false),
    };
    if !is_editable(base.kind()) || base.kind() != content.kind() || base == content {
        return;
    }
    let draft = Draft {
        note_id: s.note_id.clone(),
        tab_id: tab_id.clone(),
        base_version,
        base,
        mine: content,
        pending: None,
        theirs: None,
        last_error: None,
        state: TabState::Dirty,
        updated_at: now,
        base_missing,
        held: None,
    };
    s.drafts.insert(tab_id.clone(), draft);
    s.persist_draft(&tab_id, fx);
    if base_missing {
        // Judged when the server gives the base (pump asks for it).
        return;
    }
    if behind {
        // Made on an older base: judged against the server now (a conflict if the tab changed).
        conflict::reconcile(s, fx);
        if s.drafts.get(&tab_id).is_some_and(|d| d.theirs.is_some()) {
            return;
        }
    }
    let after = s.config.debounce;
    s.arm(Timer::Debounce(tab_id), after, fx);
}

pub(super) fn go_offline(s: &mut NoteSync, reason: &str, fx: &mut Vec<Effect>) {
    let attempt = s.offline.map_or(1, |n| n + 1);
    s.offline = Some(attempt);
    s.stats.offline_failures += 1;
    s.waiting_retry = true;
    let after = s.config.backoff(attempt);
    s.arm(Timer::Retry, after, fx);
    let tabs: Vec<TabId> = s.drafts.keys().cloned().collect();
    for tab_id in tabs {
        if let Some(d) = s.drafts.get_mut(&tab_id)
            && d.theirs.is_none()
            && !is_failed(d)
        {
            d.last_error = Some(offline_error(reason));
            s.persist_draft(&tab_id, fx);
        }
    }
}

/// The server answered: drop the offline marks on every draft.
pub(super) fn back_online(s: &mut NoteSync, fx: &mut Vec<Effect>) {
    let was_offline = s.offline.take().is_some();
    s.waiting_retry = false;
    if !was_offline {
        return;
    }
    let tabs: Vec<TabId> = s
        .drafts
        .values()
        .filter(|d| {
            d.last_error
                .as_ref()
                .is_some_and(|e| e.kind == SyncErrorKind::Offline)
        })
        .map(|d| d.tab_id.clone())
        .collect();
    for tab_id in tabs {
        if let Some(d) = s.drafts.get_mut(&tab_id) {
            d.last_error = None;
        }
        s.persist_draft(&tab_id, fx);
    }
}

/// A tab's save committed (or was replayed): the draft is done unless typing went on.
pub(super) fn on_saved(s: &mut NoteSync, tab_id: TabId, result: WriteResult, fx: &mut Vec<Effect>) {
    let Some(d) = s.drafts.get_mut(&tab_id) else {
        return;
    };
    let Some(pending) = d.pending.take() else {
        return;
    };
    d.base = pending.content.clone();
    d.base_version = result.version;
    d.last_error = None;
    s.own_saved.insert(tab_id.clone(), result.version);
    s.last_saved = Some((tab_id.clone(), pending.content.clone()));
    if let Some(server) = &mut s.server
        && result.version > server.version
    {
        // CAS: the Note is exactly what we had plus this change. Made anew (the Note held is
        // shared with snapshots): the other tabs copied, this one's content once.
        let saved = Arc::new(Note {
            id: server.id.clone(),
            title: server.title.clone(),
            version: result.version,
            tabs: server
                .tabs
                .iter()
                .map(|t| Tab {
                    id: t.id.clone(),
                    label: t.label.clone(),
                    data: if t.id == tab_id {
                        TabData::clone(&pending.content.0)
                    } else {
                        t.data.clone()
                    },
                })
                .collect(),
            seq: server.seq,
        });
        *server = saved.clone();
        fx.push(Effect::Persist(Persist::Base(saved)));
    }
    fx.push(Effect::Notify(Notice::TabSaved {
        tab_id: tab_id.clone(),
        version: result.version,
        replayed: result.replayed,
        unseen: s.unseen.contains_key(&tab_id),
    }));
    let unchanged_since = s
        .drafts
        .get(&tab_id)
        .is_some_and(|d| d.mine == d.base && d.held.is_none());
    if unchanged_since {
        s.drop_draft(&tab_id, fx);
        s.saved.insert(tab_id);
    } else {
        s.persist_draft(&tab_id, fx);
    }
    conflict::reconcile(s, fx);
}

/// 409: the save never committed; the next attempt is a new write once the Note is read again.
pub(super) fn on_refused(
    s: &mut NoteSync,
    tab_id: &TabId,
    current_version: Version,
    fx: &mut Vec<Effect>,
) {
    s.offline = None;
    s.stats.refused += 1;
    if let Some(d) = s.drafts.get_mut(tab_id) {
        // Refused means not committed: the next attempt is a new write.
        d.pending = None;
        d.last_error = Some(refused_error(current_version));
    }
    s.persist_draft(tab_id, fx);
    s.need_fetch = true;
}

/// A refusal retrying will not fix: the draft waits for the person.
pub(super) fn on_rejected(
    s: &mut NoteSync,
    tab_id: &TabId,
    status: u16,
    code: &str,
    message: &str,
    fx: &mut Vec<Effect>,
) {
    s.offline = None;
    if let Some(d) = s.drafts.get_mut(tab_id) {
        d.pending = None;
        d.last_error = Some(SyncError {
            kind: SyncErrorKind::Rejected,
            code: code.to_owned(),
            message: format!("{status}: {message}"),
        });
    }
    s.ready.remove(tab_id);
    s.persist_draft(tab_id, fx);
    if code == "tab_not_found" {
        // Read the strip again: reconcile shows the tab as gone.
        s.need_fetch = true;
    }
}

/// A save whose outcome is unknown goes out again exactly as it was.
pub(super) fn resend_pending(s: &mut NoteSync, fx: &mut Vec<Effect>) -> bool {
    let resend = s
        .drafts
        .values()
        .find(|d| d.pending.is_some())
        .map(|d| d.tab_id.clone());
    if let Some(tab_id) = resend {
        if let Some(d) = s.drafts.get(&tab_id)
            && let Some(p) = d.pending.clone()
        {
            // The base is still the one the save was made on (it moves only when a save's
            // outcome is known): the same operation goes out.
            let op = p.content.to_op_from(&d.base, &tab_id);
            s.busy = Busy::Saving(Target::Tab(tab_id.clone()));
            s.stats.saves_sent += 1;
            fx.push(Effect::Send(SaveRequest {
                key: p.key,
                expected_version: p.expected_version,
                body: WriteBody::Ops { changes: vec![op] },
            }));
        }
        return true;
    }
    false
}

/// The next tab whose debounce has elapsed, saved on the guard.
pub(super) fn send_ready(s: &mut NoteSync, guard: Version, fx: &mut Vec<Effect>) {
    let candidates: Vec<TabId> = s.ready.iter().cloned().collect();
    for tab_id in candidates {
        let Some(d) = s.drafts.get(&tab_id) else {
            s.ready.remove(&tab_id);
            continue;
        };
        if d.theirs.is_some() || is_failed(d) || d.base_missing || d.base_version != guard {
            continue;
        }
        if d.mine == d.base {
            if d.held.is_none() {
                s.drop_draft(&tab_id, fx);
            }
            continue;
        }
        s.ready.remove(&tab_id);
        let key = s.new_key();
        let Some(d) = s.drafts.get_mut(&tab_id) else {
            continue;
        };
        let pending = PendingSave {
            key: key.clone(),
            expected_version: d.base_version,
            content: d.mine.clone(),
        };
        let op = pending.content.to_op_from(&d.base, &tab_id);
        d.pending = Some(pending.clone());
        s.busy = Busy::Saving(Target::Tab(tab_id.clone()));
        // The draft, with its key, is on disk before the request leaves.
        s.persist_draft(&tab_id, fx);
        s.stats.saves_sent += 1;
        fx.push(Effect::Send(SaveRequest {
            key,
            expected_version: pending.expected_version,
            body: WriteBody::Ops { changes: vec![op] },
        }));
        return;
    }
}
