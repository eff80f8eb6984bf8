//! A long Notes list draws only what is in view: with 400 Notes (by default) the list holds a few dozen
//! items; scrolled to the bottom, the oldest Note is there to click and opens; the arrow keys
//! walk past the drawn rows (the list draws the next ones and focuses them); a Note opened from
//! the quick switcher far down the list is scrolled into view; scrolling the whole
//! list keeps frames coming (the longest gap is printed and guarded).

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

/// How many Notes (`QUIRE_E2E_LONG_LIST` sets another count, e.g. 10000 for the figure in
/// src-tauri/NOTES.md).
fn notes() -> usize {
    std::env::var("QUIRE_E2E_LONG_LIST")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400)
}

/// Creates Notes `from..to` through the app's IPC, one after another, titled "Long list 000" on.
const CREATE: &str = r#"
const [from, to, done] = arguments;
(async () => {
  for (let i = from; i < to; i++) {
    await window.__TAURI_INTERNALS__.invoke("create_note", { title: `Long list ${String(i).padStart(3, "0")}` });
  }
  return to - from;
})().then(done, (e) => done({ error: String(e && e.message || JSON.stringify(e)) }));
"#;

/// Scrolls the list from top to bottom, `least` pixels a frame or more (about 500 frames at most:
/// WebDriver's script timeout is 30 s, and a frame here takes about 30 ms),
/// and answers the longest gap between frames meanwhile and how many frames it took.
const SCROLL: &str = r#"
const [least, done] = arguments;
const list = document.querySelector('[data-testid="notes-list"]');
const step = Math.max(least, Math.ceil(list.scrollHeight / 500));
list.scrollTop = 0;
const began = performance.now();
let last = began;
let gap = 0;
let frames = 0;
const tick = (now) => {
  gap = Math.max(gap, now - last);
  last = now;
  frames += 1;
  if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1 || frames > 1000) {
    done({ max_frame_gap_ms: gap, frames, step, mean_frame_ms: (now - began) / frames, drawn: list.querySelectorAll('[data-testid="notes-item"]').length });
    return;
  }
  list.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame((now) => { last = now; requestAnimationFrame(tick); });
"#;

/// The title of the focused Notes-list item, if one is focused.
const FOCUSED: &str = r#"
const a = document.activeElement;
return a && a.closest('[data-testid="notes-item"]') ? a.querySelector('.notes-title').textContent : null;
"#;

/// Whether the active Notes-list item is inside the list's visible box.
const ACTIVE_IN_VIEW: &str = r#"
const list = document.querySelector('[data-testid="notes-list"]').getBoundingClientRect();
const item = document.querySelector('[data-testid="notes-item"][data-active="true"]');
if (!item) return "no active item";
const box = item.getBoundingClientRect();
return box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
"#;

fn item_titled(title: &str) -> By {
    By::XPath(format!(
        "//li[@data-testid='notes-item'][.//span[@class='notes-title' and text()='{title}']]"
    ))
}

async fn drawn(app: &App) -> Result<usize> {
    Ok(app
        .driver
        .find_all(By::Css("[data-testid=\"notes-item\"]"))
        .await?
        .len())
}

#[tokio::test]
async fn a_long_notes_list_draws_what_is_in_view() -> Result<()> {
    let harness = Harness::start()?;
    let notes = notes();
    scenario(&harness, "notes-list-long", async |app: &App| {
        // In batches, each well within WebDriver's script timeout.
        for from in (0..notes).step_by(200) {
            let to = (from + 200).min(notes);
            let made = app
                .driver
                .execute_async(CREATE, vec![json!(from), json!(to)])
                .await?
                .json()
                .clone();
            ensure!(
                made == json!(to - from),
                "creating Notes {from}..{to}: {made}"
            );
        }
        app.driver.refresh().await?;
        app.wait_for(&By::Css(format!(
            "[data-testid=\"notes-list\"][data-count=\"{notes}\"]"
        )))
        .await?;
        app.wait_for(&item_titled(&format!("Long list {:03}", notes - 1)))
            .await?;
        let first = drawn(app).await?;
        ensure!(
            (5..100).contains(&first),
            "{first} of {notes} Notes drawn at the top"
        );
        ensure!(
            app.driver
                .find_all(item_titled("Long list 000"))
                .await?
                .is_empty(),
            "the oldest Note is not drawn at the top"
        );
        quire_e2e::screenshot(&app.driver, "notes-list-long").await?;

        // The whole list scrolled, 120 px a frame (more for a list over 500 frames long).
        let scrolled: Value = app
            .driver
            .execute_async(SCROLL, vec![json!(120)])
            .await?
            .json()
            .clone();
        println!("scrolling {notes} Notes: {scrolled}");
        let gap = scrolled["max_frame_gap_ms"].as_f64().context("the gap")?;
        // A regression guard well above a frame (the machine is shared; see perf.rs).
        ensure!(
            gap < 1000.0,
            "a stall of {gap} ms while scrolling: {scrolled}"
        );

        // At the bottom: the oldest Note is drawn and opens.
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-index=\"{}\"] a",
            notes - 1
        )))
        .await?;
        let oldest = app
            .wait_for(&By::Css(
                "[data-testid=\"notes-item\"][data-active=\"true\"] .notes-title",
            ))
            .await?
            .text()
            .await?;
        ensure!(oldest == "Long list 000", "opened {oldest:?}");
        ensure!(
            drawn(app).await? < 100,
            "still a window at the bottom: {} drawn",
            drawn(app).await?
        );

        // Back at the top, the arrow keys walk past the rows drawn at first.
        app.driver
            .execute(
                "document.querySelector('[data-testid=\"notes-list\"]').scrollTop = 0;",
                vec![],
            )
            .await?;
        let top = app
            .wait_for(&By::Css("[data-testid=\"notes-item\"][data-index=\"0\"] a"))
            .await?;
        top.focus().await?;
        let steps = first + 20;
        for _ in 0..steps {
            app.driver
                .active_element()
                .await?
                .send_keys(Key::Down)
                .await?;
        }
        let want = format!("Long list {:03}", notes - 1 - steps);
        let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
        loop {
            let focused = app.driver.execute(FOCUSED, vec![]).await?.json().clone();
            if focused == json!(want) {
                break;
            }
            ensure!(
                std::time::Instant::now() < deadline,
                "after {steps} steps down the focus is on {focused}, not {want}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        quire_e2e::screenshot(&app.driver, "notes-list-long-keys").await?;

        // A Note opened from the quick switcher, far down the list: the list scrolls to it.
        app.driver
            .execute(
                "document.querySelector('[data-testid=\"notes-list\"]').scrollTop = 0;",
                vec![],
            )
            .await?;
        let far = format!("Long list {:03}", notes / 2);
        // The keys go to the top row, drawn again at the top: the row that had the focus is
        // taken out of the list as it scrolls, and an element found through the focus may
        // already be gone (stale) when the keys are sent.
        let top = app
            .wait_for(&By::Css("[data-testid=\"notes-item\"][data-index=\"0\"] a"))
            .await?;
        top.focus().await?;
        top.send_keys(Key::Control + "k").await?;
        let input = app.testid("quick-switcher-input").await?;
        input.send_keys(&far).await?;
        app.wait_text(
            &By::Css("[data-testid=\"quick-switcher-item\"].is-on"),
            "the switcher's first choice",
            |t| t.starts_with(&far),
        )
        .await?;
        input.send_keys(Key::Enter).await?;
        app.wait_text(
            &By::Css("[data-testid=\"notes-item\"][data-active=\"true\"] .notes-title"),
            "the opened Note, drawn in the list",
            |t| t == far,
        )
        .await?;
        let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
        loop {
            let shown = app
                .driver
                .execute(ACTIVE_IN_VIEW, vec![])
                .await?
                .json()
                .clone();
            if shown == json!(true) {
                break;
            }
            ensure!(
                std::time::Instant::now() < deadline,
                "the opened Note is not in the list's view: {shown}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        quire_e2e::screenshot(&app.driver, "notes-list-long-opened").await?;
        Ok(())
    })
    .await
}
