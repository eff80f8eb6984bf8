//! Export and import with the real binary on real database files: `GET /notes/{id}/export`
//! over HTTP, `quire-server export` of a database, `quire-server import` of that export into
//! another (while its server runs) and of a folder of plain Markdown files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_support;

use std::io::Read;
use std::path::Path;
use std::process::Command;

use mcp_support::Harness;
use serde_json::{Value, json};

fn quire_server(args: &[&str], paths: &[&Path]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(args)
        .args(paths)
        .output()
        .expect("run quire-server");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Note with one tab of every kind, content that the formats must escape, renamed and
/// reordered tabs; returns its ID.
async fn rich_note(h: &Harness) -> String {
    let id = h.create_note("Trip: \"Lisbon\"").await;
    let (status, made) = h
        .patch(
            &id,
            1,
            json!([
                {"op": "create_tab", "tab_type": "sheet", "label": "Budget"},
                {"op": "create_tab", "tab_type": "slides", "label": "Pitch", "slides": [
                    {"title": "Why now", "body": "Costs fell.\n---\nNote: not a note", "notes": "pause"},
                    {"title": "Ask", "body": "", "notes": ""}
                ]}
            ]),
        )
        .await;
    assert_eq!(status, 200, "{made}");
    let sheet = made["outcomes"][0]["tab_id"].as_str().unwrap().to_owned();
    let deck = made["outcomes"][1]["tab_id"].as_str().unwrap().to_owned();
    let note = h.get(&format!("/notes/{id}")).await.1;
    let slide = note["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == deck.as_str())
        .unwrap()["data"]["slides"][1]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = h
        .patch(
            &id,
            2,
            json!([
                {"op": "replace_text", "tab_id": "markdown", "text": "# Plan\n\n---\nFly out, \"early\".\n"},
                {"op": "sheet_set_range", "tab_id": sheet, "start_row": 0, "start_col": 0,
                 "values": [["item", "cost"], ["hotel, 3 nights", 412.5], ["say \"hi\"\nnow", 0.21000000000000002], [null, true]]},
                {"op": "set_theme", "tab_id": deck, "theme": "ocean"},
                {"op": "set_slide_layout", "tab_id": deck, "slide_id": slide, "layout": "section"},
                {"op": "add_source", "title": "Guide [2026]", "url": "https://example.com/lisbon?(a)"},
                {"op": "add_file", "name": "map.png", "mime": "image/png", "size": 1234,
                 "sha256": "ab".repeat(32)},
                {"op": "rename_tab", "tab_id": "markdown", "label": "Brief"},
                {"op": "move_tab", "tab_id": "sources", "index": 0}
            ]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    id
}

/// A Note's tabs as an import must give them back: kind, label, content with cells as text,
/// sources as title and URL, attachments as their metadata.
fn comparable(note: &Value) -> Value {
    let tabs: Vec<Value> =
        note["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let data =
                    match t["type"].as_str().unwrap() {
                        "sheet" => {
                            let sheets: Vec<Value> = t["data"]["sheets"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|s| {
                                    let rows: Vec<Value> = s["rows"]
                                        .as_array()
                                        .unwrap()
                                        .iter()
                                        .map(|r| {
                                            let mut cells: Vec<Value> = r
                                                .as_array()
                                                .unwrap()
                                                .iter()
                                                .map(|c| match c {
                                                    Value::Null => Value::Null,
                                                    Value::String(s) if s.is_empty() => Value::Null,
                                                    Value::String(s) => json!(s),
                                                    other => json!(other.to_string()),
                                                })
                                                .collect();
                                            while cells.last() == Some(&Value::Null) {
                                                cells.pop();
                                            }
                                            json!(cells)
                                        })
                                        .collect();
                                    json!({"id": s["id"], "name": s["name"], "rows": rows})
                                })
                                .collect();
                            json!({ "sheets": sheets })
                        }
                        "sources" => json!(
                            t["data"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|s| json!({"title": s["title"], "url": s["url"]}))
                                .collect::<Vec<_>>()
                        ),
                        "files" => json!(t["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| json!({"name": f["name"], "mime": f["mime"], "size": f["size"],
                                    "sha256": f["sha256"]}))
                    .collect::<Vec<_>>()),
                        _ => t["data"].clone(),
                    };
                json!({"type": t["type"], "label": t["label"], "data": data})
            })
            .collect();
    json!({"title": note["title"], "tabs": tabs})
}

#[tokio::test]
async fn a_note_downloads_as_a_zip_of_its_folder() {
    let h = Harness::start();
    let id = rich_note(&h).await;
    let res = h
        .http
        .get(format!("{}/notes/{id}/export", h.url()))
        .bearer_auth(h.token())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/zip");
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\"Trip- -Lisbon-.zip\""),
        "{disposition}"
    );
    let bytes = res.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let mut names: Vec<String> = zip.file_names().map(|n| n.unwrap().into_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Trip- -Lisbon-/Budget.csv",
            "Trip- -Lisbon-/Pitch.md",
            "Trip- -Lisbon-/index.md",
            "Trip- -Lisbon-/quire-export.json",
            "Trip- -Lisbon-/sources.md",
        ]
    );
    let mut csv = String::new();
    zip.by_name("Trip- -Lisbon-/Budget.csv")
        .unwrap()
        .read_to_string(&mut csv)
        .unwrap();
    assert_eq!(
        csv,
        "item,cost\r\n\"hotel, 3 nights\",412.5\r\n\"say \"\"hi\"\"\nnow\",0.21000000000000002\r\n,true\r\n"
    );
    let mut deck = String::new();
    zip.by_name("Trip- -Lisbon-/Pitch.md")
        .unwrap()
        .read_to_string(&mut deck)
        .unwrap();
    assert_eq!(
        deck,
        "# Why now\n\nCosts fell.\n\\---\n\\Note: not a note\n\nNote: pause\n---\n\n# Ask\n"
    );

    // A Note that is not there, and a caller without a token.
    let missing = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
    let (status, body) = h.get(&format!("/notes/{missing}/export")).await;
    assert_eq!(status, 404, "{body}");
    let anonymous = h
        .http
        .get(format!("{}/notes/{id}/export", h.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
}

#[tokio::test]
async fn an_export_imports_into_another_database_as_the_same_notes() {
    let mut from = Harness::start();
    let rich = rich_note(&from).await;
    let plain = from.create_note("Plain").await;
    let (status, _) = from
        .patch(
            &plain,
            1,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": "just text"}]),
        )
        .await;
    assert_eq!(status, 200);
    let originals = [
        comparable(&from.get(&format!("/notes/{rich}")).await.1),
        comparable(&from.get(&format!("/notes/{plain}")).await.1),
    ];
    from.server.terminate().unwrap();

    let out = tempfile::tempdir().unwrap();
    let (ok, stdout, stderr) = quire_server(
        &["export", "--db"],
        &[&from.server.db_path, Path::new("--out"), out.path()],
    );
    assert!(ok, "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(stderr.contains("exported 2 notes"), "{stderr}");
    let index = std::fs::read_to_string(out.path().join("Trip- -Lisbon-/index.md")).unwrap();
    assert!(
        index.starts_with(&format!(
            "---\nid: \"{rich}\"\ntitle: \"Trip: \\\"Lisbon\\\"\"\nversion: 3\n---\n# Plan"
        )),
        "{index}"
    );

    // Exporting again into the same folder leaves the first export alone.
    let (ok, _, stderr) = quire_server(
        &["export", "--db"],
        &[
            &from.server.db_path,
            Path::new("--out"),
            out.path(),
            Path::new("--note"),
            Path::new(&plain),
        ],
    );
    assert!(ok, "{stderr}");
    assert!(out.path().join("Plain (2)/index.md").is_file());
    std::fs::remove_dir_all(out.path().join("Plain (2)")).unwrap();

    // Into another database, while its server runs.
    let to = Harness::start();
    let (ok, stdout, stderr) = quire_server(&["import", "--db"], &[&to.server.db_path, out.path()]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("imported 2 notes"), "{stderr}");
    let (status, list) = to.get("/notes").await;
    assert_eq!(status, 200);
    let mut imported: Vec<Value> = Vec::new();
    for summary in list["notes"].as_array().unwrap() {
        let id = summary["id"].as_str().unwrap();
        assert!(stdout.contains(id), "{stdout}");
        assert_ne!(id, rich, "an imported Note gets an ID of its own");
        imported.push(comparable(&to.get(&format!("/notes/{id}")).await.1));
    }
    imported.sort_by_key(|n| n["title"].as_str().unwrap().to_owned());
    let mut want = originals.to_vec();
    want.sort_by_key(|n| n["title"].as_str().unwrap().to_owned());
    assert_eq!(imported, want);
    // The import is recorded: who made it, in one write after the creation.
    let id = list["notes"][0]["id"].as_str().unwrap();
    let (_, history) = to.get(&format!("/notes/{id}/versions")).await;
    let authors: Vec<&str> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["author"].as_str().unwrap())
        .collect();
    assert!(authors.iter().all(|a| *a == "import"), "{history}");

    // One Note's folder alone imports too.
    let (ok, _, stderr) = quire_server(
        &["import", "--db"],
        &[&to.server.db_path, &out.path().join("Plain")],
    );
    assert!(ok, "{stderr}");
    assert!(stderr.contains("imported 1 notes"), "{stderr}");
}

/// Links between the Notes of an export, and a text's images, point at the new IDs after an
/// import into another database; a link to a Note not in the export is left as it was.
#[tokio::test]
async fn links_between_imported_notes_and_to_their_images_follow_the_new_ids() {
    let mut from = Harness::start();
    let target = from.create_note("Target").await;
    let source = from.create_note("Source").await;
    let (status, added) = from
        .patch(
            &source,
            1,
            json!([{"op": "add_file", "name": "map.png", "mime": "image/png", "size": 12,
                    "sha256": "cd".repeat(32)}]),
        )
        .await;
    assert_eq!(status, 200, "{added}");
    let file = added["outcomes"][0]["file_id"].as_str().unwrap().to_owned();
    let elsewhere = "0190aaaa-0000-7000-8000-000000000000";
    let text = format!(
        "See [Target](quire:note/{target}), ![map](quire:file/{file}) and \
         [Elsewhere](quire:note/{elsewhere})."
    );
    let (status, body) = from
        .patch(
            &source,
            2,
            json!([{"op": "replace_text", "tab_id": "markdown", "text": text}]),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    from.server.terminate().unwrap();
    let out = tempfile::tempdir().unwrap();
    let (ok, _, stderr) = quire_server(
        &["export", "--db"],
        &[&from.server.db_path, Path::new("--out"), out.path()],
    );
    assert!(ok, "{stderr}");

    let to = Harness::start();
    let (ok, _, stderr) = quire_server(&["import", "--db"], &[&to.server.db_path, out.path()]);
    assert!(ok, "{stderr}");
    let (_, list) = to.get("/notes").await;
    let id_of = |title: &str| {
        list["notes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["title"] == title)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (new_target, new_source) = (id_of("Target"), id_of("Source"));
    assert_ne!(new_target, target);
    let note = to.get(&format!("/notes/{new_source}")).await.1;
    let tab = |id: &str| {
        note["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()["data"]
            .clone()
    };
    let new_file = tab("files")[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(tab("files")[0]["name"], "map.png");
    assert_ne!(new_file, file, "the attachment has an ID of its own");
    assert_eq!(
        tab("markdown"),
        json!(format!(
            "See [Target](quire:note/{new_target}), ![map](quire:file/{new_file}) and \
             [Elsewhere](quire:note/{elsewhere})."
        ))
    );
    // The backlinks follow: the new Target is linked to from the new Source.
    let (status, back) = to.get(&format!("/notes/{new_target}/backlinks")).await;
    assert_eq!(status, 200, "{back}");
    assert!(back.to_string().contains(&new_source), "{back}");
}

#[tokio::test]
async fn a_folder_of_markdown_files_imports_each_as_a_note() {
    let vault = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = vault.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("Plan.md", "# The plan\n\nSee [[Budget]].\n");
    write("Budget.md", "no heading here\n");
    write("Budget.csv", "item,cost\nbolt,3\n");
    write("daily/2026-12-01.md", "---\ntags: [log]\n---\n# Monday\n");
    write("orphan.csv", "a,b\n");
    write("img.png", "not really a png");
    write(".obsidian/app.json", "{}");
    std::fs::write(vault.path().join("bad.md"), b"\xff\xfe not utf-8").unwrap();

    let h = Harness::start();
    let (ok, stdout, stderr) =
        quire_server(&["import", "--db"], &[&h.server.db_path, vault.path()]);
    assert!(ok, "{stderr}");
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    for skipped in ["orphan.csv", "img.png", ".obsidian", "bad.md"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with("skipped") && l.contains(skipped)),
            "{skipped} not reported: {stderr}"
        );
    }
    let (_, list) = h.get("/notes").await;
    let mut titles: Vec<String> = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap().to_owned())
        .collect();
    titles.sort();
    assert_eq!(titles, ["Budget", "Monday", "The plan"]);
    let budget = list["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["title"] == "Budget")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let note = h.get(&format!("/notes/{budget}")).await.1;
    let sheet = note["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "sheet")
        .expect("the CSV beside it is its Sheet tab");
    assert_eq!(sheet["label"], "Budget");
    assert_eq!(
        sheet["data"]["sheets"][0]["rows"],
        json!([["item", "cost"], ["bolt", "3"]])
    );
    assert_eq!(note["tabs"][0]["data"], "no heading here\n");

    // Not a folder: an error naming it, nothing made.
    let missing = vault.path().join("nowhere");
    let (ok, _, stderr) = quire_server(&["import", "--db"], &[&h.server.db_path, &missing]);
    assert!(!ok);
    assert!(stderr.contains("nowhere"), "{stderr}");
    let (_, after) = h.get("/notes").await;
    assert_eq!(after["notes"].as_array().unwrap().len(), 3);
}
