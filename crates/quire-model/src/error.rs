use serde::Serialize;

/// Why an operation was refused. `field` names the argument at fault (`tab_id`, `values`,
/// `slides[3].title`, ...); `index` is the position of the operation in its batch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{field}: {reason}")]
pub struct OpError {
    pub code: OpErrorCode,
    pub index: usize,
    pub field: String,
    pub reason: String,
}

/// The field of a refusal that concerns the whole batch (empty, or too many operations).
pub(crate) const BATCH: &str = "changes";

/// Stable codes; transports map them once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpErrorCode {
    /// The operation is malformed or does not fit the tab it names.
    InvalidOp,
    /// No tab with that exact instance ID.
    TabNotFound,
    /// No sheet, slide, source or file with that ID.
    ItemNotFound,
    /// Not an http(s) URL.
    InvalidUrl,
    /// The write would pass one of [`crate::limits`]: too many, too long or too large.
    LimitExceeded,
}

impl OpErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            OpErrorCode::InvalidOp => "invalid_op",
            OpErrorCode::TabNotFound => "tab_not_found",
            OpErrorCode::ItemNotFound => "item_not_found",
            OpErrorCode::InvalidUrl => "invalid_url",
            OpErrorCode::LimitExceeded => "limit_exceeded",
        }
    }
}

impl OpError {
    pub(crate) fn new(
        code: OpErrorCode,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        OpError {
            code,
            index: 0,
            field: field.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(OpErrorCode::InvalidOp, field, reason)
    }

    /// A refusal that names a limit: `reason` says which, and its number.
    pub(crate) fn over_limit(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(OpErrorCode::LimitExceeded, field, reason)
    }

    /// The field with the batch position, as REST reports it: `changes[2].tab_id`; a refusal
    /// of the batch as a whole names `changes` itself.
    pub fn path(&self) -> String {
        if self.field == BATCH {
            return BATCH.to_owned();
        }
        format!("changes[{}].{}", self.index, self.field)
    }
}
