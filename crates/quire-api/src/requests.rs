//! The request bodies, serialised by the app's client and read by the server. The server reads
//! them strictly (an unknown member is refused, naming it); the version a write expects may
//! come in `If-Match` instead of the body.

use std::borrow::Cow;

use quire_model::{Op, Version};
use serde::{Deserialize, Serialize};

/// `POST /notes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateNote {
    pub title: String,
}

/// `PATCH /notes/{id}`: every change applied, or none. The changes are borrowed when sent (a
/// save is not copied to be serialised) and owned when read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchNote<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<Version>,
    pub changes: Cow<'a, [Op]>,
}

/// `POST /notes/{id}/restore`: a new version equal to `version`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestoreNote {
    pub version: Version,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<Version>,
}

/// `POST /notes/{id}/revert`: a new version that takes back exactly what `version` changed,
/// keeping every later change elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RevertNote {
    pub version: Version,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<Version>,
}

/// `POST /notes/{id}/undelete`: the Note back out of the trash (the version may come in
/// `If-Match` instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndeleteNote {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_version: Option<Version>,
}

/// `PUT /notes/{id}/agent-access`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetAgentAccess {
    pub approved: bool,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use quire_model::TabId;
    use serde_json::json;

    use super::*;

    /// What the client sends is what the server reads, member for member.
    #[test]
    fn bodies_read_back_as_sent() {
        let ops = [Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text: "hi".to_owned(),
        }];
        let patch = PatchNote {
            expected_version: Some(Version(3)),
            changes: Cow::Borrowed(&ops),
        };
        let sent = serde_json::to_value(&patch).unwrap();
        assert_eq!(
            sent,
            json!({"expected_version": 3, "changes": [{"op": "replace_text", "tab_id": "markdown", "text": "hi"}]})
        );
        let read: PatchNote<'static> = serde_json::from_value(sent).unwrap();
        assert_eq!(read, patch);

        let restore = RestoreNote {
            version: Version(2),
            expected_version: Some(Version(5)),
        };
        let sent = serde_json::to_value(&restore).unwrap();
        assert_eq!(sent, json!({"version": 2, "expected_version": 5}));
        assert_eq!(
            serde_json::from_value::<RestoreNote>(sent).unwrap(),
            restore
        );
    }

    /// The version may come in `If-Match` instead; any member the server does not know is
    /// refused by name.
    #[test]
    fn the_expected_version_is_optional_and_strays_are_refused() {
        let read: PatchNote<'static> = serde_json::from_value(json!({"changes": []})).unwrap();
        assert_eq!(read.expected_version, None);
        let stray = serde_json::from_value::<PatchNote<'static>>(
            json!({"expected_version": 1, "changes": [], "extra": 1}),
        )
        .unwrap_err();
        assert!(
            stray.to_string().contains("unknown field `extra`"),
            "{stray}"
        );
        let stray = serde_json::from_value::<SetAgentAccess>(json!({"approved": true, "by": "x"}))
            .unwrap_err();
        assert!(stray.to_string().contains("unknown field `by`"), "{stray}");
    }
}
