//! The agent changes one line of a long Note with `edit_note_text` while the person types on
//! another line of the same tab, before the person's save leaves: the app's engine merges the
//! two by lines and saves the result on the agent's version, so no conflict is shown; the
//! agent's line appears in the editor, marked as the agent's, and nothing of the person's
//! typing is lost. The versions panel's "What changed" of the agent's version marks the same
//! line the same way.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{Agent, agent_for, call, key, read_tab};

const LINES: usize = 200;

/// The agent changes the line `old` to `new` with `edit_note_text` on `version`.
async fn change_line(
    agent: &Agent,
    note: &str,
    version: u64,
    old: &str,
    new: &str,
) -> Result<serde_json::Value> {
    call(
        agent,
        "edit_note_text",
        json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
               "idempotency_key": key(),
               "edits": [{"old_text": format!("\n{old}\n"), "new_text": format!("\n{new}\n")}]}),
    )
    .await
}

/// The text of the line marked as claude's, once there is one.
async fn marked_by_claude(app: &App) -> Result<String> {
    let mark = app
        .wait_for(&By::Css(
            "[data-testid=\"remote-change\"][data-author=\"claude\"]",
        ))
        .await?;
    Ok(mark.text().await?)
}

#[tokio::test]
async fn the_agent_on_another_line_of_the_same_tab_is_merged_not_a_conflict() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-other-lines", async |app: &App| {
        let note = app.new_note("Research log").await?;
        let agent = agent_for(app, &note).await?;
        let long: Vec<String> = (1..=LINES).map(|n| format!("line {n}")).collect();
        let (version, _) = read_tab(&agent, &note, "markdown").await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text", "text": long.join("\n")}),
        )
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the long text",
            |t| t.contains("line 20"),
        )
        .await?;
        let (version, _) = read_tab(&agent, &note, "markdown").await?;

        // The person types at the end of line 2; before their save leaves (debounce), the agent
        // changes line 12 on the version it read.
        app.focus_markdown().await?;
        let content = app.driver.active_element().await?;
        content.send_keys(Key::Control + Key::Home).await?;
        content.send_keys(Key::Down).await?;
        content.send_keys(Key::End).await?;
        content.send_keys(" (the person").await?;
        let edited = change_line(&agent, &note, version, "line 12", "line 12 (the agent)").await?;
        let agents_version = edited["version"].as_u64().context("the agent's version")?;
        content.send_keys(", typing on)").await?;

        // The agent's line shows in the editor, marked as the agent's, the person's line not.
        let marked = marked_by_claude(app).await?;
        ensure!(
            marked == "line 12 (the agent)",
            "the marked line: {marked:?}"
        );
        let marks = app
            .driver
            .find_all(By::Css("[data-testid=\"remote-change\"]"))
            .await?;
        ensure!(
            marks.len() == 1,
            "only the agent's line is marked: {} marks",
            marks.len()
        );
        quire_e2e::screenshot(&app.driver, "agent-other-lines-marked").await?;

        app.wait_synced(&note).await?;
        ensure!(
            app.driver
                .find_all(By::Css("[data-testid=\"conflict-banner\"]"))
                .await?
                .is_empty(),
            "no conflict may be shown for a change of another line"
        );
        let text = app.tab_data(&note, "markdown").await?;
        let text = text.as_str().context("the text")?;
        let lines: Vec<&str> = text.split('\n').collect();
        ensure!(lines.len() == LINES, "{} lines", lines.len());
        ensure!(
            lines[1] == "line 2 (the person, typing on)",
            "the person's line: {:?}",
            lines[1]
        );
        ensure!(
            lines[11] == "line 12 (the agent)",
            "the agent's line: {:?}",
            lines[11]
        );
        let status = app.invoke("note_status", json!({"noteId": note})).await?;
        ensure!(
            status["stats"]["conflicts_shown"] == 0,
            "no conflict: {status}"
        );
        ensure!(
            status["stats"]["auto_rebased"].as_u64().unwrap_or(0) >= 1,
            "the engine merged the agent's change into the person's draft: {status}"
        );
        let history = app.invoke("history", json!({"noteId": note})).await?;
        let newest = history
            .as_array()
            .and_then(|v| v.last())
            .context("history")?;
        ensure!(
            newest["version"].as_u64() > Some(agents_version),
            "the merged save came after the agent's: {history}"
        );

        // Seen: a click in the editor takes the marks away.
        app.focus_markdown().await?;
        app.wait_gone(&By::Css("[data-testid=\"remote-change\"]"))
            .await?;

        // A change made while the person looks at another tab is marked when they come back
        // (whether the editor opens before the app has read the change or after).
        app.click_by(&By::Css("[data-testid=\"tab\"][data-tab-id=\"sources\"] a"))
            .await?;
        app.wait_gone(&By::Css("[data-testid=\"editor-markdown\"]"))
            .await?;
        let (version, _) = read_tab(&agent, &note, "markdown").await?;
        change_line(&agent, &note, version, "line 14", "line 14 (later)").await?;
        // The app's engine has the change (its event came in).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !app
            .tab_data(&note, "markdown")
            .await?
            .as_str()
            .is_some_and(|t| t.contains("line 14 (later)"))
        {
            ensure!(
                std::time::Instant::now() < deadline,
                "the app never read the change"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        app.click_by(&By::Css(
            "[data-testid=\"tab\"][data-tab-id=\"markdown\"] a",
        ))
        .await?;
        let marked = marked_by_claude(app).await?;
        ensure!(
            marked == "line 14 (later)",
            "marked on coming back to the tab: {marked:?}"
        );

        // The versions panel's "What changed" of the agent's version: the same mark, on the
        // one line it changed.
        app.click("versions-toggle").await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"versions-row\"][data-version=\"{agents_version}\"] [data-testid=\"version-change\"]"
        )))
        .await?;
        let mark = app
            .wait_text(
                &By::Css("[data-testid=\"diff-mark\"][data-author=\"claude\"]"),
                "the agent's line in its version's diff",
                |t| t.contains("line 12 (the agent)"),
            )
            .await?;
        let marks = app
            .driver
            .find_all(By::Css("[data-testid=\"diff-mark\"]"))
            .await?;
        ensure!(marks.len() == 1, "one marked line in the diff ({mark:?}): {}", marks.len());
        quire_e2e::screenshot(&app.driver, "version-change-marked").await?;
        app.click("version-close").await?;
        agent.cancel().await?;
        Ok(())
    })
    .await
}
