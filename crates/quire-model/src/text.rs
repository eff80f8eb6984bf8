//! [`Text`]: a Markdown tab's text, shared rather than copied.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Markdown tab's text. A clone shares it: one 10 MiB text is held at once by a Note, the
/// drafts made on it, the save that wrote it and the caches around them, and each of those
/// would otherwise be a copy of it made on every keystroke. It changes only through
/// [`Text::make_mut`], which copies it first when it is shared, so a holder never sees another
/// holder's change. Reads as a `str`; written and read as a JSON string.
#[derive(Clone, Default, Eq)]
pub struct Text(Arc<String>);

impl Text {
    pub fn new(text: String) -> Self {
        Text(Arc::new(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text to change in place: this holder's own (copied first when it is shared).
    pub fn make_mut(&mut self) -> &mut String {
        Arc::make_mut(&mut self.0)
    }

    /// The text as a `String`: moved out when this is its only holder, else copied.
    pub fn into_string(self) -> String {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }

    /// Whether the two hold the very same text (the same shared value), without reading it.
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

/// The same text: one shared value is equal to itself without comparing it.
impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        Text::ptr_eq(self, other) || self.0 == other.0
    }
}

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
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
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
