//! The task that owns one open Note: it steps the machine with every message and performs the
//! effects, writing locally first (one transaction) and then sending, fetching, arming timers and
//! telling subscribers.

use std::collections::HashMap;
use std::sync::Arc;

use quire_model::NoteId;
use tokio::sync::{mpsc, oneshot, watch};

use super::types::{EngineError, EngineEvent, Result, Snapshot, WriteOutcome};
use super::views::snapshot;
use super::{Inner, Msg, lock};
use crate::client::ClientError;
use crate::machine::{Effect, Event, Failure, NoteSync, Notice, Persist, WriteBody, step};

/// The task that owns one Note's state.
pub(super) async fn run_note(
    inner: Arc<Inner>,
    first: Arc<Snapshot>,
    snap_tx: watch::Sender<Arc<Snapshot>>,
    tx: mpsc::UnboundedSender<Msg>,
    mut rx: mpsc::UnboundedReceiver<Msg>,
    reconnect: mpsc::UnboundedSender<()>,
) {
    let mut sync = first.sync.clone();
    let note_id = sync.note_id.clone();
    let mut waiters: HashMap<String, oneshot::Sender<Result<WriteOutcome>>> = HashMap::new();
    while let Some(msg) = rx.recv().await {
        let (event, reply) = match msg {
            Msg::Stop => break,
            Msg::AwaitOutgoing(id, reply) => {
                waiters.insert(id, reply);
                continue;
            }
            Msg::Step(event, reply) => (event, reply),
        };
        let mut event = Some(event);
        while let Some(ev) = event.take() {
            let (next, effects) = step(sync, ev);
            sync = next;
            let mail = Mail {
                note: &tx,
                reconnect: &reconnect,
            };
            event = run_effects(&inner, &note_id, &sync, effects, mail, &mut waiters);
        }
        let snap = Arc::new(snapshot(sync.clone()));
        if inner.events.receiver_count() > 0
            && inner
                .events
                .send(EngineEvent::Status(snap.status.clone()))
                .is_err()
        {
            tracing::debug!("no subscriber for status");
        }
        snap_tx.send_replace(snap.clone());
        if let Some(reply) = reply
            && reply.send(snap).is_err()
        {
            tracing::debug!("caller stopped waiting");
        }
    }
}

/// Where the effects' answers go: the Note's own mailbox, and the event stream's follower.
#[derive(Clone, Copy)]
struct Mail<'a> {
    note: &'a mpsc::UnboundedSender<Msg>,
    reconnect: &'a mpsc::UnboundedSender<()>,
}

/// Performs one step's effects; when the local store refuses its writes, performs none and
/// returns the event that tells the machine.
fn run_effects(
    inner: &Arc<Inner>,
    note_id: &NoteId,
    sync: &NoteSync,
    effects: Vec<Effect>,
    mail: Mail<'_>,
    waiters: &mut HashMap<String, oneshot::Sender<Result<WriteOutcome>>>,
) -> Option<Event> {
    // 1. Everything to persist, in one transaction, before any request leaves.
    let persists: Vec<&Persist> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Persist(p) => Some(p),
            _ => None,
        })
        .collect();
    if let Err(e) = lock(&inner.local).apply(note_id, &persists) {
        tracing::error!(note = %note_id, error = %e, "local store write failed; not sending");
        publish(
            inner,
            EngineEvent::LocalStoreFailed {
                note_id: note_id.clone(),
                message: e.to_string(),
            },
        );
        return Some(Event::LocalStoreFailed { dropped: effects });
    }
    // 2. The rest, in order.
    for effect in effects {
        match effect {
            Effect::Persist(_) => {}
            Effect::Send(send) => {
                tracing::debug!(
                    note = %note_id, key = %send.key, expected = %send.expected_version,
                    "save sent"
                );
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = mail.note.clone();
                tokio::spawn(async move {
                    let res = match &send.body {
                        WriteBody::Ops { changes } => {
                            client
                                .patch(&note, send.expected_version, changes, Some(&send.key))
                                .await
                        }
                        WriteBody::Restore { version } => {
                            client
                                .restore(&note, *version, send.expected_version, Some(&send.key))
                                .await
                        }
                        WriteBody::Revert { version } => {
                            client
                                .revert(&note, *version, send.expected_version, Some(&send.key))
                                .await
                        }
                    };
                    let ev = match res {
                        Ok(r) => {
                            tracing::debug!(
                                %note, key = %send.key, version = %r.version,
                                replayed = r.replayed, "save answered"
                            );
                            Event::SaveSucceeded(Box::new(r))
                        }
                        Err(e) => {
                            tracing::debug!(%note, key = %send.key, error = %e, "save failed");
                            Event::SaveFailed(failure(e))
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::Fetch => {
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = mail.note.clone();
                tokio::spawn(async move {
                    let ev = match client.get_note(&note).await {
                        Ok(n) => {
                            tracing::debug!(%note, version = %n.note.version, "fetched");
                            Event::Fetched(Box::new(n.note))
                        }
                        Err(e) => {
                            tracing::debug!(%note, error = %e, "fetch failed");
                            Event::FetchFailed(failure(e))
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::FetchVersion(version) => {
                let client = inner.client.clone();
                let note = note_id.clone();
                let tx = mail.note.clone();
                tokio::spawn(async move {
                    let ev = match client.note_at(&note, version).await {
                        Ok(n) => Event::VersionFetched(Box::new(n)),
                        Err(e) => {
                            tracing::debug!(%note, %version, error = %e, "version fetch failed");
                            Event::VersionFetchFailed {
                                version,
                                failure: failure(e),
                            }
                        }
                    };
                    if tx.send(Msg::Step(ev, None)).is_err() {
                        tracing::debug!("note task stopped before the answer");
                    }
                });
            }
            Effect::StartTimer {
                timer,
                generation,
                after,
            } => {
                let tx = mail.note.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    if tx
                        .send(Msg::Step(Event::TimerFired { timer, generation }, None))
                        .is_err()
                    {
                        tracing::debug!("note task stopped before the timer");
                    }
                });
            }
            Effect::Reconnect => {
                if mail.reconnect.send(()).is_err() {
                    tracing::debug!("event stream follower stopped");
                }
            }
            Effect::Notify(notice) => notify(inner, note_id, sync, notice, waiters),
        }
    }
    // Structural writes waiting while offline come back as queued.
    if sync.is_offline() {
        let queued: Vec<String> = waiters
            .keys()
            .filter(|id| sync.outbox.iter().any(|o| &o.id == *id))
            .cloned()
            .collect();
        for id in queued {
            if let Some(w) = waiters.remove(&id)
                && w.send(Ok(WriteOutcome::Queued { id })).is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
    }
    None
}

pub(super) fn publish(inner: &Inner, event: EngineEvent) {
    if inner.events.receiver_count() > 0 && inner.events.send(event).is_err() {
        tracing::debug!("no subscriber");
    }
}

fn notify(
    inner: &Inner,
    note_id: &NoteId,
    _sync: &NoteSync,
    notice: Notice,
    waiters: &mut HashMap<String, oneshot::Sender<Result<WriteOutcome>>>,
) {
    match notice {
        Notice::RemoteApplied { tab_ids, version } => publish(
            inner,
            EngineEvent::RemoteApplied {
                note_id: note_id.clone(),
                tab_ids,
                version,
            },
        ),
        Notice::ConflictShown { tab_id } => publish(
            inner,
            EngineEvent::ConflictShown {
                note_id: note_id.clone(),
                tab_id,
            },
        ),
        Notice::TabSaved {
            tab_id,
            version,
            replayed,
            unseen,
        } => publish(
            inner,
            EngineEvent::Saved {
                note_id: note_id.clone(),
                tab_id,
                version,
                replayed,
                unseen,
            },
        ),
        Notice::Rebased { tab_id, version } => {
            tracing::debug!(note = %note_id, tab = %tab_id, %version, "re-applied on a new version");
        }
        Notice::OutgoingDone { id, result } => {
            if let Some(w) = waiters.remove(&id)
                && w.send(Ok(WriteOutcome::Committed { result: *result }))
                    .is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
        Notice::OutgoingFailed { id, failure } => {
            if let Some(w) = waiters.remove(&id)
                && w.send(Err(EngineError::Client(err_from_failure(&failure))))
                    .is_err()
            {
                tracing::debug!("caller stopped waiting");
            }
        }
    }
}

pub(super) fn err_from_failure(f: &Failure) -> ClientError {
    match f {
        Failure::Conflict {
            current_version,
            changed_tab_ids,
        } => ClientError::Conflict {
            current_version: *current_version,
            changed_tab_ids: changed_tab_ids.clone(),
        },
        Failure::Offline(m) => ClientError::Offline(m.clone()),
        Failure::RevertConflict { tab_ids, message } => ClientError::RevertConflict {
            tab_ids: tab_ids.clone(),
            message: message.clone(),
        },
        Failure::Rejected {
            status,
            code,
            message,
        } => ClientError::Server {
            status: *status,
            code: code.clone(),
            message: message.clone(),
        },
    }
}

fn failure(e: ClientError) -> Failure {
    match e {
        ClientError::Conflict {
            current_version,
            changed_tab_ids,
        } => Failure::Conflict {
            current_version,
            changed_tab_ids,
        },
        ClientError::Offline(m) => Failure::Offline(m),
        ClientError::RevertConflict { tab_ids, message } => {
            Failure::RevertConflict { tab_ids, message }
        }
        // Nothing was sent: the save waits, with its draft, until the server can be reached
        // (the settings screen says why it cannot).
        e @ (ClientError::Tls { .. } | ClientError::Setup(_)) => Failure::Offline(e.to_string()),
        ClientError::Server {
            status,
            code,
            message,
        } => Failure::Rejected {
            status,
            code,
            message,
        },
    }
}
