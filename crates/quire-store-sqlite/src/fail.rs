//! What goes wrong inside the store, on its way to a [`StoreError`]: the store's own refusals
//! pass through as they are; SQLite's and JSON's errors reach callers as
//! [`StoreError::Backend`].

use quire_model::OpError;
use quire_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub(crate) enum Fail {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored JSON: {0}")]
    Json(#[from] serde_json::Error),
}

pub(crate) type Result<T, E = Fail> = std::result::Result<T, E>;

impl From<OpError> for Fail {
    fn from(e: OpError) -> Self {
        Fail::Store(StoreError::Invalid(e))
    }
}

impl From<Fail> for StoreError {
    fn from(fail: Fail) -> Self {
        match fail {
            Fail::Store(e) => e,
            other => StoreError::Backend(other.to_string()),
        }
    }
}

/// A SQLite error as callers see it.
pub(crate) fn sqlite(e: rusqlite::Error) -> StoreError {
    Fail::Sqlite(e).into()
}
