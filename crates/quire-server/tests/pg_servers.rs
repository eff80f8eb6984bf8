//! Two `quire-server` processes on one PostgreSQL database behave as one server: the seeds' race
//! with writers spread over both (re-read and redo: nothing lost), creation with lost answers
//! resent to the other server (exactly the intended tabs), kill -9 of one server mid-storm
//! (every acknowledged write present), and an event stream on one server hearing of a write
//! accepted by the other, and a token revoked on the database refused by both at once (an
//! event stream on either ended). Real binaries, real HTTP, real PostgreSQL: the one named by
//! `QUIRE_TEST_PG`, or one the test starts itself (`quire_testkit::pg`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use quire_testkit::pg::{Cluster, TestDatabase};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::{Api, SseReader, markdown, version};
use tokio::sync::Mutex;

/// `quire-server serve --db postgres://...` on a free loopback port. Killed when dropped.
struct PgServer {
    child: Option<Child>,
    url: String,
}

impl PgServer {
    /// Starts the server; returns once it has printed the address it is bound to.
    fn start(db: &str) -> PgServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_quire-server"))
            .args(["serve", "--db", db, "--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start quire-server");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("read the server's first line");
        // Keep reading, so that the server never writes into a closed pipe.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the server said {line:?}, not its address"))
            .to_owned();
        PgServer {
            child: Some(child),
            url,
        }
    }

    fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("kill -9");
            child.wait().expect("reap");
        }
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// `quire-server token create --db postgres://...`: the token.
fn token(db: &str, name: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(["token", "create", "--db", db, "--name", name])
        .args(["--scope", "notes:read", "--scope", "notes:write"])
        .stdin(Stdio::null())
        .output()
        .expect("run token create");
    assert!(
        out.status.success(),
        "token create: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A fresh database, two servers on it, and a token.
struct Pair {
    servers: [PgServer; 2],
    token: String,
    db: TestDatabase,
}

impl Pair {
    async fn start() -> Pair {
        let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
        let db = cluster
            .fresh_database()
            .await
            .unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
        let url = db.url().to_owned();
        // The token first: it also creates the schema, so the servers start on a ready one.
        let (token, servers) = tokio::task::spawn_blocking(move || {
            let token = token(&url, "test");
            (token, [PgServer::start(&url), PgServer::start(&url)])
        })
        .await
        .unwrap();
        Pair { servers, token, db }
    }

    fn api(&self, server: usize) -> Api {
        Api {
            http: reqwest::Client::new(),
            base: self.servers[server].url.clone(),
            token: self.token.clone(),
        }
    }
}

/// The seeds' race: writers on both servers append lines to one Note; on a conflict each
/// re-reads and redoes its change on what is there. No line is lost or doubled.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn seeds_race_over_two_servers_loses_nothing() {
    const WRITERS: usize = 4;
    const EDITS: usize = 25;
    let pair = Pair::start().await;
    let id = pair.api(0).new_note().await;
    let mut writers = tokio::task::JoinSet::new();
    for w in 0..WRITERS {
        let api = pair.api(w % 2);
        let id = id.clone();
        writers.spawn(async move {
            let mut conflicts = 0;
            for e in 0..EDITS {
                loop {
                    let (v, text) = api.text(&id).await;
                    let resp = api
                        .replace_text(&id, v, &format!("{text}writer {w} edit {e}\n"))
                        .await;
                    match resp.status() {
                        StatusCode::OK => break,
                        StatusCode::CONFLICT => conflicts += 1,
                        other => panic!("{other}: {}", resp.text().await.unwrap()),
                    }
                }
            }
            conflicts
        });
    }
    let mut conflicts = 0;
    while let Some(c) = writers.join_next().await {
        conflicts += c.unwrap();
    }
    let (v, text) = pair.api(1).text(&id).await;
    for w in 0..WRITERS {
        for e in 0..EDITS {
            let line = format!("writer {w} edit {e}\n");
            assert_eq!(text.matches(&line).count(), 1, "{line:?}");
        }
    }
    assert_eq!(v, 1 + (WRITERS * EDITS) as u64);
    assert!(
        conflicts > 0,
        "the writers never raced: the test proves nothing"
    );
}

/// An agent creating decks whose answers get lost: each request goes to one server and, its
/// answer unseen, is resent with the same key to the other, both at once. A conflict (another
/// deck got in first) is authoritative: re-read, then a new request. Exactly one deck per
/// intent, and every answer for one key names the same deck.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn creating_with_lost_answers_makes_exactly_the_intended_tabs() {
    const AGENTS: usize = 3;
    const DECKS: usize = 4;
    let pair = Arc::new(Pair::start().await);
    let id = pair.api(0).new_note().await;
    let answers: Arc<Mutex<HashMap<String, HashSet<String>>>> = Arc::default();
    let mut agents = tokio::task::JoinSet::new();
    for a in 0..AGENTS {
        let (pair, id, answers) = (Arc::clone(&pair), id.clone(), Arc::clone(&answers));
        agents.spawn(async move {
            for d in 0..DECKS {
                for attempt in 0.. {
                    let key = format!("agent-{a}-deck-{d}-try-{attempt}");
                    let expected = version(&pair.api(a % 2).note(&id).await);
                    let body = json!({
                        "expected_version": expected,
                        "changes": [{ "op": "create_tab", "tab_type": "slides",
                                      "label": format!("agent {a} deck {d}") }],
                    });
                    let send = |server: usize| {
                        pair.api(server)
                            .req(Method::PATCH, &format!("/notes/{id}"))
                            .header("Idempotency-Key", &key)
                            .json(&body)
                            .send()
                    };
                    let (first, resent) = tokio::join!(send(a % 2), send(1 - a % 2));
                    let mut created = false;
                    for resp in [first.unwrap(), resent.unwrap()] {
                        match resp.status() {
                            StatusCode::OK => {
                                let result: Value = resp.json().await.unwrap();
                                let tab = result["outcomes"][0]["tab_id"]
                                    .as_str()
                                    .unwrap_or_else(|| panic!("{result}"))
                                    .to_owned();
                                answers
                                    .lock()
                                    .await
                                    .entry(key.clone())
                                    .or_default()
                                    .insert(tab);
                                created = true;
                            }
                            StatusCode::CONFLICT => {}
                            other => panic!("{other}: {}", resp.text().await.unwrap()),
                        }
                    }
                    if created {
                        break;
                    }
                }
            }
        });
    }
    while let Some(done) = agents.join_next().await {
        done.unwrap();
    }
    let note = pair.api(1).note(&id).await;
    let decks: Vec<&Value> = note["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["type"] == "slides")
        .collect();
    assert_eq!(decks.len(), AGENTS * DECKS, "{note}");
    let answers = answers.lock().await;
    assert_eq!(answers.len(), AGENTS * DECKS, "one accepted key per deck");
    let named: HashSet<&str> = answers
        .values()
        .map(|tabs| {
            assert_eq!(tabs.len(), 1, "one key, one deck: {tabs:?}");
            tabs.iter().next().unwrap().as_str()
        })
        .collect();
    let present: HashSet<&str> = decks.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(named, present);
}

/// Writers on both servers, one Note each; server A is killed with SIGKILL mid-storm and its
/// writers carry on against B. Every write either server acknowledged is there afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_of_one_server_mid_storm_loses_no_acknowledged_write() {
    const WRITERS: usize = 6;
    const EDITS: usize = 40;
    let mut pair = Pair::start().await;
    let survivor = pair.api(1);
    let mut notes = Vec::new();
    for _ in 0..WRITERS {
        notes.push(survivor.new_note().await);
    }
    let acked = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
    let (half_way, mut reached) = tokio::sync::mpsc::channel::<()>(WRITERS);
    let mut writers = tokio::task::JoinSet::new();
    for (w, id) in notes.iter().enumerate() {
        let (first, survivor) = (pair.api(w % 2), survivor.clone());
        let (id, acked, half_way) = (id.clone(), Arc::clone(&acked), half_way.clone());
        writers.spawn(async move {
            let mut api = first;
            for e in 0..EDITS {
                if e == EDITS / 4 {
                    half_way.send(()).await.unwrap();
                }
                let line = format!("writer {w} edit {e}\n");
                loop {
                    let Ok(read) = api.req(Method::GET, &format!("/notes/{id}")).send().await
                    else {
                        api = survivor.clone(); // A is gone: carry on against B
                        continue;
                    };
                    let note: Value = read.json().await.unwrap();
                    let text = markdown(&note);
                    if text.contains(&line) {
                        break; // written, though its answer was lost: not acknowledged
                    }
                    let body = support::replace_text(version(&note), &format!("{text}{line}"));
                    match api
                        .req(Method::PATCH, &format!("/notes/{id}"))
                        .json(&body)
                        .send()
                        .await
                    {
                        Ok(resp) if resp.status() == StatusCode::OK => {
                            acked.lock().await.push((id.clone(), line.clone()));
                            break;
                        }
                        // A write of ours whose answer was lost got in first: re-read.
                        Ok(resp) if resp.status() == StatusCode::CONFLICT => {}
                        Ok(resp) => panic!("{}: {}", resp.status(), resp.text().await.unwrap()),
                        // No answer: maybe written, maybe not. Re-read on B.
                        Err(_) => api = survivor.clone(),
                    }
                }
            }
        });
    }
    drop(half_way);
    for _ in 0..WRITERS {
        reached.recv().await.unwrap();
    }
    pair.servers[0].kill9();
    while let Some(done) = writers.join_next().await {
        done.unwrap();
    }
    let acked = acked.lock().await;
    assert!(
        acked.len() >= WRITERS * EDITS / 2,
        "{} acknowledged",
        acked.len()
    );
    for id in &notes {
        let (_, text) = survivor.text(id).await;
        for (_, line) in acked.iter().filter(|(n, _)| n == id) {
            assert_eq!(text.matches(line.as_str()).count(), 1, "{line:?} in {id}");
        }
    }
}

/// A person's event stream on server A hears of writes accepted by server B, in version
/// order, with what the history says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_on_one_server_hears_writes_accepted_by_the_other() {
    let pair = Pair::start().await;
    let (a, b) = (pair.api(0), pair.api(1));
    let id = a.new_note().await;
    let resp = a
        .req(Method::GET, &format!("/notes/{id}/events"))
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(resp);
    let hello = events.next().await;
    assert_eq!(
        (hello.event.as_str(), &hello.data["version"]),
        ("hello", &json!(1))
    );

    // Each event is awaited before the next write: A hears of B's writes from B (A itself
    // writes nothing it could catch up from until version 4).
    for (v, api) in [(1, &b), (2, &b), (3, &a), (4, &b)] {
        let resp = api.replace_text(&id, v, &format!("text {v}")).await;
        assert_eq!(resp.status(), StatusCode::OK);
        let event = events.next().await;
        assert_eq!(event.event, "write");
        assert_eq!(event.data["version"], json!(v + 1), "{:?}", event.data);
        assert_eq!(event.data["author"], "test");
        assert_eq!(event.data["changed_tab_ids"], json!(["markdown"]));
    }
    assert_eq!(b.history_len(&id).await, 5);
}

/// `token revoke` on the PostgreSQL database both servers share: each refuses the token from
/// its next request (401 `token_revoked`), and an open event stream on each ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_revoked_on_the_database_is_refused_by_every_server() {
    let pair = Pair::start().await;
    let id = pair.api(0).new_note().await;
    let mut streams = Vec::new();
    for server in 0..2 {
        let mut events = SseReader::new(pair.api(server).get(&format!("/notes/{id}/events")).await);
        assert_eq!(events.next().await.event, "hello");
        streams.push(events);
    }
    let url = pair.db.url().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_quire-server"))
            .args(["token", "revoke", "--db", &url, "--name", "test"])
            .stdin(Stdio::null())
            .output()
            .expect("run token revoke")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "token revoke: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for server in 0..2 {
        let resp = pair.api(server).get("/notes").await;
        assert_eq!(resp.status(), StatusCode::UNAUTHORIZED, "server {server}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["error"], "token_revoked", "server {server}");
    }
    for events in &mut streams {
        events.end().await;
    }
}
