//! Logs a person can find: the app's menu leads to About Quire, which shows the version and the
//! logs folder; "Open logs folder" (there, and in the menu) opens that folder in the desktop's
//! file manager; the folder holds today's log, with this run's start and first paint in it.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, scenario, tid};

/// quire-app and this crate both take the workspace's version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[tokio::test]
async fn about_shows_the_version_and_opens_the_logs_folder() -> Result<()> {
    let harness = Harness::start()?;
    let logs = harness
        .data_home()
        .join(quire_e2e::identifier()?)
        .join("logs");
    let logs_text = logs.display().to_string();
    scenario(&harness, "about-logs", async |app: &App| {
        app.menu("app-menu", "app-menu-about").await?;
        app.wait_text(&tid("about-version"), "the version", |t| {
            t == format!("Quire {VERSION}")
        })
        .await?;
        app.wait_text(&tid("about-log-dir"), "the logs folder", |t| t == logs_text)
            .await?;

        app.click("about-open-logs").await?;
        wait_opened(&harness, &[&logs_text]).await?;
        app.menu("app-menu", "app-menu-logs").await?;
        wait_opened(&harness, &[&logs_text, &logs_text]).await?;

        // The first frame is reported after it is painted, which may come after the page is
        // ready under WebKit's software renderer.
        let today = logs.join("quire.log");
        let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
        loop {
            let log = std::fs::read_to_string(&today)
                .with_context(|| format!("today's log in {logs_text}"))?;
            let lines = ["Quire starts", "the window painted its first frame"];
            if lines.iter().all(|line| log.contains(line)) {
                return Ok(());
            }
            ensure!(
                Instant::now() < deadline,
                "not all of {lines:?} in the log:\n{log}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
}

async fn wait_opened(harness: &Harness, expected: &[&str]) -> Result<()> {
    let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
    loop {
        let opened = harness.opened_folders();
        if opened == expected {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("the file manager opened {opened:?}, not {expected:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
