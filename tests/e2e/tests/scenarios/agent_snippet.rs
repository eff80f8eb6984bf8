//! "Connect an agent": the Claude Desktop snippet is JSON that reads and copies as it is. The
//! token is in its `env` block (QUIRE_TOKEN), not in `args` (a command line every local user
//! can read), and no line wraps: a long token used to wrap onto an unindented line that looked
//! like broken JSON. Checked at the default window size and at the smallest one.

use anyhow::{Context, Result, ensure};
use quire_e2e::{App, Harness, scenario, screenshot_both};
use serde_json::Value;

use crate::support::token_from_agent_panel;

/// The snippet as shown: its text, and how many lines it takes on screen.
const SHOWN: &str = r#"
const pre = document.querySelector('[data-testid="agent-config"][data-client="claude_desktop"]');
pre.scrollIntoView({ block: "center" });
const range = document.createRange();
range.selectNodeContents(pre);
const tops = new Set();
for (const r of range.getClientRects()) if (r.width > 0 && r.height > 0) tops.add(Math.round(r.top));
return { text: pre.textContent, rendered_lines: tops.size, scrolls: pre.scrollWidth > pre.clientWidth };
"#;

#[tokio::test]
async fn the_claude_desktop_snippet_is_unwrapped_json_with_the_token_in_env() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-snippet", async |app: &App| {
        let token = token_from_agent_panel(app).await?;

        for (width, height, name) in [
            (1100, 760, "agent-snippet-default"),
            (640, 420, "agent-snippet-min"),
        ] {
            harness.resize_app_window(app, width, height).await?;
            let shown = app.driver.execute(SHOWN, vec![]).await?.json().clone();
            let text = shown["text"].as_str().context("the snippet's text")?;
            let config: Value = serde_json::from_str(text).context("the snippet is JSON")?;
            let quire = &config["mcpServers"]["quire"];
            ensure!(
                quire["env"]["QUIRE_TOKEN"] == token.as_str(),
                "the token in env: {config}"
            );
            ensure!(
                !text.contains(&format!("\"{token}\","))
                    && !quire["args"].to_string().contains(&token),
                "the token is not in args: {config}"
            );
            let lines = text.lines().count() as u64;
            ensure!(
                shown["rendered_lines"] == lines,
                "{width}x{height}: {lines} lines of JSON shown on {} lines (wrapped)",
                shown["rendered_lines"]
            );
            screenshot_both(&app.driver, name).await?;
        }
        Ok(())
    })
    .await
}
