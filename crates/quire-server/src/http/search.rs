//! `GET /search?q=TEXT[&limit=N]`: the person's full-text search (`notes:read`).

use axum::Json;
use axum::extract::{RawQuery, State};
use quire_api::SearchResults;

use super::AppState;
use super::auth::Auth;
use super::error::ApiError;
use crate::notes::Channel;

/// Results when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 20;
/// The most results one search returns.
pub const MAX_LIMIT: usize = 100;

pub(super) async fn search(
    State(state): State<AppState>,
    Auth(caller): Auth,
    RawQuery(raw): RawQuery,
) -> Result<Json<SearchResults>, ApiError> {
    let (q, limit) = params(raw.as_deref().unwrap_or_default())?;
    let results = state.notes.search(&caller, Channel::App, &q, limit).await?;
    Ok(Json(SearchResults { results }))
}

/// `q` and `limit` from the query string (the first of each; other parameters are ignored).
fn params(raw: &str) -> Result<(String, usize), ApiError> {
    let mut q = None;
    let mut limit = None;
    for (name, value) in url::form_urlencoded::parse(raw.as_bytes()) {
        match name.as_ref() {
            "q" if q.is_none() => q = Some(value.into_owned()),
            "limit" if limit.is_none() => limit = Some(value.into_owned()),
            _ => {}
        }
    }
    let invalid = |field: &str, detail: String| ApiError::InvalidField {
        field: field.to_owned(),
        detail,
    };
    let q = q.ok_or_else(|| invalid("q", "give the words to search for as ?q=".to_owned()))?;
    let limit = match limit {
        None => DEFAULT_LIMIT,
        Some(text) => limit_param(&text, MAX_LIMIT)?,
    };
    Ok((q, limit))
}

/// A `limit` query parameter: a whole number from 1 to `max`, else refused naming `limit`.
pub(super) fn limit_param(text: &str, max: usize) -> Result<usize, ApiError> {
    match text.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(ApiError::InvalidField {
            field: "limit".to_owned(),
            detail: format!("{text:?}: give a whole number from 1 to {max}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_and_bounded() {
        let ok = |raw: &str| params(raw).ok();
        assert_eq!(ok("q=plan"), Some(("plan".to_owned(), DEFAULT_LIMIT)));
        assert_eq!(ok("q=a%20b&limit=100"), Some(("a b".to_owned(), 100)));
        assert_eq!(ok("limit=1&q=x+y&q=z"), Some(("x y".to_owned(), 1)));
        assert_eq!(ok("q=%22NEAR(%22&x=1"), Some(("\"NEAR(\"".to_owned(), 20)));
        let field = |raw: &str| params(raw).err().and_then(|e| e.field());
        for (raw, want) in [
            ("", "q"),
            ("limit=5", "q"),
            ("q=a&limit=101", "limit"),
            ("q=a&limit=0", "limit"),
            ("q=a&limit=-1", "limit"),
            ("q=a&limit=ten", "limit"),
        ] {
            assert_eq!(field(raw).as_deref(), Some(want), "{raw:?}");
        }
    }
}
