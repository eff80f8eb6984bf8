//! Follows a Note's event stream from the server and turns it into the machine's events.

use futures::StreamExt;
use quire_model::NoteId;
use tokio::sync::mpsc;

use super::Msg;
use crate::client::{Client, ServerEvent};
use crate::machine::{self, Event};

/// Follows the Note's event stream; reconnects with backoff. Every (re)connect asks for a poll,
/// so writes made while the stream was down are picked up; while it is down, each attempt
/// polls.
pub(super) async fn follow_events(
    client: Client,
    note_id: NoteId,
    tx: mpsc::UnboundedSender<Msg>,
    timing: machine::Config,
) {
    let mut attempt: u32 = 0;
    loop {
        match client.events(&note_id).await {
            Ok(stream) => {
                attempt = 0;
                if tx.send(Msg::Step(Event::Poll, None)).is_err() {
                    return;
                }
                let mut stream = std::pin::pin!(stream);
                while let Some(item) = stream.next().await {
                    let version = match item {
                        Ok(ServerEvent::Hello { version }) => version,
                        Ok(ServerEvent::Write(w)) => w.version,
                        Err(_) => break,
                    };
                    if tx.send(Msg::Step(Event::Remote { version }, None)).is_err() {
                        return;
                    }
                }
            }
            Err(e) => tracing::debug!(note = %note_id, error = %e, "event stream unavailable"),
        }
        // No stream: poll instead, so remote writes still arrive.
        if tx.send(Msg::Step(Event::StreamDown, None)).is_err() {
            return;
        }
        attempt = attempt.saturating_add(1);
        tokio::time::sleep(timing.backoff(attempt)).await;
        if tx.is_closed() {
            return;
        }
    }
}
