//! The one error shape that crosses the IPC boundary.

use serde::Serialize;

/// What the UI switches on. Serialised in snake_case; never match on `message`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The UI sent arguments the command cannot use.
    InvalidArgument,
    /// A bug or an unexpected failure inside the app.
    Internal,
}

/// A command's error as the UI receives it: `{"code": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub code: ErrorCode,
    pub message: String,
}

impl CommandError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_code_and_message() {
        let error = CommandError::new(ErrorCode::InvalidArgument, "painted_at_unix_ms is negative");
        let json = serde_json::to_value(&error).expect("serialise");
        assert_eq!(
            json,
            serde_json::json!({"code": "invalid_argument", "message": "painted_at_unix_ms is negative"})
        );
    }
}
