//! Search a word typed a moment ago into a Sheet cell (Ctrl+Shift+F), open the result: the app
//! shows that Sheet tab with that very cell selected.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use thirtyfour::prelude::*;

fn cell(row: u32, col: u32) -> By {
    By::Css(format!(
        "[data-testid=\"sheet-cell\"][data-row=\"{row}\"][data-col=\"{col}\"]"
    ))
}

#[tokio::test]
async fn search_opens_cell() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "search-opens-cell", async |app: &App| {
        let note = app.new_note("Garden plan").await?;
        app.menu("tab-add", "tab-add-sheet").await?;
        let sheet = app
            .wait_for(&By::Css("[data-testid=\"tab\"][data-tab-id^=\"sheet-\"]"))
            .await?
            .attr("data-tab-id")
            .await?
            .context("data-tab-id")?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;

        // Type the word into C3 (row 2, column 2) and save.
        app.wait_for(&cell(2, 2)).await?.click().await?;
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Enter)
            .await?;
        let input = app.testid("sheet-cell-input").await?;
        input.send_keys("zinnias").await?;
        input.send_keys(Key::Enter).await?;
        app.wait_synced(&note).await?;

        // Away from the cell: another cell, then the Markdown tab.
        app.wait_for(&cell(0, 0)).await?.click().await?;
        app.click_by(&By::Css(
            "[data-testid=\"tab\"][data-tab-id=\"markdown\"] a",
        ))
        .await?;
        app.wait_for(&tid_tab("editor-markdown", "markdown"))
            .await?;

        // Search it, as typed so far, and open the result.
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Control + Key::Shift + "f")
            .await?;
        let search = app.testid("search-input").await?;
        search.send_keys("ZINN").await?;
        let result = app
            .wait_for(&By::Css(format!(
                "[data-testid=\"search-result\"][data-tab-id=\"{sheet}\"]"
            )))
            .await?;
        let marked = result.find(By::Css("mark")).await?.text().await?;
        ensure!(marked == "zinnias", "the marked word: {marked:?}");
        result.click().await?;

        app.wait_gone(&tid("search-dialog")).await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
        loop {
            let class = app.wait_for(&cell(2, 2)).await?.attr("class").await?;
            if class.as_deref().is_some_and(|c| c.contains("is-focus")) {
                break;
            }
            ensure!(
                std::time::Instant::now() < deadline,
                "C3 is not the selected cell: class {class:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        Ok(())
    })
    .await
}
