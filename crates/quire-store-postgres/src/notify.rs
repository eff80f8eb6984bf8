//! Announcing commits to every store on the database (LISTEN / NOTIFY), so that several
//! servers behave as one: a person's event stream on server A hears of a write accepted by B.
//!
//! Announced after the commit, not inside the write's statement: PostgreSQL serialises the
//! commits of notifying transactions (a database-wide lock held through the commit's flush),
//! which measured here cut 16 writers from thousands of writes per second to hundreds when the
//! disk was slow. So each store has an announcer task that sends what its writes committed, a
//! batch per transaction, with `synchronous_commit` off (an announcement needs no flush: what
//! it announces is durable already). A server that dies between a commit and its announcement
//! leaves the other servers' event feeds a version behind until the Note's next write, from
//! which they fill the gap out of the history (the server's `NoteFeed` does).

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::Pool;
use quire_api::WriteEvent;
use quire_model::{NoteId, TabId, Version};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Notification};

use crate::Fail;
use crate::read::to_i64;

/// The channel every store announces its commits on.
pub(crate) const CHANNEL: &str = "quire_commits";

/// PostgreSQL refuses payloads of 8000 bytes or more; a longer announcement goes out thin and
/// the listener reads the details from the history.
const PAYLOAD_BYTES: usize = 7_900;

#[derive(Serialize, Deserialize)]
struct Payload {
    /// The announcing store (see [`crate::PgStore`]'s origin).
    origin: String,
    note_id: NoteId,
    version: Version,
    /// Absent when it would not fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write: Option<WriteEvent>,
}

/// The payload announcing `write`.
pub(crate) fn payload(origin: &str, write: WriteEvent) -> Result<String, Fail> {
    let (note_id, version) = (write.note_id.clone(), write.version);
    let full = serde_json::to_string(&Payload {
        origin: origin.to_owned(),
        note_id: note_id.clone(),
        version,
        write: Some(write),
    })?;
    if full.len() < PAYLOAD_BYTES {
        return Ok(full);
    }
    Ok(serde_json::to_string(&Payload {
        origin: origin.to_owned(),
        note_id,
        version,
        write: None,
    })?)
}

/// Sends the announcements queued by the writes, in batches, until every sender is gone.
pub(crate) async fn announce(pool: Pool, mut queue: mpsc::UnboundedReceiver<String>) {
    let mut batch = Vec::new();
    while queue.recv_many(&mut batch, 512).await > 0 {
        if let Err(e) = send(&pool, &batch).await {
            tracing::warn!(
                "{} writes could not be announced to other servers: {e}",
                batch.len()
            );
        }
        batch.clear();
    }
}

async fn send(pool: &Pool, batch: &[String]) -> Result<(), Fail> {
    let db = pool.get().await?;
    let stmt = db
        .prepare_cached(
            "SELECT set_config('synchronous_commit', 'off', true),
                    pg_notify('quire_commits', p) IS NULL
             FROM unnest($1::text[]) AS p",
        )
        .await?;
    db.query(&stmt, &[&batch]).await?;
    Ok(())
}

/// Where announcements are read and handed on.
pub(crate) struct Listener {
    pub config: tokio_postgres::Config,
    pub pool: Pool,
    pub origin: Arc<str>,
}

/// How many announcements may wait for the receiver before the listener waits for it.
const QUEUE: usize = 1024;

impl Listener {
    /// Starts listening; returns once `LISTEN` is in place, so every commit from then on is
    /// delivered (but for the ones made by this store, which it knows already).
    pub(crate) async fn start(self) -> Result<mpsc::Receiver<WriteEvent>, Fail> {
        let (tx, rx) = mpsc::channel(QUEUE);
        let connection = self.connect().await?;
        tokio::spawn(self.run(connection, tx));
        Ok(rx)
    }

    /// A connection that is listening, and its incoming notifications.
    async fn connect(&self) -> Result<Listening, Fail> {
        let (client, mut connection) = self.config.connect(tokio_postgres::NoTls).await?;
        let (tx, notifications) = mpsc::unbounded_channel();
        let driver = tokio::spawn(async move {
            loop {
                match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                    Some(Ok(AsyncMessage::Notification(n))) => {
                        if tx.send(n).is_err() {
                            return Ok(());
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e),
                    None => return Ok(()),
                }
            }
        });
        client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
        Ok(Listening {
            _client: client,
            notifications,
            driver,
        })
    }

    /// Hands announcements on until the receiver goes; reconnects when the connection drops.
    /// Announcements made while reconnecting are missed: the server's event feeds fill such a
    /// gap from the history when the next write arrives.
    async fn run(self, mut listening: Listening, tx: mpsc::Sender<WriteEvent>) {
        let mut backoff = Duration::from_millis(100);
        loop {
            while let Some(n) = listening.notifications.recv().await {
                match self.committed(&n).await {
                    Ok(Some(write)) => {
                        if tx.send(write).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => {}
                    Err(e) => tracing::warn!("an announcement could not be read: {e}"),
                }
                backoff = Duration::from_millis(100);
            }
            match (&mut listening.driver).await {
                Ok(Ok(())) => tracing::warn!("the listening connection closed"),
                Ok(Err(e)) => tracing::warn!("the listening connection failed: {e}"),
                Err(e) => tracing::warn!("the listening connection's task failed: {e}"),
            }
            loop {
                if tx.is_closed() {
                    return;
                }
                // Waiting out a database that is down, not waiting for readiness.
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
                match self.connect().await {
                    Ok(again) => {
                        tracing::info!("listening for other servers' writes again");
                        listening = again;
                        break;
                    }
                    Err(e) => tracing::warn!("cannot listen for other servers' writes: {e}"),
                }
            }
        }
    }

    /// The write announced by `n`, unless this store made it.
    async fn committed(&self, n: &Notification) -> Result<Option<WriteEvent>, Fail> {
        let payload: Payload = serde_json::from_str(n.payload())?;
        if *payload.origin == *self.origin {
            return Ok(None);
        }
        if let Some(write) = payload.write {
            return Ok(Some(write));
        }
        let db = self.pool.get().await?;
        let stmt = db
            .prepare_cached(
                "SELECT author, created_at, changed_tab_ids FROM versions
                 WHERE note_id = $1 AND version = $2",
            )
            .await?;
        let Some(row) = db
            .query_opt(
                &stmt,
                &[&payload.note_id.as_str(), &to_i64(payload.version.0)?],
            )
            .await?
        else {
            return Ok(None);
        };
        let changed: Vec<String> = row.try_get(2)?;
        Ok(Some(WriteEvent {
            note_id: payload.note_id,
            version: payload.version,
            author: row.try_get(0)?,
            at: row.try_get(1)?,
            changed_tab_ids: changed.into_iter().map(TabId::new).collect(),
        }))
    }
}

struct Listening {
    /// Dropping the client ends the connection.
    _client: tokio_postgres::Client,
    notifications: mpsc::UnboundedReceiver<Notification>,
    driver: tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>,
}
