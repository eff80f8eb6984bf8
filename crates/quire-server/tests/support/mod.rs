//! Shared by the integration tests: the real binary (via quire-testkit), a small REST client
//! over reqwest, and a server-sent-events reader.
#![allow(clippy::unwrap_used, dead_code)]

use std::time::Duration;

use futures::StreamExt;
use quire_testkit::{Options, ServerProcess};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};

/// The `quire-server` binary cargo built for these tests.
pub fn options() -> Options {
    Options::new(env!("CARGO_BIN_EXE_quire-server"))
}

/// A fresh server on a fresh database.
pub fn server() -> ServerProcess {
    ServerProcess::spawn_with(options()).expect("start quire-server")
}

/// A REST client for one server and one token.
#[derive(Clone)]
pub struct Api {
    pub http: reqwest::Client,
    pub base: String,
    pub token: String,
}

impl Api {
    pub fn new(server: &ServerProcess) -> Self {
        Self::with_token(server, &server.token)
    }

    pub fn with_token(server: &ServerProcess, token: &str) -> Self {
        Api {
            http: reqwest::Client::new(),
            base: server.url(),
            token: token.to_owned(),
        }
    }

    pub fn req(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    /// POST /notes; the new Note.
    pub async fn create_note(&self, title: &str) -> Value {
        let resp = self
            .req(Method::POST, "/notes")
            .json(&json!({ "title": title }))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), StatusCode::CREATED);
        resp.json().await.unwrap()
    }

    /// A new Note's ID.
    pub async fn new_note(&self) -> String {
        self.create_note("test").await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// GET `path`.
    pub async fn get(&self, path: &str) -> Response {
        self.req(Method::GET, path).send().await.unwrap()
    }

    /// GET `path`: 200 and its JSON body.
    pub async fn get_ok(&self, path: &str) -> Value {
        let resp = self.get(path).await;
        assert_eq!(resp.status(), StatusCode::OK, "GET {path}");
        resp.json().await.unwrap()
    }

    pub async fn note(&self, id: &str) -> Value {
        self.get_ok(&format!("/notes/{id}")).await
    }

    /// The Note's version and its Markdown text.
    pub async fn text(&self, id: &str) -> (u64, String) {
        let note = self.note(id).await;
        (version(&note), markdown(&note))
    }

    pub async fn history_len(&self, id: &str) -> usize {
        let body = self.get_ok(&format!("/notes/{id}/versions")).await;
        body["versions"].as_array().unwrap().len()
    }

    /// PATCH /notes/{id} with a JSON body.
    pub async fn patch(&self, id: &str, body: Value) -> Response {
        self.req(Method::PATCH, &format!("/notes/{id}"))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// One `replace_text` on the Markdown tab, guarded by `expected`.
    pub async fn replace_text(&self, id: &str, expected: u64, text: &str) -> Response {
        self.patch(id, replace_text(expected, text)).await
    }
}

pub fn replace_text(expected: u64, text: &str) -> Value {
    json!({
        "expected_version": expected,
        "changes": [{ "op": "replace_text", "tab_id": "markdown", "text": text }],
    })
}

pub fn version(note: &Value) -> u64 {
    note["version"].as_u64().unwrap()
}

pub fn markdown(note: &Value) -> String {
    let tabs = note["tabs"].as_array().unwrap();
    let tab = tabs.iter().find(|t| t["id"] == "markdown").unwrap();
    tab["data"].as_str().unwrap().to_owned()
}

/// A refusal: its status and problem+json body.
pub async fn refused(resp: Response) -> (StatusCode, Value) {
    let status = resp.status();
    let content_type = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(
        content_type.as_deref(),
        Some("application/problem+json"),
        "status {status}"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["status"], status.as_u16(), "{body}");
    assert!(body["title"].is_string() && body["detail"].is_string() && body["type"].is_string());
    (status, body)
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct SseEvent {
    pub event: String,
    pub id: Option<String>,
    pub data: Value,
}

/// Reads `text/event-stream` from a response, one event at a time.
pub struct SseReader {
    stream: futures::stream::BoxStream<'static, reqwest::Result<Vec<u8>>>,
    buffer: String,
}

impl SseReader {
    pub fn new(resp: Response) -> Self {
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(
            resp.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        SseReader {
            stream: resp.bytes_stream().map(|r| r.map(|b| b.to_vec())).boxed(),
            buffer: String::new(),
        }
    }

    /// The next event (comments and keep-alives skipped); panics after 10 s without one.
    pub async fn next(&mut self) -> SseEvent {
        tokio::time::timeout(Duration::from_secs(10), self.next_inner())
            .await
            .expect("an event within 10 s")
    }

    /// Waits for the server to end the stream (panics after 10 s), skipping keep-alives;
    /// the events that came before the end.
    pub async fn end(&mut self) -> Vec<SseEvent> {
        tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(chunk) = self.stream.next().await {
                match chunk {
                    Ok(chunk) => self.buffer.push_str(std::str::from_utf8(&chunk).unwrap()),
                    // The server closed the connection under a chunked body: an end too.
                    Err(_) => break,
                }
            }
            let mut events = Vec::new();
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                events.extend(parse_block(&block));
            }
            events
        })
        .await
        .expect("the server ends the stream within 10 s")
    }

    async fn next_inner(&mut self) -> SseEvent {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = parse_block(&block) {
                    return event;
                }
                continue;
            }
            let chunk = self
                .stream
                .next()
                .await
                .expect("the stream stays open")
                .unwrap();
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}

fn parse_block(block: &str) -> Option<SseEvent> {
    let mut event = None;
    let mut id = None;
    let mut data = String::new();
    for line in block.lines() {
        if let Some(v) = line.strip_prefix("event:") {
            event = Some(v.trim().to_owned());
        } else if let Some(v) = line.strip_prefix("id:") {
            id = Some(v.trim().to_owned());
        } else if let Some(v) = line.strip_prefix("data:") {
            data.push_str(v.trim_start());
        }
    }
    let event = event?;
    Some(SseEvent {
        event,
        id,
        data: serde_json::from_str(&data).unwrap(),
    })
}
