//! An agent (a real MCP client) edits another tab while the person types: no conflict is shown,
//! the person's text is saved, and the agent's change appears live, marked as the agent's (from
//! the author kind the server recorded); the versions panel and the agent panel say who did what.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid_tab};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{agent_for, call, key, read_tab};

#[tokio::test]
async fn an_agent_edit_of_another_tab_appears_live_without_a_conflict() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-live", async |app: &App| {
        let note = app.new_note("Research").await?;
        let created = app
            .invoke(
                "apply_ops",
                json!({"noteId": note, "ops": [{"op": "create_tab", "tab_type": "sheet", "label": "Data"}]}),
            )
            .await?;
        let sheet = created["result"]["outcomes"][0]["tab_id"].as_str().context("tab id")?.to_owned();
        let agent = agent_for(app, &note).await?;

        // The person types in the Markdown tab; meanwhile the agent writes the sheet.
        app.type_markdown("Findings so far: ").await?;
        // The person's save may land between the agent's read and its write (the version is
        // the Note's): refused, the agent reads again and writes anew, as the tool tells it to.
        let written = async {
            let mut attempts = 0;
            loop {
                attempts += 1;
                let (version, _) = read_tab(&agent, &note, &sheet).await?;
                match call(
                    &agent,
                    "edit_note_tab",
                    json!({"note_id": note, "tab_id": sheet, "expected_version": version,
                           "idempotency_key": key(), "operation": "sheet_set_range",
                           "start_row": 0, "start_col": 0, "values": [["revenue", 1200]]}),
                )
                .await
                {
                    Err(e) if attempts < 10 && e.to_string().contains("version_conflict") => continue,
                    other => break other,
                }
            }
        };
        let typed = app.type_markdown("the agent is filling in the data.");
        let (written, typed) = tokio::join!(written, typed);
        let agents_version = written?["version"].as_u64().context("the agent's version")?;
        typed?;

        app.wait_synced(&note).await?;
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text.as_str().is_some_and(|t| t.contains("Findings so far: the agent is filling in the data.")),
            "the person's text: {text}"
        );
        ensure!(
            app.driver.find_all(By::Css("[data-testid=\"conflict-banner\"]")).await?.is_empty(),
            "no conflict may be shown for an edit of another tab"
        );

        // Live: the sheet shows the agent's cells, marked as the agent's.
        app.click_by(&By::Css(format!("[data-testid=\"tab\"][data-tab-id=\"{sheet}\"] a"))).await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        app.wait_text(
            &By::Css("[data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"1\"]"),
            "the agent's value",
            |t| t.trim() == "1200",
        )
        .await?;
        // The cells the agent wrote are marked with its name, and no other cell.
        let marked = agent_marks(app).await?;
        ensure!(marked == ["0:0", "0:1"], "the agent's cells are marked: {marked:?}");
        quire_e2e::screenshot(&app.driver, "agent-live-sheet-marked").await?;
        // The tab's banner says whose edit it was (it goes once the person edits the tab).
        let marker = app.wait_for(&tid_tab("remote-edit", &sheet)).await?;
        let author = marker.attr("data-author").await?.unwrap_or_default();
        ensure!(author == "claude", "the edit is marked as the agent's: {author:?}");
        let class = marker.attr("class").await?.unwrap_or_default();
        ensure!(class.contains("is-agent"), "marked as an agent's edit: {class:?}");
        // The person inserts a column between the two cells (from the toolbar: the marks stay
        // unseen): the mark moves with its cell, none is left on the new empty one.
        app.click("sheet-add-column").await?;
        app.wait_text(
            &By::Css("[data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"2\"]"),
            "the agent's value, moved right",
            |t| t.trim() == "1200",
        )
        .await?;
        let marked = agent_marks(app).await?;
        ensure!(marked == ["0:0", "0:2"], "the marks move with the cells: {marked:?}");
        // Ctrl+Z in the grid (a key: not a sign of having seen them) takes the column out
        // again, and the mark moves back with its cell.
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Control + "z")
            .await?;
        app.wait_text(
            &By::Css("[data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"1\"]"),
            "the agent's value, back in place",
            |t| t.trim() == "1200",
        )
        .await?;
        let marked = agent_marks(app).await?;
        ensure!(marked == ["0:0", "0:1"], "the marks move back with the undo: {marked:?}");
        // A click in the grid: the person has seen them.
        app.click_by(&By::Css("[data-testid=\"sheet-cell\"][data-row=\"3\"][data-col=\"2\"]")).await?;
        app.wait_gone(&By::Css("[data-testid=\"remote-change\"]")).await?;

        // The versions panel shows the agent's version as the agent's.
        app.click("versions-toggle").await?;
        let row = app
            .wait_for(&By::Css(format!(
                "[data-testid=\"versions-row\"][data-version=\"{agents_version}\"]"
            )))
            .await?;
        let kind = row.attr("data-author-kind").await?.unwrap_or_default();
        ensure!(kind == "agent", "version {agents_version} is the agent's: {kind:?}");

        // The agent panel says who approved the Note, and when.
        app.click("agent-open").await?;
        let record = app
            .wait_text(
                &By::Css(format!(
                    "[data-testid=\"agent-approval-record\"][data-note-id=\"{note}\"]"
                )),
                "the approval record",
                |t| t.starts_with("Approved by "),
            )
            .await?;
        ensure!(record.contains(" · "), "who and when: {record:?}");
        agent.cancel().await?;
        Ok(())
    })
    .await
}

/// The cells marked as changed by the agent ("row:col", in the grid's order); every mark in the
/// grid is the agent's.
async fn agent_marks(app: &App) -> Result<Vec<String>> {
    let marks = app
        .driver
        .find_all(By::Css(
            "[data-testid=\"remote-change\"][data-author=\"claude\"]",
        ))
        .await?;
    let mut marked = Vec::new();
    for mark in &marks {
        let cell = mark.find(By::XPath("..")).await?;
        let row = cell.attr("data-row").await?.unwrap_or_default();
        let col = cell.attr("data-col").await?.unwrap_or_default();
        let title = cell.attr("title").await?.unwrap_or_default();
        ensure!(title == "Changed by claude", "the cell's title: {title:?}");
        let class = cell.attr("class").await?.unwrap_or_default();
        ensure!(
            class.contains("is-remote") && class.contains("is-agent"),
            "the cell's class: {class:?}"
        );
        marked.push(format!("{row}:{col}"));
    }
    let all = app
        .driver
        .find_all(By::Css("[data-testid=\"remote-change\"]"))
        .await?;
    ensure!(
        all.len() == marked.len(),
        "only the agent's cells are marked: {} marks",
        all.len()
    );
    Ok(marked)
}
