//! A save of a long Note against the same save of a short one (issue 17): a one-character change,
//! as the app's engine sends it (`PATCH /notes/{id}` with one `splice_text` of one inserted
//! character at a random place, guarded by the version and keyed), on a Note whose Markdown tab
//! holds `--mib` MiB of text (default 10) and on one holding 2 KB. The two alternate in blocks
//! of 10 saves on one keep-alive connection to the real server (SQLite, `synchronous=FULL` as
//! `serve` runs it, its own runtime): the round trip on loopback (the server's time plus the
//! transfer of a few hundred bytes; median and p99) and the bytes of each body.
//!
//! Then the history's cost: `--history` more saves (default 10,000) of one character on the
//! long Note, and how much the database grew for them (its size after a checkpoint into the
//! main file, before and after; the pages in use, free pages left out).
//!
//! Where each character goes: a random place (default: the worst case for the history, every
//! change apart from the others), or with `--typing 1` as a person types: after the one before,
//! the cursor moved to a random place every 200 characters.
//!
//! `cargo run --release -p quire-server --example bench_big_save [-- --mib M --saves N --history N --typing 1]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::Instant;

use quire_model::AuthorKind;
use quire_server::ServeConfig;
use quire_testkit::bench::{Samples, arg, micros};
use serde_json::{Value, json};

/// Saves in a row on one Note before the other's turn.
const BLOCK: usize = 10;
const SHORT_BYTES: usize = 2_000;

fn main() {
    let mib = arg("--mib", 10);
    let saves = arg("--saves", 200);
    let history = arg("--history", 10_000);
    let typing = arg("--typing", 0) != 0;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let token = support::make_token(&db, "person", AuthorKind::Person);
    let long_bytes = mib << 20;

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let listen = SocketAddr::from(([127, 0, 0, 1], 0));

    let server = support::serve(ServeConfig::new(&db, listen));
    let mut client = Client::new(server.addr, &token, typing);
    let (short, long) = rt.block_on(async {
        let short = client.note("A short Note", &text(SHORT_BYTES)).await;
        let long = client.note("A research log", &text(long_bytes)).await;
        (short, long)
    });
    let (short_id, long_id) = (short.id.clone(), long.id.clone());
    let [short_saves, long_saves] = rt.block_on(async {
        let mut notes = [short, long];
        let mut measured = [Measured::default(), Measured::default()];
        // The first block of each warms the connection and the writer's copy of the Note.
        for round in 0..=saves.div_ceil(BLOCK) {
            for (note, m) in notes.iter_mut().zip(&mut measured) {
                for _ in 0..BLOCK {
                    let save = client.save(note).await;
                    if round > 0 {
                        m.add(save);
                    }
                }
            }
        }
        measured
    });
    server.stop();

    let mut growth = Vec::new();
    for (what, id) in [
        (format!("{SHORT_BYTES} B"), short_id),
        (format!("{mib} MiB"), long_id),
    ] {
        let before = db_size(&db);
        let tables_before = tables(&db);
        let server = support::serve(ServeConfig::new(&db, listen));
        let mut client = Client::new(server.addr, &token, typing);
        let mut note = rt.block_on(client.reopen(id));
        let t = Instant::now();
        let mut took = Samples::with_capacity(history);
        rt.block_on(async {
            for _ in 0..history {
                took.push(client.save(&mut note).await.took);
            }
        });
        let elapsed = t.elapsed();
        server.stop();
        let tables_after = tables(&db);
        growth.push((what, elapsed, took.stats(), before, db_size(&db)));
        let grew: Vec<String> = tables_after
            .iter()
            .filter_map(|(name, bytes)| {
                let was = tables_before
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0, |t| t.1);
                (bytes > &was).then(|| format!("{name} +{:.0} KiB", (bytes - was) as f64 / 1024.0))
            })
            .collect();
        eprintln!("growth by table: {}", grew.join(", "));
    }
    let places = if typing {
        "typed in runs of 200"
    } else {
        "each at a random place"
    };
    println!(
        "A one-character save (splice_text, {places}), {} saves of each Note alternated in blocks of {BLOCK}, \
         one keep-alive connection, SQLite synchronous=FULL",
        short_saves.round_trips.len()
    );
    println!("| Note | request | response | round trip p50 | p99 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (what, m) in [
        (format!("{SHORT_BYTES} B of Markdown"), short_saves),
        (format!("{mib} MiB of Markdown"), long_saves),
    ] {
        let (request, response) = (m.request, m.response);
        let s = m.round_trips.stats();
        println!(
            "| {what} | {request} B | {response} B | {:.0} µs | {:.0} µs |",
            micros(s.median),
            micros(s.p99)
        );
    }
    println!("\n{history} more one-character saves of each Note, one after the other");
    println!("| Note | time | save p50 | p99 | database before | after | growth | a save |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (what, elapsed, s, before, after) in growth {
        let grew = after.saturating_sub(before);
        println!(
            "| {what} | {:.1} s | {:.0} µs | {:.0} µs | {:.2} MiB | {:.2} MiB | {:.2} MiB | {:.0} B |",
            elapsed.as_secs_f64(),
            micros(s.median),
            micros(s.p99),
            mebibytes(before),
            mebibytes(after),
            mebibytes(grew),
            grew as f64 / history.max(1) as f64,
        );
    }
}

/// `bytes` of Markdown (ASCII): numbered lines of 64 characters.
fn text(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 64);
    let mut line = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "{line:06} the log of a long study, one line of many, kept alike.\n"
        ));
        line += 1;
    }
    out.truncate(bytes);
    out
}

fn mebibytes(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// The bytes of the database's pages in use, once the WAL is checkpointed into it.
fn db_size(db: &Path) -> u64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.pragma_update(None, "wal_checkpoint", "TRUNCATE")
        .unwrap();
    let pragma = |name: &str| -> u64 {
        conn.pragma_query_value(None, name, |r| r.get::<_, i64>(0))
            .unwrap()
            .try_into()
            .unwrap()
    };
    (pragma("page_count") - pragma("freelist_count")) * pragma("page_size")
}

/// The bytes of each table and index (SQLite's `dbstat`), largest first.
fn tables(db: &Path) -> Vec<(String, u64)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A Note being saved: its ID, the version the next save expects, its text's length in
/// characters (all ASCII: a character is a byte).
struct Saved {
    id: String,
    version: u64,
    chars: u64,
    /// Where the next character goes when typing, and how many were typed there in a row.
    cursor: Option<(u64, u64)>,
}

struct Save {
    took: std::time::Duration,
    request: usize,
    response: usize,
}

#[derive(Default)]
struct Measured {
    round_trips: Samples,
    request: usize,
    response: usize,
}

impl Measured {
    fn add(&mut self, save: Save) {
        self.round_trips.push(save.took);
        self.request = save.request;
        self.response = save.response;
    }
}

struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
    /// Where the next splice goes (a simple LCG: the same places every run).
    seed: u64,
    typing: bool,
}

impl Client {
    fn new(addr: SocketAddr, token: &str, typing: bool) -> Self {
        Client {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(1)
                .build()
                .unwrap(),
            base: format!("http://{addr}"),
            token: token.to_owned(),
            seed: 0x2545_f491_4f6c_dd1d,
            typing,
        }
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Value {
        let resp = request.bearer_auth(&self.token).send().await.unwrap();
        let status = resp.status();
        let body: Value = resp.json().await.unwrap();
        assert!(status.is_success(), "{status}: {body}");
        body
    }

    /// A new Note whose Markdown tab holds `text`.
    async fn note(&mut self, title: &str, text: &str) -> Saved {
        let made = self
            .send(
                self.http
                    .post(format!("{}/notes", self.base))
                    .json(&json!({ "title": title })),
            )
            .await;
        let id = made["id"].as_str().unwrap().to_owned();
        let version = made["version"].as_u64().unwrap();
        let written = self
            .send(
                self.http
                    .patch(format!("{}/notes/{id}", self.base))
                    .json(&json!({
                        "expected_version": version,
                        "changes": [{ "op": "replace_text", "tab_id": "markdown", "text": text }],
                    })),
            )
            .await;
        Saved {
            id,
            version: written["version"].as_u64().unwrap(),
            chars: text.len() as u64,
            cursor: None,
        }
    }

    /// The Note `id` as it is now.
    async fn reopen(&mut self, id: String) -> Saved {
        let note = self
            .send(self.http.get(format!("{}/notes/{id}", self.base)))
            .await;
        let tabs = note["tabs"].as_array().unwrap();
        let markdown = tabs.iter().find(|t| t["id"] == "markdown").unwrap();
        Saved {
            id,
            version: note["version"].as_u64().unwrap(),
            chars: markdown["data"].as_str().unwrap().len() as u64,
            cursor: None,
        }
    }

    /// One character inserted at a random place of `note`, as the app saves it.
    async fn save(&mut self, note: &mut Saved) -> Save {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let random = (self.seed >> 33) % (note.chars + 1);
        let at = match note.cursor {
            Some((at, typed)) if self.typing && typed < 200 => at,
            _ => random,
        };
        let typed = note
            .cursor
            .filter(|&(was, _)| was == at)
            .map_or(0, |(_, n)| n);
        note.cursor = Some((at + 1, typed + 1));
        let body = serde_json::to_vec(&json!({
            "expected_version": note.version,
            "changes": [{
                "op": "splice_text",
                "tab_id": "markdown",
                "splices": [{ "at": at, "insert": "x" }],
            }],
        }))
        .unwrap();
        let request = body.len();
        let t = Instant::now();
        let resp = self
            .http
            .patch(format!("{}/notes/{}", self.base, note.id))
            .bearer_auth(&self.token)
            .header("content-type", "application/json")
            .header("idempotency-key", uuid::Uuid::now_v7().to_string())
            .body(body)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let bytes = resp.bytes().await.unwrap();
        let took = t.elapsed();
        assert!(status.is_success(), "{status}: {bytes:?}");
        let written: Value = serde_json::from_slice(&bytes).unwrap();
        note.version = written["version"].as_u64().unwrap();
        note.chars += 1;
        Save {
            took,
            request,
            response: bytes.len(),
        }
    }
}
