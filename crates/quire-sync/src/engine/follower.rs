//! Follows a Note's event stream from the server and turns it into the machine's events.

use futures::StreamExt;
use quire_model::NoteId;
use tokio::sync::mpsc;

use super::Msg;
use crate::client::{Client, ServerEvent};
use crate::machine::Event;

/// Follows the Note's event stream and tells the machine when it is up or down; connects again
/// when the machine says so (`reconnect`, from [`crate::machine::Effect::Reconnect`]).
pub(super) async fn follow_events(
    client: Client,
    note_id: NoteId,
    tx: mpsc::UnboundedSender<Msg>,
    mut reconnect: mpsc::UnboundedReceiver<()>,
) {
    loop {
        match client.events(&note_id).await {
            Ok(stream) => {
                if tx.send(Msg::Step(Event::StreamUp, None)).is_err() {
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
        if tx.send(Msg::Step(Event::StreamDown, None)).is_err() || reconnect.recv().await.is_none()
        {
            return;
        }
    }
}
