//! Performance in the real window (release build): keystroke to server acknowledgement through
//! the app's IPC, excluding the debounce (each edit is flushed at once), on a 2 KB and a 10 MiB
//! Note; opening a Note with a 1 MB Markdown tab and a 100 x 100 sheet, and one with a 10 MiB
//! tab and a 50,000 x 20 sheet (time to the editor on screen, the longest gap between frames and
//! the longest main-thread task meanwhile); keystroke to frame in the real editor on the 10 MiB
//! and the 2 KB Note; the memory (PSS) of the app's processes with the second open. With
//! WebKit's default renderer (the one the other scenarios run, for screenshots), and the small
//! Notes again with the renderer the app picks as shipped. Figures go to
//! test-output/e2e/perf.json; issue 17's targets are in BENCHMARKS.md, the checks here are
//! regression guards well above them.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, output_dir, scenario};
use quire_testkit::bench::percentile;
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use thirtyfour::prelude::*;

const EDITS: usize = 200;
/// The small Note's text, and the big one's.
const SMALL: usize = 2 * 1024;
const BIG: usize = 10 * 1024 * 1024;
/// From this many bytes (of ASCII), the editor hands a text over by its changes
/// (`IMMEDIATE_MAX_CHARS` in ui/src/editing.ts).
const BY_CHANGE_MIN: usize = 256 * 1024;
/// The big sheet's rows and columns.
const HUGE_SHEET: (usize, usize) = (50_000, 20);

/// Edits the Markdown tab `n` times, each time: hands the edit over + flush, then waits for the
/// engine's `saved` event. The tab holds `line` repeated `repeat` times (see
/// [`note_with_text`]); each edit types one more character at its end. With `byChange` (a text
/// the editor hands over by its changes, as it does a long one) through `hand_over`'s changes,
/// else whole through `edit_tab`. Returns the milliseconds of each round trip, and
/// of its three parts (`edit_tab`, `flush`, then the wait for `saved`), and the milliseconds of
/// `ipc_only` hand-overs of the same text that the engine refuses at once (a tab that does not
/// exist): what carrying the text through the IPC costs by itself.
const ACK_SCRIPT: &str = r#"
const [note, n, line, repeat, byChange, done] = arguments;
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
  const parts = [[], [], []];
  let text = line.repeat(repeat);
  const ipcOnly = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const refused = await T.invoke("edit_tab", { noteId: note, tabId: "no-such-tab", content: text })
      .then(() => false, () => true);
    if (!refused) throw new Error("an edit of a tab that does not exist was taken");
    ipcOnly.push(performance.now() - t0);
  }
  // A long text goes over as the editor hands it (app-state/edits.ts): whole once, then what
  // changed since, named by the token of the hand-over before.
  let token = null;
  if (byChange) {
    token = (await T.invoke("hand_over", { noteId: note, tabId: "markdown", content: text,
                                           change: null, baseVersion: null })).token;
  }
  for (let i = 0; i < n; i++) {
    const typed = i % 10 === 9 ? "\n" : "x";
    const at = text.length;
    text += typed;
    const saved = new Promise((resolve) => waiters.push(resolve));
    const t0 = performance.now();
    if (byChange) {
      token = (await T.invoke("hand_over", { noteId: note, tabId: "markdown", content: null,
        change: { after: token, at, removed: 0, insert: typed }, baseVersion: null })).token;
    } else {
      await T.invoke("edit_tab", { noteId: note, tabId: "markdown", content: text });
    }
    const t1 = performance.now();
    await T.invoke("flush", { noteId: note });
    const t2 = performance.now();
    await saved;
    const t3 = performance.now();
    times.push(t3 - t0);
    parts[0].push(t1 - t0);
    parts[1].push(t2 - t1);
    parts[2].push(t3 - t2);
  }
  return { times, parts, ipcOnly };
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
///   null where the engine does not report them (WebKitGTK 2.50 does not);
/// - where the time went, in ms from the click: `frame_gaps_over_50_ms` and `busy_over_30_ms`
///   (from, to), and `marks`, the page's own `quire:` performance marks (the Note asked for,
///   its answer, the editor built).
///
/// The result lands in `window.__quireOpen`.
const ARM_SCRIPT: &str = r#"
const [readySelector, prefix, settleMs] = arguments;
window.__quireOpen = null;
let t0 = null;
let last = 0;
let maxGap = 0;
let gapsOver100 = 0;
const slowFrames = [];
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
const busy = [];
let finished = false;
const taskTick = () => {
  const now = performance.now();
  if (lastTask !== null) {
    maxTaskGap = Math.max(maxTaskGap, now - lastTask);
    if (now - lastTask > 30) busy.push([Math.round(lastTask - t0), Math.round(now - t0)]);
  }
  lastTask = now;
  if (!finished) setTimeout(taskTick, 0);
};
const finish = (result) => {
  finished = true;
  if (result.ms !== undefined) {
    result.max_task_gap_ms = Math.round(maxTaskGap);
    result.busy_over_30_ms = busy;
    result.marks = performance.getEntriesByType("mark")
      .filter((m) => m.startTime >= t0 && m.name.startsWith("quire:"))
      .map((m) => [m.name, Math.round(m.startTime - t0)]);
  }
  if (observer) observer.disconnect();
  window.__quireOpen = result;
};
const tick = () => {
  const now = performance.now();
  const gap = now - last;
  maxGap = Math.max(maxGap, gap);
  if (gap > 100) gapsOver100++;
  if (gap > 50) slowFrames.push([Math.round(last - t0), Math.round(now - t0)]);
  last = now;
  frames++;
  if (readyAt === null) {
    const el = document.querySelector(readySelector);
    if (el && el.textContent.trim().startsWith(prefix)) readyAt = now;
  }
  if (readyAt !== null && now - readyAt >= settleMs) {
    finish({ ms: Math.round(readyAt - t0), max_frame_gap_ms: Math.round(maxGap),
             gaps_over_100_ms: gapsOver100, frame_gaps_over_50_ms: slowFrames, frames, settle_ms: settleMs,
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

/// The line the Markdown tabs of this scenario repeat.
const LINE: &str =
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n";

/// How many times [`LINE`] is repeated for a text of about `bytes` bytes.
fn repeat_for(bytes: usize) -> usize {
    bytes / LINE.len() + 1
}

/// Waits until the engine holds no draft (every edit saved).
async fn wait_no_drafts(app: &App, what: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + quire_e2e::UI_TIMEOUT;
    while app.invoke("drafts", json!({})).await? != json!([]) {
        ensure!(std::time::Instant::now() < deadline, "{what} never saved");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Ok(())
}

/// A new Note whose Markdown tab holds [`LINE`] repeated for about `bytes` bytes, saved.
async fn note_with_text(app: &App, title: &str, bytes: usize) -> Result<String> {
    let view = app.invoke("create_note", json!({"title": title})).await?;
    let id = view["note_id"].as_str().context("note id")?.to_owned();
    // The text is made in the page: a 10 MiB argument through WebDriver would cost more than
    // the edit.
    let failed = app
        .driver
        .execute_async(
            "const [note, line, repeat, done] = arguments;\n\
             window.__TAURI_INTERNALS__.invoke('edit_tab', \
               { noteId: note, tabId: 'markdown', content: line.repeat(repeat) })\n\
               .then(() => done(null), (e) => done(String(e && e.message || JSON.stringify(e))));",
            vec![json!(id), json!(LINE), json!(repeat_for(bytes))],
        )
        .await?
        .json()
        .clone();
    ensure!(failed.is_null(), "edit_tab failed: {failed}");
    app.invoke("flush", json!({"noteId": id})).await?;
    wait_no_drafts(app, title).await?;
    Ok(id)
}

/// Fills a sheet tab with `rows` x `cols` numbers (row-major from 0: the cell at row 0,
/// column 1 shows 1), made in the page and handed over as the sheet editor does.
const SHEET_SCRIPT: &str = r#"
const [note, tab, rows, cols, done] = arguments;
const grid = Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => r * cols + c));
window.__TAURI_INTERNALS__.invoke("edit_tab", { noteId: note, tabId: tab,
    content: { sheets: [{ id: "sheet-1", name: "Sheet 1", rows: grid }] } })
  .then(() => done(null), (e) => done(String(e && e.message || JSON.stringify(e))));
"#;

/// A Note with a Markdown tab of about `bytes` bytes and a `rows` x `cols` sheet, saved;
/// returns its ID and the sheet's tab ID.
async fn large_note(
    app: &App,
    title: &str,
    bytes: usize,
    (rows, cols): (usize, usize),
) -> Result<(String, String)> {
    let big_id = note_with_text(app, title, bytes).await?;
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
    app.driver
        .set_script_timeout(std::time::Duration::from_secs(300))
        .await?;
    let failed = app
        .driver
        .execute_async(
            SHEET_SCRIPT,
            vec![json!(big_id), json!(sheet), json!(rows), json!(cols)],
        )
        .await?
        .json()
        .clone();
    ensure!(failed.is_null(), "edit_tab (the sheet) failed: {failed}");
    app.invoke("flush", json!({"noteId": big_id})).await?;
    wait_no_drafts(app, title).await?;
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

/// Reads the open Note `note` from the page as a refresh after another writer's change to its
/// Markdown tab does (`showing` that tab: a large tab not shown comes without its data), and as
/// a whole read (every tab's data), five times each, alternated. Returns the milliseconds
/// of each (invoke to parsed answer) and what the first read said of the sheet.
const READ_SCRIPT: &str = r#"
const [note, sheet, done] = arguments;
(async () => {
  const T = window.__TAURI_INTERNALS__;
  const showing = [], whole = [];
  let deferred = null;
  for (let i = 0; i < 5; i++) {
    let t0 = performance.now();
    const view = await T.invoke("open_note", { noteId: note, showing: ["markdown"] });
    showing.push(performance.now() - t0);
    const tab = view.tabs.find((t) => t.id === sheet);
    deferred = { data: tab.data, rows: tab.deferred && tab.deferred.sheets[0].rows };
    t0 = performance.now();
    await T.invoke("open_note", { noteId: note });
    whole.push(performance.now() - t0);
  }
  // The text in parts, as the page reads a long text (1 MiB a call).
  const parts = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    let start = 0, calls = 0;
    for (;;) {
      const part = await T.invoke("text_part", { noteId: note, tabId: "markdown", start, maxBytes: 1 << 20 });
      calls++;
      if (part.next >= part.total) break;
      start = part.next;
    }
    parts.push({ ms: performance.now() - t0, calls });
  }
  return { showing, whole, deferred, parts };
})().then(done, (e) => done({ error: String(e && e.message || JSON.stringify(e)) }));
"#;

/// The longest stall allowed while opening (a regression guard, well above the 100 ms aim:
/// the machine is shared, see NOTES.md).
const STALL_GUARD_MS: f64 = 1000.0;

/// The longest stall allowed while opening the 10 MiB Markdown tab: 111-251 ms when measured
/// in session 24 (the text in one answer), 45-72 ms in session 25 (the text 1 MiB a call, the
/// editor built on lines split a part a task; target: 100 ms; see BENCHMARKS.md).
const STALL_GUARD_10MIB_MS: f64 = 1000.0;

fn check_open(what: &str, figures: &Value, stall_guard_ms: f64) -> Result<()> {
    let ms = figures["ms"].as_f64().unwrap_or(f64::MAX);
    let gap = figures["max_frame_gap_ms"].as_f64().unwrap_or(f64::MAX);
    ensure!(ms < 5000.0, "{what}: {figures}");
    ensure!(
        gap < stall_guard_ms,
        "{what}: a stall of {gap} ms: {figures}"
    );
    Ok(())
}

/// Keystroke to acknowledgement on a new Note whose Markdown tab holds about `bytes` bytes:
/// `EDITS` edits, each saved as one version. Returns the Note and the figures.
async fn keystroke_to_ack(app: &App, bytes: usize, edits: usize) -> Result<(String, Value)> {
    let note = note_with_text(app, &format!("Latency {bytes}"), bytes).await?;
    let before = history_len(app, &note).await?;
    // WebDriver's 30 s for a script is too short for the 10 MiB Note's edits as they are.
    app.driver
        .set_script_timeout(std::time::Duration::from_secs(300))
        .await?;
    let out = app
        .driver
        .execute_async(
            ACK_SCRIPT,
            vec![
                json!(note),
                json!(edits),
                json!(LINE),
                json!(repeat_for(bytes)),
                json!(bytes >= BY_CHANGE_MIN),
            ],
        )
        .await?
        .json()
        .clone();
    let figures = |key: &str| -> Result<Vec<f64>> {
        let mut v: Vec<f64> = serde_json::from_value(out[key].clone())
            .with_context(|| format!("the script failed: {out}"))?;
        v.sort_by(f64::total_cmp);
        Ok(v)
    };
    let times = figures("times")?;
    ensure!(times.len() == edits, "{} round trips", times.len());
    let p50_of = |part: usize| -> Result<f64> {
        let mut v: Vec<f64> = serde_json::from_value(out["parts"][part].clone())?;
        v.sort_by(f64::total_cmp);
        Ok(percentile(&v, 0.50))
    };
    let after = history_len(app, &note).await?;
    ensure!(
        after == before + edits,
        "every edit is one version: {} versions after {before}",
        after
    );
    let ack = json!({
        "text_bytes": repeat_for(bytes) * LINE.len(),
        "edits": edits,
        "p50_ms": percentile(&times, 0.50),
        "p99_ms": percentile(&times, 0.99),
        "max_ms": times[times.len() - 1],
        "p50_parts_ms": {"edit_tab": p50_of(0)?, "flush": p50_of(1)?, "saved": p50_of(2)?},
        "ipc_only_p50_ms": percentile(&figures("ipcOnly")?, 0.50),
    });
    Ok((note, ack))
}

/// How many versions the Note's history holds.
async fn history_len(app: &App, note: &str) -> Result<usize> {
    let history = app.invoke("history", json!({"noteId": note})).await?;
    history.as_array().map(Vec::len).context("history")
}

/// A regression guard, well above the target (the machine is shared; see NOTES.md): `p99_ms`
/// under `guard_ms`.
fn check_ack(ack: &Value, guard_ms: f64) -> Result<()> {
    let p99 = ack["p99_ms"].as_f64().context("p99")?;
    ensure!(p99 < guard_ms, "keystroke to ack p99 {ack}");
    Ok(())
}

/// The same guard for keystroke to frame, on `p90_ms`: of its thirty keys, the p99 is the
/// slowest, and one key held up by another process on the shared machine is enough to pass it
/// (a run beside two builds: 279 ms for one key on the 2 KB Note, whose p50 was 32 ms).
fn check_frames(frames: &Value, guard_ms: f64) -> Result<()> {
    let p90 = frames["p90_ms"].as_f64().context("p90")?;
    ensure!(p90 < guard_ms, "keystroke to frame p90 {frames}");
    Ok(())
}

/// Keystroke to ack on the 2 KB Note (target: 50 ms).
const ACK_GUARD_MS: f64 = 250.0;
/// Keystroke to ack on the 10 MiB Note: 23-32 ms p50, 46-123 ms p99 when measured (target:
/// 50 ms; see BENCHMARKS.md); 0.3-0.4 s p50 and 0.5-1.1 s p99 before session 21.
const ACK_GUARD_10MIB_MS: f64 = 1000.0;
/// The app's memory with the 10 MiB Note and its 50,000 x 20 sheet open, idle: 670-770 MiB when
/// measured (target: 400 MiB; see BENCHMARKS.md).
const PSS_GUARD_MIB: f64 = 1500.0;
/// The app's own process, idle, the same Note open: 340-368 MiB when measured with jemalloc,
/// 514-631 MiB with glibc's allocator, which kept what the app freed.
const APP_PSS_GUARD_MIB: f64 = 450.0;

/// The person types at the end of the 10 MiB text in the real editor, twice with a save between
/// (the editor hands the text over whole, then as the change): the engine holds exactly the text
/// with both, and saves it.
async fn typed_into_the_long_text(app: &App, note: &str) -> Result<()> {
    app.click_by(&By::Css(
        "[data-testid=\"tab\"][data-tab-id=\"markdown\"] a",
    ))
    .await?;
    let saved = app.wait_saved(1).await?;
    app.type_markdown("one").await?;
    let saved = app.wait_saved(saved + 1).await?;
    app.type_markdown(" two").await?;
    app.wait_saved(saved + 1).await?;
    let expected_len = repeat_for(BIG) * LINE.len() + "one two".len();
    let shown = app
        .driver
        .execute_async(
            "const [note, done] = arguments;\n\
             window.__TAURI_INTERNALS__.invoke('tab_view', { noteId: note, tabId: 'markdown' })\n\
               .then((t) => done({ len: t.data.length, tail: t.data.slice(-30) }), \
                     (e) => done({ error: String(e && e.message || JSON.stringify(e)) }));",
            vec![json!(note)],
        )
        .await?
        .json()
        .clone();
    ensure!(
        shown["len"] == json!(expected_len)
            && shown["tail"] == json!(format!("{}one two", &LINE[LINE.len() - 23..])),
        "the engine holds {shown}, not the text with \"one two\" typed at its end ({expected_len} characters)"
    );
    Ok(())
}

/// Arms (once) a listener that times every key pressed in the page: from its `keydown` to the
/// end of the next frame's work (an animation frame, then a task after it): the editor's
/// handling of the key, every extension and listener included, and the frame drawn with it.
/// Returns how many keys were timed so far.
const KEYS_ARM_SCRIPT: &str = r#"
if (!window.__quireKeys) {
  window.__quireKeys = [];
  document.addEventListener("keydown", () => {
    const t0 = performance.now();
    requestAnimationFrame(() => setTimeout(() => window.__quireKeys.push(performance.now() - t0), 0));
  }, { capture: true });
}
return window.__quireKeys.length;
"#;

/// Keys typed for [`keystroke_to_frame`].
const FRAME_KEYS: usize = 30;

/// How many keys the page has timed ([`KEYS_ARM_SCRIPT`], armed by the first call).
async fn keys_timed(app: &App) -> Result<usize> {
    let n = app.driver.execute(KEYS_ARM_SCRIPT, Vec::new()).await?;
    Ok(usize::try_from(n.json().as_u64().context("keys timed")?)?)
}

/// Keystroke to frame in the real editor of the Markdown tab shown: [`FRAME_KEYS`] keys typed
/// at the end of its text, one at a time (WebDriver), each timed in the page
/// ([`KEYS_ARM_SCRIPT`]).
async fn keystroke_to_frame(app: &App) -> Result<Value> {
    app.focus_markdown().await?;
    let focused = app.driver.active_element().await?;
    focused
        .send_keys(thirtyfour::Key::Control + thirtyfour::Key::End)
        .await?;
    let before = keys_timed(app).await?;
    for i in 0..FRAME_KEYS {
        focused
            .send_keys(if i % 10 == 9 { " " } else { "k" })
            .await?;
    }
    let deadline = Instant::now() + quire_e2e::UI_TIMEOUT;
    while keys_timed(app).await? < before + FRAME_KEYS {
        ensure!(Instant::now() < deadline, "not every key was timed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let all: Vec<f64> = serde_json::from_value(
        app.driver
            .execute("return window.__quireKeys;", Vec::new())
            .await?
            .json()
            .clone(),
    )?;
    let mut times = all[before..before + FRAME_KEYS].to_vec();
    times.sort_by(f64::total_cmp);
    Ok(json!({
        "keys": FRAME_KEYS,
        "p50_ms": percentile(&times, 0.50),
        "p90_ms": percentile(&times, 0.90),
        "p99_ms": percentile(&times, 0.99),
        "max_ms": times[times.len() - 1],
    }))
}

/// The proportional set size of the app's processes, in MiB (see [`app_tree_pss_mib`]).
struct Pss {
    /// All of them.
    tree: f64,
    /// The app's own process (the embedded server and the sync engine run in it).
    app: f64,
    /// Each process's, by name and process ID.
    each: Value,
}

/// The app tree's memory once idle.
struct IdlePss {
    /// The tree's, read as the scenario's last step ends.
    at_once: f64,
    /// The reading once the tree's stopped falling.
    settled: Pss,
    after_s: f64,
}

/// The app tree's PSS once the app is idle: an allocator gives what it freed back to the system
/// over seconds, not at once, so it is read every half second until it has fallen by less than
/// 1 MiB over the last 4 s (at most 30 s).
async fn idle_pss_mib(harness: &Harness) -> Result<IdlePss> {
    const EVERY: Duration = Duration::from_millis(500);
    const WINDOW: usize = 8;
    const AT_MOST: Duration = Duration::from_secs(30);
    let start = Instant::now();
    let at_once = app_tree_pss_mib(harness)?.tree;
    let mut readings = vec![at_once];
    let mut tick = tokio::time::interval(EVERY);
    tick.tick().await;
    loop {
        tick.tick().await;
        let pss = app_tree_pss_mib(harness)?;
        readings.push(pss.tree);
        let settled = readings
            .len()
            .checked_sub(WINDOW + 1)
            .is_some_and(|i| readings[i] - pss.tree < 1.0);
        if settled || start.elapsed() >= AT_MOST {
            return Ok(IdlePss {
                at_once,
                settled: pss,
                after_s: start.elapsed().as_secs_f64(),
            });
        }
    }
}

/// The proportional set size of the app and every process under it (WebKit's web and network
/// processes), in MiB: each process's `Pss` from `/proc/<pid>/smaps_rollup`, so pages the
/// processes share are counted once in all. The app is the process running the harness's
/// binary on the harness's display.
fn app_tree_pss_mib(harness: &Harness) -> Result<Pss> {
    let display = format!("DISPLAY={}", harness.display());
    let mut parents = Vec::new();
    let mut roots = Vec::new();
    for entry in std::fs::read_dir("/proc")? {
        let dir = entry?.path();
        let Some(pid) = dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        // A process may end while it is read: it is then no part of the tree.
        let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
            .context("ppid")?;
        parents.push((pid, ppid));
        let is_app = std::fs::read_link(dir.join("exe")).is_ok_and(|exe| exe == harness.app())
            && std::fs::read(dir.join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == display.as_bytes()));
        if is_app {
            roots.push(pid);
        }
    }
    ensure!(roots.len() == 1, "app processes on {display}: {roots:?}");
    let app = roots[0];
    let mut tree = roots;
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    let mut kib = 0u64;
    let mut app_kib = 0u64;
    let mut each = serde_json::Map::new();
    for pid in &tree {
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            continue;
        };
        let pss = rollup
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .with_context(|| format!("Pss of {pid}"))?;
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        each.insert(format!("{} {pid}", comm.trim()), json!(pss / 1024));
        kib += pss;
        if *pid == app {
            app_kib = pss;
        }
    }
    ensure!(tree.len() >= 2, "the app has no web process: {tree:?}");
    Ok(Pss {
        tree: kib as f64 / 1024.0,
        app: app_kib as f64 / 1024.0,
        each: Value::Object(each),
    })
}

#[tokio::test]
async fn keystroke_to_ack_and_opening_a_large_note() -> Result<()> {
    let mut figures = serde_json::Map::new();
    let harness = Harness::start()?;
    scenario(&harness, "perf", async |app: &App| {
        let (note, ack) = keystroke_to_ack(app, SMALL, EDITS).await?;
        println!("keystroke to server ack (excluding the debounce), 2 KB Note: {ack}");
        figures.insert("keystroke_to_ack".into(), ack.clone());
        // As many edits as the small Note's: the two p99s are the same figure (issue 17 compares
        // them), not one of 200 against the largest of 40.
        let (_, ack_big) = keystroke_to_ack(app, BIG, EDITS).await?;
        println!("keystroke to server ack (excluding the debounce), 10 MiB Note: {ack_big}");
        println!(
            "keystroke to server ack, the 10 MiB Note's over the 2 KB Note's: p50 {:.2}x, p99 {:.2}x",
            ack_big["p50_ms"].as_f64().unwrap_or(f64::NAN) / ack["p50_ms"].as_f64().unwrap_or(f64::NAN),
            ack_big["p99_ms"].as_f64().unwrap_or(f64::NAN) / ack["p99_ms"].as_f64().unwrap_or(f64::NAN)
        );
        figures.insert("keystroke_to_ack_10mib".into(), ack_big.clone());

        // WebKit's default renderer (what the e2e tests run; screenshots work).
        let (big, sheet) = large_note(app, "Large", 1024 * 1024, (100, 100)).await?;
        let (markdown, grid) = measure_opens(app, &note, &big, &sheet).await?;
        println!("webkit default renderer: open a Note with a 1 MB Markdown tab: {markdown}");
        println!("webkit default renderer: switch to its 100 x 100 sheet: {grid}");
        quire_e2e::screenshot(&app.driver, "perf-large-sheet").await?;

        let (huge, huge_sheet) = large_note(app, "Huge", BIG, HUGE_SHEET).await?;
        let (markdown_10mib, grid_huge) = measure_opens(app, &note, &huge, &huge_sheet).await?;
        println!(
            "webkit default renderer: open a Note with a 10 MiB Markdown tab: {markdown_10mib}"
        );
        println!("webkit default renderer: switch to its 50,000 x 20 sheet: {grid_huge}");
        let reads = app
            .driver
            .execute_async(READ_SCRIPT, vec![json!(huge), json!(huge_sheet)])
            .await?
            .json()
            .clone();
        let median = |key: &str| -> Result<f64> {
            let mut v: Vec<f64> = serde_json::from_value(reads[key].clone())
                .with_context(|| format!("the read script failed: {reads}"))?;
            v.sort_by(f64::total_cmp);
            Ok(percentile(&v, 0.50))
        };
        let reread = json!({"showing_markdown_ms": median("showing")?, "whole_ms": median("whole")?,
                            "text_in_parts": reads["parts"]});
        println!(
            "the 10 MiB Note read again after a change to its text: the view (p50 of 5; the \
             sheet and the long text left out), every tab whole (p50 of 5), the text in parts \
             (1 MiB a call): {reread}"
        );
        // In the real window: the sheet not shown comes without its data, with its outline.
        ensure!(
            reads["deferred"] == json!({"data": null, "rows": HUGE_SHEET.0}),
            "the sheet not shown: {}",
            reads["deferred"]
        );
        // Idle, both open: the Note's Markdown tab and its sheet are mounted (tabs stay mounted
        // once shown).
        let idle = idle_pss_mib(&harness).await?;
        let (pss, app_pss, each) = (idle.settled.tree, idle.settled.app, &idle.settled.each);
        println!(
            "idle memory of the app's processes (PSS), the 10 MiB Note open: {pss:.0} MiB \
             after {:.1} s idle, {:.0} MiB at once (MiB by process: {each})",
            idle.after_s, idle.at_once
        );
        quire_e2e::screenshot(&app.driver, "perf-huge-sheet").await?;
        typed_into_the_long_text(app, &huge).await?;
        let frame_10mib = keystroke_to_frame(app).await?;
        println!("keystroke to frame in the editor, 10 MiB Note: {frame_10mib}");
        app.click_by(&By::Css(format!(
            "[data-testid=\"notes-item\"][data-note-id=\"{note}\"] a"
        )))
        .await?;
        let frame_small = keystroke_to_frame(app).await?;
        println!("keystroke to frame in the editor, 2 KB Note: {frame_small}");
        figures.insert(
            "webkit_default_renderer".into(),
            json!({"open_1mb_markdown": markdown, "open_100x100_sheet": grid,
                   "open_10mib_markdown": markdown_10mib, "open_50000x20_sheet": grid_huge,
                   "read_again_10mib_note": reread,
                   "keystroke_to_frame_10mib": frame_10mib, "keystroke_to_frame": frame_small,
                   "idle_pss_mib_10mib_note_open": pss, "idle_pss_mib_by_process": each,
                   "pss_mib_at_once": idle.at_once, "idle_after_s": idle.after_s}),
        );
        check_ack(&ack, ACK_GUARD_MS)?;
        check_ack(&ack_big, ACK_GUARD_10MIB_MS)?;
        check_frames(&frame_small, ACK_GUARD_MS)?;
        check_frames(&frame_10mib, ACK_GUARD_10MIB_MS)?;
        check_open("open the 1 MB Markdown tab", &markdown, STALL_GUARD_MS)?;
        check_open("switch to the sheet", &grid, STALL_GUARD_MS)?;
        check_open(
            "open the 10 MiB Markdown tab",
            &markdown_10mib,
            STALL_GUARD_10MIB_MS,
        )?;
        check_open(
            "switch to the 50,000 x 20 sheet",
            &grid_huge,
            STALL_GUARD_MS,
        )?;
        ensure!(
            pss < PSS_GUARD_MIB,
            "the app's memory: {pss:.0} MiB ({each})"
        );
        ensure!(
            app_pss < APP_PSS_GUARD_MIB,
            "the app process's own memory, idle: {app_pss:.0} MiB ({each}): does it give back \
             what it freed?"
        );
        Ok(())
    })
    .await?;
    drop(harness);

    // As shipped: the renderer the app picks (without a GPU, the DMA-BUF renderer off). No
    // screenshots in this mode (they never return under Xvfb).
    let harness = Harness::start_as_shipped()?;
    let app = App::launch(&harness).await?;
    let shipped = async {
        let (small, ack) = keystroke_to_ack(&app, SMALL, EDITS).await?;
        println!("as shipped: keystroke to server ack (excluding the debounce): {ack}");
        let (big, sheet) = large_note(&app, "Large", 1024 * 1024, (100, 100)).await?;
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
    check_ack(&ack, ACK_GUARD_MS)?;
    check_open(
        "as shipped: open the 1 MB Markdown tab",
        &markdown,
        STALL_GUARD_MS,
    )?;
    check_open("as shipped: switch to the sheet", &grid, STALL_GUARD_MS)
}
