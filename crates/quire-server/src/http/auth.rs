//! Bearer tokens: `Authorization: Bearer <token>`, looked up by hash. Scopes are checked by
//! [`crate::notes::Notes`], the one place that knows which call needs which.
//!
//! Three ways in, for REST handlers and for the MCP transport alike: [`authenticate`] (a plain
//! function), the [`Auth`] extractor, and the [`require_caller`] middleware, which puts the
//! [`Caller`] into the request's extensions for services that read them.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;
use crate::notes::Caller;
use crate::tokens;

/// The caller behind the request's bearer token.
pub async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let token = bearer(headers)?;
    let record = state
        .notes
        .store()
        .find_token(&tokens::hash(token))
        .await?
        .ok_or(ApiError::Unauthorized("unknown bearer token"))?;
    Ok(Caller::from(record))
}

fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(ApiError::Unauthorized(
            "missing Authorization: Bearer <token> (make one with `quire-server token create`)",
        ))?
        .to_str()
        .map_err(|_| ApiError::Unauthorized("the Authorization header is not ASCII"))?;
    let (scheme, token) = value.split_once(' ').ok_or(ApiError::Unauthorized(
        "expected Authorization: Bearer <token>",
    ))?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(ApiError::Unauthorized(
            "expected Authorization: Bearer <token>",
        ));
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(ApiError::Unauthorized("the bearer token is empty"));
    }
    Ok(token)
}

/// Extractor: the authenticated caller, or 401.
#[derive(Debug, Clone)]
pub struct Auth(pub Caller);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(caller) = parts.extensions.get::<Caller>() {
            return Ok(Auth(caller.clone()));
        }
        authenticate(state, &parts.headers).await.map(Auth)
    }
}

/// Middleware (`axum::middleware::from_fn_with_state`): 401 unless the request carries a known
/// token; otherwise the [`Caller`] goes into the request extensions.
pub async fn require_caller(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    match authenticate(&state, req.headers()).await {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}
