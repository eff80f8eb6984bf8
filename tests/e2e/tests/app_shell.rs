//! The app shell in a real window: header, version from the `app_info` command, editor mounted.

use std::time::Duration;

use anyhow::{Context, Result};
use quire_e2e::{Harness, screenshot};
use thirtyfour::prelude::*;

/// quire-app and this crate both take the workspace's version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[tokio::test]
async fn shell_shows_header_version_and_editor() -> Result<()> {
    let harness = Harness::start()?;
    let driver = harness.open_app().await?;
    let outcome = check_shell(&driver).await;
    // Screenshot whatever the outcome, then close the app before reporting.
    let shot = screenshot(&driver, "app-shell").await;
    driver.quit().await.context("close the app")?;
    outcome.with_context(|| {
        let shot = shot
            .as_ref()
            .map_or_else(|e| format!("none ({e:#})"), |p| p.display().to_string());
        format!(
            "screenshot: {shot}; driver log: {}",
            harness.log().display()
        )
    })?;
    println!("screenshot: {}", shot?.display());
    Ok(())
}

async fn check_shell(driver: &WebDriver) -> Result<()> {
    let title = driver
        .find(By::Css("header .app-title"))
        .await?
        .text()
        .await?;
    assert_eq!(title, "Quire");

    // The version arrives asynchronously from `app_info`: poll until it shows.
    let version = driver.find(By::Id("app-version")).await?;
    version
        .wait_until()
        .wait(Duration::from_secs(10), Duration::from_millis(50))
        .has_text(format!("v{VERSION}"))
        .await
        .context("the header never showed the version from app_info")?;

    let status = driver.find(By::Id("sync-status")).await?;
    assert!(status.is_displayed().await?, "#sync-status is not visible");

    let editor = driver
        .find(By::Css("#editor .cm-editor .cm-content"))
        .await?;
    assert!(
        editor.is_displayed().await?,
        "the CodeMirror editor is not visible"
    );
    Ok(())
}
