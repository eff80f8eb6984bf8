//! The Notes list shows which Notes an agent changed since the person last opened them: the
//! agent writes a Note the person has left for another; the list marks it "changed by claude";
//! the person opens it and the marker goes. The person's own Note, written meanwhile, is not
//! marked.

use anyhow::{Result, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{agent_for, call, key, read_tab};

fn changed_marker(note: &str) -> By {
    By::Css(format!(
        "[data-testid=\"notes-item\"][data-note-id=\"{note}\"] [data-testid=\"notes-item-agent-changed\"]"
    ))
}

#[tokio::test]
async fn the_notes_list_marks_a_note_the_agent_changed_until_it_is_opened() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-notes-list", async |app: &App| {
        let plan = app.new_note("Plan").await?;
        app.type_markdown("The plan, as the person left it.")
            .await?;
        app.wait_synced(&plan).await?;
        let agent = agent_for(app, &plan).await?;

        // The person goes to another Note; the agent then writes the Plan.
        let other = app.new_note("Other").await?;
        let (version, _) = read_tab(&agent, &plan, "markdown").await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": plan, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text",
                   "text": "The plan, as the agent changed it."}),
        )
        .await?;
        // The person types in the other Note (the list is read again after the save).
        app.type_markdown("Meanwhile, the person writes here.")
            .await?;
        app.wait_synced(&other).await?;

        let marker = app.wait_for(&changed_marker(&plan)).await?;
        let author = marker.attr("data-author").await?.unwrap_or_default();
        ensure!(author == "claude", "the agent's name: {author:?}");
        let text = marker.text().await?;
        ensure!(text == "changed by claude", "the marker: {text:?}");
        ensure!(
            app.driver
                .find_all(changed_marker(&other))
                .await?
                .is_empty(),
            "the person's own Note is not marked"
        );
        quire_e2e::screenshot(&app.driver, "agent-notes-list-marked").await?;

        // The person opens the Plan: the marker goes, and the agent's text is there.
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{plan}\"] a"
        )))
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the agent's text",
            |t| t.contains("as the agent changed it"),
        )
        .await?;
        app.wait_gone(&changed_marker(&plan)).await?;
        // Back to the other Note: the Plan stays unmarked (the person has seen it).
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{other}\"] a"
        )))
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the other Note",
            |t| t.contains("Meanwhile"),
        )
        .await?;
        ensure!(
            app.driver.find_all(changed_marker(&plan)).await?.is_empty(),
            "the Plan, seen, is not marked again"
        );
        agent.cancel().await?;
        Ok(())
    })
    .await
}
