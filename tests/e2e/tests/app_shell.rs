//! The app shell in a real window: header, version from the `app_info` command, the status and
//! the notes list (the embedded server and the engine are up).

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

    driver
        .query(By::Css("[data-testid=\"app\"][data-ready=\"true\"]"))
        .wait(Duration::from_secs(20), Duration::from_millis(50))
        .first()
        .await
        .context("the app never loaded its notes list")?;
    let list = driver.find(By::Css("[data-testid=\"notes-list\"]")).await?;
    assert!(list.is_displayed().await?, "the notes list is not visible");

    // On Linux the page asks WebKitGTK for the generic families only (ui/src/lib/theme.ts,
    // `fontsFor`): a name fontconfig does not have is a lookup for every size and weight.
    let fonts = driver
        .execute(
            "const cs = (s) => getComputedStyle(document.querySelector(s)).fontFamily; \
             return [document.documentElement.dataset.fonts, cs('body'), cs('header kbd')];",
            vec![],
        )
        .await?
        .json()
        .clone();
    assert_eq!(
        fonts,
        serde_json::json!(["generic", "sans-serif", "monospace"]),
        "the page's font families (data-fonts, the body's, a key's)"
    );
    Ok(())
}
