//! The Sheet and Slides editors' own undo and redo (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y), and the
//! Sheet's find and replace (Ctrl+F) over every sheet of the tab, in the real window: each step
//! undone and redone lands in the engine; a cell the agent wrote over MCP after the person's
//! paste keeps the agent's value when the paste is undone (and the person reads why, in light
//! and dark); Ctrl+Z inside a cell being edited is the input's own. Screenshots of the find bar
//! in light and dark.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, UI_TIMEOUT, scenario, tid, tid_tab};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

use crate::support::{agent_for, call, key, read_tab};

fn cell(row: u32, col: u32) -> By {
    By::Css(format!(
        "[data-testid=\"sheet-cell\"][data-row=\"{row}\"][data-col=\"{col}\"]"
    ))
}

/// Waits until the engine's data of the tab satisfies `pred`; returns it.
async fn wait_data(
    app: &App,
    note: &str,
    tab: &str,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Result<Value> {
    let deadline = std::time::Instant::now() + UI_TIMEOUT;
    loop {
        let data = app.tab_data(note, tab).await?;
        if pred(&data) {
            return Ok(data);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "{what}: the engine holds {data}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The engine's cell of the first sheet (null when empty or beyond the rows).
fn at(data: &Value, row: usize, col: usize) -> Value {
    at_on(data, 0, row, col)
}

/// The engine's cell of the tab's sheet `sheet` (its index).
fn at_on(data: &Value, sheet: usize, row: usize, col: usize) -> Value {
    data["sheets"][sheet]["rows"][row][col].clone()
}

/// The ID of the sheet the grid shows.
async fn shown_sheet(app: &App) -> Result<String> {
    app.testid("editor-sheet")
        .await?
        .attr("data-sheet-id")
        .await?
        .context("the sheet shown")
}

/// A tab made through the app's command, opened in the window.
async fn open_new_tab(app: &App, note: &str, kind: &str, label: &str) -> Result<String> {
    let created = app
        .invoke(
            "apply_ops",
            json!({"noteId": note, "ops": [{"op": "create_tab", "tab_type": kind, "label": label}]}),
        )
        .await?;
    let tab = created["result"]["outcomes"][0]["tab_id"]
        .as_str()
        .context("tab id")?
        .to_owned();
    app.click_by(&By::Css(format!(
        "[data-testid=\"tab\"][data-tab-id=\"{tab}\"] a"
    )))
    .await?;
    Ok(tab)
}

/// The dark theme, chosen in Settings; then back to the Note (the only one) and its tab `tab`.
async fn dark_and_back(app: &App, tab: &str) -> Result<()> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click("settings-theme-dark").await?;
    app.click_by(&By::Css("[data-testid=\"notes-item\"]"))
        .await?;
    app.click_by(&By::Css(format!(
        "[data-testid=\"tab\"][data-tab-id=\"{tab}\"] a"
    )))
    .await
}

async fn keys(app: &App, keys: impl Into<TypingData>) -> Result<()> {
    app.driver.active_element().await?.send_keys(keys).await?;
    Ok(())
}

async fn undo(app: &App) -> Result<()> {
    keys(app, Key::Control + "z").await
}

async fn redo(app: &App) -> Result<()> {
    keys(app, Key::Control + Key::Shift + "z").await
}

/// Types `text` into the cell (Enter edits, Enter commits).
async fn type_cell(app: &App, row: u32, col: u32, text: &str) -> Result<()> {
    app.click_by(&cell(row, col)).await?;
    keys(app, Key::Enter).await?;
    let input = app.testid("sheet-cell-input").await?;
    input.send_keys(text).await?;
    input.send_keys(Key::Enter).await?;
    app.wait_gone(&tid("sheet-cell-input")).await
}

/// A paste of tab-separated text on the grid, as the clipboard hands it to the page.
async fn paste(app: &App, text: &str) -> Result<()> {
    app.driver
        .execute(
            "const dt = new DataTransfer(); dt.setData('text/plain', arguments[0]);\n\
             document.activeElement.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));",
            vec![json!(text)],
        )
        .await?;
    Ok(())
}

#[tokio::test]
async fn sheet_undo_and_redo_keep_the_agents_cell() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "editor-undo-sheet", async |app: &App| {
        let note = app.new_note("Budget").await?;
        let sheet = open_new_tab(app, &note, "sheet", "Costs").await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;

        // The person: A1, a paste at A3:B3.
        type_cell(app, 0, 0, "alpha").await?;
        wait_data(app, &note, &sheet, "A1 typed", |d| at(d, 0, 0) == "alpha").await?;
        app.click_by(&cell(2, 0)).await?;
        paste(app, "p\tq").await?;
        wait_data(app, &note, &sheet, "the paste", |d| {
            at(d, 2, 0) == "p" && at(d, 2, 1) == "q"
        })
        .await?;
        app.wait_synced(&note).await?;

        // The agent writes B3 (one of the pasted cells) over MCP.
        let agent = agent_for(app, &note).await?;
        let (version, _) = read_tab(&agent, &note, &sheet).await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": sheet, "expected_version": version,
                   "idempotency_key": key(), "operation": "sheet_set_range",
                   "start_row": 2, "start_col": 1, "values": [["agent"]]}),
        )
        .await?;
        app.wait_text(&cell(2, 1), "the agent's value", |t| t.starts_with("agent"))
            .await?;

        // The person adds a row below row 1: the pasted row moves to row 4.
        app.click_by(&cell(0, 0)).await?;
        app.click("sheet-add-row").await?;
        wait_data(app, &note, &sheet, "the row added", |d| {
            at(d, 3, 0) == "p" && at(d, 3, 1) == "agent"
        })
        .await?;

        // Ctrl+Z inside a cell being edited is the input's, not the sheet's.
        app.click_by(&cell(5, 0)).await?;
        keys(app, Key::Enter).await?;
        let input = app.testid("sheet-cell-input").await?;
        input.send_keys("xyz").await?;
        input.send_keys(Key::Control + "z").await?;
        input.send_keys(Key::Escape).await?;
        app.wait_gone(&tid("sheet-cell-input")).await?;
        let data = app.tab_data(&note, &sheet).await?;
        ensure!(
            at(&data, 3, 0) == "p",
            "Ctrl+Z in the input undid a sheet step: {data}"
        );

        // Undo: the row, then the paste (B3 keeps the agent's value, and the person reads why),
        // then A1.
        app.click_by(&cell(0, 2)).await?;
        undo(app).await?;
        wait_data(app, &note, &sheet, "row undone", |d| {
            at(d, 2, 0) == "p" && at(d, 2, 1) == "agent"
        })
        .await?;
        undo(app).await?;
        wait_data(app, &note, &sheet, "paste undone", |d| {
            at(d, 2, 0).is_null() && at(d, 2, 1) == "agent"
        })
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"error-toast\"][data-tone=\"info\"]"),
            "the message",
            |t| t.contains("kept B3") && t.contains("another writer"),
        )
        .await?;
        quire_e2e::screenshot(&app.driver, "editor-undo-sheet-kept").await?;
        undo(app).await?;
        wait_data(app, &note, &sheet, "A1 undone", |d| {
            at(d, 0, 0).is_null() && at(d, 2, 1) == "agent"
        })
        .await?;

        // Redo all three (Ctrl+Y for the last): the agent's B3 stays.
        redo(app).await?;
        wait_data(app, &note, &sheet, "A1 redone", |d| at(d, 0, 0) == "alpha").await?;
        redo(app).await?;
        wait_data(app, &note, &sheet, "paste redone", |d| {
            at(d, 2, 0) == "p" && at(d, 2, 1) == "agent"
        })
        .await?;
        keys(app, Key::Control + "y").await?;
        let data = wait_data(app, &note, &sheet, "row redone", |d| at(d, 3, 0) == "p").await?;
        ensure!(at(&data, 3, 1) == "agent", "the agent's cell: {data}");

        // In dark mode, the same message: the row and the paste undone again (the history
        // outlives the editor's remount), then redone.
        dark_and_back(app, &sheet).await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        app.click_by(&cell(0, 2)).await?;
        undo(app).await?;
        wait_data(app, &note, &sheet, "row undone in dark", |d| {
            at(d, 2, 0) == "p"
        })
        .await?;
        undo(app).await?;
        wait_data(app, &note, &sheet, "paste undone in dark", |d| {
            at(d, 2, 0).is_null() && at(d, 2, 1) == "agent"
        })
        .await?;
        app.wait_text(
            &By::Css("[data-testid=\"error-toast\"][data-tone=\"info\"]"),
            "the message in dark",
            |t| t.contains("kept B3") && t.contains("another writer"),
        )
        .await?;
        quire_e2e::screenshot(&app.driver, "editor-undo-sheet-kept-dark").await?;
        redo(app).await?;
        redo(app).await?;
        let data = wait_data(app, &note, &sheet, "redone in dark", |d| at(d, 3, 0) == "p").await?;
        ensure!(at(&data, 3, 1) == "agent", "the agent's cell: {data}");
        app.wait_synced(&note).await?;
        agent.cancel().await?;
        Ok(())
    })
    .await
}

#[tokio::test]
async fn deck_undo_and_redo_text_order_and_theme() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "editor-undo-deck", async |app: &App| {
        let note = app.new_note("Talk").await?;
        let deck = open_new_tab(app, &note, "slides", "Deck").await?;
        app.wait_for(&tid_tab("editor-slides", &deck)).await?;
        app.click("slide-add").await?;
        let title = app.testid("slide-title").await?;
        title.click().await?;
        title.send_keys("One").await?;
        app.click("slide-add").await?;
        let title = app.testid("slide-title").await?;
        title.click().await?;
        // Typed in one go: one step.
        title.send_keys("Two").await?;
        wait_data(app, &note, &deck, "two titles", |d| {
            d["slides"][1]["title"] == "Two"
        })
        .await?;
        app.click("slide-move-up").await?;
        wait_data(app, &note, &deck, "reordered", |d| {
            d["slides"][0]["title"] == "Two"
        })
        .await?;
        app.click_by(&By::Css(
            "[data-testid=\"slide-theme\"] option[value=\"ink\"]",
        ))
        .await?;
        wait_data(app, &note, &deck, "theme", |d| d["theme"] == "ink").await?;

        app.click_by(&By::Css("[data-testid=\"slide-item\"]"))
            .await?;
        undo(app).await?;
        wait_data(app, &note, &deck, "theme undone", |d| d["theme"] != "ink").await?;
        undo(app).await?;
        wait_data(app, &note, &deck, "order undone", |d| {
            d["slides"][0]["title"] == "One"
        })
        .await?;
        undo(app).await?;
        wait_data(app, &note, &deck, "title undone", |d| {
            d["slides"][1]["title"] == ""
        })
        .await?;
        redo(app).await?;
        wait_data(app, &note, &deck, "title redone", |d| {
            d["slides"][1]["title"] == "Two"
        })
        .await?;
        redo(app).await?;
        wait_data(app, &note, &deck, "order redone", |d| {
            d["slides"][0]["title"] == "Two"
        })
        .await?;
        // The slide moved with the focus on it: the next key still reaches the editor.
        redo(app).await?;
        let data = wait_data(app, &note, &deck, "all redone", |d| d["theme"] == "ink").await?;
        ensure!(
            data["slides"][0]["title"] == "Two" && data["slides"][1]["title"] == "One",
            "redone: {data}"
        );
        app.wait_synced(&note).await?;
        quire_e2e::screenshot_both(&app.driver, "editor-undo-deck-redone").await?;
        Ok(())
    })
    .await
}

async fn find_shot(app: &App, name: &str) -> Result<()> {
    app.click_by(&cell(0, 0)).await?;
    keys(app, Key::Control + "f").await?;
    let input = app.testid("sheet-find-input").await?;
    input.send_keys(Key::Control + "a").await?;
    input.send_keys("apple").await?;
    // Every key landed in the query, the first too: the bar took the focus as it opened, and
    // nothing selects the query again later ("pple" on a busy machine, before).
    let typed = input.prop("value").await?;
    ensure!(
        typed.as_deref() == Some("apple"),
        "the query reads {typed:?}"
    );
    // Three on the sheet shown, one on the second sheet.
    app.wait_text(&tid("sheet-find-count"), "the count", |t| t == "1 of 4")
        .await?;
    input.send_keys(Key::Enter).await?;
    app.wait_text(&tid("sheet-find-count"), "next", |t| t == "2 of 4")
        .await?;
    app.wait_text(&tid("sheet-find-where"), "where", |t| t == "on Sheet 1")
        .await?;
    let found = app.driver.find_all(By::Css("td.is-found")).await?;
    ensure!(found.len() == 3, "{} cells highlighted", found.len());
    quire_e2e::screenshot(&app.driver, name).await?;
    Ok(())
}

#[tokio::test]
async fn find_and_replace_across_a_sheet_is_one_undo_step() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "sheet-find-replace", async |app: &App| {
        let note = app.new_note("Fruit").await?;
        let sheet = open_new_tab(app, &note, "sheet", "Orders").await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        type_cell(app, 0, 0, "apple pie").await?;
        type_cell(app, 1, 0, "Green Apple").await?;
        type_cell(app, 2, 1, "pineapple").await?;
        type_cell(app, 3, 1, "banana").await?;
        wait_data(app, &note, &sheet, "typed", |d| at(d, 3, 1) == "banana").await?;
        // A second sheet, with one more apple.
        app.click("sheet-add").await?;
        let first = app
            .testid("sheet-switch")
            .await?
            .attr("data-sheet-id")
            .await?
            .context("the first sheet's id")?;
        let second = shown_sheet(app).await?;
        ensure!(second != first, "the new sheet is shown");
        type_cell(app, 1, 1, "apple crumble").await?;
        wait_data(app, &note, &sheet, "the second sheet", |d| {
            at_on(d, 1, 1, 1) == "apple crumble"
        })
        .await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"sheet-switch\"][data-sheet-id=\"{first}\"]"
        )))
        .await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"editor-sheet\"][data-sheet-id=\"{first}\"]"
        )))
        .await?;

        find_shot(app, "sheet-find-replace-light").await?;
        // On past the first sheet's three: the second sheet is shown, its cell found.
        let input = app.testid("sheet-find-input").await?;
        input.send_keys(Key::Enter).await?;
        app.wait_text(&tid("sheet-find-count"), "third", |t| t == "3 of 4")
            .await?;
        input.send_keys(Key::Enter).await?;
        app.wait_text(&tid("sheet-find-count"), "fourth", |t| t == "4 of 4")
            .await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"editor-sheet\"][data-sheet-id=\"{second}\"]"
        )))
        .await?;
        app.wait_text(&tid("sheet-find-where"), "where", |t| t == "on Sheet 2")
            .await?;
        app.wait_for(&By::Css(
            "[data-testid=\"sheet-cell\"][data-row=\"1\"][data-col=\"1\"].is-found-current",
        ))
        .await?;
        quire_e2e::screenshot(&app.driver, "sheet-find-other-sheet").await?;
        // Wrapping back to the first.
        input.send_keys(Key::Enter).await?;
        app.wait_text(&tid("sheet-find-count"), "wrapped", |t| t == "1 of 4")
            .await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"editor-sheet\"][data-sheet-id=\"{first}\"]"
        )))
        .await?;
        // Match case: three (not "Green Apple").
        app.set_checked("sheet-find-case", true).await?;
        app.wait_text(&tid("sheet-find-count"), "match case", |t| {
            t.ends_with("of 3")
        })
        .await?;
        app.set_checked("sheet-find-case", false).await?;
        app.wait_text(&tid("sheet-find-count"), "any case", |t| {
            t.ends_with("of 4")
        })
        .await?;
        let replace = app.testid("sheet-replace-input").await?;
        replace.click().await?;
        replace.send_keys("pear").await?;
        app.click("sheet-replace-all").await?;
        let data = wait_data(app, &note, &sheet, "replaced", |d| {
            at(d, 0, 0) == "pear pie"
        })
        .await?;
        ensure!(
            at(&data, 1, 0) == "Green pear"
                && at(&data, 2, 1) == "pinepear"
                && at(&data, 3, 1) == "banana"
                && at_on(&data, 1, 1, 1) == "pear crumble",
            "replaced on both sheets: {data}"
        );
        app.wait_text(
            &By::Css("[data-testid=\"error-toast\"][data-tone=\"info\"]"),
            "the message",
            |t| t.contains("Replaced in 4 cells on 2 sheets"),
        )
        .await?;
        app.wait_text(&tid("sheet-find-count"), "none left", |t| t == "No matches")
            .await?;
        // Escape closes the bar; one Ctrl+Z in the grid takes the whole replacement back.
        let input = app.testid("sheet-find-input").await?;
        input.send_keys(Key::Escape).await?;
        app.wait_gone(&tid("sheet-find-bar")).await?;
        app.click_by(&cell(5, 5)).await?;
        undo(app).await?;
        let data = wait_data(app, &note, &sheet, "restored", |d| {
            at(d, 0, 0) == "apple pie"
        })
        .await?;
        ensure!(
            at(&data, 1, 0) == "Green Apple"
                && at(&data, 2, 1) == "pineapple"
                && at(&data, 3, 1) == "banana"
                && at_on(&data, 1, 1, 1) == "apple crumble",
            "restored on both sheets: {data}"
        );
        app.wait_synced(&note).await?;

        // Dark mode: the same bar.
        dark_and_back(app, &sheet).await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        find_shot(app, "sheet-find-replace-dark").await?;
        Ok(())
    })
    .await
}
