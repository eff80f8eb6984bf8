//! Issue 18's polish, found by trying the app as a new user would, checked in the real window:
//! the conflict banner and the drafts panel lay out at the default size and at the smallest one;
//! history summaries name tabs by their labels; a restore is not shown as another writer's edit;
//! "Drafts 1" never shows beside "Saved (version N)".

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, screenshot_both, tid, tid_tab};
use serde_json::{Value, json};
use thirtyfour::prelude::*;

use crate::support::{agent_for, call, key, read_tab};

/// The rectangles the layout check reads, in CSS pixels.
const LAYOUT: &str = r#"
const rect = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height }; };
const banner = document.querySelector('[data-testid="conflict-banner"]');
const item = document.querySelector('[data-testid="drafts-item"]');
return {
  inner: { width: window.innerWidth, height: window.innerHeight },
  main: rect(document.querySelector('main.main')),
  banner: rect(banner),
  text: rect(banner && banner.querySelector('.banner-text')),
  actions: rect(banner && banner.querySelector('.banner-actions')),
  editor: rect(document.querySelector('[data-testid="editor-markdown"]')),
  panel: rect(document.querySelector('[data-testid="drafts-ledger"]')),
  item: rect(item),
  tab: rect(item && item.querySelector('.ledger-tab')),
  tab_text: item && item.querySelector('.ledger-tab') ? item.querySelector('.ledger-tab').textContent : null,
  pill: rect(item && item.querySelector('.state-pill')),
  header_right: Math.max(...[...document.querySelectorAll('.app-header > *')].map((el) => el.getBoundingClientRect().right)),
};
"#;

fn num(v: &Value, what: &str) -> Result<f64> {
    v.as_f64().with_context(|| format!("{what}: {v}"))
}

#[tokio::test]
async fn the_conflict_banner_and_the_drafts_panel_lay_out_down_to_the_smallest_window() -> Result<()>
{
    let harness = Harness::start()?;
    scenario(&harness, "polish-layout", async |app: &App| {
        let note = app.new_note("Trip").await?;
        app.type_markdown("alpha\nbeta\ngamma").await?;
        app.wait_saved(3).await?;
        app.wait_synced(&note).await?;
        let agent = agent_for(app, &note).await?;
        let (version, _) = read_tab(&agent, &note, "markdown").await?;

        // The person edits the first line; before their save leaves, the agent rewrites that
        // line too: a conflict (a change of another line would merge).
        app.focus_markdown().await?;
        let content = app.driver.active_element().await?;
        content.send_keys(Key::Control + Key::Home).await?;
        content.send_keys("A: ").await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text",
                   "text": "alpha (checked by the agent)\nbeta\ngamma"}),
        )
        .await?;
        app.wait_for(&tid_tab("conflict-banner", "markdown"))
            .await?;
        app.click("drafts-toggle").await?;
        app.wait_for(&tid("drafts-item")).await?;

        for (width, height, name) in [
            (1100, 760, "polish-layout-default"),
            (640, 420, "polish-layout-min"),
        ] {
            harness.resize_app_window(app, width, height).await?;
            let at = format!("{width}x{height}");
            let r = app.driver.execute(LAYOUT, vec![]).await?.json().clone();
            screenshot_both(&app.driver, name).await?;
            let (main, banner, text) = (&r["main"], &r["banner"], &r["text"]);
            // Every button of the header is on screen.
            ensure!(
                num(&r["header_right"], "header")? <= f64::from(width) + 0.5,
                "{at}: the header runs out of the window: {r}"
            );
            // The banner spans the Note's width, its text keeps a readable measure, and it
            // leaves room for the editor below it.
            ensure!(
                num(&banner["width"], "banner")? >= num(&main["width"], "main")? - 2.0,
                "{at}: the banner is narrower than the Note: {r}"
            );
            ensure!(
                num(&text["width"], "banner text")? >= 240.0,
                "{at}: the banner's text is squeezed into a column: {r}"
            );
            let max_height = if height >= 700 { 160.0 } else { 210.0 };
            ensure!(
                num(&banner["height"], "banner")? <= max_height,
                "{at}: the banner is {} px tall (at most {max_height}): {r}",
                banner["height"]
            );
            ensure!(
                num(&r["editor"]["top"], "editor")? <= f64::from(height) - 80.0,
                "{at}: the editor is pushed out of the window: {r}"
            );
            // The banner's buttons are inside it, and nothing covers it: the panel is beside
            // the Note, not over it.
            ensure!(
                num(&r["actions"]["right"], "actions")? <= num(&banner["right"], "banner")? + 0.5,
                "{at}: the banner's buttons stick out: {r}"
            );
            ensure!(
                num(&r["panel"]["left"], "panel")? >= num(&banner["right"], "banner")? - 0.5,
                "{at}: the drafts panel covers the banner: {r}"
            );
            ensure!(
                num(&r["panel"]["right"], "panel")? <= f64::from(width) + 0.5,
                "{at}: the drafts panel runs out of the window: {r}"
            );
            // The draft's entry shows the tab's name, inside the entry, beside its state.
            let (item, tab, pill) = (&r["item"], &r["tab"], &r["pill"]);
            ensure!(
                r["tab_text"] == "Note",
                "{at}: the entry names the tab: {r}"
            );
            ensure!(
                num(&tab["width"], "tab label")? > 10.0
                    && num(&tab["right"], "tab label")? <= num(&item["right"], "entry")? + 0.5
                    && num(&pill["right"], "pill")? <= num(&item["right"], "entry")? + 0.5
                    && num(&item["right"], "entry")? <= num(&r["panel"]["right"], "panel")? + 0.5,
                "{at}: the draft's entry is cut off: {r}"
            );
            ensure!(
                num(&tab["right"], "tab label")? <= num(&pill["left"], "pill")? + 0.5
                    || num(&tab["top"], "tab label")? >= num(&pill["bottom"], "pill")? - 0.5,
                "{at}: the state pill hides the tab's name: {r}"
            );
        }

        // The agent's version in the history names the tab by its label, not its ID.
        harness.resize_app_window(app, 1100, 760).await?;
        app.click("versions-toggle").await?;
        let summary = app
            .wait_text(&By::Css(".version-summary"), "the agent's summary", |t| {
                t.starts_with("replaced the text of")
            })
            .await?;
        ensure!(
            summary == "replaced the text of \"Note\"",
            "the summary names the tab's label: {summary:?}"
        );
        agent.cancel().await?;
        Ok(())
    })
    .await
}

/// Records, from now on, every author the "Edited by" bar or the remote dot names, and every
/// moment the header reads "Saved (version N)" while the Drafts button shows a count.
const WATCH: &str = r#"
window.__polish = { remote: [], savedWithDrafts: [] };
const check = () => {
  for (const el of document.querySelectorAll('[data-testid="remote-edit"]'))
    window.__polish.remote.push(el.getAttribute('data-author'));
  for (const el of document.querySelectorAll('.mark-remote'))
    window.__polish.remote.push(el.getAttribute('aria-label'));
  const status = document.querySelector('[data-testid="sync-status"]');
  const badge = document.querySelector('[data-testid="drafts-toggle"] .count-badge');
  const text = status ? status.textContent.trim() : '';
  if (text.startsWith('Saved (version') && badge)
    window.__polish.savedWithDrafts.push(text + ' / Drafts ' + badge.textContent);
};
new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
check();
"#;

#[tokio::test]
async fn a_restore_is_not_another_writers_edit_and_saved_never_shows_with_a_draft_count()
-> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "polish-restore", async |app: &App| {
        let note = app.new_note("Essay").await?;
        app.driver.execute(WATCH, vec![]).await?;
        app.type_markdown("First draft.").await?;
        app.wait_saved(3).await?;
        let first = app.wait_synced(&note).await?;
        app.type_markdown(" Second thoughts.").await?;
        app.wait_saved(first + 1).await?;
        let second = app.wait_synced(&note).await?;
        for extra in [" Third.", " Fourth."] {
            app.type_markdown(extra).await?;
            app.wait_synced(&note).await?;
        }
        app.wait_gone(&By::Css("[data-testid=\"drafts-toggle\"] .count-badge"))
            .await?;
        let seen = app
            .driver
            .execute("return window.__polish;", vec![])
            .await?
            .json()
            .clone();
        ensure!(
            seen["savedWithDrafts"] == json!([]),
            "the header read Saved beside a draft count: {seen}"
        );

        // Restore the first version from the panel.
        app.click("versions-toggle").await?;
        app.testid("versions-panel").await?;
        app.click_by(&By::Css(format!(
            "[data-testid=\"versions-row\"][data-version=\"{first}\"] [data-testid=\"version-restore\"]"
        )))
        .await?;
        if let Ok(ok) = app
            .driver
            .find(By::Css("[data-testid=\"confirm-ok\"]"))
            .await
        {
            ok.click().await?;
        }
        app.wait_text(
            &By::Css("[data-testid=\"editor-markdown\"] .cm-content"),
            "the restored text",
            |t| t == "First draft.",
        )
        .await?;
        let restored = app.wait_synced(&note).await?;
        ensure!(restored > second, "a restore is a new version: {restored}");

        // Then the agent writes: its edit is marked (so the marks work and every event before
        // it has been shown), and the restore before it never was.
        let agent = agent_for(app, &note).await?;
        let (version, _) = read_tab(&agent, &note, "markdown").await?;
        call(
            &agent,
            "edit_note_tab",
            json!({"note_id": note, "tab_id": "markdown", "expected_version": version,
                   "idempotency_key": key(), "operation": "replace_text",
                   "text": "First draft, checked."}),
        )
        .await?;
        let marker = app.wait_for(&tid_tab("remote-edit", "markdown")).await?;
        let author = marker.attr("data-author").await?.unwrap_or_default();
        ensure!(author == "claude", "the agent's edit is marked: {author:?}");
        screenshot_both(&app.driver, "polish-restore-then-agent").await?;
        let seen = app
            .driver
            .execute("return window.__polish;", vec![])
            .await?
            .json()
            .clone();
        let remote = seen["remote"].as_array().context("the record")?;
        ensure!(
            remote
                .iter()
                .all(|a| a.as_str().is_some_and(|a| a.contains("claude"))),
            "the person's own restore was shown as a remote edit: {seen}"
        );
        agent.cancel().await?;
        Ok(())
    })
    .await
}
