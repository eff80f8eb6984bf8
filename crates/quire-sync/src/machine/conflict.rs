//! Holding drafts against the server: a read of the Note rebases a draft whose tab the server
//! did not touch and hands the person a conflict when it did; their decision; the base of an
//! edit not known locally.

use quire_model::{Note, TabId, Timestamp, Version};

use super::{
    ArchiveReason, Busy, Effect, NoteSync, Notice, Persist, Resolution, SyncErrorKind, Target,
    Theirs,
};
use crate::content::Content;

pub(super) fn on_fetched(s: &mut NoteSync, note: Note, fx: &mut Vec<Effect>) {
    if s.guard().is_some_and(|g| note.version < g) {
        return; // Older than what we already hold.
    }
    let before = s.server.replace(note.clone());
    if before.as_ref() != Some(&note) {
        fx.push(Effect::Persist(Persist::Base(Box::new(note.clone()))));
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
        fx.push(Effect::Notify(Notice::RemoteApplied { tab_ids: changed }));
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
        let Some(t) = server.tab(&tab_id).map(|t| Content(t.data.clone())) else {
            // The tab is gone on the server: the person decides (only "take theirs" applies).
            mark_conflict(s, &tab_id, server.version, None, fx);
            continue;
        };
        if d.theirs.is_none() && d.mine == d.base {
            s.drop_draft(&tab_id, fx);
            continue;
        }
        if t == d.mine {
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
        mark_conflict(s, &tab_id, server.version, Some(t), fx);
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
                d.base = Content(t.data.clone());
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
        let theirs = server.tab(&tab_id).map(|t| Content(t.data.clone()));
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
