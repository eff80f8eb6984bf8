//! `GET /notes/{id}/events`: server-sent events, one `write` event per accepted write, in
//! version order, none missed while connected. The first event is `hello` with the current
//! version, so a client that was away can tell it missed writes. Each event's `id` is its
//! version: a client reconnecting with `Last-Event-ID: N` first gets every write after N.
//!
//! A stream lives as long as its token may be used: it checks the token every
//! [`RECHECK`] (one indexed read) and ends once it is revoked or expired, whoever revoked it
//! (this server, or `quire-server token revoke` on the same database). Reconnecting then gets
//! the 401.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::{Stream, StreamExt, stream};
use quire_model::{NoteId, Version};
use serde::Serialize;

use super::AppState;
use super::auth::{self, Auth};
use super::error::ApiError;
use super::rest::NotePath;
use crate::notes::Channel;
use crate::tokens;

/// How often an open stream checks that its token is still good.
pub const RECHECK: Duration = Duration::from_secs(1);

#[derive(Serialize)]
struct Hello<'a> {
    note_id: &'a NoteId,
    version: Version,
}

pub(super) async fn stream(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let since = last_event_id(&headers)?;
    let hash = tokens::hash(auth::bearer(&headers)?);
    let slot = StreamCounts::open(&state.streams, caller.token_id)?;
    let (current, feed) = state.notes.watch(&caller, &id, Channel::App, since).await?;
    let hello = event(
        "hello",
        current,
        &Hello {
            note_id: &id,
            version: current,
        },
    );
    // The slot lives as long as the stream: it is given back when the stream is dropped.
    let writes = stream::unfold((feed, slot), |(mut feed, slot)| async move {
        match feed.next().await {
            Ok(Some(write)) => Some((event("write", write.version, &write), (feed, slot))),
            Ok(None) => None,
            Err(e) => {
                tracing::error!(error = %e, "event stream ended");
                None
            }
        }
    });
    let shutdown = state.shutdown.clone();
    let refused = token_refused(state, hash);
    let events = stream::iter(hello)
        .chain(writes.filter_map(|e| async move { e }))
        .map(Ok)
        .take_until(async move {
            tokio::select! {
                () = shutdown.cancelled_owned() => {}
                () = refused => {}
            }
        });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}

/// Resolves once the token whose hash is `hash` may no longer be used (or cannot be checked:
/// a stream whose token cannot be vouched for ends).
async fn token_refused(state: AppState, hash: String) {
    // The token was just checked to open the stream: the first recheck is one period later.
    let mut every = tokio::time::interval_at(tokio::time::Instant::now() + RECHECK, RECHECK);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(e) = auth::still_admitted(&state, &hash).await {
            tracing::debug!(
                code = e.code(),
                "an event stream's token is refused: ending it"
            );
            return;
        }
    }
}

fn event<T: Serialize>(name: &str, version: Version, data: &T) -> Option<Event> {
    match serde_json::to_string(data) {
        Ok(json) => Some(
            Event::default()
                .event(name)
                .id(version.to_string())
                .data(json),
        ),
        Err(e) => {
            tracing::error!(error = %e, "cannot serialise an event");
            None
        }
    }
}

fn last_event_id(headers: &HeaderMap) -> Result<Option<Version>, ApiError> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|v| Some(Version(v)))
        .ok_or_else(|| ApiError::InvalidField {
            field: "Last-Event-ID".to_owned(),
            detail: "must be a version number, the id of the last event received".to_owned(),
        })
}

/// How many event streams each token holds open, against the most it may.
#[derive(Debug)]
pub struct StreamCounts {
    limit: usize,
    open: Mutex<HashMap<i64, usize>>,
}

impl StreamCounts {
    pub fn new(limit: usize) -> Self {
        StreamCounts {
            limit,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// One more stream for `token`, or 429 if it holds the most it may.
    fn open(counts: &Arc<StreamCounts>, token: i64) -> Result<StreamSlot, ApiError> {
        let mut open = counts.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.entry(token).or_insert(0);
        if *held >= counts.limit {
            return Err(ApiError::TooManyStreams {
                limit: counts.limit,
            });
        }
        *held += 1;
        Ok(StreamSlot {
            counts: Arc::clone(counts),
            token,
        })
    }
}

/// One open event stream of a token; dropping it gives the place back.
struct StreamSlot {
    counts: Arc<StreamCounts>,
    token: i64,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self
            .counts
            .open
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.token) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&self.token);
            }
        }
    }
}
