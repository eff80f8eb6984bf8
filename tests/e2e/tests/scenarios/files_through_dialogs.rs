//! Files reach the app only through the person: attaching runs the system's open dialog and
//! saving a copy its save dialog, both inside the app's commands, so the window never names a
//! path. The real GTK file chooser is answered as a person would (Ctrl+L, a typed path, Enter)
//! through the X server. A path the page passes along is ignored, and the page cannot call the
//! dialog or opener plugins itself.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

/// `quire_app::commands::ATTACH_DIALOG_TITLE`, `SAVE_DIALOG_TITLE`.
const OPEN_TITLE: &str = "Attach a file";
const SAVE_TITLE: &str = "Save a copy";

#[tokio::test]
async fn files_are_attached_and_saved_only_where_the_person_picks() -> Result<()> {
    let harness = Harness::start()?;
    // Not a hidden folder (tempdir's default `.tmp…`): the file chooser is then as a person sees it.
    let dir = tempfile::Builder::new()
        .prefix("quire-e2e-files-")
        .tempdir()?;
    let chosen = dir.path().join("itinerary.txt");
    std::fs::write(&chosen, "Lisbon, three days")?;
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "not for the page")?;
    std::fs::create_dir(dir.path().join("copies"))?;
    let saved = dir.path().join("copies").join("itinerary-copy.txt");
    let planted = dir.path().join("planted.txt");
    let picked = dir.path().join("copies").join("picked.txt");

    scenario(&harness, "files-dialogs", async |app: &App| {
        let note = app.new_note("Trip").await?;
        app.click_by(&By::Css("[data-testid=\"tab\"][data-tab-id=\"files\"] a")).await?;
        app.wait_for(&tid_tab("editor-files", "files")).await?;

        // The person attaches a file: the button, the open dialog, the file they pick.
        app.click("file-attach").await?;
        harness.answer_open_dialog(OPEN_TITLE, &chosen).await?;
        app.wait_text(&tid("file-item"), "the attached file", |t| t.contains("itinerary.txt")).await?;

        // A path from the page is no choice: the dialog opens all the same; cancelled, nothing
        // is attached.
        let (sneaky, cancelled) = tokio::join!(
            app.invoke("attach_file", json!({"noteId": note, "path": secret})),
            harness.cancel_dialog(OPEN_TITLE),
        );
        cancelled?;
        ensure!(sneaky? == Value::Null, "a cancelled dialog attaches nothing");
        let files = app.tab_data(&note, "files").await?;
        let names: Vec<&str> = files.as_array().context("files")?.iter().filter_map(|f| f["name"].as_str()).collect();
        ensure!(names == ["itinerary.txt"], "only the file the person picked: {names:?}");
        let file_id = files[0]["id"].as_str().context("file id")?.to_owned();

        // Save a copy: where the person picks in the save dialog.
        app.click("file-save").await?;
        harness.answer_save_dialog(SAVE_TITLE, &saved).await?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::fs::read_to_string(&saved).ok().as_deref() != Some("Lisbon, three days") {
            ensure!(Instant::now() < deadline, "no copy at {}", saved.display());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        // A destination from the page is ignored: the copy goes where the dialog says.
        let (sneaky, answered) = tokio::join!(
            app.invoke("save_file_copy", json!({"noteId": note, "fileId": file_id, "dest": planted})),
            harness.answer_save_dialog(SAVE_TITLE, &picked),
        );
        answered?;
        ensure!(sneaky? == json!(picked.display().to_string()), "saved where picked");
        ensure!(!planted.exists(), "nothing written where the page said");
        ensure!(std::fs::read_to_string(&picked)? == "Lisbon, three days", "the picked copy");

        // The page cannot run a dialog or open a path itself: those plugin commands are not
        // in its capability.
        for (cmd, args) in [
            ("plugin:dialog|open", json!({"options": {}})),
            ("plugin:opener|open_path", json!({"path": secret})),
        ] {
            let refused = app.invoke(cmd, args).await.err().context("refused")?;
            ensure!(format!("{refused:#}").contains("not allowed"), "{cmd}: {refused:#}");
        }

        // The page's CSP leaves no other way out: no <base> to redirect relative URLs, no form
        // posting elsewhere, no plugin <object>.
        app.driver
            .execute(
                "window.__violations = [];\n\
                 document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective));\n\
                 const base = document.createElement('base'); base.href = 'https://example.org/'; document.head.append(base);\n\
                 const object = document.createElement('object'); object.data = 'https://example.org/x.swf'; document.body.append(object);\n\
                 const form = document.createElement('form'); form.method = 'post'; form.action = 'https://example.org/'; document.body.append(form); form.submit();",
                vec![],
            )
            .await?;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let seen = app.driver.execute("return [...new Set(window.__violations)].sort();", vec![]).await?;
            if seen.json() == &json!(["base-uri", "form-action", "object-src"]) {
                break;
            }
            ensure!(Instant::now() < deadline, "CSP violations reported: {}", seen.json());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    })
    .await
}
