//! Export a Note and import it back: Export Note… in the Note's menu writes its folder where the
//! person picks in the folder dialog (index.md with the Markdown text, a CSV for the Sheet);
//! Import… of that folder makes a new Note with the same text and Sheet, listed beside the
//! first, and the summary says one Note was imported. Then Export all Notes… (the app's menu)
//! writes both, each in a folder of its own though they share a title.

use std::path::Path;

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use serde_json::json;
use thirtyfour::prelude::*;

/// `quire_app::commands::EXPORT_NOTE_DIALOG_TITLE`, `IMPORT_DIALOG_TITLE`.
const EXPORT_TITLE: &str = "Export Note to a folder";
const IMPORT_TITLE: &str = "Import a folder";
/// `quire_app::commands::EXPORT_ALL_DIALOG_TITLE`.
const EXPORT_ALL_TITLE: &str = "Export all Notes to a folder";

const TEXT: &str = "# Packing\nOne bag, the map.";

fn cell(row: u32, col: u32) -> By {
    By::Css(format!(
        "[data-testid=\"sheet-cell\"][data-row=\"{row}\"][data-col=\"{col}\"]"
    ))
}

/// Every file under `dir` with its text.
fn files(dir: &Path) -> Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() {
            let name = path
                .file_name()
                .context("a name")?
                .to_string_lossy()
                .into_owned();
            found.push((name, std::fs::read_to_string(&path)?));
        }
    }
    found.sort();
    Ok(found)
}

#[tokio::test]
async fn export_a_note_and_import_it_back() -> Result<()> {
    let harness = Harness::start()?;
    // Not a hidden folder (tempdir's default `.tmp…`): the folder chooser shows it as a person sees it.
    let dir = tempfile::Builder::new()
        .prefix("quire-e2e-export-")
        .tempdir()?;
    let out = dir.path().join("exported");
    std::fs::create_dir(&out)?;
    let all = dir.path().join("everything");
    std::fs::create_dir(&all)?;

    scenario(&harness, "export-import", async |app: &App| {
        let note = app.new_note("Trip to Porto").await?;
        app.type_markdown(TEXT).await?;
        app.menu("tab-add", "tab-add-sheet").await?;
        let sheet = app
            .wait_for(&By::Css("[data-testid=\"tab\"][data-tab-id^=\"sheet-\"]"))
            .await?
            .attr("data-tab-id")
            .await?
            .context("data-tab-id")?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        app.wait_for(&cell(0, 0)).await?.click().await?;
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Enter)
            .await?;
        let input = app.testid("sheet-cell-input").await?;
        input.send_keys("azulejos").await?;
        input.send_keys(Key::Enter).await?;
        app.wait_synced(&note).await?;

        // Export Note…: the folder dialog, answered as a person would.
        app.menu("note-menu", "note-menu-export").await?;
        harness.answer_folder_dialog(EXPORT_TITLE, &out).await?;
        let summary = app.testid("transfer-summary").await?;
        let content = summary.find(By::Css("[data-kind]")).await?;
        ensure!(
            content.attr("data-kind").await?.as_deref() == Some("export"),
            "an export's summary"
        );
        ensure!(
            content.attr("data-count").await?.as_deref() == Some("1"),
            "one Note exported"
        );
        let headline = app.testid("transfer-summary-text").await?.text().await?;
        ensure!(headline.starts_with("1 Note exported to"), "{headline:?}");
        app.click("transfer-summary-close").await?;
        app.wait_gone(&tid("transfer-summary")).await?;

        // On disk: the Note's folder, its text in index.md and its Sheet as CSV.
        let folder = out.join("Trip to Porto");
        let written =
            files(&folder).with_context(|| format!("{}: after {headline:?}", folder.display()))?;
        let names: Vec<&str> = written.iter().map(|(n, _)| n.as_str()).collect();
        ensure!(
            names.contains(&"index.md") && names.contains(&"quire-export.json"),
            "{names:?}"
        );
        let index = &written
            .iter()
            .find(|(n, _)| n == "index.md")
            .context("index.md")?
            .1;
        ensure!(index.contains("One bag, the map."), "index.md: {index}");
        ensure!(
            written
                .iter()
                .any(|(n, text)| n.ends_with(".csv") && text.contains("azulejos")),
            "no CSV holds the Sheet's cell: {names:?}"
        );

        // Import… that folder: one new Note, the summary says so.
        app.menu("app-menu", "app-menu-import").await?;
        harness.answer_folder_dialog(IMPORT_TITLE, &out).await?;
        let summary = app.testid("transfer-summary").await?;
        let content = summary.find(By::Css("[data-kind]")).await?;
        ensure!(
            content.attr("data-kind").await?.as_deref() == Some("import"),
            "an import's summary"
        );
        ensure!(
            content.attr("data-count").await?.as_deref() == Some("1"),
            "one Note imported"
        );
        ensure!(
            content.attr("data-skipped").await?.as_deref() == Some("0"),
            "nothing skipped"
        );
        let headline = app.testid("transfer-summary-text").await?.text().await?;
        ensure!(headline.starts_with("1 Note imported from"), "{headline:?}");
        let made = app
            .testid("transfer-summary-note")
            .await?
            .attr("data-note-id")
            .await?
            .context("the imported Note's ID")?;
        ensure!(made != note, "a new Note");

        // The list shows both; the new one opens with the same text and Sheet.
        app.wait_for(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{made}\"]"
        )))
        .await?;
        let listed = app.invoke("list_notes", json!({})).await?;
        let titles: Vec<&str> = listed
            .as_array()
            .context("notes")?
            .iter()
            .filter_map(|n| n["title"].as_str())
            .collect();
        ensure!(titles == ["Trip to Porto", "Trip to Porto"], "{titles:?}");
        app.click_by(&By::Css(format!(
            "[data-testid=\"transfer-summary-note\"][data-note-id=\"{made}\"] button"
        )))
        .await?;
        app.wait_gone(&tid("transfer-summary")).await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the imported Note's text",
            |t| t.contains("One bag, the map."),
        )
        .await?;
        let view = app.invoke("open_note", json!({"noteId": made})).await?;
        ensure!(view["title"] == "Trip to Porto", "{}", view["title"]);
        let tabs = view["tabs"].as_array().context("tabs")?;
        let markdown = tabs
            .iter()
            .find(|t| t["type"] == "markdown")
            .context("the Markdown tab")?;
        ensure!(
            markdown["data"] == json!(TEXT),
            "the text: {}",
            markdown["data"]
        );
        let sheet = tabs
            .iter()
            .find(|t| t["type"] == "sheet")
            .context("the Sheet tab")?;
        ensure!(
            sheet["data"]["sheets"][0]["rows"][0][0] == json!("azulejos"),
            "the Sheet: {}",
            sheet["data"]
        );

        // Export all Notes…: both, a folder each (the same title made unique).
        app.menu("app-menu", "app-menu-export-all").await?;
        harness.answer_folder_dialog(EXPORT_ALL_TITLE, &all).await?;
        let summary = app.testid("transfer-summary").await?;
        let content = summary.find(By::Css("[data-kind]")).await?;
        ensure!(
            content.attr("data-count").await?.as_deref() == Some("2"),
            "two Notes exported"
        );
        let headline = app.testid("transfer-summary-text").await?.text().await?;
        ensure!(headline.starts_with("2 Notes exported to"), "{headline:?}");
        let mut folders: Vec<String> = std::fs::read_dir(&all)?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("index.md").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        folders.sort();
        ensure!(folders.len() == 2, "a folder per Note: {folders:?}");
        ensure!(
            folders.iter().all(|f| f.starts_with("Trip to Porto")),
            "{folders:?}"
        );
        for f in &folders {
            let index = std::fs::read_to_string(all.join(f).join("index.md"))?;
            ensure!(index.contains("One bag, the map."), "{f}/index.md: {index}");
        }
        Ok(())
    })
    .await
}
