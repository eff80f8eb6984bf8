//! The agent's door: MCP (streamable HTTP, rmcp) at `/mcp`, with the reference product's tool
//! contract.
//!
//! - The contract is data: [`tools.json`](catalog) is what `tools/list` advertises, verbatim,
//!   and every call's arguments are checked against that same schema before anything runs
//!   ([`schema`]), then read into typed values ([`args`]).
//! - Tools are adapters over [`Notes`] on [`Channel::Agent`](crate::notes::Channel): the same
//!   scopes, approval and guarded write as the person's REST calls.
//! - The HTTP layer is the REST one: a bearer token is required ([`require_caller`], 401 with
//!   `WWW-Authenticate`), the body limit is the same (413), the `Host` header must be a
//!   loopback name or one the server was given (`--allowed-host`; DNS rebinding) and a
//!   browser `Origin` must be a loopback one; a request without `Origin` (a desktop host, a
//!   CLI) passes.
//! - Protocol versions: every one rmcp knows, 2025-11-25 with sessions and 2026-07-28 without
//!   (rmcp serves the latter statelessly; a resend after a broken stream is safe because writes
//!   carry idempotency keys).
//!
//! [`stdio_bridge`] serves the same tools on stdin/stdout by calling a running server, for
//! desktop hosts that only launch local commands.

mod args;
mod catalog;
mod schema;
mod stdio;
mod tools;
mod views;

use std::sync::{Arc, LazyLock};

use axum::Router;
use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

pub use catalog::CatalogError;
pub use schema::Violation;
pub use stdio::{
    BridgeError, BridgeToken, TOKEN_ARG_WARNING, TOKEN_VAR, TokenSource, stdio_bridge,
    stdio_bridge_trusting,
};

use axum::extract::State;
use axum::response::IntoResponse;
use quire_model::{WideInteger, find_wide_integer};

use crate::http::{ApiError, AppState, require_caller};
use crate::notes::{Caller, Notes};
use catalog::Catalog;

/// Browser origins allowed to call `/mcp` (any port): local tools such as an MCP inspector.
/// Any other `Origin` is refused; no `Origin` at all (desktop hosts, CLIs) is fine.
const LOOPBACK_ORIGINS: [&str; 3] = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

const INSTRUCTIONS: &str = "Quire Notes. Find a Note with list_notes (or by its words with search_notes), its tabs \
with list_note_tabs, read with read_note_tab / read_note_lines / read_sheet_range / list_note_attachments, write \
with edit_note_text, edit_note_tab, create_note_tab and add_note_source, start a Note with create_note. Address \
tabs by their exact ID, never by type or label. To change part of a Markdown text, use edit_note_text: quote each \
old_text exactly (unique in the tab) with its new_text; it sends only the change, not the whole text both ways. \
Use edit_note_tab replace_text only to write a text anew. For a long Markdown tab, read the lines you need with \
read_note_lines (numbered, from a line number or from the first line holding some words: find) rather than the \
whole tab with read_note_tab. Every write carries the version you read (expected_version) and an idempotency_key \
naming one intended change. On version_conflict, read again and redo the change on what is there now; never \
resend old content with a refreshed version. A link to another Note is written [Its title](quire:note/NOTE_ID) \
(the ID from list_notes; the app shows the Note's current title and lists the link under that Note's backlinks); \
an attached image is shown with ![name](quire:file/FILE_ID) (the ID from list_note_attachments).";

static CATALOG: LazyLock<Result<Catalog, CatalogError>> = LazyLock::new(Catalog::load);

fn catalog() -> Result<&'static Catalog, ErrorData> {
    CATALOG.as_ref().map_err(|e| {
        tracing::error!(error = %e, "the MCP tool list cannot be loaded");
        ErrorData::internal_error(e.to_string(), None)
    })
}

/// `/mcp`: mount with `.nest_service("/mcp", mcp::service(&state))`. Bearer tokens as REST;
/// sessions end when the server shuts down.
pub fn service(state: &AppState) -> Router {
    let notes = state.notes.clone();
    // rmcp's default hosts are the loopback names; the server's own names come on top.
    let mut config = StreamableHttpServerConfig::default();
    config
        .allowed_hosts
        .extend(state.allowed_hosts.iter().cloned());
    let config = config
        .with_max_request_body_bytes(state.body_limit)
        .with_allowed_origins(LOOPBACK_ORIGINS)
        .enforce_origin_validation()
        .with_cancellation_token(state.shutdown.child_token());
    let mcp = StreamableHttpService::new(
        move || Ok(QuireMcp::new(notes.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Router::new()
        .fallback_service(mcp)
        .layer(axum::middleware::from_fn_with_state(
            state.body_limit,
            find_wide_integers,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            require_caller,
        ))
}

/// An integer wider than 64 bits in a request's JSON text (see [`find_wide_integer`]).
#[derive(Debug, Clone)]
struct WideArgument(WideInteger);

/// rmcp parses the body, which rounds an integer wider than 64 bits to a double before any tool
/// sees it. So the raw body is scanned first, and what is found rides with the request to
/// [`QuireMcp::call_tool`], which refuses the call naming the argument.
async fn find_wide_integers(
    State(limit): State<usize>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if req.method() != axum::http::Method::POST {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return ApiError::PayloadTooLarge { limit }.into_response();
    };
    let wide = std::str::from_utf8(&bytes).ok().and_then(find_wide_integer);
    let mut req = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    if let Some(wide) = wide {
        req.extensions_mut().insert(WideArgument(wide));
    }
    next.run(req).await
}

/// The argument holding an integer too wide to keep, if this call has one.
fn wide_argument(ctx: &RequestContext<RoleServer>) -> Option<Violation> {
    let WideArgument(wide) = ctx
        .extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<WideArgument>())?;
    let field = wide.path.strip_prefix("params.arguments")?;
    let field = field.strip_prefix('.').unwrap_or(field);
    Some(Violation::at_field(
        field,
        format!("{field}: {}", wide.reason()),
    ))
}

/// The MCP server handler: the tool catalog over [`Notes`].
#[derive(Clone)]
pub struct QuireMcp {
    notes: Notes,
}

impl QuireMcp {
    pub fn new(notes: Notes) -> Self {
        QuireMcp { notes }
    }
}

/// The caller the HTTP layer authenticated for this very request.
fn caller(ctx: &RequestContext<RoleServer>) -> Result<Caller, ErrorData> {
    ctx.extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<Caller>())
        .cloned()
        .ok_or_else(|| {
            ErrorData::invalid_request("unauthenticated: send Authorization: Bearer <token>", None)
        })
}

impl ServerHandler for QuireMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("quire", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalog()?.tools().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalog().ok()?.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = caller(&context)?;
        let tool = catalog()?.get(&request.name).ok_or_else(|| {
            ErrorData::invalid_params(
                format!("name: no tool {:?}; tools/list names them", request.name),
                None,
            )
        })?;
        let args = request.arguments.unwrap_or_default();
        let result = match wide_argument(&context) {
            Some(violation) => tools::ToolError::from(violation).into_result()?,
            None => match tools::call(&self.notes, &caller, tool, args).await {
                Ok(value) => CallToolResult::structured(value),
                Err(e) => e.into_result()?,
            },
        };
        // Which tool and how it went; never its arguments nor its answer (see `logging`).
        let refused = result.is_error == Some(true);
        tracing::debug!(tool = %tool.name, refused, "tool call");
        Ok(result.into())
    }
}
