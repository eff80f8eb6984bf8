//! Add a Sheet and a Slides tab, give both the same label, reorder, and check that edits land
//! in the right tab by ID.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid, tid_tab};
use serde_json::json;
use thirtyfour::prelude::*;

/// The tab IDs in strip order.
async fn strip(app: &App) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    for tab in app.driver.find_all(tid("tab")).await? {
        ids.push(tab.attr("data-tab-id").await?.context("data-tab-id")?);
    }
    Ok(ids)
}

/// Adds a tab of `kind` from the "+" menu; returns its ID (the one new in the strip).
async fn add_tab(app: &App, kind: &str) -> Result<String> {
    let before = strip(app).await?;
    app.menu("tab-add", &format!("tab-add-{kind}")).await?;
    let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
    loop {
        let now = strip(app).await?;
        if let Some(id) = now.iter().find(|id| !before.contains(id)) {
            ensure!(id.starts_with(&format!("{kind}-")), "new tab {id}");
            return Ok(id.clone());
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "no new {kind} tab: {now:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Renames a tab inline (double-click its link), with spaces around the label that the
/// app trims; returns once the engine has the new label.
async fn rename(app: &App, note: &str, tab: &str, label: &str) -> Result<()> {
    let link = app
        .wait_for(&By::Css(format!(
            "[data-testid=\"tab\"][data-tab-id=\"{tab}\"] a"
        )))
        .await?;
    link.click().await?;
    app.driver
        .action_chain()
        .double_click_element(&link)
        .perform()
        .await?;
    let input = app.testid("tab-rename-input").await?;
    input.send_keys(Key::Control + "a").await?;
    input.send_keys(format!("  {label}  ") + Key::Enter).await?;
    let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
    loop {
        let view = app
            .invoke("tab_view", json!({"noteId": note, "tabId": tab}))
            .await?;
        if view["label"] == label {
            return Ok(());
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "{tab} is labelled {}",
            view["label"]
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn same_labels_and_moves_never_misdirect_an_edit() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "tabs-by-id", async |app: &App| {
        let note = app.new_note("Budget review").await?;

        let sheet = add_tab(app, "sheet").await?;
        let slides = add_tab(app, "slides").await?;
        rename(app, &note, &sheet, "Q3").await?;
        rename(app, &note, &slides, "Q3").await?;

        // Move the deck to the front of the strip (the tab menu of the active tab).
        let tabs = strip(app).await?;
        let mut at = tabs
            .iter()
            .position(|t| *t == slides)
            .context("slides in strip")?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"tab\"][data-tab-id=\"{slides}\"] a"
        )))
        .await?;
        while at > 0 {
            // Alt+Shift+Left on the focused tab moves it one place to the left.
            app.driver
                .active_element()
                .await?
                .send_keys(Key::Alt + Key::Shift + Key::Left)
                .await?;
            let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
            loop {
                let now = strip(app).await?;
                if now.iter().position(|t| *t == slides) == Some(at - 1) {
                    break;
                }
                ensure!(
                    std::time::Instant::now() < deadline,
                    "the move did not land: {now:?}"
                );
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            at -= 1;
        }

        // Edit the deck (now first) and the sheet, both labelled "Q3", by their IDs.
        app.wait_for(&tid_tab("editor-slides", &slides)).await?;
        if app.driver.find_all(tid("slide-item")).await?.is_empty() {
            app.click("slide-add").await?;
        }
        let title = app.testid("slide-title").await?;
        title.click().await?;
        title.send_keys("Why Q3 matters").await?;

        app.click_by(&By::Css(format!(
            "[data-testid=\"tab\"][data-tab-id=\"{sheet}\"] a"
        )))
        .await?;
        app.wait_for(&tid_tab("editor-sheet", &sheet)).await?;
        let cell = app
            .wait_for(&By::Css(
                "[data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"0\"]",
            ))
            .await?;
        cell.click().await?;
        // Enter on the selected cell edits it in place.
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Enter)
            .await?;
        let input = app.testid("sheet-cell-input").await?;
        input.send_keys("42").await?;
        input.send_keys(Key::Enter).await?;
        app.wait_synced(&note).await?;

        let saved_deck = async || -> Result<bool> {
            let deck = app.tab_data(&note, &slides).await?;
            Ok(deck["slides"][0]["title"] == "Why Q3 matters")
        };
        let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
        while !saved_deck().await? {
            ensure!(
                std::time::Instant::now() < deadline,
                "the deck never got its title"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let grid = app.tab_data(&note, &sheet).await?;
        ensure!(
            grid["sheets"][0]["rows"][0][0] == json!(42) || grid["sheets"][0]["rows"][0][0] == "42",
            "sheet: {grid}"
        );
        let deck = app.tab_data(&note, &slides).await?;
        ensure!(
            !deck.to_string().contains("42"),
            "the sheet's value leaked into the deck: {deck}"
        );
        ensure!(
            !grid.to_string().contains("Why Q3"),
            "the deck's title leaked into the sheet: {grid}"
        );
        let view = app.invoke("open_note", json!({"noteId": note})).await?;
        let labels: Vec<(String, String)> = view["tabs"]
            .as_array()
            .context("tabs")?
            .iter()
            .map(|t| {
                (
                    t["id"].as_str().unwrap_or("").to_owned(),
                    t["label"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        ensure!(
            labels[0] == (slides.clone(), "Q3".to_owned()),
            "strip: {labels:?}"
        );
        ensure!(
            labels.contains(&(sheet.clone(), "Q3".to_owned())),
            "strip: {labels:?}"
        );
        Ok(())
    })
    .await
}
