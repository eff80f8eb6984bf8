//! [`Text`]: a Markdown tab's text, shared rather than copied.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Weak};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Markdown tab's text. A clone shares it: one 10 MiB text is held at once by a Note, the
/// drafts made on it, the save that wrote it and the caches around them, and each of those
/// would otherwise be a copy of it made on every keystroke. It changes only through
/// [`Text::make_mut`], which copies it first when it is shared, so a holder never sees another
/// holder's change. Reads as a `str`; written and read as a JSON string.
///
/// A text made by [`Text::spliced`] remembers the splice it was made with, so the splice
/// between it and the text it was made from is known without comparing the two
/// ([`Text::splice_from`]): a keystroke in a long text does not compare it whole to find where
/// it changed.
#[derive(Clone, Default)]
pub struct Text(Arc<Inner>);

#[derive(Clone, Default)]
struct Inner {
    text: String,
    origin: Option<Origin>,
}

/// The text this one was made from (held weakly: it may be gone) and the splice, in bytes.
#[derive(Clone)]
struct Origin {
    from: Weak<Inner>,
    at: usize,
    removed: usize,
    inserted: usize,
}

impl Text {
    pub fn new(text: String) -> Self {
        Text(Arc::new(Inner { text, origin: None }))
    }

    pub fn as_str(&self) -> &str {
        &self.0.text
    }

    /// The text to change in place: this holder's own (copied first when it is shared).
    pub fn make_mut(&mut self) -> &mut String {
        let inner = Arc::make_mut(&mut self.0);
        inner.origin = None;
        &mut inner.text
    }

    /// The text as a `String`: moved out when this is its only holder, else copied.
    pub fn into_string(self) -> String {
        match Arc::try_unwrap(self.0) {
            Ok(inner) => inner.text,
            Err(shared) => shared.text.clone(),
        }
    }

    /// This text with the `removed` bytes at byte `at` replaced by `insert`, remembering that
    /// splice (see [`Text::splice_from`]). `None` when the range is not in the text or does not
    /// start and end on character boundaries.
    pub fn spliced(&self, at: usize, removed: usize, insert: &str) -> Option<Text> {
        let end = at.checked_add(removed)?;
        let (head, tail) = (self.get(..at)?, self.get(end..)?);
        let mut text = String::with_capacity(head.len() + insert.len() + tail.len());
        text.push_str(head);
        text.push_str(insert);
        text.push_str(tail);
        Some(Text(Arc::new(Inner {
            text,
            origin: Some(Origin {
                from: Arc::downgrade(&self.0),
                at,
                removed,
                inserted: insert.len(),
            }),
        })))
    }

    /// When this text was made from `old` by [`Text::spliced`]: that splice, as (byte offset,
    /// bytes removed from `old`, text inserted), with no comparison of the two.
    pub fn splice_from(&self, old: &Text) -> Option<(usize, usize, &str)> {
        let origin = self.0.origin.as_ref()?;
        // `old` is alive, and a `Weak` keeps its allocation's address from being reused: the
        // same address is `old` itself.
        if !std::ptr::eq(origin.from.as_ptr(), Arc::as_ptr(&old.0)) {
            return None;
        }
        let inserted = self.get(origin.at..origin.at + origin.inserted)?;
        Some((origin.at, origin.removed, inserted))
    }

    /// Whether the two hold the very same text (the same shared value), without reading it.
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

/// The same text: one shared value is equal to itself without comparing it.
impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        Text::ptr_eq(self, other) || self.0.text == other.0.text
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text::new(text)
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text::new(text.to_owned())
    }
}

impl From<Text> for String {
    fn from(text: Text) -> Self {
        text.into_string()
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Text::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_to_one_holder_is_not_seen_by_another() {
        let a = Text::from("naïve café");
        let mut b = a.clone();
        assert!(Text::ptr_eq(&a, &b));
        b.make_mut().push('!');
        assert_eq!(a, "naïve café");
        assert_eq!(b, "naïve café!");
        assert!(!Text::ptr_eq(&a, &b));
    }

    #[test]
    fn equal_by_what_it_holds_and_written_as_a_string() {
        let (a, b) = (Text::from("x\"y"), Text::from("x\"y".to_owned()));
        assert!(!Text::ptr_eq(&a, &b));
        assert_eq!(a, b);
        assert_ne!(a, Text::from("x\"z"));
        let json = serde_json::to_string(&a).expect("written");
        assert_eq!(json, r#""x\"y""#);
        assert_eq!(serde_json::from_str::<Text>(&json).expect("read"), a);
        assert_eq!(format!("{a:?}"), format!("{:?}", "x\"y"));
    }

    #[test]
    fn a_spliced_text_knows_its_splice_from_the_text_it_was_made_from_only() {
        let a = Text::from("naïve café");
        let b = a.spliced(7, 5, "tea").expect("on boundaries");
        assert_eq!(b, "naïve tea");
        assert_eq!(b.splice_from(&a), Some((7, 5, "tea")));
        // Another text, even an equal one, is compared, not assumed.
        assert_eq!(b.splice_from(&Text::from("naïve café")), None);
        assert_eq!(a.splice_from(&b), None);
        // Changed in place: the splice it was made with no longer tells how.
        let mut c = b.clone();
        c.make_mut().push('!');
        assert_eq!(c.splice_from(&a), None);
        assert_eq!(b.splice_from(&a), Some((7, 5, "tea")));
        // Off a character boundary, or past the end: refused.
        assert!(a.spliced(3, 0, "x").is_none());
        assert!(a.spliced(12, 1, "x").is_none());
        assert!(a.spliced(usize::MAX, 2, "x").is_none());
    }

    #[test]
    fn moved_out_when_held_once() {
        let a = Text::from("held once");
        let at = a.as_ptr();
        let s = a.into_string();
        assert_eq!(s.as_ptr(), at);
        let b = Text::from("held twice");
        let _other = b.clone();
        assert_eq!(b.into_string(), "held twice");
    }
}
