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

/// The caller behind the request's bearer token: known, not revoked, not expired (401
/// `unauthorized`, `token_revoked`, `token_expired`). The token is read from the store every
/// time, so a revocation made by another process counts from the next request; its use is
/// written at most once a minute ([`tokens::UseLog`]).
pub async fn authenticate(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let hash = tokens::hash(bearer(headers)?);
    let now = state.notes.now();
    let record = tokens::admit(state.notes.store().find_token(&hash).await?, now)?;
    if state.uses.due(&record, now) {
        // The request does not depend on it: a failure is logged, not answered.
        if let Err(e) = state.notes.store().record_token_use(record.id, now).await {
            tracing::warn!(error = %e, token = record.id, "cannot record a token's use");
        }
    }
    Ok(Caller::from(record))
}

/// Whether the token with this hash may still be used (an open event stream asks, now and
/// then): `Err` says why not.
pub async fn still_admitted(state: &AppState, hash: &str) -> Result<(), ApiError> {
    let found = state.notes.store().find_token(hash).await?;
    tokens::admit(found, state.notes.now())?;
    Ok(())
}

/// The bearer token the request carries.
pub(super) fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
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
