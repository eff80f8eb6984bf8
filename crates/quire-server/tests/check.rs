//! `quire-server check`, the real binary on a real database file: it reads every version of
//! every Note back, says so when all read, and names each version that cannot be rebuilt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;

use std::process::Command;

use mcp_support::Harness;
use serde_json::json;

fn check(db: &std::path::Path) -> (bool, String, String) {
    run(db, &[])
}

fn run(db: &std::path::Path, extra: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(["check", "--db"])
        .arg(db)
        .args(extra)
        .output()
        .expect("run quire-server check");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn check_reads_every_version_and_names_the_ones_that_do_not_rebuild() {
    let mut h = Harness::start();
    let plain = h.create_note("Plain").await;
    h.patch(
        &plain,
        1,
        json!([{"op": "replace_text", "tab_id": "markdown", "text": "hi"}]),
    )
    .await;
    let long = h.create_note("Long").await;
    let text = "line of text\n".repeat(600);
    h.patch(
        &long,
        1,
        json!([{"op": "replace_text", "tab_id": "markdown", "text": text}]),
    )
    .await;
    let edited = format!("{text}one more line\n");
    let (status, _) = h
        .patch(
            &long,
            2,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": edited}]),
        )
        .await;
    assert_eq!(status, 200);
    h.server.terminate().unwrap();

    let (ok, out, err) = check(&h.server.db_path);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("checked 2 notes, 5 versions: every version reads back"),
        "{out}"
    );

    // Version 2 of the long Note holds its text whole, version 3 a splice of it: change one
    // byte of version 2's text (the same length) and version 3 no longer rebuilds.
    let file = rusqlite::Connection::open(&h.server.db_path).unwrap();
    let nid: i64 = file
        .query_row("SELECT nid FROM notes WHERE id = ?1", [&long], |r| r.get(0))
        .unwrap();
    let changed = file
        .execute(
            "UPDATE versions SET data = replace(data, 'line of text', 'line of TEXT') WHERE key = ?1",
            [(nid << 32) | 2],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(file);

    let (ok, out, err) = check(&h.server.db_path);
    assert!(
        !ok,
        "a version that does not rebuild fails the check: {out}"
    );
    assert!(out.contains(&format!("note {long} version 3: ")), "{out}");
    assert!(out.contains("cannot be rebuilt"), "{out}");
    assert!(
        !out.contains(&plain),
        "only the broken Note is named: {out}"
    );
    assert!(
        err.contains("checked 2 notes, 5 versions: 1 cannot be read back"),
        "{err}"
    );

    // Its newest version does not read, so the server cannot serve it: --repair restores the
    // newest version that reads, as a new version, and the Note works again.
    let (ok, out, err) = run(&h.server.db_path, &["--repair"]);
    assert!(ok, "{out}{err}");
    assert!(
        out.contains(&format!(
            "note {long}: version 3 cannot be read back; restored version 2 as version 4"
        )),
        "{out}"
    );
    assert!(out.contains("repaired 1 notes"), "{out}");
    h.server.restart().unwrap();
    h.http = reqwest::Client::new();
    let note = h.note(&long).await;
    assert_eq!(note["version"], 4);
    assert_eq!(
        note["tabs"][0]["data"],
        text.replace("line of text", "line of TEXT")
    );
    let (status, body) = h
        .patch(
            &long,
            4,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": "fine"}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, history) = h.get(&format!("/notes/{long}/versions")).await;
    let v4 = &history["versions"][3];
    assert_eq!(v4["author"], "quire-server check --repair");
    assert_eq!(v4["summary"], "restored version 2");
    // The unreadable version stays in the history; the check still names it, and only it.
    h.server.terminate().unwrap();
    let (ok, out, _) = check(&h.server.db_path);
    assert!(!ok);
    assert!(out.contains(&format!("note {long} version 3: ")), "{out}");
    assert_eq!(out.matches("cannot be rebuilt").count(), 1, "{out}");
}

#[test]
fn check_refuses_a_missing_database() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let (ok, _, err) = check(&missing);
    assert!(!ok);
    assert!(err.contains("no database at"), "{err}");
    assert!(!missing.exists(), "check creates nothing");
}
