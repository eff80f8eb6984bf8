//! Restore an old version from the versions panel: a new version equal to the old one.

use anyhow::{Result, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::json;
use thirtyfour::prelude::*;

#[tokio::test]
async fn restore_an_old_version_from_the_panel() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "restore-version", async |app: &App| {
        let note = app.new_note("Essay").await?;
        app.type_markdown("First draft.").await?;
        app.wait_saved(3).await?;
        let first = app.wait_synced(&note).await?;
        app.type_markdown(" Second thoughts.").await?;
        app.wait_saved(first + 1).await?;
        let second = app.wait_synced(&note).await?;

        app.click("versions-toggle").await?;
        app.testid("versions-panel").await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"versions-row\"][data-version=\"{first}\"] [data-testid=\"version-restore\"]"
        ))).await?;
        if let Ok(ok) = app
            .driver
            .find(By::Css("[data-testid=\"confirm-ok\"]"))
            .await
        {
            ok.click().await?;
        }
        let restored = app.wait_saved(second + 1).await?;
        ensure!(
            restored == second + 1,
            "a restore is a new version: {restored}"
        );
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the restored text",
            |t| t == "First draft.",
        )
        .await?;
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(text == json!("First draft."), "{text}");
        let history = app.invoke("history", json!({"noteId": note})).await?;
        ensure!(
            history.as_array().map(Vec::len) == Some(restored as usize),
            "history kept: {history}"
        );
        Ok(())
    })
    .await
}
