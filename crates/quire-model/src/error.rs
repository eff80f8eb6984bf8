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
    /// For a quoted text edit not found once: which edit (`edits[i]`), and how often its
    /// `old_text` occurs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<EditMiss>,
}

/// Which edit of an `edit_text` missed, and how often its `old_text` occurs (0, or 2 and more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EditMiss {
    pub index: usize,
    pub occurrences: usize,
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
    /// An `edit_text` edit's `old_text` is not in the text.
    OldTextNotFound,
    /// An `edit_text` edit's `old_text` is in the text more than once.
    OldTextNotUnique,
}

impl OpErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            OpErrorCode::InvalidOp => "invalid_op",
            OpErrorCode::TabNotFound => "tab_not_found",
            OpErrorCode::ItemNotFound => "item_not_found",
            OpErrorCode::InvalidUrl => "invalid_url",
            OpErrorCode::LimitExceeded => "limit_exceeded",
            OpErrorCode::OldTextNotFound => "old_text_not_found",
            OpErrorCode::OldTextNotUnique => "old_text_not_unique",
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
            edit: None,
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
