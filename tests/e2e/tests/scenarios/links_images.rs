//! Links between Notes and images in Markdown, in the real window: `[[` and part of a title
//! offer the Note, picking it writes `[Title](quire:note/ID)`; Ctrl+click opens the linked
//! Note, which lists the linking one under "Linked from"; renaming the target shows its new
//! title in the link, which still opens it. An image pasted (a real PNG the page draws) and one
//! dropped are attached (the Files tab lists them) and shown in the preview; an over-large one
//! is refused with a message naming the limit. Screenshots in light and dark.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, UI_TIMEOUT, scenario, tid};
use serde_json::json;
use thirtyfour::prelude::*;

/// Sends a paste (`how` = "paste") or drop ("drop") of `files` images drawn on a canvas (PNG),
/// `bytes` > 0: one file of that many bytes instead (for the limit), to the Markdown editor.
const SEND_IMAGE: &str = r##"
const [how, name, bytes, done] = arguments;
const make = () => new Promise((resolve) => {
  if (bytes > 0) {
    const big = new Uint8Array(bytes);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    resolve(new File([big], name, { type: "image/png" }));
    return;
  }
  const c = document.createElement("canvas");
  c.width = 120; c.height = 60;
  const g = c.getContext("2d");
  g.fillStyle = how === "paste" ? "#2f5bd3" : "#d3772f";
  g.fillRect(0, 0, 120, 60);
  g.fillStyle = "#ffffff";
  g.fillRect(10, 10, 40, 40);
  c.toBlob((blob) => resolve(new File([blob], name, { type: "image/png" })), "image/png");
});
make().then((file) => {
  const dt = new DataTransfer();
  dt.items.add(file);
  const target = document.querySelector('[data-testid="editor-markdown"] .cm-content');
  let ev;
  if (how === "paste") {
    ev = new Event("paste", { bubbles: true, cancelable: true });
    Object.defineProperty(ev, "clipboardData", { value: dt });
  } else {
    const r = target.getBoundingClientRect();
    ev = new Event("drop", { bubbles: true, cancelable: true });
    Object.defineProperty(ev, "dataTransfer", { value: dt });
    Object.defineProperty(ev, "clientX", { value: r.left + 20 });
    Object.defineProperty(ev, "clientY", { value: r.bottom - 10 });
  }
  target.dispatchEvent(ev);
  done({ size: file.size, prevented: ev.defaultPrevented });
}, (e) => done({ error: String(e) }));
"##;

async fn send_image(app: &App, how: &str, name: &str, bytes: u64) -> Result<serde_json::Value> {
    let sent = app
        .driver
        .execute_async(SEND_IMAGE, vec![json!(how), json!(name), json!(bytes)])
        .await?
        .json()
        .clone();
    ensure!(
        sent["prevented"] == true,
        "the editor took the {how}: {sent}"
    );
    Ok(sent)
}

/// The Markdown text once `pred` holds for it.
async fn wait_markdown(
    app: &App,
    note: &str,
    what: &str,
    pred: impl Fn(&str) -> bool,
) -> Result<String> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let text = app.tab_data(note, "markdown").await?;
        let text = text.as_str().unwrap_or_default().to_owned();
        if pred(&text) {
            return Ok(text);
        }
        if Instant::now() >= deadline {
            bail!("{what}: the text is {text:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Ctrl+clicks the link widget to `target` in the editor and waits until that Note is open.
async fn ctrl_click_link(app: &App, target: &str) -> Result<()> {
    let widget = app
        .wait_for(&By::Css(format!(
            "[data-testid=\"editor-markdown\"] .cm-note-link[data-note-id=\"{target}\"]"
        )))
        .await?;
    app.driver
        .action_chain()
        .key_down(Key::Control)
        .click_element(&widget)
        .key_up(Key::Control)
        .perform()
        .await?;
    wait_open(app, target).await
}

async fn wait_open(app: &App, note: &str) -> Result<()> {
    app.wait_for(&By::Css(format!(
        "[data-testid=\"notes-item\"][data-active=\"true\"][data-note-id=\"{note}\"]"
    )))
    .await
    .with_context(|| format!("the Note {note} is not the open one"))?;
    Ok(())
}

async fn open_markdown(app: &App) -> Result<()> {
    app.click_by(&By::Css(
        "[data-testid=\"tab\"][data-tab-id=\"markdown\"] a",
    ))
    .await?;
    app.wait_for(&By::Css("[data-testid=\"editor-markdown\"] .cm-content"))
        .await?;
    Ok(())
}

async fn theme(app: &App, theme: &str) -> Result<()> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click(&format!("settings-theme-{theme}")).await
}

/// Waits until the preview has drawn `n` attached images (the 120 x 60 PNGs the page made).
async fn wait_images(app: &App, n: u64) -> Result<()> {
    let deadline = Instant::now() + UI_TIMEOUT;
    loop {
        let drawn = app
            .driver
            .execute(
                "return [...document.querySelectorAll('[data-testid=\"markdown-preview\"] img.md-attached-image')]\
                   .filter((i) => i.complete && i.naturalWidth === 120 && i.naturalHeight === 60).length;",
                vec![],
            )
            .await?
            .json()
            .as_u64();
        if drawn == Some(n) {
            return Ok(());
        }
        ensure!(
            Instant::now() < deadline,
            "the preview shows {drawn:?} of {n} images"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn notes_link_by_id_and_images_paste_into_the_text() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "links-images", async |app: &App| {
        let target = app.new_note("Trip plan").await?;
        let journal = app.new_note("Journal").await?;

        // `[[` and part of the title: the completion offers the Note; picking it writes the link.
        app.type_markdown("Before leaving, see [[Trip").await?;
        let option = By::Css(".cm-tooltip-autocomplete li");
        app.wait_text(&option, "the completion offers the Note", |t| {
            t.contains("Trip plan")
        })
        .await?;
        // A click on the option, as the mouse does it (a pointer action at its centre): the
        // element click of WebKitWebDriver at times calls the option "not interactable" while
        // the list re-renders as the last keys arrive, and Enter is ignored for a moment after
        // the list opens again. Clicked until the list is gone.
        for _ in 0..5 {
            if let Ok(found) = app.wait_for_within(&option, Duration::from_secs(1)).await {
                // A list re-rendered under the pointer is found again on the next round.
                let _ = app
                    .driver
                    .action_chain()
                    .move_to_element_center(&found)
                    .click()
                    .perform()
                    .await;
            }
            if app
                .wait_gone_within(&option, Duration::from_secs(1))
                .await
                .is_ok()
            {
                break;
            }
        }
        let link = format!("[Trip plan](quire:note/{target})");
        wait_markdown(app, &journal, "the link is written", |t| t.contains(&link)).await?;
        // The cursor leaves the link: it shows as the title.
        app.driver
            .active_element()
            .await?
            .send_keys(" for the dates.")
            .await?;
        app.wait_text(
            &By::Css(format!(".cm-note-link[data-note-id=\"{target}\"]")),
            "the link shows the title",
            |t| t == "Trip plan",
        )
        .await?;
        app.wait_synced(&journal).await?;
        quire_e2e::screenshot(&app.driver, "links-light-editor").await?;

        // Ctrl+click opens the target, which shows the backlink.
        ctrl_click_link(app, &target).await?;
        app.wait_text(
            &By::Css(format!(
                "[data-testid=\"backlink-item\"][data-note-id=\"{journal}\"]"
            )),
            "the backlink",
            |t| t.contains("Journal"),
        )
        .await?;
        quire_e2e::screenshot(&app.driver, "links-light-backlinks").await?;

        // Rename the target: the link shows the new title and still opens it.
        app.click_by(&By::Css("[data-testid=\"note-title\"] button"))
            .await?;
        let input = app.testid("note-title-input").await?;
        input.send_keys(Key::Control + "a").await?;
        input
            .send_keys("Lisbon, May".to_owned() + Key::Enter)
            .await?;
        app.wait_text(&tid("note-title"), "the new title", |t| t == "Lisbon, May")
            .await?;
        app.wait_synced(&target).await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"backlink-item\"][data-note-id=\"{journal}\"]"
        )))
        .await?;
        wait_open(app, &journal).await?;
        open_markdown(app).await?;
        app.wait_text(
            &By::Css(format!(".cm-note-link[data-note-id=\"{target}\"]")),
            "the link shows the new title",
            |t| t == "Lisbon, May",
        )
        .await?;
        ctrl_click_link(app, &target).await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"backlink-item\"][data-note-id=\"{journal}\"]"
        )))
        .await?;
        wait_open(app, &journal).await?;
        open_markdown(app).await?;

        // A pasted PNG and a dropped one: attached, referenced, shown in the preview.
        app.focus_markdown().await?;
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Control + Key::End)
            .await?;
        app.driver
            .active_element()
            .await?
            .send_keys(Key::Enter)
            .await?;
        send_image(app, "paste", "harbour.png", 0).await?;
        let text = wait_markdown(app, &journal, "the pasted image's reference", |t| {
            t.contains("![harbour.png](quire:file/")
        })
        .await?;
        send_image(app, "drop", "tram.png", 0).await?;
        let text = wait_markdown(app, &journal, "the dropped image's reference", |t| {
            t.contains("![tram.png](quire:file/")
        })
        .await
        .with_context(|| format!("after the paste: {text:?}"))?;
        let files = app.tab_data(&journal, "files").await?;
        let names: Vec<&str> = files
            .as_array()
            .context("files")?
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        ensure!(
            names == ["harbour.png", "tram.png"],
            "the Files tab: {names:?}"
        );
        for f in files.as_array().context("files")? {
            let id = f["id"].as_str().context("file id")?;
            ensure!(
                text.contains(&format!("(quire:file/{id})")),
                "{id} is referenced: {text:?}"
            );
            ensure!(f["mime"] == "image/png", "{f}");
        }
        app.wait_synced(&journal).await?;

        // Over the limit: refused, the message names it.
        send_image(app, "paste", "huge.png", 11 * 1024 * 1024).await?;
        app.wait_text(&tid("error-toast"), "the refusal", |t| t.contains("10 MB"))
            .await?;
        let after = app.tab_data(&journal, "files").await?;
        ensure!(
            after.as_array().map(Vec::len) == Some(2),
            "nothing attached: {after}"
        );

        // The preview: both images drawn, the link with the current title, which opens it.
        app.click("markdown-preview-toggle").await?;
        wait_images(app, 2).await?;
        app.wait_text(
            &By::Css(format!(
                "[data-testid=\"markdown-preview\"] a.md-note-link[data-note-id=\"{target}\"]"
            )),
            "the preview's link",
            |t| t == "Lisbon, May",
        )
        .await?;
        quire_e2e::screenshot(&app.driver, "images-light-preview").await?;

        // Dark: the same views.
        theme(app, "dark").await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{journal}\"]"
        )))
        .await?;
        wait_open(app, &journal).await?;
        open_markdown(app).await?;
        app.wait_for(&By::Css(format!(
            ".cm-note-link[data-note-id=\"{target}\"]"
        )))
        .await?;
        quire_e2e::screenshot(&app.driver, "links-dark-editor").await?;
        app.click("markdown-preview-toggle").await?;
        wait_images(app, 2).await?;
        quire_e2e::screenshot(&app.driver, "images-dark-preview").await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"markdown-preview\"] a.md-note-link[data-note-id=\"{target}\"]"
        )))
        .await?;
        wait_open(app, &target).await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"backlink-item\"][data-note-id=\"{journal}\"]"
        )))
        .await?;
        quire_e2e::screenshot(&app.driver, "links-dark-backlinks").await?;
        Ok(())
    })
    .await
}
