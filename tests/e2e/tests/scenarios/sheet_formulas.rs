//! Formulas in a Sheet: numbers and `=SUM(...)` typed in the grid show the sum, a change of an
//! input changes it (and what depends on it), `=1/0` shows `#DIV/0!` styled as an error; the
//! formula bar and the stored cell keep the formula. Screenshots in light and dark.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use serde_json::json;
use thirtyfour::prelude::*;

fn cell(row: u32, col: u32) -> By {
    By::Css(format!(
        "[data-testid=\"sheet-cell\"][data-row=\"{row}\"][data-col=\"{col}\"]"
    ))
}

/// Types `text` into the cell at (`row`, `col`) as a person does: select, Enter, select the
/// text there, type, Enter.
async fn type_cell(app: &App, row: u32, col: u32, text: &str) -> Result<()> {
    app.wait_for(&cell(row, col)).await?.click().await?;
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Enter)
        .await?;
    let input = app.testid("sheet-cell-input").await?;
    // The editor opens on the cell's text: replace it.
    input.send_keys(Key::Control + "a").await?;
    input.send_keys(text).await?;
    input.send_keys(Key::Enter).await?;
    app.wait_gone(&tid("sheet-cell-input")).await
}

async fn shows(app: &App, row: u32, col: u32, want: &str) -> Result<()> {
    app.wait_text(&cell(row, col), &format!("cell {row},{col}"), |t| t == want)
        .await
        .map(|_| ())
}

/// The colour of a cell's text.
async fn color(app: &App, row: u32, col: u32) -> Result<String> {
    let el = app.wait_for(&cell(row, col)).await?;
    Ok(el.css_value("color").await?)
}

async fn open_sheet(app: &App, sheet: &str) -> Result<()> {
    app.click_by(&By::Css(format!(
        "[data-testid=\"tab\"][data-tab-id=\"{sheet}\"] a"
    )))
    .await?;
    app.wait_for(&tid_tab("editor-sheet", sheet)).await?;
    Ok(())
}

#[tokio::test]
async fn sheet_formulas() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "sheet-formulas", async |app: &App| {
        let note = app.new_note("Groceries").await?;
        app.menu("tab-add", "tab-add-sheet").await?;
        let sheet = app
            .wait_for(&By::Css("[data-testid=\"tab\"][data-tab-id^=\"sheet-\"]"))
            .await?
            .attr("data-tab-id")
            .await?
            .context("data-tab-id")?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;

        for (row, text) in [(0, "1"), (1, "2"), (2, "3"), (3, "=SUM(A1:A3)")] {
            type_cell(app, row, 0, text).await?;
        }
        type_cell(app, 0, 1, "=1/0").await?;
        type_cell(app, 1, 1, "=A4*2").await?;
        type_cell(app, 0, 2, "Total").await?;
        shows(app, 3, 0, "6").await?;
        shows(app, 1, 1, "12").await?;
        shows(app, 0, 1, "#DIV/0!").await?;
        let class = app.wait_for(&cell(0, 1)).await?.attr("class").await?;
        ensure!(
            class.as_deref().is_some_and(|c| c.contains("is-error")),
            "the error cell's class: {class:?}"
        );
        ensure!(
            color(app, 0, 1).await? != color(app, 0, 2).await?,
            "an error is coloured unlike a text"
        );

        // The formula bar shows the formula of the selected cell, the grid its result.
        app.wait_for(&cell(3, 0)).await?.click().await?;
        app.wait_text(&By::Css(".formula-value"), "formula bar", |t| {
            t == "=SUM(A1:A3)"
        })
        .await?;

        // An input changes: the sum and what depends on it follow.
        type_cell(app, 1, 0, "20").await?;
        shows(app, 3, 0, "24").await?;
        shows(app, 1, 1, "48").await?;

        // Stored: the formula's text, not its result.
        app.wait_synced(&note).await?;
        let data = app.tab_data(&note, &sheet).await?;
        let rows = &data["sheets"][0]["rows"];
        ensure!(
            rows[3][0] == json!("=SUM(A1:A3)") && rows[1][0] == json!(20),
            "stored: {rows}"
        );
        app.wait_for(&cell(0, 2)).await?.click().await?;
        quire_e2e::screenshot(&app.driver, "formulas-light").await?;

        // Dark: the same results, the error still styled as one.
        app.click("settings-open").await?;
        app.testid("settings").await?;
        app.click("settings-theme-dark").await?;
        app.click_by(&By::Css("[data-testid=\"notes-item\"]"))
            .await?;
        open_sheet(app, &sheet).await?;
        shows(app, 3, 0, "24").await?;
        shows(app, 0, 1, "#DIV/0!").await?;
        ensure!(
            color(app, 0, 1).await? != color(app, 0, 2).await?,
            "an error is coloured unlike a text in dark mode too"
        );
        quire_e2e::screenshot(&app.driver, "formulas-dark").await?;
        Ok(())
    })
    .await
}
