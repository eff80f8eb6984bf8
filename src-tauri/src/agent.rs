//! "Connect an agent": the MCP URL and ready-to-paste configs for Claude Desktop and Claude Code.

use serde::Serialize;

/// What the person pastes into an MCP host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AgentSnippets {
    /// For a terminal: `claude mcp add --transport http quire <url> --header ...`.
    pub claude_code: String,
    /// For `claude_desktop_config.json`: a stdio bridge (this app's binary with `mcp-stdio`,
    /// or `quire-server mcp-stdio`), since Claude Desktop launches local commands.
    pub claude_desktop: String,
}

/// The placeholder shown where a token goes, until one is made.
pub const TOKEN_PLACEHOLDER: &str = "<TOKEN>";

/// The snippets for `mcp_url` and `token`. `bridge` is the program that speaks MCP on stdio and
/// relays to `mcp_url` (it takes `mcp-stdio --url URL` and the token in `QUIRE_TOKEN`: in the
/// host's `env` block, not its `args`, since every local user can read a command line).
pub fn snippets(mcp_url: &str, token: &str, bridge: &str) -> AgentSnippets {
    let claude_code = format!(
        "claude mcp add --transport http quire {mcp_url} --header \"Authorization: Bearer {token}\""
    );
    let desktop = serde_json::json!({
        "mcpServers": {
            "quire": {
                "command": bridge,
                "args": ["mcp-stdio", "--url", mcp_url],
                "env": { quire_server::mcp::TOKEN_VAR: token },
            }
        }
    });
    // A json! value of strings always serialises.
    let claude_desktop = serde_json::to_string_pretty(&desktop).unwrap_or_default();
    AgentSnippets {
        claude_code,
        claude_desktop,
    }
}

/// `<server>/mcp`.
pub fn mcp_url(server: &url::Url) -> String {
    format!("{}/mcp", server.as_str().trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_carry_the_url_and_the_token() {
        let s = snippets(
            "http://127.0.0.1:7878/mcp",
            "qk_abc",
            "/opt/Quire/quire-app",
        );
        assert_eq!(
            s.claude_code,
            "claude mcp add --transport http quire http://127.0.0.1:7878/mcp \
             --header \"Authorization: Bearer qk_abc\""
        );
        let desktop: serde_json::Value =
            serde_json::from_str(&s.claude_desktop).expect("valid JSON");
        assert_eq!(
            desktop["mcpServers"]["quire"],
            serde_json::json!({
                "command": "/opt/Quire/quire-app",
                "args": ["mcp-stdio", "--url", "http://127.0.0.1:7878/mcp"],
                "env": {"QUIRE_TOKEN": "qk_abc"},
            })
        );
    }

    #[test]
    fn the_mcp_url_is_under_the_server() {
        let url = url::Url::parse("http://127.0.0.1:7878").expect("url");
        assert_eq!(mcp_url(&url), "http://127.0.0.1:7878/mcp");
        let url = url::Url::parse("https://notes.example/base/").expect("url");
        assert_eq!(mcp_url(&url), "https://notes.example/base/mcp");
    }
}
