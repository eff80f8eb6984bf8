//! REST handlers for the app. Each parses, calls one [`Notes`](crate::notes::Notes) function
//! and maps the result.

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use quire_api::{
    AgentAccess, CreateNote, PatchNote, RestoreNote, RevertNote, SetAgentAccess, StoredNote,
    VersionList,
};
use quire_model::{NoteId, Version};
use quire_store::Change;
use serde::de::DeserializeOwned;

use super::AppState;
use super::auth::Auth;
use super::body::JsonBody;
use super::error::ApiError;
use super::events;
use crate::notes::Channel;

pub(super) fn routes() -> Router<AppState> {
    Router::new()
        .route("/notes", post(create_note).get(super::trash::list_notes))
        .route(
            "/notes/{id}",
            get(get_note)
                .patch(guarded_write::<PatchNote<'static>>)
                .delete(super::trash::trash_note),
        )
        .route(
            "/notes/{id}/undelete",
            post(guarded_write::<quire_api::UndeleteNote>),
        )
        .route("/trash", axum::routing::delete(super::trash::empty_trash))
        .route(
            "/notes/{id}/agent-access",
            get(agent_access).put(set_agent_access),
        )
        .route("/notes/{id}/versions", get(history))
        .route("/notes/{id}/versions/{version}", get(note_at))
        .route("/notes/{id}/restore", post(guarded_write::<RestoreNote>))
        .route("/notes/{id}/revert", post(revert))
        .route("/notes/{id}/events", get(events::stream))
        .route("/notes/{id}/export", get(export))
        .route("/notes/{id}/backlinks", get(backlinks))
}

/// `GET /notes/{id}/backlinks`: the Notes that link to this one (`notes:read`).
async fn backlinks(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
) -> Result<Json<quire_api::Backlinks>, ApiError> {
    let backlinks = state.notes.backlinks(&caller, Channel::App, &id).await?;
    Ok(Json(quire_api::Backlinks { backlinks }))
}

/// The Note's export folder as a zip archive.
async fn export(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
) -> Result<Response, ApiError> {
    let stored = state.notes.get_note(&caller, &id, Channel::App).await?;
    if stored.meta.deleted_at.is_some() {
        return Err(ApiError::NoteInTrash(id));
    }
    let (name, bytes) =
        tokio::task::spawn_blocking(move || crate::transfer::export_zip(&stored.note))
            .await
            .map_err(|e| ApiError::Internal(format!("export: {e}")))?
            .map_err(|e| ApiError::Internal(format!("export: {e}")))?;
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " -_.()".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let disposition = format!(
        "attachment; filename=\"{ascii}.zip\"; filename*=UTF-8''{}.zip",
        percent(&name)
    );
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `text` percent-encoded as RFC 5987 wants a file name (`filename*`).
fn percent(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

async fn create_note(
    State(state): State<AppState>,
    Auth(caller): Auth,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CreateNote>,
) -> Result<Response, ApiError> {
    let key = idempotency_key(&headers)?;
    let (note, replayed) = state
        .notes
        .create_note(&caller, Channel::App, body.title, key)
        .await?;
    let status = if replayed {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let location = format!("/notes/{}", note.note.id);
    let mut response = with_etag(note.note.version, (status, Json(note)).into_response());
    if let Ok(location) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

async fn get_note(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
) -> Result<Response, ApiError> {
    let note: StoredNote = state.notes.get_note(&caller, &id, Channel::App).await?;
    Ok(with_etag(note.note.version, Json(note).into_response()))
}

/// A body asking for one guarded write: PATCH's changes, restore's version.
pub(super) trait GuardedBody: DeserializeOwned + Send + 'static {
    /// The version the body expects (if it names one) and the change it asks for.
    fn into_write(self) -> (Option<Version>, Change);
}

impl GuardedBody for PatchNote<'static> {
    fn into_write(self) -> (Option<Version>, Change) {
        (
            self.expected_version,
            Change::Ops(self.changes.into_owned()),
        )
    }
}

impl GuardedBody for RestoreNote {
    fn into_write(self) -> (Option<Version>, Change) {
        (
            self.expected_version,
            Change::Restore {
                version: self.version,
            },
        )
    }
}

/// PATCH and restore: the version from the body or `If-Match`, the optional key, one write.
pub(super) async fn guarded_write<B: GuardedBody>(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    headers: HeaderMap,
    JsonBody(body): JsonBody<B>,
) -> Result<Response, ApiError> {
    let (body_version, change) = body.into_write();
    let precondition = precondition(&headers, body_version)?;
    let key = idempotency_key(&headers)?;
    let result = state
        .notes
        .write(
            &caller,
            Channel::App,
            id,
            precondition.expected,
            key,
            change,
        )
        .await
        .map_err(|e| ApiError::from(e).with_if_match(precondition.if_match))?;
    Ok(with_etag(result.version, Json(result).into_response()))
}

/// Takes back one version (`Notes::revert`): the version from the body or `If-Match`, the
/// optional key, one guarded write.
async fn revert(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    headers: HeaderMap,
    JsonBody(body): JsonBody<RevertNote>,
) -> Result<Response, ApiError> {
    let precondition = precondition(&headers, body.expected_version)?;
    let key = idempotency_key(&headers)?;
    let result = state
        .notes
        .revert(
            &caller,
            Channel::App,
            id,
            body.version,
            precondition.expected,
            key,
        )
        .await
        .map_err(|e| ApiError::from(e).with_if_match(precondition.if_match))?;
    Ok(with_etag(result.version, Json(result).into_response()))
}

async fn agent_access(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
) -> Result<Json<AgentAccess>, ApiError> {
    let access = state.notes.agent_access(&caller, Channel::App, &id).await?;
    Ok(Json(access))
}

async fn set_agent_access(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    JsonBody(body): JsonBody<SetAgentAccess>,
) -> Result<Json<AgentAccess>, ApiError> {
    let access = state
        .notes
        .set_agent_access(&caller, Channel::App, &id, body.approved)
        .await?;
    Ok(Json(access))
}

/// `GET /notes/{id}/versions[?before=V][&limit=N]`: every version, oldest first; with either
/// parameter, one page: the newest `limit` (default [`HISTORY_PAGE`], at most
/// [`HISTORY_PAGE_MAX`]) versions before `before`, oldest first. The page before it is
/// `?before=<its first version>`; the first page is the one that starts at version 1.
async fn history(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    RawQuery(raw): RawQuery,
) -> Result<Json<VersionList>, ApiError> {
    let versions = match history_params(raw.as_deref().unwrap_or_default())? {
        None => state.notes.history(&caller, &id, Channel::App).await?,
        Some((before, limit)) => {
            state
                .notes
                .history_page(&caller, &id, before, limit, Channel::App)
                .await?
        }
    };
    Ok(Json(VersionList { versions }))
}

/// Versions in a page of the history when `limit` is not given.
pub const HISTORY_PAGE: usize = 100;
/// The most versions one page holds.
pub const HISTORY_PAGE_MAX: usize = 1000;

/// `before` and `limit` from the query string; `None` when neither is given (the whole history).
fn history_params(raw: &str) -> Result<Option<(Option<Version>, usize)>, ApiError> {
    let mut before = None;
    let mut limit = None;
    for (name, value) in url::form_urlencoded::parse(raw.as_bytes()) {
        match name.as_ref() {
            "before" if before.is_none() => before = Some(value.into_owned()),
            "limit" if limit.is_none() => limit = Some(value.into_owned()),
            _ => {}
        }
    }
    if before.is_none() && limit.is_none() {
        return Ok(None);
    }
    let invalid = |field: &str, detail: String| ApiError::InvalidField {
        field: field.to_owned(),
        detail,
    };
    let before = match before {
        None => None,
        Some(text) => match text.parse::<u64>() {
            Ok(v) if v >= 1 => Some(Version(v)),
            _ => {
                return Err(invalid(
                    "before",
                    format!("{text:?}: give a version, a whole number from 1"),
                ));
            }
        },
    };
    let limit = match limit {
        None => HISTORY_PAGE,
        Some(text) => super::search::limit_param(&text, HISTORY_PAGE_MAX)?,
    };
    Ok(Some((before, limit)))
}

async fn note_at(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, version }: NotePath,
) -> Result<Response, ApiError> {
    let raw = version.unwrap_or_default();
    let version = raw
        .parse::<u64>()
        .map(Version)
        .map_err(|_| ApiError::VersionNotFound {
            note_id: id.clone(),
            version: format!("{raw:?} (versions are whole numbers from 1)"),
        })?;
    let note = state
        .notes
        .note_at(&caller, &id, version, Channel::App)
        .await?;
    Ok(with_etag(note.version, Json(note).into_response()))
}

/// The `{id}` (and `{version}`) of a `/notes/{id}/...` path. A malformed ID is a Note that
/// does not exist.
pub(super) struct NotePath {
    pub id: NoteId,
    pub version: Option<String>,
}

impl FromRequestParts<AppState> for NotePath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Path(mut params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|e| {
                ApiError::RouteNotFound(format!("{}: {}", parts.uri.path(), e.body_text()))
            })?;
        let raw = params.remove("id").unwrap_or_default();
        let id = raw
            .parse::<NoteId>()
            .map_err(|e| ApiError::NoteNotFound(e.to_string()))?;
        Ok(NotePath {
            id,
            version: params.remove("version"),
        })
    }
}

/// Where the expected version came from. A stale `If-Match` is 412, a stale body 409.
pub(super) struct Precondition {
    pub expected: Version,
    pub if_match: bool,
}

pub(super) fn precondition(
    headers: &HeaderMap,
    body: Option<Version>,
) -> Result<Precondition, ApiError> {
    let if_match = match headers.get(header::IF_MATCH) {
        None => None,
        Some(value) => Some(parse_if_match(value)?),
    };
    match (body, if_match) {
        (None, None) => Err(ApiError::PreconditionRequired),
        (Some(body), Some(header)) if body != header => Err(ApiError::ConflictingPreconditions {
            if_match: header,
            body,
        }),
        (Some(expected), _) => Ok(Precondition {
            expected,
            if_match: false,
        }),
        (None, Some(expected)) => Ok(Precondition {
            expected,
            if_match: true,
        }),
    }
}

/// `If-Match: "7"`: one strong entity tag holding a version.
fn parse_if_match(value: &HeaderValue) -> Result<Version, ApiError> {
    let text = value.to_str().unwrap_or_default().trim();
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .and_then(|t| t.parse::<u64>().ok())
        .map(Version)
        .ok_or_else(|| {
            ApiError::InvalidIfMatch(String::from_utf8_lossy(value.as_bytes()).into_owned())
        })
}

pub(super) fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(value) => value
            .to_str()
            .map(|k| Some(k.to_owned()))
            .map_err(|_| ApiError::BadIdempotencyKey("must be visible ASCII".to_owned())),
    }
}

/// `ETag: "<version>"`.
pub(super) fn with_etag(version: Version, mut response: Response) -> Response {
    if let Ok(tag) = HeaderValue::from_str(&format!("\"{version}\"")) {
        response.headers_mut().insert(header::ETAG, tag);
    }
    response
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn history_parameters_are_read_and_bounded() {
        let ok = |raw: &str| history_params(raw).ok();
        assert_eq!(ok(""), Some(None), "the whole history");
        assert_eq!(ok("other=1"), Some(None));
        assert_eq!(ok("limit=5"), Some(Some((None, 5))));
        assert_eq!(
            ok("before=40"),
            Some(Some((Some(Version(40)), HISTORY_PAGE)))
        );
        assert_eq!(
            ok("before=2&limit=1000&before=9"),
            Some(Some((Some(Version(2)), 1000)))
        );
        let field = |raw: &str| history_params(raw).err().and_then(|e| e.field());
        for (raw, want) in [
            ("before=0", "before"),
            ("before=-3", "before"),
            ("before=v4", "before"),
            ("limit=0", "limit"),
            ("limit=1001", "limit"),
            ("before=3&limit=x", "limit"),
        ] {
            assert_eq!(field(raw).as_deref(), Some(want), "{raw:?}");
        }
    }

    #[test]
    fn precondition_table() {
        let v = |n| Some(Version(n));
        let ok = |n, if_match| Ok::<_, &'static str>((Version(n), if_match));
        type Case = (
            &'static [(&'static str, &'static str)],
            Option<Version>,
            Result<(Version, bool), &'static str>,
        );
        let cases: &[Case] = &[
            (&[], None, Err("precondition_required")),
            (&[], v(3), ok(3, false)),
            (&[("if-match", "\"3\"")], None, ok(3, true)),
            (&[("if-match", " \"3\" ")], None, ok(3, true)),
            (&[("if-match", "\"3\"")], v(3), ok(3, false)),
            (
                &[("if-match", "\"3\"")],
                v(4),
                Err("conflicting_preconditions"),
            ),
            (&[("if-match", "3")], None, Err("invalid_if_match")),
            (&[("if-match", "W/\"3\"")], None, Err("invalid_if_match")),
            (&[("if-match", "*")], None, Err("invalid_if_match")),
            (&[("if-match", "\"-1\"")], None, Err("invalid_if_match")),
        ];
        for (pairs, body, want) in cases {
            let got = precondition(&headers(pairs), *body)
                .map(|p| (p.expected, p.if_match))
                .map_err(|e| e.code());
            assert_eq!(&got, want, "{pairs:?} {body:?}");
        }
    }
}
