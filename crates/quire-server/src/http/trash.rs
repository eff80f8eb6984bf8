//! The trash over REST (the person's, like every REST route): `DELETE /notes/{id}` (guarded by
//! `If-Match`), `GET /notes?trash=true`, `POST /notes/{id}/undelete` (in `rest`, as a guarded
//! body) and `DELETE /trash[?older_than_days=N]`, which erases for good.

use std::collections::HashMap;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use quire_api::{NoteList, UndeleteNote};
use quire_model::{NoteId, Version};
use quire_store::Change;
use serde::Serialize;

use super::AppState;
use super::auth::Auth;
use super::error::ApiError;
use super::rest::{GuardedBody, NotePath, idempotency_key, precondition, with_etag};
use crate::notes::Channel;

impl GuardedBody for UndeleteNote {
    fn into_write(self) -> (Option<Version>, Change) {
        (self.expected_version, Change::Undelete)
    }
}

/// The query string's parameters; one that cannot be read is refused naming the query.
type Params = Result<Query<HashMap<String, String>>, QueryRejection>;

fn params(query: Params) -> Result<HashMap<String, String>, ApiError> {
    query.map(|Query(p)| p).map_err(|e| ApiError::InvalidField {
        field: "query".to_owned(),
        detail: e.body_text(),
    })
}

/// `GET /notes`: the Notes out of the trash; `?trash=true`: those in it, most recently
/// trashed first, each with `deleted_at`.
pub(super) async fn list_notes(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: Params,
) -> Result<Json<NoteList>, ApiError> {
    let trash = match params(query)?.get("trash").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::InvalidField {
                field: "trash".to_owned(),
                detail: format!("must be true or false, got {other:?}"),
            });
        }
    };
    let notes = if trash {
        state.notes.list_trash(&caller, Channel::App).await?
    } else {
        state.notes.list_notes(&caller, Channel::App).await?
    };
    Ok(Json(NoteList { notes }))
}

/// `DELETE /notes/{id}` with `If-Match: "N"`: into the trash, a guarded write.
pub(super) async fn trash_note(
    State(state): State<AppState>,
    Auth(caller): Auth,
    NotePath { id, .. }: NotePath,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let precondition = precondition(&headers, None)?;
    let key = idempotency_key(&headers)?;
    let trashed = state
        .notes
        .trash(&caller, Channel::App, id, precondition.expected, key)
        .await
        .map_err(|e| ApiError::from(e).with_if_match(precondition.if_match))?;
    Ok(with_etag(trashed.version, Json(trashed).into_response()))
}

/// What `DELETE /trash` erased.
#[derive(Debug, Serialize)]
pub(super) struct Emptied {
    pub erased: Vec<NoteId>,
}

/// `DELETE /trash[?older_than_days=N]`: erases for good the Notes in the trash (those trashed
/// more than N days ago). Nothing else ever erases a Note.
pub(super) async fn empty_trash(
    State(state): State<AppState>,
    Auth(caller): Auth,
    query: Params,
) -> Result<Json<Emptied>, ApiError> {
    let days = match params(query)?.get("older_than_days") {
        None => None,
        Some(raw) => Some(raw.parse::<u32>().map_err(|_| ApiError::InvalidField {
            field: "older_than_days".to_owned(),
            detail: format!("must be a whole number of days from 0, got {raw:?}"),
        })?),
    };
    let erased = state.notes.empty_trash(&caller, Channel::App, days).await?;
    Ok(Json(Emptied { erased }))
}
