//! The REST client for Quire's server, including the server-sent event stream.
//!
//! The wire types, request bodies included, are `quire-api`'s, which the server reads and
//! writes too: declared once. Errors are typed: a stale write is [`ClientError::Conflict`] with the current
//! version and the tabs changed since; no answer at all is [`ClientError::Offline`] (the outcome
//! of a write is then unknown: resend it with the same idempotency key); a server refused at the
//! TLS step (its certificate untrusted, expired, for another host) is [`ClientError::Tls`],
//! naming why; a revert that clashes with later writes is [`ClientError::RevertConflict`] with
//! the clashing tabs; anything else the server refused is [`ClientError::Server`] with its stable
//! `error` code.
//!
//! HTTPS is rustls with the system's CA store, plus a CA file ([`quire_tls::Trust`]).

use std::borrow::Cow;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures::{Stream, StreamExt};
use quire_api::{
    AgentAccess, CreateNote, NoteList, PatchNote, RestoreNote, RevertNote, SearchHit,
    SearchResults, SetAgentAccess, StoredNote, TrashedNote, UndeleteNote, VersionInfo, VersionList,
    WriteEvent, WriteResult,
};
use quire_model::{Note, NoteId, NoteSummary, Op, TabId, Version};
use quire_tls::{PeerCertificate, TlsProblem, Trust};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use url::Url;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    #[error("version conflict: the note is at version {current_version}")]
    Conflict {
        current_version: Version,
        changed_tab_ids: Vec<TabId>,
    },
    /// No (complete) answer: connection refused or reset, timeout, a body cut short, a gateway
    /// error. A write's outcome is unknown.
    #[error("offline: {0}")]
    Offline(String),
    /// The server was refused at the TLS step: nothing was sent.
    #[error("{} ({detail})", .problem.describe())]
    Tls { problem: TlsProblem, detail: String },
    /// The client could not be set up (an unreadable CA file): nothing was sent.
    #[error("{0}")]
    Setup(String),
    /// A revert refused because later writes changed what the version changed: nothing was
    /// written.
    #[error("revert refused: {message}")]
    RevertConflict {
        tab_ids: Vec<TabId>,
        message: String,
    },
    #[error("server refused ({status} {code}): {message}")]
    Server {
        status: u16,
        code: String,
        message: String,
    },
}

pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// What the event stream says.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    /// Sent first on connect: the Note's current version.
    Hello {
        version: Version,
    },
    Write(WriteEvent),
}

/// Whom the client reached: the server's address and, over HTTPS, the certificate it showed
/// (verified, or the request would have failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerIdentity {
    pub url: String,
    /// `None` over plain HTTP.
    pub certificate: Option<PeerCertificate>,
}

/// The server's code for a revert that clashes with later writes.
pub const REVERT_CONFLICT: &str = "revert_conflict";

/// How long connecting may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// The HTTP client every [`Client`] of the app uses: rustls trusting `trust`, the
/// server's certificate kept on each response, a short connect timeout.
pub fn http_client(trust: &Trust) -> Result<reqwest::Client> {
    trust
        .client_builder()
        .map_err(|e| ClientError::Setup(e.to_string()))?
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|e| ClientError::Setup(format!("http client: {e}")))
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Arc<RwLock<Url>>,
    token: String,
    timeout: Duration,
}

impl Client {
    /// A client for the server at `base` (e.g. `http://127.0.0.1:7321/`), with a bearer token,
    /// trusting the system's CA store and the file `QUIRE_CA_FILE` names, if set.
    pub fn new(base: Url, token: impl Into<String>) -> Result<Self> {
        Ok(Self::with_http(
            http_client(&Trust::from_env())?,
            base,
            token,
        ))
    }

    /// The same over a reqwest client the caller configured (proxies, pools, TLS roots).
    pub fn with_http(http: reqwest::Client, base: Url, token: impl Into<String>) -> Self {
        Client {
            http,
            base: Arc::new(RwLock::new(base)),
            token: token.into(),
            timeout: Duration::from_secs(15),
        }
    }

    /// Points this client (and every clone of it) at another address.
    pub fn set_base(&self, base: Url) {
        match self.base.write() {
            Ok(mut b) => *b = base,
            Err(poisoned) => *poisoned.into_inner() = base,
        }
    }

    pub fn base(&self) -> Url {
        match self.base.read() {
            Ok(b) => b.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    fn url(&self, path: &str) -> Result<Url> {
        self.base()
            .join(path)
            .map_err(|e| ClientError::Offline(format!("bad server address: {e}")))
    }

    fn request(&self, method: Method, path: &str) -> Result<RequestBuilder> {
        Ok(self
            .http
            .request(method, self.url(path)?)
            .bearer_auth(&self.token)
            .timeout(self.timeout))
    }

    /// A write: `body` as JSON, with its idempotency key when it has one.
    async fn keyed<T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: &impl serde::Serialize,
        idempotency_key: Option<&str>,
    ) -> Result<T> {
        let mut req = self.request(method, path)?.json(body);
        if let Some(k) = idempotency_key {
            req = req.header("Idempotency-Key", k);
        }
        decode(send(req).await?).await
    }

    /// Who the server is: asks for the Note list with the token (so a refused token shows here
    /// too) and keeps the certificate the server showed.
    pub async fn identify(&self) -> Result<ServerIdentity> {
        let resp = send(self.request(Method::GET, "notes")?).await?;
        Ok(ServerIdentity {
            url: self.base().to_string(),
            certificate: PeerCertificate::of(&resp),
        })
    }

    pub async fn create_note(
        &self,
        title: &str,
        idempotency_key: Option<&str>,
    ) -> Result<StoredNote> {
        let body = CreateNote {
            title: title.to_owned(),
        };
        self.keyed(Method::POST, "notes", &body, idempotency_key)
            .await
    }

    pub async fn list_notes(&self) -> Result<Vec<NoteSummary>> {
        let resp = send(self.request(Method::GET, "notes")?).await?;
        let body: Value = decode(resp).await?;
        // `{"notes": [...]}` or a bare array.
        if body.is_array() {
            return serde_json::from_value(body).map_err(|e| bad_body("notes", e));
        }
        let list: NoteList = serde_json::from_value(body).map_err(|e| bad_body("notes", e))?;
        Ok(list.notes)
    }

    /// `GET /search`: the `limit` tabs that match `q` best (see the server's README, "Search").
    pub async fn search(&self, q: &str, limit: usize) -> Result<Vec<SearchHit>> {
        let mut url = self.url("search")?;
        url.query_pairs_mut()
            .append_pair("q", q)
            .append_pair("limit", &limit.to_string());
        let req = self
            .http
            .request(Method::GET, url)
            .bearer_auth(&self.token)
            .timeout(self.timeout);
        let found: SearchResults = decode(send(req).await?).await?;
        Ok(found.results)
    }

    /// `GET /notes/{id}/backlinks`: the Notes that link to this one, by title.
    pub async fn backlinks(&self, id: &NoteId) -> Result<Vec<quire_api::Backlink>> {
        let found: quire_api::Backlinks =
            decode(send(self.request(Method::GET, &format!("notes/{id}/backlinks"))?).await?)
                .await?;
        Ok(found.backlinks)
    }

    pub async fn get_note(&self, id: &NoteId) -> Result<StoredNote> {
        decode(send(self.request(Method::GET, &format!("notes/{id}"))?).await?).await
    }

    /// The guarded write: applies all `changes` if the Note is still at `expected_version`.
    pub async fn patch(
        &self,
        id: &NoteId,
        expected_version: Version,
        changes: &[Op],
        idempotency_key: Option<&str>,
    ) -> Result<WriteResult> {
        let body = PatchNote {
            expected_version: Some(expected_version),
            changes: Cow::Borrowed(changes),
        };
        self.keyed(
            Method::PATCH,
            &format!("notes/{id}"),
            &body,
            idempotency_key,
        )
        .await
    }

    /// A new version equal to `version` (guarded like any write).
    pub async fn restore(
        &self,
        id: &NoteId,
        version: Version,
        expected_version: Version,
        idempotency_key: Option<&str>,
    ) -> Result<WriteResult> {
        let body = RestoreNote {
            version,
            expected_version: Some(expected_version),
        };
        let path = format!("notes/{id}/restore");
        self.keyed(Method::POST, &path, &body, idempotency_key)
            .await
    }

    /// A new version taking back exactly what `version` changed, merged into the Note now
    /// (guarded like any write; a clash with later writes is [`ClientError::RevertConflict`]).
    pub async fn revert(
        &self,
        id: &NoteId,
        version: Version,
        expected_version: Version,
        idempotency_key: Option<&str>,
    ) -> Result<WriteResult> {
        let body = RevertNote {
            version,
            expected_version: Some(expected_version),
        };
        let path = format!("notes/{id}/revert");
        self.keyed(Method::POST, &path, &body, idempotency_key)
            .await
    }

    pub async fn history(&self, id: &NoteId) -> Result<Vec<VersionInfo>> {
        let v: VersionList =
            decode(send(self.request(Method::GET, &format!("notes/{id}/versions"))?).await?)
                .await?;
        Ok(v.versions)
    }

    /// One page of the history: the newest `limit` versions before `before`, oldest first.
    pub async fn history_page(
        &self,
        id: &NoteId,
        before: Option<Version>,
        limit: usize,
    ) -> Result<Vec<VersionInfo>> {
        let path = match before {
            Some(before) => format!("notes/{id}/versions?before={before}&limit={limit}"),
            None => format!("notes/{id}/versions?limit={limit}"),
        };
        let v: VersionList = decode(send(self.request(Method::GET, &path)?).await?).await?;
        Ok(v.versions)
    }

    pub async fn note_at(&self, id: &NoteId, version: Version) -> Result<Note> {
        let resp =
            send(self.request(Method::GET, &format!("notes/{id}/versions/{version}"))?).await?;
        let body: Value = decode(resp).await?;
        // The Note as it was, possibly with the store's metadata flattened in.
        serde_json::from_value(body).map_err(|e| bad_body("note", e))
    }

    /// Whether agents may see the Note, and who approved or withdrew it when.
    pub async fn agent_access(&self, id: &NoteId) -> Result<AgentAccess> {
        let req = self.request(Method::GET, &format!("notes/{id}/agent-access"))?;
        decode(send(req).await?).await
    }

    pub async fn set_agent_access(&self, id: &NoteId, approved: bool) -> Result<AgentAccess> {
        let req = self
            .request(Method::PUT, &format!("notes/{id}/agent-access"))?
            .json(&SetAgentAccess { approved });
        decode(send(req).await?).await
    }

    /// Moves the Note into the trash, if it is still at `version` (`If-Match`).
    pub async fn trash(&self, id: &NoteId, version: Version) -> Result<TrashedNote> {
        let req = self
            .request(Method::DELETE, &format!("notes/{id}"))?
            .header("If-Match", format!("\"{version}\""));
        decode(send(req).await?).await
    }

    /// Brings the Note back out of the trash, if it is still at `expected_version`.
    pub async fn undelete(&self, id: &NoteId, expected_version: Version) -> Result<WriteResult> {
        let req = self
            .request(Method::POST, &format!("notes/{id}/undelete"))?
            .json(&UndeleteNote {
                expected_version: Some(expected_version),
            });
        decode(send(req).await?).await
    }

    /// The Notes in the trash, most recently trashed first.
    pub async fn list_trash(&self) -> Result<Vec<NoteSummary>> {
        let list: NoteList =
            decode(send(self.request(Method::GET, "notes?trash=true")?).await?).await?;
        Ok(list.notes)
    }

    /// Erases the Notes in the trash for good; their IDs.
    pub async fn empty_trash(&self) -> Result<Vec<NoteId>> {
        #[derive(Deserialize)]
        struct Emptied {
            erased: Vec<NoteId>,
        }
        let emptied: Emptied = decode(send(self.request(Method::DELETE, "trash")?).await?).await?;
        Ok(emptied.erased)
    }

    /// The Note's event stream. Ends (or yields an error) when the connection drops.
    pub async fn events(
        &self,
        id: &NoteId,
    ) -> Result<impl Stream<Item = Result<ServerEvent>> + use<>> {
        // No overall timeout: the stream stays open.
        let req = self
            .http
            .get(self.url(&format!("notes/{id}/events"))?)
            .bearer_auth(&self.token)
            .header("Accept", "text/event-stream");
        let resp = send(req).await?;
        let bytes = resp.bytes_stream();
        let parser = SseParser::default();
        Ok(futures::stream::unfold(
            (bytes, parser, std::collections::VecDeque::new()),
            |(mut bytes, mut parser, mut queue)| async move {
                loop {
                    if let Some(item) = queue.pop_front() {
                        return Some((item, (bytes, parser, queue)));
                    }
                    match bytes.next().await {
                        Some(Ok(chunk)) => {
                            for frame in parser.feed(&chunk) {
                                if let Some(ev) = frame.into_event() {
                                    queue.push_back(ev);
                                }
                            }
                        }
                        Some(Err(e)) => {
                            return Some((Err(classify(e)), (bytes, parser, queue)));
                        }
                        None => return None,
                    }
                }
            },
        ))
    }
}

async fn send(req: RequestBuilder) -> Result<Response> {
    let resp = req.send().await.map_err(classify)?;
    let status = resp.status();
    if status.is_success() {
        return Ok(resp);
    }
    Err(problem(status, resp).await)
}

/// A request that got no answer: refused at the TLS step (named), else offline.
fn classify(e: reqwest::Error) -> ClientError {
    match TlsProblem::find(&e) {
        Some((problem, detail)) => ClientError::Tls { problem, detail },
        None => ClientError::Offline(e.to_string()),
    }
}

fn bad_body(what: &str, e: serde_json::Error) -> ClientError {
    // A 2xx whose body we cannot read: treat the outcome as unknown.
    ClientError::Offline(format!("unreadable {what} in the response: {e}"))
}

async fn decode<T: DeserializeOwned>(resp: Response) -> Result<T> {
    let bytes = resp.bytes().await.map_err(classify)?;
    serde_json::from_slice(&bytes).map_err(|e| bad_body("body", e))
}

/// Maps an error response (problem+json) to a typed error.
async fn problem(status: StatusCode, resp: Response) -> ClientError {
    if matches!(
        status,
        StatusCode::BAD_GATEWAY | StatusCode::SERVICE_UNAVAILABLE | StatusCode::GATEWAY_TIMEOUT
    ) {
        return ClientError::Offline(format!("server unavailable ({status})"));
    }
    let body: Value = match resp.bytes().await {
        Ok(b) => serde_json::from_slice(&b).unwrap_or(Value::Null),
        Err(e) => return classify(e),
    };
    let code = body
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or("http_error")
        .to_owned();
    let stale = status == StatusCode::CONFLICT || status == StatusCode::PRECONDITION_FAILED;
    if stale && let Some(v) = body.get("current_version").and_then(Value::as_u64) {
        let changed_tab_ids = body
            .get("changed_tab_ids")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        return ClientError::Conflict {
            current_version: Version(v),
            changed_tab_ids,
        };
    }
    if status.is_server_error() {
        // The request may or may not have been applied: resend with the same key.
        return ClientError::Offline(format!("server error ({status})"));
    }
    let message = ["message", "detail", "title"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_str))
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error"))
        .to_owned();
    if status == StatusCode::CONFLICT && code == REVERT_CONFLICT {
        let tab_ids = body
            .get("tab_ids")
            .cloned()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        return ClientError::RevertConflict { tab_ids, message };
    }
    ClientError::Server {
        status: status.as_u16(),
        code,
        message,
    }
}

/// One server-sent event frame.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SseFrame {
    pub event: Option<String>,
    pub data: String,
}

impl SseFrame {
    fn into_event(self) -> Option<Result<ServerEvent>> {
        let data: Value = serde_json::from_str(&self.data).ok()?;
        match self.event.as_deref() {
            Some("hello") => {
                let version = data.get("version").and_then(Value::as_u64)?;
                Some(Ok(ServerEvent::Hello {
                    version: Version(version),
                }))
            }
            Some("write") | None => serde_json::from_value::<WriteEvent>(data)
                .ok()
                .map(|w| Ok(ServerEvent::Write(w))),
            Some(_) => None,
        }
    }
}

/// Incremental `text/event-stream` parser (comments and `id:`/`retry:` are ignored).
#[derive(Debug, Default)]
pub struct SseParser {
    buf: String,
    pending: Vec<u8>,
    frame: SseFrame,
    has_data: bool,
}

impl SseParser {
    /// Feeds bytes; returns the frames completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseFrame> {
        self.pending.extend_from_slice(bytes);
        // Only decode up to the last complete UTF-8 sequence.
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(s) => s.len(),
            Err(e) => e.valid_up_to(),
        };
        let text: Vec<u8> = self.pending.drain(..valid).collect();
        self.buf.push_str(&String::from_utf8_lossy(&text));
        let mut out = Vec::new();
        while let Some(pos) = self.buf.find('\n') {
            let line: String = self.buf.drain(..=pos).collect();
            let line = line.trim_end_matches('\n').trim_end_matches('\r');
            if line.is_empty() {
                if self.has_data {
                    out.push(std::mem::take(&mut self.frame));
                } else {
                    self.frame = SseFrame::default();
                }
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            match field {
                "event" => self.frame.event = Some(value.to_owned()),
                "data" => {
                    if self.has_data {
                        self.frame.data.push('\n');
                    }
                    self.frame.data.push_str(value);
                    self.has_data = true;
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_frames_split_anywhere() {
        let stream = "event: hello\ndata: {\"version\": 3}\n\n: keep-alive\n\nevent: write\r\ndata: {\"note_id\":\"01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50\",\"version\":4,\"author\":\"claude\",\"changed_tab_ids\":[\"markdown\"],\"at\":\"x\"}\r\n\r\n";
        for split in [1, 2, 7, 13, stream.len()] {
            let mut p = SseParser::default();
            let mut frames = Vec::new();
            for chunk in stream.as_bytes().chunks(split) {
                frames.extend(p.feed(chunk));
            }
            let events: Vec<ServerEvent> = frames
                .into_iter()
                .filter_map(SseFrame::into_event)
                .filter_map(Result::ok)
                .collect();
            assert_eq!(events.len(), 2, "split {split}");
            assert_eq!(
                events[0],
                ServerEvent::Hello {
                    version: Version(3)
                }
            );
            match &events[1] {
                ServerEvent::Write(w) => {
                    assert_eq!(w.version, Version(4));
                    assert_eq!(w.changed_tab_ids, vec![TabId::new("markdown")]);
                }
                other => panic!("expected a write, got {other:?}"),
            }
        }
    }
}
