//! `quire-server mcp-stdio --url URL --token TOKEN`: the same tools on stdin/stdout, for MCP
//! hosts that only launch local commands. An MCP server on stdio whose every tool call is
//! relayed, unchanged, to a running server's `/mcp` by an MCP client over streamable HTTP.
//! Nothing is decided here: validation, scopes and writes all happen in the server.

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

#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("--url must be the server's MCP endpoint, such as http://127.0.0.1:7878/mcp: {0}")]
    Url(String),
    #[error("cannot reach the quire server at {url}: {source}")]
    Connect {
        url: String,
        source: Box<ClientInitializeError>,
    },
    #[error("the stdio side failed: {0}")]
    Stdio(String),
}

/// Serves MCP on stdin/stdout until stdin closes, relaying every tool call to `url` (a running
/// server's `/mcp`) with `token` as the bearer token.
pub async fn stdio_bridge(url: &str, token: &str) -> Result<(), BridgeError> {
    let upstream = connect(url, token).await?;
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
) -> Result<RunningService<RoleClient, ClientConfig>, BridgeError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(BridgeError::Url(format!("{url:?} is not an http(s) URL")));
    }
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let client = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("quire-mcp-stdio", env!("CARGO_PKG_VERSION")),
    );
    client
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        )
        .await
        .map_err(|source| BridgeError::Connect {
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
