//! The command palette (Ctrl+Shift+P): every action with its shortcut, found by a few letters,
//! greyed with the reason where it cannot run, and run from the keyboard (a theme, a new tab).
//! Spell-check in Markdown: the platform's checker (WebKitGTK's, through enchant) underlines a
//! misspelt word of prose in red, and not the same word in a code block, read from the pixels of
//! the window. Screenshots of both, in light and dark.

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, scenario, tid};
use std::time::{Duration, Instant};
use thirtyfour::prelude::*;

async fn open_palette(app: &App) -> Result<WebElement> {
    app.driver
        .active_element()
        .await?
        .send_keys(Key::Control + Key::Shift + "p")
        .await?;
    app.wait_for(&tid("command-palette-input")).await
}

/// Opens the palette, types `words`, and runs the first command (Enter).
async fn run_command(app: &App, words: &str, expect: &str) -> Result<()> {
    let input = open_palette(app).await?;
    input.send_keys(words).await?;
    // The first command of the list ranked for all of `words`: the keys may still be arriving
    // when `send_keys` returns, and the list of a prefix ("add s") ranks another first.
    let first = app
        .wait_for(&By::Css(format!(
            "#palette-list[data-query=\"{words}\"] \
             [data-testid=\"command-palette-item\"][aria-selected=\"true\"]"
        )))
        .await?;
    let id = first.attr("data-command").await?.unwrap_or_default();
    ensure!(id == expect, "{words:?} chose {id:?}, not {expect:?}");
    input.send_keys(Key::Enter).await?;
    app.wait_gone(&tid("command-palette")).await
}

async fn theme(app: &App) -> Result<String> {
    let v = app
        .driver
        .execute(
            "return document.documentElement.dataset.theme ?? '';",
            vec![],
        )
        .await?;
    Ok(v.json().as_str().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn the_palette_lists_every_action_and_runs_it() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "command-palette", async |app: &App| {
        app.new_note("Palette").await?;
        open_palette(app).await?;
        // Every command, each shortcut in Linux's words.
        let items = app.driver.find_all(tid("command-palette-item")).await?;
        ensure!(items.len() >= 25, "only {} commands listed", items.len());
        let new_note = app
            .wait_for(&By::Css(
                "[data-command=\"note.new\"] [data-testid=\"command-palette-shortcut\"]",
            ))
            .await?;
        let keys = new_note.prop("textContent").await?.unwrap_or_default();
        ensure!(keys == "Ctrl+N", "New note's shortcut reads {keys:?}");
        let palette_keys = app
            .driver
            .find(By::Css("[data-command=\"markdown.preview\"] kbd"))
            .await?
            .prop("textContent")
            .await?
            .unwrap_or_default();
        ensure!(palette_keys == "Ctrl+Shift+E", "{palette_keys:?}");
        // On the Markdown tab, which every Note has: Delete tab is greyed, with the reason.
        let delete_tab = app
            .driver
            .find(By::Css("[data-command=\"tab.delete\"]"))
            .await?;
        let why = delete_tab.attr("title").await?.unwrap_or_default();
        ensure!(
            delete_tab.attr("aria-disabled").await?.as_deref() == Some("true")
                && why.contains("belongs to every Note"),
            "Delete tab on a Note's Markdown tab: {why:?}"
        );
        quire_e2e::screenshot(&app.driver, "command-palette-light").await?;
        // Esc closes it and nothing ran.
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Escape)
            .await?;
        app.wait_gone(&tid("command-palette")).await?;

        // Undo from the palette: the editor's own undo.
        app.type_markdown("Typed, then undone").await?;
        run_command(app, "undo", "edit.undo").await?;
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the typing undone",
            |t| !t.contains("undone"),
        )
        .await?;

        // A theme from the palette, and a tab.
        run_command(app, "dark", "theme.dark").await?;
        ensure!(theme(app).await? == "dark", "the palette's Dark theme");
        open_palette(app).await?.send_keys("slides").await?;
        quire_e2e::screenshot(&app.driver, "command-palette-dark").await?;
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Escape)
            .await?;
        app.wait_gone(&tid("command-palette")).await?;
        run_command(app, "add slides", "tab.add-slides").await?;
        app.wait_for(&By::Css("[data-testid=\"tab\"][data-tab-type=\"slides\"]"))
            .await?;
        // The new deck's editor is up (it takes the focus as it mounts) before the palette
        // opens again.
        app.wait_for(&By::Css("[data-testid=\"editor-slides\"]"))
            .await?;
        // Ctrl+Shift+P again closes it, as it opens it: the keys go to the palette's input.
        open_palette(app).await?;
        app.testid("command-palette-input")
            .await?
            .send_keys(Key::Control + Key::Shift + "p")
            .await?;
        app.wait_gone(&tid("command-palette")).await?;
        run_command(app, "light", "theme.light").await?;
        ensure!(theme(app).await? == "light", "the palette's Light theme");
        Ok(())
    })
    .await
}

/// Where the two words are on screen (CSS pixels of the viewport).
const WORDS: &str = r#"
const find = (line, word) => {
  for (const el of document.querySelectorAll('[data-testid="editor-markdown"] .cm-line')) {
    if (!el.textContent.includes(line)) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const at = n.textContent.indexOf(word);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(n, at);
      range.setEnd(n, at + word.length);
      const r = range.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, spellcheck: el.closest('[spellcheck]')?.getAttribute('spellcheck') };
    }
  }
  return null;
};
const [word] = arguments;
return { prose: find('Prose', word), code: find('let', word), dpr: window.devicePixelRatio };
"#;

/// Red pixels (a spelling marker) just under and along a word's box. Red against the page, not
/// an absolute red: on the dark theme the thin wavy line blends with the background (its
/// reddest pixels measured (146, 16, 21) on (28, 33, 44)); grey text and the code's purples and
/// blues are not.
fn red_under(png: &[u8], rect: &serde_json::Value, dpr: f64) -> Result<usize> {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().context("png size")?];
    let info = reader.next_frame(&mut buf)?;
    let channels = info.color_type.samples();
    let px = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0) * dpr;
    let (left, right) = (px(&rect["left"]) as u32, px(&rect["right"]) as u32);
    let (top, bottom) = (
        (px(&rect["top"]) + (px(&rect["bottom"]) - px(&rect["top"])) * 0.5) as u32,
        (px(&rect["bottom"]) + 4.0 * dpr) as u32,
    );
    let mut red = 0;
    for y in top..bottom.min(info.height) {
        for x in left..right.min(info.width) {
            let i = ((y * info.width + x) as usize) * channels;
            let (r, g, b) = (buf[i], buf[i + 1], buf[i + 2]);
            let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
            if r > 90 && r > g + 60 && r > b + 60 {
                red += 1;
            }
        }
    }
    Ok(red)
}

/// Red pixels under `word` in the prose line and in the code line (0 where it is not), and where.
async fn spelling_marks(
    app: &App,
    word: &str,
    shot: &str,
) -> Result<(usize, usize, serde_json::Value)> {
    let words = app
        .driver
        .execute(WORDS, vec![serde_json::json!(word)])
        .await?
        .json()
        .clone();
    ensure!(!words["prose"].is_null(), "the word {word:?}: {words}");
    let dpr = words["dpr"].as_f64().unwrap_or(1.0);
    let path = quire_e2e::screenshot(&app.driver, shot).await?;
    let png = std::fs::read(&path)?;
    let code = if words["code"].is_null() {
        0
    } else {
        red_under(&png, &words["code"], dpr)?
    };
    Ok((red_under(&png, &words["prose"], dpr)?, code, words))
}

#[tokio::test]
async fn spelling_is_checked_in_prose_and_not_in_code() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "spell-check", async |app: &App| {
        app.new_note("Spelling").await?;
        app.type_markdown(
            "Prose with Wrongg spelling here.\n\n```\nlet Wrongg = 1;\n```\n\nThe end.",
        )
        .await?;
        app.wait_saved(3).await?;
        let content = app
            .wait_for(&By::Css("[data-testid=\"editor-markdown\"] .cm-content"))
            .await?;
        ensure!(
            content.attr("spellcheck").await?.as_deref() == Some("true"),
            "the editor asks for spell-check"
        );
        // The checker marks words as they are typed (no event says when: look until it has).
        let deadline = Instant::now() + Duration::from_secs(10);
        let (prose, code, words) = loop {
            let got = spelling_marks(app, "Wrongg", "spell-check-light").await?;
            if got.0 > 0 || Instant::now() >= deadline {
                break got;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        };
        ensure!(
            words["code"]["spellcheck"] == "false" && words["prose"]["spellcheck"] == "true",
            "the attributes: {words}"
        );
        if prose == 0 {
            bail!("no spelling marker under the misspelt prose word ({words})");
        }
        ensure!(
            code == 0,
            "the code block's word is marked too: {code} red pixels ({words})"
        );

        // Dark mode: the same, for the screenshot.
        app.click("settings-open").await?;
        app.click("settings-theme-dark").await?;
        // Off in Settings: the editor opened after it asks for none.
        app.set_checked("settings-spellcheck", false).await?;
        app.click_by(&By::Css("[data-testid=\"notes-item\"]"))
            .await?;
        let content = app
            .wait_for(&By::Css("[data-testid=\"editor-markdown\"] .cm-content"))
            .await?;
        ensure!(
            content.attr("spellcheck").await?.as_deref() == Some("false"),
            "spell-check turned off in Settings"
        );
        app.click("settings-open").await?;
        app.set_checked("settings-spellcheck", true).await?;
        app.click_by(&By::Css("[data-testid=\"notes-item\"]"))
            .await?;
        app.type_markdown("\nProse again: Darkk.").await?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (prose, _, _) = spelling_marks(app, "Darkk", "spell-check-dark").await?;
            if prose > 0 {
                break;
            }
            if Instant::now() >= deadline {
                bail!("no marker in dark mode after turning spell-check back on");
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        Ok(())
    })
    .await
}
