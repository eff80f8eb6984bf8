//! The HTTP side: REST for the app (this module), `GET /healthz`, and the place `/mcp` is
//! mounted. Handlers are adapters: parse, call one [`Notes`] function, map the result; every
//! failure becomes a response in one place, [`ApiError`]'s `IntoResponse`.

mod auth;
mod body;
mod error;
mod events;
mod rest;
mod search;
mod trash;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use axum::routing::get;
use tokio_util::sync::CancellationToken;

pub use auth::{Auth, authenticate, require_caller};
pub use body::{JsonBody, parse as parse_json};
pub use error::ApiError;
pub use events::StreamCounts;

use crate::notes::Notes;
use crate::tokens::UseLog;

/// What every handler shares. Cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub notes: Notes,
    /// Cancelled when the server starts shutting down: long-lived responses (event streams,
    /// MCP streams) end so that the graceful shutdown can complete.
    pub shutdown: CancellationToken,
    /// The request body limit in bytes, for REST and `/mcp` alike.
    pub body_limit: usize,
    /// Names `/mcp` accepts in the `Host` header besides loopback.
    pub allowed_hosts: Arc<[String]>,
    /// The event streams each token holds open.
    pub streams: Arc<StreamCounts>,
    /// Which tokens' last use is due to be written.
    pub uses: Arc<UseLog>,
}

/// The whole HTTP surface: REST, `/healthz`, and (when present) `/mcp`.
pub fn router(state: AppState) -> Router {
    let body_limit = state.body_limit;
    Router::new()
        .merge(rest::routes())
        .route("/search", get(search::search))
        .route("/healthz", get(healthz))
        .nest_service("/mcp", crate::mcp::service(&state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state)
}

async fn healthz() -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({ "status": "ok" }))
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::RouteNotFound(uri.path().to_owned())
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::MethodNotAllowed(format!("{method} {}", uri.path()))
}
