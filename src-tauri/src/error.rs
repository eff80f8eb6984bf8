//! The one error shape that crosses the IPC boundary, and the one place errors are mapped to it.

use quire_sync::{EngineError, TabSummary};
use serde::Serialize;

use quire_server::tokens::TokenError;
use quire_server::transfer::TransferError;

use crate::backend::BackendError;
use crate::embedded::EmbeddedError;
use crate::files::FileError;

/// A command's error as the UI receives it: `{"code": "...", "message": "..."}`, plus tabs
/// when the code is `tab_gone` or `revert_conflict`. The UI switches on `code`; never on `message`.
///
/// Codes are the engine's (`tab_gone`, `would_discard_drafts`, `version_conflict`, `offline`,
/// the server's own codes, ...; see [`EngineError::code`]) and the app's: `invalid_argument`,
/// `remote_mode`, `not_found`, `io`, `internal`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[error("{message}")]
pub struct CommandError {
    pub code: String,
    pub message: String,
    /// With `tab_gone`: the tabs the Note does have (route to one of them, never guess). With
    /// `revert_conflict`: the tabs where a later change clashes with the undo.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub tabs: Option<Vec<TabSummary>>,
}

/// The app's own codes (the engine's come from [`EngineError::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The UI sent arguments the command cannot use.
    InvalidArgument,
    /// The action is not available with a remote server (e.g. making tokens).
    RemoteMode,
    /// No such attachment, or its content is not on this machine.
    NotFound,
    /// Reading or writing a file failed.
    Io,
    /// A bug or an unexpected failure inside the app.
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::RemoteMode => "remote_mode",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Io => "io",
            ErrorCode::Internal => "internal",
        }
    }
}

impl CommandError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code: code.as_str().to_owned(),
            message: message.into(),
            tabs: None,
        }
    }
}

impl From<EngineError> for CommandError {
    fn from(error: EngineError) -> Self {
        let body = error.to_body();
        let tabs = match error {
            EngineError::TabGone { tabs, .. } | EngineError::RevertConflict { tabs, .. } => {
                Some(tabs)
            }
            _ => None,
        };
        CommandError {
            code: body.code,
            message: body.message,
            tabs,
        }
    }
}

impl From<BackendError> for CommandError {
    fn from(error: BackendError) -> Self {
        let code = match error {
            BackendError::Engine(engine) => return engine.into(),
            BackendError::Invalid(_) | BackendError::File(FileError::NotAFile { .. }) => {
                ErrorCode::InvalidArgument
            }
            BackendError::RemoteMode | BackendError::TransferRemote => ErrorCode::RemoteMode,
            BackendError::Transfer(TransferError::Io { .. } | TransferError::NotAFolder(_)) => {
                ErrorCode::Io
            }
            BackendError::Transfer(_) => ErrorCode::Internal,
            BackendError::NoSuchFile { .. } | BackendError::File(FileError::Missing { .. }) => {
                ErrorCode::NotFound
            }
            BackendError::File(FileError::Io { .. })
            | BackendError::Settings(_)
            | BackendError::DataDir { .. } => ErrorCode::Io,
            BackendError::Embedded(EmbeddedError::Token(TokenError::UnknownName(_))) => {
                ErrorCode::NotFound
            }
            BackendError::Embedded(_) => ErrorCode::Internal,
        };
        CommandError::new(code, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use quire_model::{TabId, TabKind};

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

    #[test]
    fn a_gone_tab_carries_the_tabs_there_are() {
        let tabs = vec![TabSummary {
            id: TabId::new("markdown"),
            kind: TabKind::Markdown,
            label: "Note".to_owned(),
        }];
        let error = CommandError::from(EngineError::TabGone {
            tab_id: TabId::new("sheet-4-abc"),
            tabs,
        });
        let json = serde_json::to_value(&error).expect("serialise");
        assert_eq!(json["code"], "tab_gone");
        assert_eq!(
            json["tabs"],
            serde_json::json!([{"id": "markdown", "type": "markdown", "label": "Note"}])
        );
        assert!(
            error.message.contains("sheet-4-abc"),
            "the message names the missing tab: {}",
            error.message
        );
    }
}
