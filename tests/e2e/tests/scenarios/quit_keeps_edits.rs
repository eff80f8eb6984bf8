//! Quitting right after typing loses nothing. The UI holds an edit of a large text (over
//! 256 KB) for up to 600 ms before handing it to the engine (`ui/src/editing.ts`); Ctrl+Q, like
//! closing the window, hands every held edit over first, then the window closes and the app
//! quits. The test types into such a text and presses Ctrl+Q in the same WebDriver command
//! (no time for the hold to expire), then relaunches: the typed text is there.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, UI_TIMEOUT, screenshot};
use serde_json::json;
use thirtyfour::prelude::*;

const TYPED: &str = "typed-right-before-quitting";

/// Opens the Note from the list and waits until its editor shows the long text.
async fn open_long_text(app: &App, note: &str) -> Result<()> {
    app.click_by(&By::Css(format!(
        "[data-testid=\"notes-item\"][data-note-id=\"{note}\"] a"
    )))
    .await?;
    app.wait_text(
        &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
        "the long text",
        |t| t.starts_with("A line of a long text"),
    )
    .await?;
    Ok(())
}

#[tokio::test]
async fn quitting_right_after_typing_keeps_the_edit() -> Result<()> {
    let harness = Harness::start()?;
    let app = App::launch(&harness).await?;
    let typed = async {
        let view = app.invoke("create_note", json!({"title": "Quit"})).await?;
        let note = view["note_id"].as_str().context("note id")?.to_owned();
        let line = "A line of a long text, long enough to be held before it is handed over.\n";
        let text = line.repeat(300 * 1024 / line.len());
        app.invoke(
            "edit_tab",
            json!({"noteId": note, "tabId": "markdown", "content": text}),
        )
        .await?;
        app.invoke("flush", json!({"noteId": note})).await?;
        let deadline = Instant::now() + UI_TIMEOUT;
        while app.invoke("drafts", json!({})).await? != json!([]) {
            ensure!(Instant::now() < deadline, "the long text never saved");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        app.driver.refresh().await?;
        app.wait_for(&By::Css("[data-testid=\"app\"][data-ready=\"true\"]"))
            .await?;
        open_long_text(&app, &note).await?;
        app.focus_markdown().await?;
        let editor = app.driver.active_element().await?;
        editor.send_keys(Key::Control + Key::End).await?;
        // The text, then Ctrl+Q: one command, the keys back to back. The window may close
        // before the command returns: WebDriver then reports an error.
        let typed_and_quit = app
            .driver
            .action_chain()
            .send_keys(TYPED)
            .key_down(Key::Control)
            .send_keys("q")
            .key_up(Key::Control)
            .perform()
            .await;
        if let Err(e) = typed_and_quit {
            println!("typing and Ctrl+Q: {e}");
        }
        anyhow::Ok(note)
    }
    .await;
    let note = match typed {
        Ok(note) => note,
        Err(e) => {
            let shot = app.finish("quit-failed").await;
            return Err(e.context(format!(
                "screenshot: {shot:?}; log {}",
                harness.log().display()
            )));
        }
    };
    // The window closes by itself once the edit is handed over.
    let deadline = Instant::now() + UI_TIMEOUT;
    while app.driver.execute("return 1;", Vec::new()).await.is_ok() {
        ensure!(
            Instant::now() < deadline,
            "the window is still open after Ctrl+Q"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The session's window is gone; ending the session may report that.
    if let Err(e) = app.driver.quit().await {
        println!("ending the session after the app quit: {e}");
    }

    let app = App::launch(&harness).await?;
    let outcome = async {
        open_long_text(&app, &note).await?;
        // Kept as a draft on disk, sent once the Note is open again.
        let version = app.wait_synced(&note).await?;
        ensure!(version >= 3, "saved as version {version}");
        let text = app.tab_data(&note, "markdown").await?;
        ensure!(
            text.as_str().is_some_and(|t| t.ends_with(TYPED)),
            "the text typed before quitting is lost: it ends with {:?}",
            text.as_str()
                .map(|t| &t[t.len().saturating_sub(60)..])
                .unwrap_or_default()
        );
        screenshot(&app.driver, "quit-keeps-edits").await?;
        anyhow::Ok(())
    }
    .await;
    let shot = app.finish("quit-relaunched").await;
    outcome.with_context(|| format!("screenshot: {shot:?}; log {}", harness.log().display()))
}
