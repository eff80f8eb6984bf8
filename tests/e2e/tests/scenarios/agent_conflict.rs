//! The agent edits the line the person is typing on: a conflict banner, the person's draft kept,
//! resolved by a merge that keeps both changes. (Changes of different lines of one tab merge
//! without a conflict: `agent_other_lines`.)

use anyhow::{Result, ensure};
use quire_e2e::{App, Harness, scenario, tid_tab};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{agent_for, call, key, read_tab};

#[tokio::test]
async fn the_same_tab_edited_by_both_is_a_conflict_resolved_by_merge() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-conflict", async |app: &App| {
        let note = app.new_note("Draft").await?;
        app.type_markdown("alpha\nbeta\ngamma").await?;
        app.wait_saved(3).await?;
        app.wait_synced(&note).await?;
        let agent = agent_for(app, &note).await?;
        let (version, text) = read_tab(&agent, &note, "markdown").await?;
        ensure!(text == "alpha\nbeta\ngamma", "the agent reads {text}");

        // The person edits the first line; before their save leaves (debounce), the agent
        // rewrites that line too, on the version it read.
        app.focus_markdown().await?;
        let content = app.driver.active_element().await?;
        content.send_keys(Key::Control + Key::Home).await?;
        content.send_keys("A: ").await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text",
                   "text": "alpha (checked by the agent)\nbeta\ngamma"}),
        )
        .await?;

        // Conflict: the banner on that tab, the person's draft still in the editor.
        app.wait_for(&tid_tab("conflict-banner", "markdown"))
            .await?;
        app.wait_text(
            &By::Css("[data-testid=\"sync-status\"]"),
            "the status",
            |t| t.contains("Conflict"),
        )
        .await?;
        // The draft is kept in the editor (read by text: the editor may redraw meanwhile).
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the draft kept in the editor",
            |t| t.contains("A: alpha"),
        )
        .await?;
        let ledger = app.invoke("drafts", json!({})).await?;
        ensure!(
            ledger.to_string().contains("\"markdown\""),
            "the ledger lists the draft: {ledger}"
        );
        quire_e2e::screenshot(&app.driver, "agent-conflict-banner").await?;

        // Review and merge, the person's line first: both lines survive.
        app.click("conflict-review").await?;
        app.testid("conflict-view").await?;
        app.click_by(&By::Css(
            "[data-testid=\"conflict-clash\"][data-index=\"0\"] [data-pick=\"mine_then_theirs\"]",
        ))
        .await?;
        app.click("conflict-merge").await?;
        app.wait_gone(&By::Css("[data-testid=\"conflict-banner\"]"))
            .await?;
        app.wait_synced(&note).await?;
        let merged = app.tab_data(&note, "markdown").await?;
        ensure!(
            merged == json!("A: alpha\nalpha (checked by the agent)\nbeta\ngamma"),
            "merged: {merged}"
        );
        agent.cancel().await?;
        Ok(())
    })
    .await
}
