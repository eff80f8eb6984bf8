//! `quire-server mcp-stdio --url URL`: the same tools on stdin/stdout, for MCP hosts that only
//! launch local commands. An MCP server on stdio whose every tool call is relayed, unchanged,
//! to a running server's `/mcp` by an MCP client over streamable HTTP. Nothing is decided here:
//! validation, scopes and writes all happen in the server.
//!
//! The token comes from the environment ([`TOKEN_VAR`], which an MCP host's `env` block sets)
//! or from a file only its owner may read (`--token-file`): a process's command line is
//! readable by every local user (`/proc/PID/cmdline`, `ps`), its environment only by its owner.
//! `--token` still works, with a warning.
//!
//! An `https://` URL is verified against the system's CA store plus `--ca-file` (or
//! `QUIRE_CA_FILE`); a certificate refused says why.

use std::path::{Path, PathBuf};

use futures::future::BoxFuture;
use quire_tls::{TlsProblem, Trust, TrustError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{ClientInitializeError, RequestContext, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient, RoleServer};
use rmcp::{ServerHandler, ServiceExt};

/// The environment variable the bridge reads its token from.
pub const TOKEN_VAR: &str = "QUIRE_TOKEN";

/// Printed on stderr when the token came on the command line.
pub const TOKEN_ARG_WARNING: &str = "warning: --token puts the token in the process list, \
     where every user of this machine can read it; set QUIRE_TOKEN in the environment (the \
     \"env\" block of an MCP host's config) or use --token-file PATH instead";

/// Where the bridge found its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `--token TOKEN` (visible to every local user: warn).
    Arg,
    /// `--token-file PATH`.
    File(PathBuf),
    /// [`TOKEN_VAR`].
    Env,
}

/// The bridge's bearer token and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeToken {
    pub token: String,
    pub source: TokenSource,
}

impl BridgeToken {
    /// Picks the token: `--token-file` or `--token` if given (not both), else `env` (the value
    /// of [`TOKEN_VAR`]). A token file readable by its group or others is refused, as ssh
    /// refuses such a private key.
    pub fn resolve(
        arg: Option<String>,
        file: Option<&Path>,
        env: Option<String>,
    ) -> Result<BridgeToken, BridgeError> {
        let (token, source) = match (arg, file) {
            (Some(_), Some(_)) => return Err(BridgeError::TwoTokens),
            (Some(token), None) => (token, TokenSource::Arg),
            (None, Some(path)) => (read_token_file(path)?, TokenSource::File(path.to_owned())),
            (None, None) => (env.ok_or(BridgeError::NoToken)?, TokenSource::Env),
        };
        let token = token.trim().to_owned();
        if token.is_empty() {
            return Err(BridgeError::EmptyToken(source));
        }
        Ok(BridgeToken { token, source })
    }

    /// What to print on stderr before serving, if anything.
    pub fn warning(&self) -> Option<&'static str> {
        (self.source == TokenSource::Arg).then_some(TOKEN_ARG_WARNING)
    }
}

fn read_token_file(path: &Path) -> Result<String, BridgeError> {
    let unreadable = |source| BridgeError::TokenFile {
        path: path.to_owned(),
        source,
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).map_err(unreadable)?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(BridgeError::TokenFileOpen {
                path: path.to_owned(),
                mode,
            });
        }
    }
    std::fs::read_to_string(path).map_err(unreadable)
}

#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error(
        "no token: set {TOKEN_VAR} in the environment (the \"env\" block of an MCP host's \
         config) or pass --token-file PATH (a file only you can read)"
    )]
    NoToken,
    #[error("give the token one way: --token or --token-file, not both")]
    TwoTokens,
    #[error("the token {} is empty", describe(.0))]
    EmptyToken(TokenSource),
    #[error("--token-file {}: {source}", .path.display())]
    TokenFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "--token-file {path}: permissions {mode:04o} are too open: the token file must be \
         readable by its owner only; run: chmod 600 {path}",
        path = .path.display()
    )]
    TokenFileOpen { path: PathBuf, mode: u32 },
    #[error("--url must be the server's MCP endpoint, such as http://127.0.0.1:7878/mcp: {0}")]
    Url(String),
    #[error("cannot reach the quire server at {url}: {source}")]
    Connect {
        url: String,
        source: Box<ClientInitializeError>,
    },
    #[error("refused the quire server at {url}: {} ({detail})", .problem.describe())]
    Certificate {
        url: String,
        problem: TlsProblem,
        detail: String,
    },
    #[error(transparent)]
    Trust(#[from] TrustError),
    #[error("the stdio side failed: {0}")]
    Stdio(String),
}

fn describe(source: &TokenSource) -> String {
    match source {
        TokenSource::Arg => "given with --token".to_owned(),
        TokenSource::File(path) => format!("in {}", path.display()),
        TokenSource::Env => format!("in {TOKEN_VAR}"),
    }
}

/// Serves MCP on stdin/stdout until stdin closes, relaying every tool call to `url` (a running
/// server's `/mcp`) with `token` as the bearer token.
/// An `https://` URL is verified against the system's CA store plus the file `QUIRE_CA_FILE`
/// names, if set.
#[inline(never)]
pub fn stdio_bridge<'a>(url: &'a str, token: &'a str) -> BoxFuture<'a, Result<(), BridgeError>> {
    Box::pin(async move { bridge(url, token, &Trust::from_env()).await })
}

/// [`stdio_bridge`], verifying an `https://` URL with `trust`.
#[inline(never)]
pub fn stdio_bridge_trusting<'a>(
    url: &'a str,
    token: &'a str,
    trust: &'a Trust,
) -> BoxFuture<'a, Result<(), BridgeError>> {
    Box::pin(bridge(url, token, trust))
}

async fn bridge(url: &str, token: &str, trust: &Trust) -> Result<(), BridgeError> {
    let upstream = connect(url, token, trust).await?;
    let info = upstream_info(&upstream);
    let bridge = Bridge {
        upstream: upstream.peer().clone(),
        info,
    };
    let served = bridge
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| BridgeError::Stdio(e.to_string()))?;
    let ended = served.waiting().await;
    let closed = upstream.cancel().await;
    ended.map_err(|e| BridgeError::Stdio(e.to_string()))?;
    if let Err(e) = closed {
        tracing::warn!(error = %e, "closing the connection to the server failed");
    }
    Ok(())
}

async fn connect(
    url: &str,
    token: &str,
    trust: &Trust,
) -> Result<RunningService<RoleClient, ClientConfig>, BridgeError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(BridgeError::Url(format!("{url:?} is not an http(s) URL")));
    }
    let http = trust.client()?;
    let transport = StreamableHttpClientTransport::with_client(
        http.clone(),
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("quire-mcp-stdio", env!("CARGO_PKG_VERSION")),
    );
    let connected = client
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        )
        .await;
    let source = match connected {
        Ok(upstream) => return Ok(upstream),
        Err(source) => source,
    };
    // rmcp keeps the HTTP client's error as text only: one plain request tells whether the
    // server was refused at the TLS step, and why.
    if let Err(e) = http.get(url).send().await
        && let Some((problem, detail)) = TlsProblem::find(&e)
    {
        return Err(BridgeError::Certificate {
            url: url.to_owned(),
            problem,
            detail,
        });
    }
    Err(BridgeError::Connect {
        url: url.to_owned(),
        source: Box::new(source),
    })
}

/// What the stdio side announces: the server's own capabilities and instructions.
fn upstream_info(upstream: &RunningService<RoleClient, ClientConfig>) -> ServerConfig {
    let peer = upstream.peer_info();
    let capabilities = peer
        .as_ref()
        .map(|p| p.capabilities.clone())
        .unwrap_or_else(|| ServerCapabilities::builder().enable_tools().build());
    let mut info = ServerConfig::new(capabilities).with_server_info(Implementation::new(
        "quire (stdio bridge)",
        env!("CARGO_PKG_VERSION"),
    ));
    if let Some(instructions) = peer.as_ref().and_then(|p| p.instructions.clone()) {
        info = info.with_instructions(instructions);
    }
    info
}

struct Bridge {
    upstream: rmcp::Peer<RoleClient>,
    info: ServerConfig,
}

/// The server's JSON-RPC errors pass through as they are; a transport failure becomes an
/// internal error that says so.
fn relay_error(e: ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(e) => e,
        other => {
            ErrorData::internal_error(format!("the quire server did not answer: {other}"), None)
        }
    }
}

impl ServerHandler for Bridge {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.upstream.list_tools(request).await.map_err(relay_error)
    }

    fn get_tool(&self, _name: &str) -> Option<Tool> {
        None
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.upstream
            .call_tool(request)
            .await
            .map(Into::into)
            .map_err(relay_error)
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn env(token: &str) -> Option<String> {
        Some(token.to_owned())
    }

    #[test]
    fn the_token_comes_from_the_environment_a_private_file_or_the_flag_with_a_warning() {
        let from_env = BridgeToken::resolve(None, None, env("qk_env\n")).unwrap();
        assert_eq!(
            (
                from_env.token.as_str(),
                &from_env.source,
                from_env.warning()
            ),
            ("qk_env", &TokenSource::Env, None)
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "qk_file\n").unwrap();
        set_mode(&path, 0o600);
        let from_file = BridgeToken::resolve(None, Some(&path), env("qk_env")).unwrap();
        assert_eq!(
            from_file.token, "qk_file",
            "the flag wins over the environment"
        );
        assert_eq!(from_file.warning(), None);

        let from_arg = BridgeToken::resolve(Some("qk_arg".into()), None, env("qk_env")).unwrap();
        assert_eq!(from_arg.token, "qk_arg");
        assert_eq!(from_arg.warning(), Some(TOKEN_ARG_WARNING));
    }

    #[test]
    fn missing_empty_doubled_or_unprotected_tokens_are_refused() {
        let refused = |arg: Option<&str>, file: Option<&Path>, env: Option<&str>| {
            BridgeToken::resolve(arg.map(Into::into), file, env.map(Into::into))
                .unwrap_err()
                .to_string()
        };
        assert!(refused(None, None, None).contains("set QUIRE_TOKEN"));
        assert!(refused(None, None, Some(" \n")).contains("the token in QUIRE_TOKEN is empty"));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "qk_file").unwrap();
        assert!(refused(Some("qk_arg"), Some(&path), None).contains("not both"));
        for mode in [0o644, 0o640, 0o604, 0o660] {
            set_mode(&path, mode);
            let message = refused(None, Some(&path), None);
            assert!(
                message.contains(&format!("permissions {mode:04o} are too open"))
                    && message.contains(&format!("chmod 600 {}", path.display())),
                "{message}"
            );
        }
        set_mode(&path, 0o400);
        assert!(BridgeToken::resolve(None, Some(&path), None).is_ok());
        let missing = dir.path().join("nope");
        assert!(refused(None, Some(&missing), None).starts_with("--token-file "));
    }

    fn set_mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}
