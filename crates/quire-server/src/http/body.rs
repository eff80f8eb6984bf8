//! JSON request bodies, refused with a problem that names the member at fault.
//!
//! A body must say it is JSON (`Content-Type: application/json` or `application/*+json`), else
//! 415 `unsupported_media_type`: a web page may send a `text/plain` or form body to any address
//! without the browser asking first (no CORS preflight), never an `application/json` one.
//!
//! Syntax (bad JSON, invalid UTF-8, a lone surrogate such as `"\ud800"`) is 400
//! `malformed_json`; a well-formed body of the wrong shape is 422 (`unknown_field`,
//! `invalid_op` inside `changes`, `invalid_field` elsewhere) with the path, e.g.
//! `changes[1].tab_id`; a body over the limit is 413.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderValue, StatusCode, header};
use quire_model::{Op, OpError, OpErrorCode, WideInteger, find_wide_integer};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;

/// A JSON body of type `T`, parsed strictly (request types deny unknown fields).
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<AppState> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        json_content_type(req.headers().get(header::CONTENT_TYPE))?;
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge {
                    limit: state.body_limit,
                }
            } else {
                ApiError::MalformedJson {
                    detail: format!("cannot read the body: {}", rejection.body_text()),
                    field: None,
                }
            }
        })?;
        parse(&bytes).map(JsonBody)
    }
}

/// Accepts `application/json` and `application/<anything>+json`, with any parameters
/// (`; charset=utf-8`); anything else, or no `Content-Type` at all, is refused.
pub fn json_content_type(value: Option<&HeaderValue>) -> Result<(), ApiError> {
    let given = value.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let json = given
        .as_deref()
        .and_then(|v| v.parse::<mime::Mime>().ok())
        .is_some_and(|m| {
            m.type_() == mime::APPLICATION
                && (m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON))
        });
    if json {
        Ok(())
    } else {
        Err(ApiError::UnsupportedMediaType { given })
    }
}

/// Parses a request body. Pure; the extractor above is its only HTTP part.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ApiError::MalformedJson {
        detail: format!("the body is not valid UTF-8 (byte {})", e.valid_up_to()),
        field: None,
    })?;
    if text.trim().is_empty() {
        return Err(ApiError::MalformedJson {
            detail: "the body is empty; send a JSON object".to_owned(),
            field: None,
        });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de)
        .map_err(classify)
        .map_err(|e| name_op_member(e, text))?;
    de.end().map_err(|e| ApiError::MalformedJson {
        detail: format!("trailing characters after the JSON value: {e}"),
        field: None,
    })?;
    if let Some(wide) = find_wide_integer(text) {
        return Err(wide_integer(wide));
    }
    Ok(value)
}

/// An integer too wide to read back as written, refused where it is (422).
fn wide_integer(wide: WideInteger) -> ApiError {
    let reason = wide.reason();
    match op_position(&wide.path) {
        Some((index, rest)) => ApiError::Op(OpError {
            code: OpErrorCode::InvalidOp,
            index,
            field: rest.to_owned(),
            reason,
            edit: None,
        }),
        None => ApiError::InvalidField {
            field: if wide.path.is_empty() {
                "body".to_owned()
            } else {
                wide.path
            },
            detail: reason,
        },
    }
}

fn classify(e: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    // "." is the whole body; "?" a position serde_path_to_error could not track.
    let path = (path != "." && path != "?").then_some(path);
    if !inner.is_data() {
        return ApiError::MalformedJson {
            detail: match &path {
                Some(path) => format!("{path}: {inner}"),
                None => inner.to_string(),
            },
            field: path,
        };
    }
    let message = strip_position(&inner);
    // For a stray or missing member the path ends at the object that holds it: name the
    // member itself.
    let stray = quoted_after(&message, "unknown field `");
    let member = stray.or_else(|| quoted_after(&message, "missing field `"));
    let field = match (path, member) {
        (None, Some(member)) => member.to_owned(),
        (Some(path), Some(member)) if !path.ends_with(member) => format!("{path}.{member}"),
        (Some(path), _) => path,
        (None, None) => "body".to_owned(),
    };
    if stray.is_some() {
        return ApiError::UnknownField {
            field,
            detail: message,
        };
    }
    match op_position(&field) {
        Some((index, rest)) => ApiError::Op(OpError {
            code: OpErrorCode::InvalidOp,
            index,
            // An unknown or missing `op` tag leaves the path at the operation itself.
            field: if rest.is_empty() { "op" } else { rest }.to_owned(),
            reason: message,
            edit: None,
        }),
        None => ApiError::InvalidField {
            field,
            detail: message,
        },
    }
}

/// An operation is an internally tagged enum, which serde buffers before reading it: a wrong
/// type inside one reports the operation, not the member. Find the member by trying each on its
/// own (`{"op": ..., member}`): only the culprit fails with something other than a missing field.
fn name_op_member(error: ApiError, text: &str) -> ApiError {
    let ApiError::Op(mut op_error) = error else {
        return error;
    };
    if op_error.field != "op" {
        return ApiError::Op(op_error);
    }
    let body: Option<Value> = serde_json::from_str(text).ok();
    let change = body
        .as_ref()
        .and_then(|b| b.get("changes"))
        .and_then(|c| c.get(op_error.index))
        .and_then(Value::as_object);
    let Some(change) = change else {
        return ApiError::Op(op_error);
    };
    let tag = change.get("op").cloned().unwrap_or(Value::Null);
    let fails_apart = |probe: Value| match serde_json::from_value::<Op>(probe) {
        Ok(_) => false,
        Err(e) => !e.to_string().starts_with("missing field"),
    };
    if fails_apart(json!({ "op": tag })) {
        // The tag itself is wrong.
        return ApiError::Op(op_error);
    }
    if let Some(member) = change
        .iter()
        .filter(|(k, _)| k.as_str() != "op")
        .find(|(k, v)| fails_apart(json!({ "op": tag, k.as_str(): v })))
        .map(|(k, _)| k.clone())
    {
        op_error.field = member;
    }
    ApiError::Op(op_error)
}

/// `changes[3].tab_id` -> (3, "tab_id"); `changes[3]` -> (3, "").
fn op_position(path: &str) -> Option<(usize, &str)> {
    let rest = path.strip_prefix("changes[")?;
    let (index, rest) = rest.split_once(']')?;
    let index = index.parse().ok()?;
    Some((index, rest.strip_prefix('.').unwrap_or(rest)))
}

/// serde's "unknown field `foo`, expected ..." -> `foo`.
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(name, _)| name)
}

/// serde_json appends " at line L column C"; the field path says more.
fn strip_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use quire_model::Version;
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Patch {
        expected_version: Option<Version>,
        changes: Vec<Op>,
    }

    fn refuse(body: &[u8]) -> (&'static str, StatusCode, Option<String>) {
        let e = parse::<Patch>(body).unwrap_err();
        (e.code(), e.status(), e.field())
    }

    #[test]
    fn only_json_media_types_are_accepted() {
        let accepted = [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            "application/merge-patch+json",
            "application/problem+json",
        ];
        for value in accepted {
            let header = HeaderValue::from_static(value);
            assert!(json_content_type(Some(&header)).is_ok(), "{value}");
        }
        let refused = [
            "text/plain",
            "text/plain; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "text/json",
            "application/jsonp",
            "application/json-seq",
            "json",
            "",
        ];
        for value in refused {
            let header = HeaderValue::from_static(value);
            let e = json_content_type(Some(&header)).unwrap_err();
            assert_eq!(
                (e.code(), e.status(), e.field().as_deref()),
                (
                    "unsupported_media_type",
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    Some("Content-Type")
                ),
                "{value}"
            );
        }
        let missing = json_content_type(None).unwrap_err();
        assert_eq!(missing.code(), "unsupported_media_type");
        assert!(missing.to_string().contains("no Content-Type"), "{missing}");
    }

    #[test]
    fn refusals_name_the_member() {
        let bad = StatusCode::BAD_REQUEST;
        let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
        let cases: &[(&[u8], &str, StatusCode, Option<&str>)] = &[
            (b"{", "malformed_json", bad, None),
            (b"", "malformed_json", bad, None),
            (b"\xff\xfe", "malformed_json", bad, None),
            (b"{\"changes\": [] } x", "malformed_json", bad, None),
            (
                br#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "\ud800"}]}"#,
                "malformed_json",
                bad,
                Some("changes[0].text"),
            ),
            (
                br#"{"expected_version": 1, "changes": [], "extra": 1}"#,
                "unknown_field",
                unprocessable,
                Some("extra"),
            ),
            (
                br#"{"expected_version": "7", "changes": []}"#,
                "invalid_field",
                unprocessable,
                Some("expected_version"),
            ),
            (
                br#"{"expected_version": -1, "changes": []}"#,
                "invalid_field",
                unprocessable,
                Some("expected_version"),
            ),
            (
                br#"{"expected_version": 1}"#,
                "invalid_field",
                unprocessable,
                Some("changes"),
            ),
            (
                br#"[1]"#,
                "invalid_field",
                unprocessable,
                Some("body"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown"}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].text"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "slides_add_outline", "tab_id": "s", "slides": [{"title": 1}]}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].slides"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": 7, "tab_id": "markdown"}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].op"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"tab_id": "markdown"}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].op"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "frobnicate"}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].op"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "a"}, {"op": "replace_text", "tab_id": 5, "text": "b"}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[1].tab_id"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "a", "colour": "red"}]}"#,
                "unknown_field",
                unprocessable,
                Some("changes[0].colour"),
            ),
            (
                br#"{"expected_version": 1, "changes": [{"op": "sheet_set_range", "tab_id": "s", "start_row": 0, "start_col": 0, "values": [[1, 123456789012345678901234567890]]}]}"#,
                "invalid_op",
                unprocessable,
                Some("changes[0].values[0][1]"),
            ),
            (
                br#"{"expected_version": 123456789012345678901234567890, "changes": []}"#,
                "invalid_field",
                unprocessable,
                Some("expected_version"),
            ),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|(body, code, status, field)| {
                let got = refuse(body);
                let want = (*code, *status, field.map(str::to_owned));
                (got != want).then(|| {
                    format!(
                        "{}: got {got:?}, want {want:?}",
                        String::from_utf8_lossy(body)
                    )
                })
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
