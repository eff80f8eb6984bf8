//! Create a Note, type in Markdown, see "Saved (version N)".

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::json;

#[tokio::test]
async fn create_a_note_type_markdown_see_saved() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "markdown-saved", async |app: &App| {
        let note = app.new_note("Launch plan").await?;
        let listed = app.invoke("list_notes", json!({})).await?;
        ensure!(listed[0]["title"] == "Launch plan", "the list: {listed}");

        app.type_markdown("# Launch plan\n\nShip on Friday.")
            .await?;
        app.wait_saved(3).await?;
        let version = app.wait_synced(&note).await?;
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text.as_str().is_some_and(|t| t.contains("Ship on Friday.")),
            "the engine holds {text}"
        );
        // The server has it: the history ends with the person's save at that version.
        let history = app.invoke("history", json!({"noteId": note})).await?;
        let last = history
            .as_array()
            .and_then(|h| h.last())
            .context("history")?;
        ensure!(
            last["version"] == version,
            "history {history} vs Saved (version {version})"
        );
        Ok(())
    })
    .await
}
