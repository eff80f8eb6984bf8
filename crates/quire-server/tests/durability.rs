//! Lost writes, counted: racing editors under the two conflict policies the seeds measured,
//! kill -9 during a write storm, and SIGTERM during one. Real binary, real HTTP, real SQLite.
#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use reqwest::StatusCode;
use serde_json::Value;
use support::{Api, SseReader, server};
use tokio::sync::Barrier;

const WRITERS: usize = 4;
const EDITS: usize = 50;

/// What an editor does when its write is refused as stale.
#[derive(Clone, Copy, Debug)]
enum Policy {
    /// Re-read the Note and redo the change on what is there (what the tools instruct).
    RereadAndRedo,
    /// Take the new version number from the conflict and resend the old text.
    RefreshVersionOnly,
}

struct Race {
    lost: usize,
    conflicts: usize,
    version: u64,
}

/// WRITERS editors each append EDITS unique lines to one Note at the same time.
async fn race(policy: Policy) -> Race {
    let server = server();
    let api = Api::new(&server);
    let id = api.new_note().await;
    let start = Arc::new(Barrier::new(WRITERS));
    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (api, id, start) = (api.clone(), id.clone(), start.clone());
            tokio::spawn(async move { edit(&api, &id, w, policy, &start).await })
        })
        .collect();
    let mut conflicts = 0;
    for task in tasks {
        conflicts += task.await.unwrap();
    }
    let (version, text) = api.text(&id).await;
    let present: HashSet<&str> = text.lines().collect();
    let lost = (0..WRITERS)
        .flat_map(|w| (0..EDITS).map(move |j| line(w, j)))
        .filter(|l| !present.contains(l.as_str()))
        .count();
    eprintln!(
        "{policy:?}: {} writes, {conflicts} conflicts, {lost} lines lost, version {version}",
        WRITERS * EDITS
    );
    Race {
        lost,
        conflicts,
        version,
    }
}

fn line(writer: usize, edit: usize) -> String {
    format!("w{writer}-{edit}")
}

/// One editor; returns how many of its writes were refused as stale.
async fn edit(api: &Api, id: &str, w: usize, policy: Policy, start: &Barrier) -> usize {
    let (mut version, mut local) = api.text(id).await;
    start.wait().await;
    let mut conflicts = 0;
    for j in 0..EDITS {
        let line = line(w, j);
        if let Policy::RereadAndRedo = policy {
            (version, local) = api.text(id).await;
        }
        local.push_str(&line);
        local.push('\n');
        loop {
            let resp = api.replace_text(id, version, &local).await;
            let status = resp.status();
            let body: Value = resp.json().await.unwrap();
            match status {
                StatusCode::OK => {
                    version = body["version"].as_u64().unwrap();
                    break;
                }
                StatusCode::CONFLICT => {
                    conflicts += 1;
                    match policy {
                        Policy::RereadAndRedo => {
                            let (v, text) = api.text(id).await;
                            version = v;
                            local = format!("{text}{line}\n");
                        }
                        Policy::RefreshVersionOnly => {
                            version = body["current_version"].as_u64().unwrap();
                        }
                    }
                }
                other => panic!("unexpected {other}: {body}"),
            }
        }
    }
    conflicts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn re_read_and_redo_loses_nothing() {
    let race = race(Policy::RereadAndRedo).await;
    assert_eq!(race.lost, 0);
    assert_eq!(race.version, 1 + (WRITERS * EDITS) as u64);
    assert!(race.conflicts > 0, "the writers did race");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refresh_version_only_loses_lines_and_the_count_shows_it() {
    let race = race(Policy::RefreshVersionOnly).await;
    // Every write passed the version check, and still lines are gone.
    assert_eq!(race.version, 1 + (WRITERS * EDITS) as u64);
    assert!(race.lost > 0, "the count must detect the loss");
}

/// Editors appending unique lines until the server goes away.
struct Storm {
    /// Every acknowledged (Note, line).
    acked: Arc<Mutex<Vec<(String, String)>>>,
    /// How many so far.
    count: tokio::sync::watch::Receiver<usize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Storm {
    async fn wait_for(&mut self, acks: usize) {
        self.count.wait_for(|n| *n >= acks).await.unwrap();
    }

    /// Waits for every editor to stop; the acknowledged (Note, line)s.
    async fn end(self) -> Vec<(String, String)> {
        for task in self.tasks {
            task.await.unwrap();
        }
        self.acked.lock().unwrap().clone()
    }
}

/// WRITERS editors over `notes` (several per Note: they conflict and re-read), each appending
/// unique lines with the re-read-and-redo policy.
fn storm(api: &Api, notes: &[String]) -> Storm {
    let acked = Arc::new(Mutex::new(Vec::new()));
    let (counter, count) = tokio::sync::watch::channel(0);
    let counter = Arc::new(counter);
    let tasks = (0..WRITERS)
        .map(|w| {
            let (api, id, acked) = (api.clone(), notes[w % notes.len()].clone(), acked.clone());
            let counter = counter.clone();
            tokio::spawn(async move {
                for j in 0.. {
                    let line = line(w, j);
                    loop {
                        let Ok(resp) = api
                            .req(reqwest::Method::GET, &format!("/notes/{id}"))
                            .send()
                            .await
                        else {
                            return;
                        };
                        let Ok(note) = resp.json::<Value>().await else {
                            return;
                        };
                        let text = support::markdown(&note);
                        let expected = support::version(&note);
                        let body = support::replace_text(expected, &format!("{text}{line}\n"));
                        let patch = api.req(reqwest::Method::PATCH, &format!("/notes/{id}"));
                        let Ok(resp) = patch.json(&body).send().await else {
                            return;
                        };
                        match resp.status() {
                            StatusCode::OK => {
                                // Acknowledged only once the whole response has arrived.
                                if resp.bytes().await.is_err() {
                                    return;
                                }
                                acked.lock().unwrap().push((id.clone(), line));
                                counter.send_modify(|n| *n += 1);
                                break;
                            }
                            StatusCode::CONFLICT => {}
                            // Shutting down.
                            _ => return,
                        }
                    }
                }
            })
        })
        .collect();
    Storm {
        acked,
        count,
        tasks,
    }
}

/// Every acknowledged line is in its Note, and each Note's version counts at least its
/// acknowledged writes.
async fn assert_all_present(api: &Api, notes: &[String], acked: &[(String, String)]) {
    for id in notes {
        let (version, text) = api.text(id).await;
        let present: HashSet<&str> = text.lines().collect();
        let mine: Vec<&String> = acked
            .iter()
            .filter(|(n, _)| n == id)
            .map(|(_, l)| l)
            .collect();
        let missing: Vec<&&String> = mine
            .iter()
            .filter(|l| !present.contains(l.as_str()))
            .collect();
        assert!(missing.is_empty(), "acknowledged but lost: {missing:?}");
        assert!(
            version > mine.len() as u64,
            "version {version}, {} acked",
            mine.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_during_a_write_storm_loses_no_acknowledged_write() {
    let mut server = server();
    let api = Api::new(&server);
    let notes = [api.new_note().await, api.new_note().await];
    let mut storm = storm(&api, &notes);
    storm.wait_for(80).await;
    server.kill9().unwrap();
    let acked = storm.end().await;

    // The file the crash left is sound.
    let db = rusqlite::Connection::open(&server.db_path).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(db);

    server.restart().unwrap();
    assert_all_present(&api, &notes, &acked).await;
    eprintln!("kill -9: {} acknowledged writes, all present", acked.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sigterm_finishes_in_flight_writes_and_stops() {
    let mut server = server();
    let api = Api::new(&server);
    let notes = [api.new_note().await, api.new_note().await];
    // An open event stream must not hold the shutdown up.
    let events = api
        .req(reqwest::Method::GET, &format!("/notes/{}/events", notes[0]))
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(events);
    assert_eq!(events.next().await.event, "hello");

    let mut storm = storm(&api, &notes);
    storm.wait_for(80).await;
    let (server_back, status) = tokio::task::spawn_blocking(move || {
        let status = server.terminate().unwrap();
        (server, status)
    })
    .await
    .unwrap();
    server = server_back;
    assert!(
        status.is_some_and(|s| s.success()),
        "clean exit: {status:?}\n{}",
        server.log()
    );
    let acked = storm.end().await;

    server.restart().unwrap();
    assert_all_present(&api, &notes, &acked).await;
    eprintln!("SIGTERM: {} acknowledged writes, all present", acked.len());
}
