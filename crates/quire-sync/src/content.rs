//! A tab's content as the engine carries it: the model's [`TabData`] with its kind on the wire
//! (`{"type": "markdown", "data": "..."}`), and how a person's edit becomes an operation.

use quire_model::bytes::{common_prefix, common_suffix};
use quire_model::{Op, TabData, TabId, TabKind, Text, TextSplice};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// The content of one editable tab (Markdown, Sheet or Slides).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(as = "quire_model::ts::TabDataShape")
)]
#[serde(try_from = "RawContent")]
pub struct Content(pub Arc<TabData>);

/// The same content: one shared value is equal to itself without comparing it (a draft whose
/// text is the save just acknowledged, 10 MiB compared per keystroke otherwise).
impl PartialEq for Content {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

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
/// store writes drafts with every edit). While the local store prepares a row, a long text is
/// written as a placeholder and taken by reference ([`crate::local::share_text`]).
impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match crate::local::share_text(&self.0) {
            Some(placeholder) => {
                use serde::ser::SerializeStruct;
                let mut raw = serializer.serialize_struct("RawContent", 2)?;
                raw.serialize_field("type", &TabKind::Markdown)?;
                raw.serialize_field("data", &placeholder)?;
                raw.end()
            }
            None => ContentOf(&self.0).serialize(serializer),
        }
    }
}

/// A tab's data written as a [`Content`], without making one (which would copy the data).
pub(crate) struct ContentOf<'a>(pub &'a TabData);

impl Serialize for ContentOf<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = serializer.serialize_struct("RawContent", 2)?;
        raw.serialize_field("type", &self.0.kind())?;
        raw.serialize_field("data", &DataOf(self.0))?;
        raw.end()
    }
}

/// A tab's `data` as written; while the local store prepares a row, a long text it knows is
/// written as a placeholder and taken by reference ([`crate::local::share_equal_text`]).
pub(crate) struct DataOf<'a>(pub &'a TabData);

impl Serialize for DataOf<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            TabData::Markdown(text) => match crate::local::share_equal_text(text) {
                Some(placeholder) => placeholder.serialize(serializer),
                None => text.serialize(serializer),
            },
            other => other.content().serialize(serializer),
        }
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
            let splice = text_splice_of(old, new);
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
                text: text.to_string(),
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

/// The one splice (in characters) turning `old` into `new`: the one `new` was made with, else
/// the common prefix and suffix kept and the middle replaced (see [`splice_between_texts`]).
fn text_splice_of(old: &Text, new: &Text) -> TextSplice {
    in_characters(old, splice_between_texts(old, new))
}

/// A splice of `old` in bytes, as a `TextSplice` counts it (in characters: found from the
/// text's marks, not counted from its start).
fn in_characters(old: &Text, (at, removed, inserted): (usize, usize, &str)) -> TextSplice {
    let from = old.chars_before(at);
    TextSplice {
        at: from as u64,
        delete: (old.chars_before(at + removed) - from) as u64,
        insert: inserted.to_owned(),
    }
}

/// As [`splice_between`], taking the splice `new` was made with when it was made from `old` (a
/// keystroke handed over: see [`splice_utf16`]) instead of comparing the two whole.
pub(crate) fn splice_between_texts<'a>(old: &Text, new: &'a Text) -> (usize, usize, &'a str) {
    new.splice_from(old)
        .unwrap_or_else(|| splice_between(old, new))
}

/// The splice that makes `new` from `old`: (byte offset, bytes removed, text inserted), on
/// character boundaries of both.
pub(crate) fn splice_between<'a>(old: &str, new: &'a str) -> (usize, usize, &'a str) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = common_prefix(a, b);
    // The same bytes before it: a boundary in one is a boundary in the other.
    while !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let mut suffix = common_suffix(&a[prefix..], &b[prefix..]);
    while !new.is_char_boundary(b.len() - suffix) || !old.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    (
        prefix,
        a.len() - suffix - prefix,
        &new[prefix..b.len() - suffix],
    )
}

/// Whether the person edits this kind of tab as a whole (and so can hold a draft of it).
pub fn is_editable(kind: TabKind) -> bool {
    matches!(kind, TabKind::Markdown | TabKind::Sheet | TabKind::Slides)
}

/// `text` with `removed` UTF-16 code units at UTF-16 offset `at` replaced by `insert`: a change
/// as an editor in the web view counts it. `None` when the range is not in the text or cuts a
/// character (half a surrogate pair). The new text remembers the splice ([`Text::spliced`]),
/// and both ends are found from the text's marks ([`Text::byte_at_utf16`]).
pub fn splice_utf16(text: &Text, at: usize, removed: usize, insert: &str) -> Option<Text> {
    let start = text.byte_at_utf16(at)?;
    let end = text.byte_at_utf16(at.checked_add(removed)?)?;
    text.spliced(start, end - start, insert)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// The splice found by comparing the two whole.
    fn text_splice(old: &str, new: &str) -> TextSplice {
        in_characters(&Text::from(old), splice_between(old, new))
    }

    /// Contents are equal by what they hold, one shared value to itself at once.
    #[test]
    fn contents_are_equal_by_what_they_hold() {
        let a = Content::new(TabData::Markdown("text".repeat(1000).into()));
        assert_eq!(a, a.clone());
        assert_eq!(
            a,
            Content::new(TabData::Markdown("text".repeat(1000).into()))
        );
        assert_ne!(
            a,
            Content::new(TabData::Markdown("text".repeat(999).into()))
        );
        assert_ne!(a, Content::new(TabData::Markdown(Text::default())));
    }

    /// The splice a save sends counts characters, found at memory speed: the same as counted
    /// a character at a time.
    #[test]
    fn the_splice_of_a_save_counts_characters() {
        let naive = |old: &str, new: &str| {
            let prefix = old
                .chars()
                .zip(new.chars())
                .take_while(|(a, b)| a == b)
                .count();
            let (o, n): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
            let room = o.len().min(n.len()) - prefix;
            let suffix = o
                .iter()
                .rev()
                .zip(n.iter().rev())
                .take(room)
                .take_while(|(a, b)| a == b)
                .count();
            (
                prefix as u64,
                (o.len() - prefix - suffix) as u64,
                n[prefix..n.len() - suffix].iter().collect::<String>(),
            )
        };
        let long = "\u{e9}t\u{e9} ".repeat(5_000);
        let cases = [
            ("abc", "abXc"),
            ("\u{e9}\u{e9}", "\u{e9}\u{e8}"),
            ("\u{1F600}\u{1F600}", "\u{1F600}\u{1F601}\u{1F600}"),
            ("same", "same"),
            ("", "all new"),
            (long.as_str(), "tail"),
        ];
        let edited = format!("{}!{}", &long[..6_002], &long[6_002..]);
        for (old, new) in cases.into_iter().chain([(long.as_str(), edited.as_str())]) {
            let s = text_splice(old, new);
            assert_eq!(
                (s.at, s.delete, s.insert),
                naive(old, new),
                "{old:.20} -> {new:.20}"
            );
        }
    }

    #[test]
    fn a_splice_counted_in_utf16_lands_between_the_same_characters() {
        let text = &Text::from("ab\u{e9}c\u{1F600}d");
        // UTF-16: a b é c (2 units) d.
        assert_eq!(
            splice_utf16(text, 0, 0, "x").as_deref(),
            Some("xab\u{e9}c\u{1F600}d")
        );
        assert_eq!(
            splice_utf16(text, 2, 1, "e").as_deref(),
            Some("abec\u{1F600}d")
        );
        assert_eq!(splice_utf16(text, 4, 2, "").as_deref(), Some("ab\u{e9}cd"));
        assert_eq!(
            splice_utf16(text, 7, 0, "!").as_deref(),
            Some("ab\u{e9}c\u{1F600}d!")
        );
        assert_eq!(
            splice_utf16(text, 5, 0, "x"),
            None,
            "inside a surrogate pair"
        );
        assert_eq!(splice_utf16(text, 4, 1, ""), None, "half a surrogate pair");
        assert_eq!(splice_utf16(text, 8, 0, "x"), None, "past the end");
        assert_eq!(splice_utf16(text, 6, 2, ""), None, "past the end");
        let long = Text::from("x".repeat(100_000) + "\u{e9}");
        assert_eq!(
            splice_utf16(&long, 100_001, 0, "!").map(|t| t.ends_with("\u{e9}!")),
            Some(true)
        );
    }

    #[test]
    fn a_handed_over_keystroke_is_saved_as_the_splice_it_was_made_with() {
        let old = Text::from("\u{e9}t\u{e9} ".repeat(2_000));
        // A keystroke: the same splice as comparing the two finds.
        let typed = splice_utf16(&old, 4_001, 0, "x").expect("in the text");
        assert_eq!(text_splice_of(&old, &typed), text_splice(&old, &typed));
        assert_eq!(text_splice_of(&old, &typed).at, 4_001);
        // A word selected and typed over with itself: comparing finds no change, the hand-over's
        // own splice says what was done. It is taken, so nothing was compared.
        let over = splice_utf16(&old, 4, 3, "\u{e9}t\u{e9}").expect("in the text");
        assert_eq!(over, old);
        let s = text_splice_of(&old, &over);
        assert_eq!((s.at, s.delete, s.insert.as_str()), (4, 3, "\u{e9}t\u{e9}"));
        assert_eq!(text_splice(&old, &over).delete, 0);
        // From another text, even an equal one: compared.
        let other = Text::from(old.to_string());
        assert_eq!(text_splice_of(&other, &over).delete, 0);
    }

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
