//! Performance in the real window (release build): keystroke to server acknowledgement through
//! the app's IPC, excluding the debounce (each edit is flushed at once), and opening a Note
//! with a 1 MB Markdown tab and a 100 x 100 sheet (time to the editor on screen, the longest
//! gap between frames and the longest main-thread task meanwhile), both with WebKit's default
//! renderer (the one the other scenarios run, for screenshots) and with the renderer the app
//! picks as shipped. Figures go to test-output/e2e/perf.json.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, output_dir, scenario};
use quire_testkit::bench::percentile;
use serde_json::{Value, json};
use thirtyfour::prelude::*;

const EDITS: usize = 200;

/// Edits the Markdown tab `n` times, each time: edit_tab + flush, then waits for the engine's
/// `saved` event. Returns the milliseconds of each round trip.
const ACK_SCRIPT: &str = r#"
const [note, n, done] = arguments;
(async () => {
  const T = window.__TAURI_INTERNALS__;
  const waiters = [];
  const handler = T.transformCallback((e) => {
    const p = e.payload;
    if (p.kind === "saved" && p.note_id === note && p.tab_id === "markdown") {
      const w = waiters.shift();
      if (w) w(p.version);
    }
  });
  await T.invoke("plugin:event|listen", { event: "engine-event", target: { kind: "Any" }, handler });
  const times = [];
  let text = "";
  for (let i = 0; i < n; i++) {
    text += i % 10 === 9 ? "\n" : "x";
    const saved = new Promise((resolve) => waiters.push(resolve));
    const t0 = performance.now();
    await T.invoke("edit_tab", { noteId: note, tabId: "markdown", content: text });
    await T.invoke("flush", { noteId: note });
    await saved;
    times.push(performance.now() - t0);
  }
  return times;
})().then(done, (e) => done({ error: String(e && e.message || JSON.stringify(e)) }));
"#;

/// Arms a measurement: from the next click anywhere (the test then clicks through WebDriver,
/// a real pointer event) until `readySelector`'s text starts with `prefix`, then SETTLE_MS
/// more (work the UI does just after showing the content stalls the person too):
/// - `ms`: click to content on screen;
/// - `max_frame_gap_ms`: the longest gap between two animation frames, from the click to the
///   end of the settling time; the page's main thread was busy (or the frame was not drawn)
///   that long: a stall the person sees. `gaps_over_100_ms` counts such gaps;
/// - `max_task_gap_ms`: the longest the page's main thread was busy (a self-re-arming timer);
/// - `longest_task_ms`: the longest main-thread task (PerformanceObserver `longtask`), or
///   null where the engine does not report them (WebKitGTK 2.50 does not).
///
/// The result lands in `window.__quireOpen`.
const ARM_SCRIPT: &str = r#"
const [readySelector, prefix, settleMs] = arguments;
window.__quireOpen = null;
let t0 = null;
let last = 0;
let maxGap = 0;
let gapsOver100 = 0;
let frames = 0;
let readyAt = null;
let longest = null;
let observer = null;
if (typeof PerformanceObserver !== "undefined" &&
    (PerformanceObserver.supportedEntryTypes || []).includes("longtask")) {
  longest = 0;
  observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.startTime >= t0) longest = Math.max(longest, e.duration);
  });
  observer.observe({ entryTypes: ["longtask"] });
}
// The main thread's responsiveness: a timer that re-arms itself runs as soon as the thread is
// free; the longest gap between two runs is the longest the thread was busy (a stand-in for
// longtask entries, which WebKitGTK does not report).
let lastTask = null;
let maxTaskGap = 0;
let finished = false;
const taskTick = () => {
  const now = performance.now();
  if (lastTask !== null) maxTaskGap = Math.max(maxTaskGap, now - lastTask);
  lastTask = now;
  if (!finished) setTimeout(taskTick, 0);
};
const finish = (result) => {
  finished = true;
  if (result.ms !== undefined) result.max_task_gap_ms = Math.round(maxTaskGap);
  if (observer) observer.disconnect();
  window.__quireOpen = result;
};
const tick = () => {
  const now = performance.now();
  const gap = now - last;
  maxGap = Math.max(maxGap, gap);
  if (gap > 100) gapsOver100++;
  last = now;
  frames++;
  if (readyAt === null) {
    const el = document.querySelector(readySelector);
    if (el && el.textContent.trim().startsWith(prefix)) readyAt = now;
  }
  if (readyAt !== null && now - readyAt >= settleMs) {
    finish({ ms: Math.round(readyAt - t0), max_frame_gap_ms: Math.round(maxGap),
             gaps_over_100_ms: gapsOver100, frames, settle_ms: settleMs,
             longest_task_ms: longest === null ? null : Math.round(longest) });
  } else if (now - t0 > 30000) {
    finish({ error: "not ready after 30 s" });
  } else {
    requestAnimationFrame(tick);
  }
};
document.addEventListener("click", () => {
  t0 = performance.now();
  last = t0;
  lastTask = t0;
  setTimeout(taskTick, 0);
  requestAnimationFrame(tick);
}, { capture: true, once: true });
"#;

/// How long frames are still watched once the content is on screen.
const SETTLE_MS: u64 = 1000;

/// Clicks `selector` (WebDriver); ready once `ready_selector`'s text starts with `prefix`.
async fn measure_open(
    app: &App,
    selector: &str,
    ready_selector: &str,
    prefix: &str,
) -> Result<Value> {
    app.driver
        .execute(
            ARM_SCRIPT,
            vec![json!(ready_selector), json!(prefix), json!(SETTLE_MS)],
        )
        .await?;
    app.click_by(&By::Css(selector)).await?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(40);
    loop {
        let out = app
            .driver
            .execute("return window.__quireOpen;", Vec::new())
            .await?
            .json()
            .clone();
        if !out.is_null() {
            ensure!(out.get("error").is_none(), "{selector}: {out}");
            return Ok(out);
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "{selector}: no result"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A Note with a 1 MB Markdown tab and a 100 x 100 sheet, saved; returns its ID and the
/// sheet's tab ID.
async fn large_note(app: &App) -> Result<(String, String)> {
    let big = app.invoke("create_note", json!({"title": "Large"})).await?;
    let big_id = big["note_id"].as_str().context("note id")?.to_owned();
    let line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n";
    let text = line.repeat(1024 * 1024 / line.len() + 1);
    app.invoke(
        "edit_tab",
        json!({"noteId": big_id, "tabId": "markdown", "content": text}),
    )
    .await?;
    let created = app
        .invoke(
            "apply_ops",
            json!({"noteId": big_id, "ops": [{"op": "create_tab", "tab_type": "sheet", "label": "Grid"}]}),
        )
        .await?;
    let sheet = created["result"]["outcomes"][0]["tab_id"]
        .as_str()
        .context("sheet")?
        .to_owned();
    let rows: Vec<Vec<Value>> = (0..100)
        .map(|r| (0..100).map(|c| json!(r * 100 + c)).collect())
        .collect();
    app.invoke(
        "edit_tab",
        json!({"noteId": big_id, "tabId": sheet,
               "content": {"sheets": [{"id": "sheet-1", "name": "Sheet 1", "rows": rows}]}}),
    )
    .await?;
    app.invoke("flush", json!({"noteId": big_id})).await?;
    let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
    while app.invoke("drafts", json!({})).await? != json!([]) {
        ensure!(
            std::time::Instant::now() < deadline,
            "the large Note never saved"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Ok((big_id, sheet))
}

/// From a fresh page with another Note (`small`) open: opens the large Note from the list
/// (its Markdown tab shows), then switches to its sheet. Returns both measurements.
async fn measure_opens(app: &App, small: &str, big: &str, sheet: &str) -> Result<(Value, Value)> {
    app.driver.refresh().await?;
    app.wait_for(&By::Css("[data-testid=\"app\"][data-ready=\"true\"]"))
        .await?;
    app.click_by(&By::Css(format!(
        "[data-testid=\"notes-item\"][data-note-id=\"{small}\"]"
    )))
    .await?;
    app.wait_for(&By::Css(format!(
        "[data-testid=\"notes-item\"][data-note-id=\"{small}\"][data-active=\"true\"]"
    )))
    .await?;
    // The editors' code is loaded (preloaded after the first paint, or by the small Note).
    app.wait_for(&By::Css("[data-testid=\"editor-markdown\"] .cm-content"))
        .await?;
    let markdown = measure_open(
        app,
        &format!("[data-testid=\"notes-item\"][data-note-id=\"{big}\"] a"),
        "[data-testid=\"editor-markdown\"] .cm-content",
        "Lorem ipsum",
    )
    .await?;
    let sheet = measure_open(
        app,
        &format!("[data-testid=\"tab\"][data-tab-id=\"{sheet}\"] a"),
        "[data-testid=\"editor-sheet\"] [data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"1\"]",
        "1",
    )
    .await?;
    Ok((markdown, sheet))
}

/// The longest stall allowed while opening (a regression guard, well above the 100 ms aim:
/// the machine is shared, see NOTES.md).
const STALL_GUARD_MS: f64 = 1000.0;

fn check_open(what: &str, figures: &Value) -> Result<()> {
    let ms = figures["ms"].as_f64().unwrap_or(f64::MAX);
    let gap = figures["max_frame_gap_ms"].as_f64().unwrap_or(f64::MAX);
    ensure!(ms < 5000.0, "{what}: {figures}");
    ensure!(
        gap < STALL_GUARD_MS,
        "{what}: a stall of {gap} ms: {figures}"
    );
    Ok(())
}

/// Keystroke to acknowledgement on a new Note: `EDITS` edits, each saved as one version.
/// Returns the Note (small: one line of text) and the figures.
async fn keystroke_to_ack(app: &App) -> Result<(String, Value)> {
    let view = app
        .invoke("create_note", json!({"title": "Latency"}))
        .await?;
    let note = view["note_id"].as_str().context("note id")?.to_owned();
    let out = app
        .driver
        .execute_async(ACK_SCRIPT, vec![json!(note), json!(EDITS)])
        .await?
        .json()
        .clone();
    let mut times: Vec<f64> =
        serde_json::from_value(out.clone()).with_context(|| format!("the script failed: {out}"))?;
    ensure!(times.len() == EDITS, "{} round trips", times.len());
    times.sort_by(f64::total_cmp);
    let history = app.invoke("history", json!({"noteId": note})).await?;
    ensure!(
        history.as_array().map(Vec::len) == Some(EDITS + 1),
        "every edit is one version: {} versions",
        history.as_array().map_or(0, Vec::len)
    );
    let ack = json!({
        "edits": EDITS,
        "p50_ms": percentile(&times, 0.50),
        "p99_ms": percentile(&times, 0.99),
        "max_ms": times[times.len() - 1],
    });
    Ok((note, ack))
}

/// A regression guard, well above the target (the machine is shared; see NOTES.md).
fn check_ack(ack: &Value) -> Result<()> {
    let p99 = ack["p99_ms"].as_f64().context("p99")?;
    ensure!(p99 < 250.0, "keystroke to ack p99 {ack}");
    Ok(())
}

#[tokio::test]
async fn keystroke_to_ack_and_opening_a_large_note() -> Result<()> {
    let mut figures = serde_json::Map::new();
    let harness = Harness::start()?;
    scenario(&harness, "perf", async |app: &App| {
        let (note, ack) = keystroke_to_ack(app).await?;
        println!("keystroke to server ack (excluding the debounce): {ack}");
        figures.insert("keystroke_to_ack".into(), ack.clone());

        // WebKit's default renderer (what the e2e tests run; screenshots work).
        let (big, sheet) = large_note(app).await?;
        let (markdown, grid) = measure_opens(app, &note, &big, &sheet).await?;
        println!("webkit default renderer: open a Note with a 1 MB Markdown tab: {markdown}");
        println!("webkit default renderer: switch to its 100 x 100 sheet: {grid}");
        quire_e2e::screenshot(&app.driver, "perf-large-sheet").await?;
        figures.insert(
            "webkit_default_renderer".into(),
            json!({"open_1mb_markdown": markdown, "open_100x100_sheet": grid}),
        );
        check_ack(&ack)?;
        check_open("open the 1 MB Markdown tab", &markdown)?;
        check_open("switch to the sheet", &grid)
    })
    .await?;
    drop(harness);

    // As shipped: the renderer the app picks (without a GPU, the DMA-BUF renderer off). No
    // screenshots in this mode (they never return under Xvfb).
    let harness = Harness::start_as_shipped()?;
    let app = App::launch(&harness).await?;
    let shipped = async {
        let (small, ack) = keystroke_to_ack(&app).await?;
        println!("as shipped: keystroke to server ack (excluding the debounce): {ack}");
        let (big, sheet) = large_note(&app).await?;
        let (markdown, grid) = measure_opens(&app, &small, &big, &sheet).await?;
        println!("as shipped: open a Note with a 1 MB Markdown tab: {markdown}");
        println!("as shipped: switch to its 100 x 100 sheet: {grid}");
        anyhow::Ok((ack, markdown, grid))
    }
    .await;
    app.driver.quit().await.context("close the app")?;
    let (ack, markdown, grid) =
        shipped.with_context(|| format!("driver log: {}", harness.log().display()))?;
    figures.insert(
        "as_shipped".into(),
        json!({"keystroke_to_ack": ack, "open_1mb_markdown": markdown, "open_100x100_sheet": grid}),
    );

    let path = output_dir()?.join("perf.json");
    std::fs::write(&path, serde_json::to_string_pretty(&figures)?)?;
    println!("figures: {}", path.display());
    check_ack(&ack)?;
    check_open("as shipped: open the 1 MB Markdown tab", &markdown)?;
    check_open("as shipped: switch to the sheet", &grid)
}
