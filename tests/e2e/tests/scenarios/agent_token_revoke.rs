//! A token handed to an agent, then revoked, in the real window: the person makes an agent's
//! token in "Connect an agent", an agent (a real MCP client) works with it, the panel lists it
//! as active, and after Revoke the panel says so and the agent's next call is refused.

use anyhow::{Result, ensure};
use quire_e2e::{App, Harness, scenario, screenshot, tid};
use serde_json::json;
use thirtyfour::prelude::*;

use crate::support::{call, connect, token_from_agent_panel};

fn row(state: &str) -> By {
    By::Css(format!(
        "[data-testid=\"agent-token-row\"][data-name=\"claude\"][data-state=\"{state}\"]"
    ))
}

#[tokio::test]
async fn a_token_handed_to_an_agent_is_revoked_from_the_agent_panel() -> Result<()> {
    let harness = Harness::start()?;
    scenario(&harness, "agent-token-revoke", async |app: &App| {
        let note = app.new_note("Shared with the agent").await?;
        app.invoke(
            "set_agent_access",
            json!({"noteId": note, "approved": true}),
        )
        .await?;

        let token = token_from_agent_panel(app).await?;
        let url = app
            .wait_text(&tid("agent-mcp-url"), "the MCP URL", |t| {
                t.ends_with("/mcp")
            })
            .await?;
        let agent = connect(&url, &token).await?;
        call(&agent, "list_note_tabs", json!({"note_id": note})).await?;
        app.wait_for(&row("active")).await?;
        screenshot(&app.driver, "agent-token-active").await?;

        app.click_by(&By::Css(
            "[data-testid=\"agent-token-revoke\"][data-name=\"claude\"]",
        ))
        .await?;
        app.wait_for(&row("revoked")).await?;
        screenshot(&app.driver, "agent-token-revoked").await?;

        let refused = call(&agent, "list_note_tabs", json!({"note_id": note})).await;
        ensure!(
            refused.is_err(),
            "the revoked token still works: {refused:?}"
        );
        Ok(())
    })
    .await
}
