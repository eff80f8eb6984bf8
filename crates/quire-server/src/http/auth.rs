//! Bearer tokens: `Authorization: Bearer <token>`, looked up by hash. Scopes are checked by
//! [`crate::notes::Notes`], the one place that knows which call needs which.
//!
//! Three ways in: [`authenticate`] (a plain function), the [`Auth`] extractor every REST
//! handler takes, and the [`require_caller`] middleware in front of `/mcp`, which puts the
//! [`Caller`] into the request's extensions for services that read them. The REST API is the
//! person's: [`Auth`] refuses an agent's token (403 `agent_token`), whatever the route.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;
use crate::notes::Caller;
use crate::tokens;
use quire_model::AuthorKind;

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

/// Extractor for the REST API: the authenticated caller if it holds a person's token; 401
/// without a known token, 403 with an agent's.
#[derive(Debug, Clone)]
pub struct Auth(pub Caller);

impl FromRequestParts<AppState> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let caller = match parts.extensions.get::<Caller>() {
            Some(caller) => caller.clone(),
            None => authenticate(state, &parts.headers).await?,
        };
        match caller.kind {
            AuthorKind::Person => Ok(Auth(caller)),
            AuthorKind::Agent => Err(ApiError::AgentToken),
        }
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
