//! A tab's content as the engine carries it: the model's [`TabData`] with its kind on the wire
//! (`{"type": "markdown", "data": "..."}`), and how a person's edit becomes an operation.

use quire_model::{Op, TabData, TabId, TabKind, TextSplice};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The content of one editable tab (Markdown, Sheet or Slides).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(as = "quire_model::ts::TabDataShape")
)]
#[serde(try_from = "RawContent")]
pub struct Content(pub Arc<TabData>);

impl Content {
    pub fn new(data: TabData) -> Self {
        Content(Arc::new(data))
    }

    /// The tab data, taken out (a copy only if this content is shared).
    pub fn into_data(self) -> TabData {
        Arc::unwrap_or_clone(self.0)
    }
}

/// As [`RawContent`], written from the content in place: no copy of a 10 MiB text (the local
/// store writes drafts with every edit).
impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = serializer.serialize_struct("RawContent", 2)?;
        raw.serialize_field("type", &self.0.kind())?;
        raw.serialize_field("data", &self.0.content())?;
        raw.end()
    }
}

#[derive(Deserialize)]
struct RawContent {
    #[serde(rename = "type")]
    kind: TabKind,
    data: Value,
}

impl TryFrom<RawContent> for Content {
    type Error = serde_json::Error;
    fn try_from(raw: RawContent) -> Result<Self, Self::Error> {
        Ok(Content::new(TabData::from_value(raw.kind, raw.data)?))
    }
}

/// Why a person's edit cannot be taken as a tab's content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error("content: the {0} tab changes only through its own operations, not by editing")]
    NotEditable(TabKind),
    #[error("content: not {kind} tab data: {reason}")]
    Malformed { kind: TabKind, reason: String },
}

impl Content {
    pub fn kind(&self) -> TabKind {
        self.0.kind()
    }

    /// Parses a person's edit for a tab of `kind`. Sources and Files are not edited as a whole.
    pub fn parse(kind: TabKind, data: Value) -> Result<Self, ContentError> {
        if !is_editable(kind) {
            return Err(ContentError::NotEditable(kind));
        }
        TabData::from_value(kind, data)
            .map(Content::new)
            .map_err(|e| ContentError::Malformed {
                kind,
                reason: e.to_string(),
            })
    }

    /// The operation that turns `base` (the tab's content at the version the save is made
    /// on) into this content: for a long Markdown text edited a little, `splice_text` of what
    /// changed (a save then costs the change, not the text); otherwise [`Content::to_op`].
    /// The same contents give the same operation, so a resent save is the same request.
    pub fn to_op_from(&self, base: &Content, tab_id: &TabId) -> Op {
        if let (TabData::Markdown(old), TabData::Markdown(new)) = (&*base.0, &*self.0)
            && new.len() >= SPLICE_FROM
        {
            let splice = text_splice(old, new);
            if splice.insert.len() <= new.len() / 2 {
                return Op::SpliceText {
                    tab_id: tab_id.clone(),
                    splices: vec![splice],
                };
            }
        }
        self.to_op(tab_id)
    }

    /// The operation that makes `tab_id` hold this content: `replace_text` for Markdown,
    /// `replace_tab_data` with the whole tab for Sheets and Slides.
    pub fn to_op(&self, tab_id: &TabId) -> Op {
        match &*self.0 {
            TabData::Markdown(text) => Op::ReplaceText {
                tab_id: tab_id.clone(),
                text: text.clone(),
            },
            other => Op::ReplaceTabData {
                tab_id: tab_id.clone(),
                data: other.to_value(),
            },
        }
    }
}

/// Texts shorter than this (bytes) are saved whole: a splice would save less than a page.
const SPLICE_FROM: usize = 4096;

/// The one splice (in characters) turning `old` into `new`: the common prefix and suffix kept,
/// the middle replaced.
fn text_splice(old: &str, new: &str) -> TextSplice {
    let prefix: usize = (old.chars().zip(new.chars()))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let (old_rest, new_rest) = (&old[prefix..], &new[prefix..]);
    let suffix: usize = (old_rest.chars().rev().zip(new_rest.chars().rev()))
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let cut = &old_rest[..old_rest.len() - suffix];
    TextSplice {
        at: old[..prefix].chars().count() as u64,
        delete: cut.chars().count() as u64,
        insert: new_rest[..new_rest.len() - suffix].to_owned(),
    }
}

/// Whether the person edits this kind of tab as a whole (and so can hold a draft of it).
pub fn is_editable(kind: TabKind) -> bool {
    matches!(kind, TabKind::Markdown | TabKind::Sheet | TabKind::Slides)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// Written in place, the wire form is the same as ever: `{"type", "data"}` with the tab's
    /// own form as `data`, and it reads back as the same content.
    #[test]
    fn content_is_written_as_its_kind_and_data() {
        let contents = [
            (TabKind::Markdown, json!("# A title\n\ntext")),
            (
                TabKind::Sheet,
                json!({"sheets": [{"id": "sheet-1", "name": "Sheet 1", "rows": [[1, "a", null], [-0.0]]}]}),
            ),
            (
                TabKind::Slides,
                json!({"slides": [{"id": "s-1", "title": "One", "body": "b", "notes": ""}]}),
            ),
        ];
        for (kind, data) in contents {
            let content = Content::new(TabData::from_value(kind, data).unwrap());
            let written = serde_json::to_value(&content).unwrap();
            assert_eq!(
                written,
                json!({"type": kind, "data": content.0.to_value()}),
                "{kind:?}"
            );
            let text = serde_json::to_string(&content).unwrap();
            assert_eq!(serde_json::from_str::<Content>(&text).unwrap(), content);
        }
    }
}
