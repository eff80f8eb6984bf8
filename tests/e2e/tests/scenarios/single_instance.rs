//! One app at a time: a second launch on the same data (a person clicking "Quire" in the menu
//! while it runs, its window hidden) exits at once and brings the running window back, shown and
//! focused; the first keeps running and saving, and only one app (so one embedded server) runs.

use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::json;

/// How long the second launch may take to hand over and exit (it opens the display and GTK, then
/// finds the first on the session bus; a full start takes about as long on this machine).
const SECOND_LAUNCH_EXITS_WITHIN: Duration = Duration::from_secs(15);

#[tokio::test]
async fn a_second_launch_shows_the_running_window_and_exits() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "single-instance", async |app: &App| {
        let note = app.new_note("Launched twice").await?;
        let server = app.invoke("get_settings", json!({})).await?["server_url"].clone();
        let window = harness.app_window().await?;

        // Hidden (as a window manager minimises it): the second launch shows it again.
        harness.hide_window(&window)?;
        ensure!(!harness.window_shown(&window), "the window is still shown");
        let took = launch_again(&harness).await?;
        wait_until(&format!("window {window} shown"), || {
            harness.window_shown(&window)
        })
        .await?;

        // Another application has the keyboard: the next launch gives it back to the window.
        harness.focus_nothing()?;
        ensure!(
            harness.focused_window()? != window,
            "the window kept the focus"
        );
        launch_again(&harness).await?;
        wait_until(&format!("window {window} focused"), || {
            harness.focused_window().is_ok_and(|f| f == window)
        })
        .await?;

        // Still the one app, on the same server, saving.
        ensure!(
            app.invoke("get_settings", json!({})).await?["server_url"] == server,
            "the server changed"
        );
        app.type_markdown("Still the same app.").await?;
        app.wait_saved(3).await?;
        app.wait_synced(&note).await?;
        let running = processes_running(harness.app())?;
        ensure!(
            running == 1,
            "{running} processes run {}",
            harness.app().display()
        );
        println!("the second launch exited after {} ms", took.as_millis());
        Ok(())
    })
    .await
}

/// Launches the app as a person would (same desktop, same data) and waits for it to exit:
/// successfully and within [`SECOND_LAUNCH_EXITS_WITHIN`]. Returns how long it ran.
async fn launch_again(harness: &Harness) -> Result<Duration> {
    let launched = Instant::now();
    let mut again = harness
        .app_command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("launch the app again")?;
    let status = wait_exit(&mut again, SECOND_LAUNCH_EXITS_WITHIN).await?;
    let took = launched.elapsed();
    let stderr = again
        .stderr
        .take()
        .map(std::io::read_to_string)
        .transpose()?
        .unwrap_or_default();
    ensure!(
        status.success(),
        "the launch exited with {status}: {stderr}"
    );
    Ok(took)
}

async fn wait_until(what: &str, done: impl Fn() -> bool) -> Result<()> {
    let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
    while !done() {
        if Instant::now() >= deadline {
            bail!("not {what} after {:?}", quire_e2e::UI_TIMEOUT);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

async fn wait_exit(child: &mut Child, within: Duration) -> Result<ExitStatus> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            child.kill()?;
            child.wait()?;
            bail!("the second launch was still running after {within:?}: a second app started");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// How many processes run the executable `binary`.
fn processes_running(binary: &std::path::Path) -> Result<usize> {
    let mut count = 0;
    for entry in std::fs::read_dir("/proc")? {
        let exe = entry?.path().join("exe");
        if std::fs::read_link(&exe).is_ok_and(|target| target == binary) {
            count += 1;
        }
    }
    Ok(count)
}
