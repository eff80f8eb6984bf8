//! Dark mode: chosen in Settings, applied at once to every view (the page's background and
//! text are the dark theme's, read from the window), read again when the window starts (a
//! reload), and back to light. Screenshots of the Note, the settings and the versions panel in
//! both themes.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, tid_tab};
use thirtyfour::prelude::*;

/// The theme on <html> and the relative luminance of its background and text.
const LOOK: &str = r#"
const lum = (c) => {
  const [r, g, b] = c.match(/\d+(\.\d+)?/g).slice(0, 3).map((v) => {
    const x = Number(v) / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const style = getComputedStyle(document.documentElement);
const note = document.querySelector('[data-testid="editor-markdown"]');
return {
  theme: document.documentElement.dataset.theme ?? null,
  background: lum(style.backgroundColor),
  text: lum(style.color),
  editor: note ? lum(getComputedStyle(note.querySelector('.cm-editor') ?? note).backgroundColor) : null,
};
"#;

async fn look(app: &App) -> Result<serde_json::Value> {
    Ok(app.driver.execute(LOOK, vec![]).await?.json().clone())
}

async fn choose(app: &App, theme: &str) -> Result<()> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click(&format!("settings-theme-{theme}")).await
}

/// The Note with a Sheet, and the versions panel, in the theme shown now.
async fn shots(app: &App, theme: &str) -> Result<()> {
    app.click_by(&By::Css("[data-testid=\"notes-item\"]"))
        .await?;
    app.wait_for(&tid_tab("editor-markdown", "markdown"))
        .await?;
    quire_e2e::screenshot(&app.driver, &format!("appearance-{theme}-note")).await?;
    app.click("versions-toggle").await?;
    app.testid("versions-panel").await?;
    quire_e2e::screenshot(&app.driver, &format!("appearance-{theme}-versions")).await?;
    app.click("versions-toggle").await?;
    Ok(())
}

#[tokio::test]
async fn dark_mode_is_chosen_in_settings_kept_and_undone() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "appearance-dark", async |app: &App| {
        app.new_note("Evening reading").await?;
        app.type_markdown("# Notes\n\nSome `code` and a [link](https://example.org).")
            .await?;
        app.wait_saved(2).await?;
        // Under Xvfb the system prefers light: System shows light.
        let first = look(app).await?;
        ensure!(first["theme"] == "light", "the system's theme: {first}");

        choose(app, "dark").await?;
        let dark = look(app).await?;
        ensure!(dark["theme"] == "dark", "{dark}");
        let (bg, text) = (
            dark["background"].as_f64().context("background")?,
            dark["text"].as_f64().context("text")?,
        );
        ensure!(
            bg < 0.02 && text > 0.6,
            "a dark page with light text: {dark}"
        );
        quire_e2e::screenshot(&app.driver, "appearance-dark-settings").await?;
        shots(app, "dark").await?;
        let editor = look(app).await?;
        ensure!(
            editor["editor"].as_f64().is_some_and(|l| l < 0.03),
            "the Markdown editor is dark too: {editor}"
        );

        // The window starts again (a reload): the choice is read back.
        app.driver.refresh().await?;
        app.wait_for(&By::Css("[data-testid=\"app\"][data-ready=\"true\"]"))
            .await?;
        let again = look(app).await?;
        ensure!(again["theme"] == "dark", "the choice is kept: {again}");
        choose(app, "light").await?;
        let light = look(app).await?;
        ensure!(
            light["theme"] == "light" && light["background"].as_f64().is_some_and(|l| l > 0.8),
            "{light}"
        );
        quire_e2e::screenshot(&app.driver, "appearance-light-settings").await?;
        shots(app, "light").await?;
        Ok(())
    })
    .await
}
