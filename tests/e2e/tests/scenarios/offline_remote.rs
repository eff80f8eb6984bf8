//! The app pointed at a remote server that stops: "Offline (drafts kept)", the draft in the
//! ledger; the server comes back on the same address: saved, exactly once. Then the app quits
//! with an unsynced draft and relaunches: the draft and its sync error are still there.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, UI_TIMEOUT, screenshot, tid};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::Remote;

async fn point_at(app: &App, remote: &Remote) -> Result<()> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click("settings-mode-remote").await?;
    let url = app.testid("settings-url").await?;
    url.clear().await?;
    url.send_keys(remote.url()).await?;
    app.testid("settings-token")
        .await?
        .send_keys(&remote.token)
        .await?;
    app.click("settings-save").await?;
    app.wait_text(&tid("settings-message"), "the settings saved", |t| {
        !t.trim().is_empty()
    })
    .await?;
    let settings = app.invoke("get_settings", json!({})).await?;
    ensure!(settings["mode"] == "remote", "settings: {settings}");
    Ok(())
}

async fn status_offline(app: &App) -> Result<()> {
    app.wait_text(&tid("sync-status"), "offline", |t| {
        t.contains("Offline (drafts kept)")
    })
    .await?;
    Ok(())
}

#[tokio::test]
async fn offline_keeps_drafts_saves_once_and_survives_a_relaunch() -> Result<()> {
    let harness = Harness::start()?;
    let mut remote = Remote::start().await?;
    let app = App::launch(&harness).await?;
    let outcome = async {
        point_at(&app, &remote).await?;
        let note = app.new_note("Trip").await?;
        app.type_markdown("Day 1: Lisbon").await?;
        app.wait_saved(3).await?;
        let saved = app.wait_synced(&note).await?;

        // The server stops: typing goes on, offline, drafts kept.
        remote.stop().await?;
        app.type_markdown("\nDay 2: Porto").await?;
        status_offline(&app).await?;
        app.click("drafts-toggle").await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"drafts-item\"][data-note-id=\"{note}\"][data-tab-id=\"markdown\"]"
        )))
        .await?;
        screenshot(&app.driver, "offline-drafts-kept").await?;

        // Back on the same address: saved, once.
        remote.restart().await?;
        let now = app.wait_saved(saved + 1).await?;
        ensure!(
            now == saved + 1,
            "one save for the offline edits: version {now}, was {saved}"
        );
        let history = app.invoke("history", json!({"noteId": note})).await?;
        ensure!(
            history.as_array().map(Vec::len) == Some(now as usize),
            "history: {history}"
        );
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(text == json!("Day 1: Lisbon\nDay 2: Porto"), "{text}");
        screenshot(&app.driver, "offline-saved-once").await?;

        // Offline again, a draft, and quit.
        remote.stop().await?;
        app.type_markdown("\nDay 3: Coimbra").await?;
        status_offline(&app).await?;
        // Quit once the engine has the draft (on disk): the UI hands edits over within
        // 600 ms of a keystroke.
        let deadline = std::time::Instant::now() + UI_TIMEOUT;
        loop {
            let ledger = app.invoke("drafts", json!({})).await?;
            if ledger.to_string().contains(note.as_str()) {
                break;
            }
            ensure!(std::time::Instant::now() < deadline, "no draft: {ledger}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        anyhow::Ok(note)
    }
    .await;
    let note = match outcome {
        Ok(note) => note,
        Err(e) => {
            let shot = app.finish("offline-failed").await;
            return Err(e.context(format!(
                "screenshot: {shot:?}; log {}",
                harness.log().display()
            )));
        }
    };
    app.driver.quit().await.context("quit the app")?;

    // Relaunch, the server still down: the draft and its sync error are there.
    let app = App::launch(&harness).await?;
    let outcome = async {
        let ledger = app.invoke("drafts", json!({})).await?;
        let entry = ledger
            .as_array()
            .and_then(|l| l.iter().find(|d| d["note_id"] == note.as_str()))
            .with_context(|| format!("the draft is in the ledger: {ledger}"))?;
        // Its sync state: offline (a save that was attempted also records the error).
        ensure!(entry["state"] == "offline", "its sync state: {entry}");
        ensure!(
            entry["last_error"].is_null() || entry["last_error"]["code"] == "offline",
            "its sync error: {entry}"
        );
        app.click("drafts-toggle").await?;
        let item = app
            .wait_for(&By::Css(format!(
                "[data-testid=\"drafts-item\"][data-note-id=\"{note}\"]"
            )))
            .await?;
        let state = item.attr("data-state").await?.unwrap_or_default();
        ensure!(state == "offline", "ledger state {state:?}");
        item.click().await?;
        let shown = app
            .wait_text(
                &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
                "the draft in the editor",
                |t| t.contains("Day 3: Coimbra"),
            )
            .await?;
        ensure!(shown.contains("Day 1: Lisbon"), "{shown:?}");
        status_offline(&app).await?;
        screenshot(&app.driver, "relaunch-draft-kept").await?;

        // And once the server is back, it is saved.
        remote.restart().await?;
        let deadline = std::time::Instant::now() + UI_TIMEOUT;
        loop {
            let ledger = app.invoke("drafts", json!({})).await?;
            if ledger == json!([]) {
                break;
            }
            ensure!(
                std::time::Instant::now() < deadline,
                "never saved: {ledger}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text == json!("Day 1: Lisbon\nDay 2: Porto\nDay 3: Coimbra"),
            "{text}"
        );
        anyhow::Ok(())
    }
    .await;
    let shot = app.finish("relaunch-saved").await;
    outcome.with_context(|| format!("screenshot: {shot:?}; log {}", harness.log().display()))?;
    remote.stop().await?;
    Ok(())
}
