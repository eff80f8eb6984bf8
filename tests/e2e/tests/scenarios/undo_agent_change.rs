//! "Undo this change" from the versions panel: the agent (a real MCP client) changes one line
//! of the person's Note; the panel offers "Undo the agent's last change" while that is the
//! newest write; the person types more, then undoes the agent's version from its row: the
//! preview shows exactly the agent's line, the undo brings it back and keeps both of the
//! person's edits. Undoing a version whose line was changed again later is refused with a
//! message naming the tab, and nothing changes.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, screenshot, tid};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{Agent, agent_for, call, key, read_tab};

/// The agent replaces one line of the Markdown tab; its version, once the editor shows it.
async fn agent_changes_line(
    app: &App,
    agent: &Agent,
    note: &str,
    from: &str,
    to: &str,
) -> Result<u64> {
    let (version, text) = read_tab(agent, note, "markdown").await?;
    let text = text.as_str().context("markdown text")?;
    ensure!(text.contains(from), "{from:?} not in {text:?}");
    let written = call(
        agent,
        "edit_note_tab",
        json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
               "idempotency_key": key(), "operation": "replace_text",
               "text": text.replace(from, to)}),
    )
    .await?;
    let version = written["version"].as_u64().context("the agent's version")?;
    app.wait_text(
        &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
        "the agent's line in the editor",
        |t| t.contains(to),
    )
    .await?;
    app.wait_synced(note).await?;
    Ok(version)
}

fn row_button(version: u64, id: &str) -> By {
    By::Css(format!(
        "[data-testid=\"versions-row\"][data-version=\"{version}\"] [data-testid=\"{id}\"]"
    ))
}

async fn history_len(app: &App, note: &str) -> Result<usize> {
    let history = app.invoke("history", json!({"noteId": note})).await?;
    history.as_array().map(Vec::len).context("history")
}

#[tokio::test]
async fn the_person_undoes_the_agents_change_and_keeps_their_own() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "undo-agent-change", async |app: &App| {
        let note = app.new_note("Trip").await?;
        app.type_markdown("Day 1: Lisbon\nDay 2: Porto\nDay 3: Braga")
            .await?;
        app.wait_synced(&note).await?;
        let agent = agent_for(app, &note).await?;
        let agents =
            agent_changes_line(app, &agent, &note, "Day 2: Porto", "Day 2: Coimbra").await?;

        // The agent wrote last: the panel offers to undo just that.
        app.click("versions-toggle").await?;
        app.testid("versions-panel").await?;
        let offer = app.testid("undo-agent-last").await?;
        let offered = offer.attr("data-version").await?.unwrap_or_default();
        ensure!(
            offered == agents.to_string(),
            "offered v{offered}, the agent's is v{agents}"
        );
        screenshot(&app.driver, "undo-agent-change-offer").await?;

        // The person types more, so the agent's change is no longer the newest.
        app.type_markdown("\nDay 4: home").await?;
        app.wait_synced(&note).await?;
        app.wait_gone(&tid("undo-agent-last")).await?;

        // "Undo this change" on the agent's row: the preview shows exactly the agent's line.
        app.click_by(&row_button(agents, "version-undo")).await?;
        let preview = app.testid("undo-preview").await?;
        app.wait_text(
            &By::Css("[data-testid=\"undo-preview\"] .diff-del"),
            "the line taken back",
            |t| t.contains("Day 2: Porto"),
        )
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"undo-preview\"] .diff-add"),
            "the agent's line",
            |t| t.contains("Day 2: Coimbra"),
        )
        .await?;
        let shown = preview.prop("textContent").await?.unwrap_or_default();
        ensure!(
            !shown.contains("Day 4"),
            "the preview is only the agent's change: {shown:?}"
        );
        screenshot(&app.driver, "undo-agent-change-preview").await?;
        app.click("undo-confirm").await?;
        app.wait_gone(&tid("undo-preview")).await?;
        app.wait_text(&tid("version-message"), "the undo's message", |t| {
            t.starts_with(&format!("Undid the change of version {agents}"))
        })
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the agent's line taken back",
            |t| t.contains("Day 2: Porto") && !t.contains("Coimbra"),
        )
        .await?;
        app.wait_synced(&note).await?;
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text == json!("Day 1: Lisbon\nDay 2: Porto\nDay 3: Braga\nDay 4: home"),
            "the agent's line is back, both of the person's edits kept: {text}"
        );
        let history = app.invoke("history", json!({"noteId": note})).await?;
        let newest = history
            .as_array()
            .and_then(|h| h.last())
            .context("history")?;
        ensure!(
            newest["summary"] == format!("reverted version {agents}")
                && newest["author_kind"] == "person",
            "{newest}"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
async fn undoing_a_change_whose_line_changed_again_is_refused_and_changes_nothing() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "undo-clash", async |app: &App| {
        let note = app.new_note("Trip").await?;
        app.type_markdown("Day 1: Lisbon\nDay 2: Porto").await?;
        app.wait_synced(&note).await?;
        let agent = agent_for(app, &note).await?;
        let first =
            agent_changes_line(app, &agent, &note, "Day 2: Porto", "Day 2: Coimbra").await?;
        agent_changes_line(
            app,
            &agent,
            &note,
            "Day 2: Coimbra",
            "Day 2: Coimbra and Aveiro",
        )
        .await?;
        let before = history_len(app, &note).await?;

        app.click("versions-toggle").await?;
        app.click_by(&row_button(first, "version-undo")).await?;
        app.wait_text(
            &By::Css("[data-testid=\"undo-preview\"] .diff-add"),
            "the change to take back",
            |t| t.contains("Day 2: Coimbra"),
        )
        .await?;
        app.click("undo-confirm").await?;
        let message = app
            .wait_text(&tid("version-message"), "the refusal", |t| {
                t.starts_with("Not undone")
            })
            .await?;
        ensure!(
            message.contains("Nothing was changed") && message.contains("\u{201c}Note\u{201d}"),
            "the message says nothing changed and names the tab: {message:?}"
        );
        ensure!(history_len(app, &note).await? == before, "nothing written");
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text == json!("Day 1: Lisbon\nDay 2: Coimbra and Aveiro"),
            "unchanged: {text}"
        );
        Ok(())
    })
    .await
}
