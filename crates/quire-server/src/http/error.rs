//! The one mapping from failures to HTTP responses: `application/problem+json` (RFC 9457) with
//! a stable `error` code that clients switch on. Client errors are not logged; internal errors
//! are logged once, here.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quire_api::{Conflict, Scope};
use quire_model::{NoteId, OpError, Version};
use quire_store::StoreError;
use serde::Serialize;

use crate::notes::NotesError;
use crate::tokens::Refusal;

/// Everything a REST request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("this token was revoked (`quire-server token revoke`); ask for a new one")]
    TokenRevoked,
    #[error("this token has expired; ask for a new one")]
    TokenExpired,
    #[error("this token lacks the {} scope", .0.as_str())]
    Forbidden(Scope),
    #[error(
        "this is an agent's token: agents work through MCP at /mcp, which shows them only the \
         Notes the person approved; the REST API is the person's"
    )]
    AgentToken,
    #[error(
        "this is an agent's token: only the person's token may see or change a Note's agent access"
    )]
    PersonOnly,
    #[error("no note {0}")]
    NoteNotFound(String),
    #[error("note {note_id} has no version {version}")]
    VersionNotFound { note_id: NoteId, version: String },
    #[error(
        "note {0} is in the trash: restore it first (POST /notes/{0}/undelete with its version)"
    )]
    NoteInTrash(NoteId),
    #[error("note {0} is not in the trash")]
    NotInTrash(NoteId),
    /// Later writes changed the same lines, cells, slides or items as the version reverted.
    #[error("{0}; nothing was written")]
    RevertConflict(quire_model::RevertConflict),
    /// The Note moved on. `if_match`: the version came in `If-Match` (412), not the body (409).
    #[error("the note is at version {}; re-read it and redo the change on what is there", .conflict.current_version)]
    Conflict { conflict: Conflict, if_match: bool },
    #[error(
        "send the version you read, as expected_version in the body or as If-Match: \"<version>\""
    )]
    PreconditionRequired,
    #[error("If-Match says {if_match} but expected_version says {body}; send one")]
    ConflictingPreconditions { if_match: Version, body: Version },
    #[error("If-Match must be one quoted version such as \"7\", got {0:?}")]
    InvalidIfMatch(String),
    #[error("{0}")]
    Op(OpError),
    #[error("Idempotency-Key: {0}")]
    BadIdempotencyKey(String),
    #[error("{detail}")]
    MalformedJson {
        detail: String,
        field: Option<String>,
    },
    #[error("{field}: {detail}")]
    UnknownField { field: String, detail: String },
    #[error("{field}: {detail}")]
    InvalidField { field: String, detail: String },
    #[error("the request body is larger than the limit of {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// `given`: the request's `Content-Type`, if it had one.
    #[error("send the body as JSON with Content-Type: application/json ({})", sent(.given))]
    UnsupportedMediaType { given: Option<String> },
    #[error("no route {0}")]
    RouteNotFound(String),
    #[error("{0} is not allowed here")]
    MethodNotAllowed(String),
    #[error("this token has {limit} event streams open, the most it may; close one first")]
    TooManyStreams { limit: usize },
    #[error("the server is shutting down")]
    Unavailable,
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// The stable code clients switch on.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::TokenRevoked => "token_revoked",
            ApiError::TokenExpired => "token_expired",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::AgentToken | ApiError::PersonOnly => "agent_token",
            ApiError::NoteNotFound(_) => "note_not_found",
            ApiError::VersionNotFound { .. } => "version_not_found",
            ApiError::NoteInTrash(_) => "note_in_trash",
            ApiError::NotInTrash(_) => "note_not_in_trash",
            ApiError::RevertConflict(_) => "revert_conflict",
            ApiError::Conflict { .. } => "version_conflict",
            ApiError::PreconditionRequired => "precondition_required",
            ApiError::ConflictingPreconditions { .. } => "conflicting_preconditions",
            ApiError::InvalidIfMatch(_) => "invalid_if_match",
            ApiError::Op(e) => e.code.as_str(),
            ApiError::BadIdempotencyKey(_) => "bad_idempotency_key",
            ApiError::MalformedJson { .. } => "malformed_json",
            ApiError::UnknownField { .. } => "unknown_field",
            ApiError::InvalidField { .. } => "invalid_field",
            ApiError::PayloadTooLarge { .. } => "payload_too_large",
            ApiError::UnsupportedMediaType { .. } => "unsupported_media_type",
            ApiError::RouteNotFound(_) => "not_found",
            ApiError::MethodNotAllowed(_) => "method_not_allowed",
            ApiError::TooManyStreams { .. } => "too_many_streams",
            ApiError::Unavailable => "unavailable",
            ApiError::Internal(_) => "internal",
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Unauthorized(_) | ApiError::TokenRevoked | ApiError::TokenExpired => {
                StatusCode::UNAUTHORIZED
            }
            ApiError::Forbidden(_) | ApiError::AgentToken | ApiError::PersonOnly => {
                StatusCode::FORBIDDEN
            }
            ApiError::NoteNotFound(_)
            | ApiError::VersionNotFound { .. }
            | ApiError::RouteNotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict {
                if_match: false, ..
            } => StatusCode::CONFLICT,
            ApiError::Conflict { if_match: true, .. } => StatusCode::PRECONDITION_FAILED,
            ApiError::NoteInTrash(_) | ApiError::NotInTrash(_) | ApiError::RevertConflict(_) => {
                StatusCode::CONFLICT
            }
            ApiError::PreconditionRequired => StatusCode::PRECONDITION_REQUIRED,
            ApiError::ConflictingPreconditions { .. }
            | ApiError::InvalidIfMatch(_)
            | ApiError::BadIdempotencyKey(_)
            | ApiError::MalformedJson { .. } => StatusCode::BAD_REQUEST,
            ApiError::Op(_) | ApiError::UnknownField { .. } | ApiError::InvalidField { .. } => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooManyStreams { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The request member at fault, when there is one (`changes[1].tab_id`, `If-Match`).
    pub fn field(&self) -> Option<String> {
        match self {
            ApiError::Op(e) => Some(e.path()),
            ApiError::MalformedJson { field, .. } => field.clone(),
            ApiError::UnknownField { field, .. } | ApiError::InvalidField { field, .. } => {
                Some(field.clone())
            }
            ApiError::ConflictingPreconditions { .. } => Some("expected_version".to_owned()),
            ApiError::InvalidIfMatch(_) => Some("If-Match".to_owned()),
            ApiError::BadIdempotencyKey(_) => Some("Idempotency-Key".to_owned()),
            ApiError::UnsupportedMediaType { .. } => Some("Content-Type".to_owned()),
            ApiError::PreconditionRequired => Some("expected_version".to_owned()),
            _ => None,
        }
    }

    /// A write that came with its version in `If-Match`: a conflict is then 412, not 409.
    pub fn with_if_match(self, if_match: bool) -> Self {
        match self {
            ApiError::Conflict { conflict, .. } => ApiError::Conflict { conflict, if_match },
            other => other,
        }
    }
}

/// What an `UnsupportedMediaType` request sent instead.
fn sent(given: &Option<String>) -> String {
    match given {
        Some(given) => format!("not {given:?}"),
        None => "the request has no Content-Type".to_owned(),
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NoteNotFound(id) => ApiError::NoteNotFound(id.to_string()),
            StoreError::VersionNotFound { note_id, version } => ApiError::VersionNotFound {
                note_id,
                version: version.to_string(),
            },
            StoreError::Conflict(conflict) => ApiError::Conflict {
                conflict,
                if_match: false,
            },
            StoreError::Invalid(op) => ApiError::Op(op),
            StoreError::NoteInTrash(id) => ApiError::NoteInTrash(id),
            StoreError::NotInTrash(id) => ApiError::NotInTrash(id),
            StoreError::BadKey(reason) => ApiError::BadIdempotencyKey(reason),
            StoreError::Closed => ApiError::Unavailable,
            StoreError::Backend(reason) => ApiError::Internal(reason),
            // No route revokes tokens: reaching here is a bug, not the client's fault.
            e @ StoreError::TokenNotFound(_) => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Unknown => ApiError::Unauthorized("unknown bearer token"),
            Refusal::Revoked => ApiError::TokenRevoked,
            Refusal::Expired => ApiError::TokenExpired,
        }
    }
}

impl From<NotesError> for ApiError {
    fn from(e: NotesError) -> Self {
        match e {
            NotesError::MissingScope(scope) => ApiError::Forbidden(scope),
            NotesError::PersonOnly => ApiError::PersonOnly,
            NotesError::EmptyQuery(e) => ApiError::InvalidField {
                field: "q".to_owned(),
                detail: e.to_string(),
            },
            NotesError::RevertFirst => ApiError::InvalidField {
                field: "version".to_owned(),
                detail: e.to_string(),
            },
            NotesError::RevertConflict(clash) => ApiError::RevertConflict(clash),
            NotesError::Store(e) => e.into(),
        }
    }
}

/// The problem+json body.
#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    kind: String,
    title: &'a str,
    status: u16,
    detail: String,
    error: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    current_version: Option<Version>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changed_tab_ids: Option<&'a [quire_model::TabId]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    /// A revert that clashes: the tabs where it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    tab_ids: Option<&'a [quire_model::TabId]>,
    /// An `edit_text` edit not found once: its index in `edits`, and how often its `old_text`
    /// occurs.
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    occurrences: Option<usize>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, code = self.code(), "request failed");
        }
        let code = self.code();
        let (current_version, changed_tab_ids) = match &self {
            ApiError::Conflict { conflict, .. } => (
                Some(conflict.current_version),
                Some(conflict.changed_tab_ids.as_slice()),
            ),
            _ => (None, None),
        };
        let edit = match &self {
            ApiError::Op(op) => op.edit,
            _ => None,
        };
        let problem = Problem {
            kind: format!("urn:quire:error:{code}"),
            title: status.canonical_reason().unwrap_or("Error"),
            status: status.as_u16(),
            // Internal details stay in the log.
            detail: match &self {
                ApiError::Internal(_) => "internal error; see the server log".to_owned(),
                other => other.to_string(),
            },
            error: code,
            field: self.field(),
            current_version,
            changed_tab_ids,
            scope: match &self {
                ApiError::Forbidden(scope) => Some(scope.as_str()),
                _ => None,
            },
            tab_ids: match &self {
                ApiError::RevertConflict(clash) => Some(clash.tab_ids.as_slice()),
                _ => None,
            },
            index: edit.map(|e| e.index),
            occurrences: edit.map(|e| e.occurrences),
        };
        let body = match serde_json::to_vec(&problem) {
            Ok(body) => body,
            Err(e) => {
                tracing::error!(error = %e, "cannot serialise a problem");
                b"{\"error\":\"internal\"}".to_vec()
            }
        };
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            // The rest of the body is not read: the connection cannot carry another request.
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if status == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"quire\""),
            );
        }
        response
    }
}
