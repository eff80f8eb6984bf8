//! Structural writes (tabs, title, sources, files, restore, revert): queued and persisted, sent one at a
//! time in order, guarded and idempotent like saves.

use quire_api::WriteResult;
use quire_model::Version;

use super::{
    Busy, Effect, Failure, NoteSync, Notice, OnConflict, Outgoing, Persist, SaveRequest, Target,
};

/// Queues a structural write (persisted first).
pub(super) fn enqueue(s: &mut NoteSync, outgoing: Outgoing, fx: &mut Vec<Effect>) {
    fx.push(Effect::Persist(Persist::Outgoing(Box::new(
        outgoing.clone(),
    ))));
    s.outbox.push_back(outgoing);
}

/// A structural write committed: done, and the Note is read back.
pub(super) fn on_saved(s: &mut NoteSync, id: String, result: WriteResult, fx: &mut Vec<Effect>) {
    if s.outbox.front().is_some_and(|o| o.id == id) {
        s.outbox.pop_front();
    }
    fx.push(Effect::Persist(Persist::DropOutgoing(id.clone())));
    fx.push(Effect::Notify(Notice::OutgoingDone {
        id,
        result: Box::new(result.clone()),
    }));
    // Structural changes are read back rather than guessed (generated IDs, positions).
    if s.guard().is_none_or(|g| result.version > g) {
        s.own_unread.insert(result.version);
        s.need_fetch = true;
    }
}

/// A structural write refused as stale: sent again on the new version, or reported.
pub(super) fn on_refused(s: &mut NoteSync, id: &str, failure: Failure, fx: &mut Vec<Effect>) {
    s.offline = None;
    s.stats.refused += 1;
    let policy = s.outbox.front().map(|o| o.on_conflict);
    match policy {
        Some(OnConflict::Reapply) => {
            if let Some(o) = s.outbox.front_mut() {
                o.key = None;
                o.expected_version = None;
                fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
            }
        }
        _ => {
            s.outbox.pop_front();
            fx.push(Effect::Persist(Persist::DropOutgoing(id.to_owned())));
            fx.push(Effect::Notify(Notice::OutgoingFailed {
                id: id.to_owned(),
                failure,
            }));
        }
    }
    s.need_fetch = true;
}

/// A structural write refused for good: dropped and reported.
pub(super) fn on_rejected(s: &mut NoteSync, id: &str, failure: Failure, fx: &mut Vec<Effect>) {
    s.offline = None;
    s.outbox.pop_front();
    fx.push(Effect::Persist(Persist::DropOutgoing(id.to_owned())));
    fx.push(Effect::Notify(Notice::OutgoingFailed {
        id: id.to_owned(),
        failure,
    }));
}

/// The first structural write, in order (its key and base kept once set).
pub(super) fn send_next(s: &mut NoteSync, guard: Version, fx: &mut Vec<Effect>) -> bool {
    if let Some(front) = s.outbox.front().cloned() {
        let key = match front.key {
            Some(k) => k,
            None => s.new_key(),
        };
        let expected = front.expected_version.unwrap_or(guard);
        let o = Outgoing {
            key: Some(key.clone()),
            expected_version: Some(expected),
            ..front
        };
        if let Some(f) = s.outbox.front_mut() {
            *f = o.clone();
        }
        fx.push(Effect::Persist(Persist::Outgoing(Box::new(o.clone()))));
        s.busy = Busy::Saving(Target::Outgoing(o.id.clone()));
        s.stats.saves_sent += 1;
        fx.push(Effect::Send(SaveRequest {
            key,
            expected_version: expected,
            body: o.body,
        }));
        return true;
    }
    false
}
