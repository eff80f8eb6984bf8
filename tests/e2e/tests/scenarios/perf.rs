//! Performance in the real window (release build): keystroke to server acknowledgement through
//! the app's IPC, excluding the debounce (each edit is flushed at once), and opening a Note
//! with a 1 MB Markdown tab and a 100 x 100 sheet (time to the editor on screen, and the
//! longest frame meanwhile). Figures go to test-output/e2e/perf.json.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, output_dir, scenario};
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
/// a real pointer event) until `readySelector`'s text starts with `prefix`: elapsed ms and the
/// longest gap between two animation frames meanwhile (a stall the person would see). The
/// result lands in `window.__quireOpen`.
const ARM_SCRIPT: &str = r#"
const [readySelector, prefix] = arguments;
window.__quireOpen = null;
let t0 = null;
let last = 0;
let maxGap = 0;
let frames = 0;
const tick = () => {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - last);
  last = now;
  frames++;
  const el = document.querySelector(readySelector);
  if (el && el.textContent.trim().startsWith(prefix)) {
    window.__quireOpen = { ms: now - t0, max_frame_gap_ms: maxGap, frames };
  } else if (now - t0 > 30000) {
    window.__quireOpen = { error: "not ready after 30 s" };
  } else {
    requestAnimationFrame(tick);
  }
};
document.addEventListener("click", () => {
  t0 = performance.now();
  last = t0;
  requestAnimationFrame(tick);
}, { capture: true, once: true });
"#;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Clicks `selector` (WebDriver); ready once `ready_selector`'s text starts with `prefix`.
async fn measure_open(
    app: &App,
    selector: &str,
    ready_selector: &str,
    prefix: &str,
) -> Result<Value> {
    app.driver
        .execute(ARM_SCRIPT, vec![json!(ready_selector), json!(prefix)])
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

#[tokio::test]
async fn keystroke_to_ack_and_opening_a_large_note() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "perf", async |app: &App| {
        // Keystroke to acknowledgement.
        let view = app.invoke("create_note", json!({"title": "Latency"})).await?;
        let note = view["note_id"].as_str().context("note id")?.to_owned();
        let out = app
            .driver
            .execute_async(ACK_SCRIPT, vec![json!(note), json!(EDITS)])
            .await?
            .json()
            .clone();
        let mut times: Vec<f64> = serde_json::from_value(out.clone())
            .with_context(|| format!("the script failed: {out}"))?;
        ensure!(times.len() == EDITS, "{} round trips", times.len());
        times.sort_by(f64::total_cmp);
        let ack = json!({
            "edits": EDITS,
            "p50_ms": percentile(&times, 50.0),
            "p99_ms": percentile(&times, 99.0),
            "max_ms": times[times.len() - 1],
        });
        println!("keystroke to server ack (excluding the debounce): {ack}");
        let history = app.invoke("history", json!({"noteId": note})).await?;
        ensure!(
            history.as_array().map(Vec::len) == Some(EDITS + 1),
            "every edit is one version: {} versions",
            history.as_array().map_or(0, Vec::len)
        );

        // A Note with a 1 MB Markdown tab and a 100 x 100 sheet.
        let big = app.invoke("create_note", json!({"title": "Large"})).await?;
        let big_id = big["note_id"].as_str().context("note id")?.to_owned();
        let line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n";
        let text = line.repeat(1024 * 1024 / line.len() + 1);
        app.invoke("edit_tab", json!({"noteId": big_id, "tabId": "markdown", "content": text}))
            .await?;
        let created = app
            .invoke(
                "apply_ops",
                json!({"noteId": big_id, "ops": [{"op": "create_tab", "tab_type": "sheet", "label": "Grid"}]}),
            )
            .await?;
        let sheet = created["result"]["outcomes"][0]["tab_id"].as_str().context("sheet")?.to_owned();
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
            ensure!(std::time::Instant::now() < deadline, "the large Note never saved");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }

        // Open it from the list (another Note is open), then switch to the sheet.
        app.driver.refresh().await?;
        app.wait_for(&By::Css("[data-testid=\"app\"][data-ready=\"true\"]")).await?;
        app.click_by(&By::Css(format!("[data-testid=\"notes-item\"][data-note-id=\"{note}\"]"))).await?;
        app.wait_for(&By::Css(format!("[data-testid=\"notes-item\"][data-note-id=\"{note}\"][data-active=\"true\"]")))
            .await?;
        let open_markdown = measure_open(
            app,
            &format!("[data-testid=\"notes-item\"][data-note-id=\"{big_id}\"] a"),
            "[data-testid=\"editor-markdown\"] .cm-content",
            "Lorem ipsum",
        )
        .await?;
        println!("open a Note with a 1 MB Markdown tab: {open_markdown}");
        let open_sheet = measure_open(
            app,
            &format!("[data-testid=\"tab\"][data-tab-id=\"{sheet}\"] a"),
            "[data-testid=\"editor-sheet\"] [data-testid=\"sheet-cell\"][data-row=\"0\"][data-col=\"1\"]",
            "1",
        )
        .await?;
        println!("switch to its 100 x 100 sheet: {open_sheet}");
        quire_e2e::screenshot(&app.driver, "perf-large-sheet").await?;

        let figures = json!({
            "keystroke_to_ack": ack,
            "open_1mb_markdown": open_markdown,
            "open_100x100_sheet": open_sheet,
        });
        let path = output_dir()?.join("perf.json");
        std::fs::write(&path, serde_json::to_string_pretty(&figures)?)?;
        println!("figures: {}", path.display());
        // Regression guards, well above the targets (the machine is shared; see NOTES.md).
        ensure!(percentile(&times, 99.0) < 250.0, "keystroke to ack p99 {ack}");
        ensure!(open_markdown["ms"].as_f64().unwrap_or(f64::MAX) < 5000.0, "{open_markdown}");
        ensure!(open_sheet["ms"].as_f64().unwrap_or(f64::MAX) < 5000.0, "{open_sheet}");
        Ok(())
    })
    .await
}
