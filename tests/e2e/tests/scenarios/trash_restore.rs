//! Delete a Note, find it in the Trash, restore it: it leaves the Notes list (asked first), the
//! Trash lists it, Restore brings it back with its text and its whole history.

use anyhow::{Result, ensure};
use quire_e2e::{App, Harness, scenario, tid};
use serde_json::json;
use thirtyfour::prelude::*;

fn item(list_item: &str, note: &str) -> By {
    By::Css(format!(
        "[data-testid=\"{list_item}\"][data-note-id=\"{note}\"]"
    ))
}

#[tokio::test]
async fn delete_a_note_find_it_in_the_trash_and_restore_it() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "trash-restore", async |app: &App| {
        let note = app.new_note("Doomed plan").await?;
        app.type_markdown("Keep this sentence.").await?;
        app.wait_saved(3).await?;
        let saved = app.wait_synced(&note).await?;

        // Delete Note asks first; the Note leaves the list.
        app.click("note-delete").await?;
        app.testid("confirm-dialog").await?;
        app.click("confirm-ok").await?;
        app.wait_gone(&item("notes-item", &note)).await?;
        let toast = app.testid("toast-action").await?;
        ensure!(
            toast.text().await? == "Undo",
            "the delete toast offers Undo"
        );

        // The Trash lists it.
        app.click("trash-open").await?;
        app.testid("trash").await?;
        app.wait_for(&item("trash-item", &note)).await?;
        let trash = app.invoke("list_trash", json!({})).await?;
        ensure!(
            trash.as_array().map(Vec::len) == Some(1) && trash[0]["id"] == note.as_str(),
            "the trash: {trash}"
        );

        // Restore brings it back, with its content and history.
        app.click_by(&By::Css(format!(
            "[data-testid=\"trash-restore\"][data-note-id=\"{note}\"]"
        )))
        .await?;
        app.wait_for(&tid("trash-none")).await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{note}\"] a"
        )))
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the restored Note's text",
            |t| t == "Keep this sentence.",
        )
        .await?;
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(text == json!("Keep this sentence."), "{text}");
        let history = app.invoke("history", json!({"noteId": note})).await?;
        let summaries: Vec<&str> = history
            .as_array()
            .map(|h| h.iter().filter_map(|v| v["summary"].as_str()).collect())
            .unwrap_or_default();
        ensure!(
            summaries.len() as u64 == saved + 2
                && summaries.ends_with(&["moved to trash", "restored from trash"]),
            "the history kept, with both moves: {summaries:?}"
        );
        Ok(())
    })
    .await
}
