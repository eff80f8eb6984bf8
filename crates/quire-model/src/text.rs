//! [`Text`]: a Markdown tab's text, shared rather than copied.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock, Weak};

use crate::bytes::{char_count, utf16_len};
use crate::digest::Chunks;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Markdown tab's text. A clone shares it: one 10 MiB text is held at once by a Note, the
/// drafts made on it, the save that wrote it and the caches around them, and each of those
/// would otherwise be a copy of it made on every keystroke. It changes only through
/// [`Text::make_mut`], which copies it first when it is shared, so a holder never sees another
/// holder's change. Reads as a `str`; written and read as a JSON string.
///
/// A long text made by [`Text::spliced`] is not copied: it is the pieces of the text it was
/// made from around the inserted text (a piece table, at most [`MAX_PIECES`] pieces, then
/// written out whole once). What a save needs of it is read from the pieces (its length, the
/// places in it, the splice, its digest); the first read of it as one `str` writes it out then,
/// once.
///
/// A text made by [`Text::spliced`] remembers the splice it was made with, so the splice
/// between it and the text it was made from is known without comparing the two
/// ([`Text::splice_from`]): a keystroke in a long text does not compare it whole to find where
/// it changed.
///
/// A long text keeps marks along it (how many characters and UTF-16 code units come before
/// each), so a place given in either is found in a few microseconds, not by counting the text
/// from its start ([`Text::byte_at_char`], [`Text::byte_at_utf16`], [`Text::chars_before`]).
/// They are counted once, on first use, and a text spliced from one that has them takes them
/// over, counting only around the splice. Its [`Text::digest`] is kept the same way.
#[derive(Clone, Default)]
pub struct Text(Arc<Inner>);

#[derive(Default)]
struct Inner {
    body: Body,
    origin: Option<Origin>,
    marks: OnceLock<Vec<Mark>>,
    digest: OnceLock<Chunks>,
}

/// What a text's bytes are.
enum Body {
    /// One string.
    Flat(String),
    /// Ranges of other texts' bytes, in order.
    Pieces(Pieces),
}

impl Default for Body {
    fn default() -> Self {
        Body::Flat(String::new())
    }
}

struct Pieces {
    pieces: Vec<Piece>,
    len: usize,
    /// The text written out, once something read it as one `str`. Texts spliced from this one
    /// then stand on it, not on the pieces, so that the texts the pieces stand on can go.
    flat: OnceLock<Arc<String>>,
}

/// `start..end` of a string's bytes, on character boundaries.
#[derive(Clone)]
struct Piece {
    from: Source,
    start: usize,
    end: usize,
}

#[derive(Clone)]
enum Source {
    /// A text whose body is one string.
    Text(Arc<Inner>),
    /// Text a splice inserted.
    Put(Arc<str>),
    /// A text in pieces, written out.
    Flat(Arc<String>),
}

impl Source {
    fn as_str(&self) -> &str {
        match self {
            Source::Text(inner) => inner.as_str(),
            Source::Put(put) => put,
            Source::Flat(flat) => flat,
        }
    }
}

impl Piece {
    fn as_str(&self) -> &str {
        &self.from.as_str()[self.start..self.end]
    }

    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The pieces' text, `len` bytes, as one string.
fn joined(pieces: &[Piece], len: usize) -> String {
    let mut out = String::with_capacity(len);
    for piece in pieces {
        out.push_str(piece.as_str());
    }
    out
}

/// A text spliced into more pieces than this is written out whole (one copy of it in this
/// many splices), so that reading a place in it never walks a long list.
const MAX_PIECES: usize = 64;

/// Texts shorter than this are spliced by copying them: no pieces.
const PIECES_FROM: usize = MARKS_FROM;

impl Inner {
    fn as_str(&self) -> &str {
        match &self.body {
            Body::Flat(text) => text,
            Body::Pieces(p) => p.flat.get_or_init(|| Arc::new(joined(&p.pieces, p.len))),
        }
    }

    fn len(&self) -> usize {
        match &self.body {
            Body::Flat(text) => text.len(),
            Body::Pieces(p) => p.len,
        }
    }

    /// The pieces, if the text is in pieces and was not written out yet.
    fn pieces(&self) -> Option<&[Piece]> {
        match &self.body {
            Body::Pieces(p) if p.flat.get().is_none() => Some(&p.pieces),
            _ => None,
        }
    }

    /// Bytes `from..to` (inside the text): borrowed when they are in one piece.
    fn bytes(&self, from: usize, to: usize) -> Cow<'_, [u8]> {
        let Some(pieces) = self.pieces() else {
            return Cow::Borrowed(&self.as_str().as_bytes()[from..to]);
        };
        let mut out: Option<Vec<u8>> = None;
        let mut at = 0;
        for piece in pieces {
            let (start, end) = (at, at + piece.len());
            at = end;
            if end <= from || start >= to {
                continue;
            }
            let part = &piece.as_str().as_bytes()[from.max(start) - start..to.min(end) - start];
            if start <= from && to <= end {
                return Cow::Borrowed(part);
            }
            out.get_or_insert_with(|| Vec::with_capacity(to - from))
                .extend_from_slice(part);
        }
        Cow::Owned(out.unwrap_or_default())
    }

    /// Bytes `from..to` as a `str` where they are in one piece (or the text is one string).
    fn str_in(&self, from: usize, to: usize) -> Option<&str> {
        let Some(pieces) = self.pieces() else {
            return self.as_str().get(from..to);
        };
        if from == to {
            return (to <= self.len()).then_some("");
        }
        let mut at = 0;
        for piece in pieces {
            let (start, end) = (at, at + piece.len());
            at = end;
            if start <= from && to <= end {
                return piece.as_str().get(from - start..to - start);
            }
        }
        None
    }

    fn is_char_boundary(&self, at: usize) -> bool {
        match at.cmp(&self.len()) {
            std::cmp::Ordering::Less => self.bytes(at, at + 1)[0] & 0xC0 != 0x80,
            std::cmp::Ordering::Equal => true,
            std::cmp::Ordering::Greater => false,
        }
    }
}

/// A copy to change ([`Text::make_mut`]): one string, and what it knows of how it was made is
/// not copied.
impl Clone for Inner {
    fn clone(&self) -> Self {
        Inner {
            body: Body::Flat(self.as_str().to_owned()),
            origin: None,
            marks: OnceLock::new(),
            digest: OnceLock::new(),
        }
    }
}

/// A place in a long text: its byte offset (a character boundary), and the characters and
/// UTF-16 code units before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark {
    byte: usize,
    chars: usize,
    utf16: usize,
}

/// Bytes between two marks, at most (a little less: marks sit on character boundaries).
const MARK_EVERY: usize = 16 * 1024;

/// Texts shorter than this are counted from their start: no marks.
const MARKS_FROM: usize = 64 * 1024;

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
        Text(Arc::new(Inner {
            body: Body::Flat(text),
            ..Inner::default()
        }))
    }

    /// The text as one `str` (written out from its pieces the first time, if it is in pieces).
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Its length in bytes (without writing it out).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether byte `at` starts a character or is the text's end (without writing it out).
    pub fn is_char_boundary(&self, at: usize) -> bool {
        self.0.is_char_boundary(at)
    }

    /// The text to change in place: this holder's own (copied first when it is shared).
    pub fn make_mut(&mut self) -> &mut String {
        if matches!(self.0.body, Body::Pieces(_)) {
            *self = Text::new(self.as_str().to_owned());
        }
        let inner = Arc::make_mut(&mut self.0);
        inner.origin = None;
        inner.marks = OnceLock::new();
        inner.digest = OnceLock::new();
        match &mut inner.body {
            Body::Flat(text) => text,
            Body::Pieces(_) => unreachable!("written out above"),
        }
    }

    /// The text as a `String`: moved out when this is its only holder and one string, else
    /// copied.
    pub fn into_string(self) -> String {
        match Arc::try_unwrap(self.0) {
            Ok(Inner {
                body: Body::Flat(text),
                ..
            }) => text,
            Ok(inner) => inner.as_str().to_owned(),
            Err(shared) => shared.as_str().to_owned(),
        }
    }

    /// This text with the `removed` bytes at byte `at` replaced by `insert`, remembering that
    /// splice (see [`Text::splice_from`]). `None` when the range is not in the text or does not
    /// start and end on character boundaries. A long text is not copied: the new one is made
    /// of its pieces and `insert`.
    pub fn spliced(&self, at: usize, removed: usize, insert: &str) -> Option<Text> {
        let end = at.checked_add(removed)?;
        if end > self.len() || !self.is_char_boundary(at) || !self.is_char_boundary(end) {
            return None;
        }
        let len = self.len() - removed + insert.len();
        let body = if len < PIECES_FROM {
            let mut text = String::with_capacity(len);
            text.push_str(self.str_or_bytes(0, at).as_ref());
            text.push_str(insert);
            text.push_str(self.str_or_bytes(end, self.len()).as_ref());
            Body::Flat(text)
        } else {
            self.spliced_pieces(at, end, insert, len)
        };
        let inner = Inner {
            body,
            origin: Some(Origin {
                from: Arc::downgrade(&self.0),
                at,
                removed,
                inserted: insert.len(),
            }),
            marks: OnceLock::new(),
            digest: OnceLock::new(),
        };
        if len >= MARKS_FROM {
            if let Some(old) = self.0.marks.get() {
                // The old text's marks, moved by the splice: counted only around it.
                let _ = inner
                    .marks
                    .set(spliced_marks(old, &inner, at, removed, insert.len()));
            }
            if let Some(old) = self.0.digest.get() {
                // The old text's chunks, moved by the splice: hashed only around it.
                let chunks = old.spliced(at, removed, insert.len(), len, |a, b| inner.bytes(a, b));
                let _ = inner.digest.set(chunks);
            }
        }
        Some(Text(Arc::new(inner)))
    }

    /// The pieces of this text before `at` and from `end`, with `insert` between (or the text
    /// written out, when they would be too many).
    fn spliced_pieces(&self, at: usize, end: usize, insert: &str, len: usize) -> Body {
        let whole;
        let stands_on = |from| {
            [Piece {
                from,
                start: 0,
                end: self.len(),
            }]
        };
        let pieces: &[Piece] = match &self.0.body {
            Body::Pieces(p) => match p.flat.get() {
                None => &p.pieces,
                // Written out: the new text stands on that, and lets go of what the pieces
                // stood on.
                Some(flat) => {
                    whole = stands_on(Source::Flat(flat.clone()));
                    &whole
                }
            },
            Body::Flat(_) => {
                whole = stands_on(Source::Text(self.0.clone()));
                &whole
            }
        };
        let mut out = Vec::with_capacity(pieces.len() + 2);
        let mut offset = 0;
        let mut put = (!insert.is_empty()).then(|| Piece {
            from: Source::Put(Arc::from(insert)),
            start: 0,
            end: insert.len(),
        });
        for piece in pieces {
            let (start, stop) = (offset, offset + piece.len());
            offset = stop;
            if start < at {
                out.push(Piece {
                    end: piece.start + (stop.min(at) - start),
                    ..piece.clone()
                });
            }
            if stop >= at
                && let Some(put) = put.take()
            {
                out.push(put);
            }
            if stop > end {
                out.push(Piece {
                    start: piece.start + (end.max(start) - start),
                    ..piece.clone()
                });
            }
        }
        out.extend(put);
        out.retain(|p| p.len() > 0);
        if out.len() > MAX_PIECES {
            return Body::Flat(joined(&out, len));
        }
        Body::Pieces(Pieces {
            pieces: out,
            len,
            flat: OnceLock::new(),
        })
    }

    /// Bytes `from..to` of the text, without writing it out when it is in pieces (a part that
    /// spans pieces is copied); `None` when the range is not in it on character boundaries.
    pub fn part(&self, from: usize, to: usize) -> Option<Cow<'_, str>> {
        (from <= to && self.is_char_boundary(from) && self.is_char_boundary(to))
            .then(|| self.str_or_bytes(from, to))
    }

    /// Bytes `from..to` (on character boundaries) as text.
    fn str_or_bytes(&self, from: usize, to: usize) -> Cow<'_, str> {
        match self.0.str_in(from, to) {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(String::from_utf8_lossy(&self.0.bytes(from, to)).into_owned()),
        }
    }

    /// The text's digest ([`crate::digest`]): computed whole on first use, taken over (hashed
    /// only around the splice) by a text spliced from one that has it.
    pub fn digest(&self) -> u64 {
        self.0
            .digest
            .get_or_init(|| Chunks::of(self.as_str().as_bytes()))
            .value
    }

    /// How many characters start before byte `byte` (the text's length for its end).
    pub fn chars_before(&self, byte: usize) -> usize {
        let byte = byte.min(self.len());
        let mark = self.mark_before(|m| m.byte <= byte);
        mark.chars + char_count(&self.0.bytes(mark.byte, byte))
    }

    /// The byte where character `chars` starts (the text's length for its end); `None` past
    /// the end.
    pub fn byte_at_char(&self, chars: usize) -> Option<usize> {
        self.byte_at_char_from((0, 0), chars)
    }

    /// As [`Text::byte_at_char`], counting from `known` (a byte on a character boundary and
    /// the characters before it) when that is nearer than the nearest mark: places asked in
    /// order (the splices of one operation) are each counted from the one before.
    pub fn byte_at_char_from(&self, known: (usize, usize), chars: usize) -> Option<usize> {
        let mark = self.mark_before(|m| m.chars <= chars);
        match known {
            (byte, before) if before <= chars && byte > mark.byte => {
                self.advance(byte, chars - before, Unit::Chars)
            }
            _ => self.advance(mark.byte, chars - mark.chars, Unit::Chars),
        }
    }

    /// The byte `units` UTF-16 code units into the text (as an editor in a web view counts);
    /// `None` past the end or inside a character (half a surrogate pair).
    pub fn byte_at_utf16(&self, units: usize) -> Option<usize> {
        let mark = self.mark_before(|m| m.utf16 <= units);
        self.advance(mark.byte, units - mark.utf16, Unit::Utf16)
    }

    /// [`advance`] from byte `from`: over the text itself when it is one string; in pieces,
    /// over the bytes up to the next mark (where the place is, when `from` is at or after the
    /// mark before it), or the whole text if the place is not there.
    fn advance(&self, from: usize, n: usize, unit: Unit) -> Option<usize> {
        if self.0.pieces().is_none() {
            return advance(self.as_str().as_bytes(), 0, from, n, unit);
        }
        let to = self.len().min(from.saturating_add(MARK_EVERY + 4));
        let window = self.0.bytes(from.min(to), to);
        match advance(&window, from, from, n, unit) {
            Some(at) => Some(at),
            None if to == self.len() => None,
            None => advance(self.as_str().as_bytes(), 0, from, n, unit),
        }
    }

    /// The last mark `before` accepts (they are in order), or the text's start.
    fn mark_before(&self, before: impl Fn(&Mark) -> bool) -> Mark {
        const START: Mark = Mark {
            byte: 0,
            chars: 0,
            utf16: 0,
        };
        if self.len() < MARKS_FROM {
            return START;
        }
        let marks = self.0.marks.get_or_init(|| marks_from(&self.0, START, &[]));
        match marks.partition_point(before) {
            0 => START,
            n => marks[n - 1],
        }
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
        let inserted = self.0.str_in(origin.at, origin.at + origin.inserted)?;
        Some((origin.at, origin.removed, inserted))
    }

    /// Whether the two hold the very same text (the same shared value), without reading it.
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// Whether the text is held as pieces not yet written out: a pass over it that need not
    /// keep it written out can copy it instead (see `Text::part`).
    pub fn is_in_pieces(&self) -> bool {
        self.0.pieces().is_some()
    }
}

/// The same text: one shared value is equal to itself without comparing it, and a text
/// spliced from the other is compared by its splice alone.
impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        if Text::ptr_eq(self, other) {
            return true;
        }
        if self.len() != other.len() {
            return false;
        }
        for (a, b) in [(self, other), (other, self)] {
            if let Some((at, removed, put)) = a.splice_from(b) {
                return *b.0.bytes(at, at + removed) == *put.as_bytes();
            }
        }
        self.as_str() == other.as_str()
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

/// Written piece by piece when the text is in pieces.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.pieces() {
            Some(pieces) => pieces.iter().try_for_each(|p| f.write_str(p.as_str())),
            None => f.write_str(self.as_str()),
        }
    }
}

/// The marks of `text` after `from` (a mark of it): one every [`MARK_EVERY`] bytes or so, up to
/// the first of `then`, which follow with the same gaps in both counts (marks of the text it
/// was spliced from, moved to this one).
fn marks_from(text: &Inner, from: Mark, then: &[Mark]) -> Vec<Mark> {
    let len = text.len();
    let mut out = Vec::with_capacity(len / MARK_EVERY + 2);
    let end = then.first().map_or(len, |m| m.byte);
    let mut mark = from;
    out.push(mark);
    loop {
        let mut next = mark.byte + MARK_EVERY;
        if next >= end {
            break;
        }
        let part = text.bytes(mark.byte, (next + 4).min(len));
        while part[next - mark.byte] & 0xC0 == 0x80 {
            next -= 1;
        }
        let part = &part[..next - mark.byte];
        mark = Mark {
            byte: next,
            chars: mark.chars + char_count(part),
            utf16: mark.utf16 + utf16_len(part),
        };
        out.push(mark);
    }
    if let Some(first) = then.first() {
        let part = text.bytes(mark.byte, end);
        let (chars, utf16) = (
            mark.chars + char_count(&part),
            mark.utf16 + utf16_len(&part),
        );
        out.extend(then.iter().map(|m| Mark {
            byte: m.byte,
            chars: m.chars - first.chars + chars,
            utf16: m.utf16 - first.utf16 + utf16,
        }));
    }
    out
}

/// The marks of `text`, made from a text with marks `old` by replacing the `removed` bytes at
/// byte `at` with `inserted` bytes: the old marks before the splice as they were, those after
/// it moved, and marks counted afresh between the last before and the first after.
fn spliced_marks(
    old: &[Mark],
    text: &Inner,
    at: usize,
    removed: usize,
    inserted: usize,
) -> Vec<Mark> {
    let kept = old.partition_point(|m| m.byte <= at).max(1);
    let after = kept + old[kept..].partition_point(|m| m.byte < at + removed);
    let moved: Vec<Mark> = old[after..]
        .iter()
        .map(|m| Mark {
            byte: m.byte - removed + inserted,
            ..*m
        })
        .collect();
    let mut marks = old[..kept - 1].to_vec();
    marks.extend(marks_from(text, old[kept - 1], &moved));
    marks
}

/// What [`advance`] counts.
#[derive(Clone, Copy)]
enum Unit {
    Chars,
    Utf16,
}

impl Unit {
    fn count(self, bytes: &[u8]) -> usize {
        match self {
            Unit::Chars => char_count(bytes),
            Unit::Utf16 => utf16_len(bytes),
        }
    }

    /// The units of the character whose first byte is `lead`.
    fn of(self, lead: u8) -> usize {
        match self {
            Unit::Chars => 1,
            Unit::Utf16 if lead >= 0xF0 => 2,
            Unit::Utf16 => 1,
        }
    }
}

/// The byte `n` units after byte `from` of the text, if that is a character boundary in it;
/// `bytes` are the text's from byte `start` (a character boundary at or before `from`) on.
/// Whole blocks are counted at memory speed while the place lies beyond them, then the last
/// characters one at a time.
fn advance(bytes: &[u8], start: usize, from: usize, n: usize, unit: Unit) -> Option<usize> {
    let bytes = bytes.get(from.checked_sub(start)?..)?;
    // ASCII all the way there (checked at memory speed): a unit a byte.
    if bytes.get(..n).is_some_and(<[u8]>::is_ascii) {
        return Some(from + n);
    }
    let (mut counted, mut i) = (0usize, 0usize);
    // A block that ends inside a character counts it (by its first byte); the rest of it adds
    // nothing to the next block.
    for block in [4096, 64] {
        while let Some(run) = bytes.get(i..i + block) {
            let k = unit.count(run);
            if counted + k >= n {
                break;
            }
            counted += k;
            i += block;
        }
    }
    while bytes.get(i).is_some_and(|b| b & 0xC0 == 0x80) {
        i += 1;
    }
    while counted < n {
        let lead = *bytes.get(i)?;
        counted += unit.of(lead);
        i += utf8_width(lead);
    }
    (counted == n && i <= bytes.len()).then_some(from + i)
}

/// The bytes of the UTF-8 character whose first byte is `lead`.
fn utf8_width(lead: u8) -> usize {
    match lead {
        0..0xC0 => 1,
        0xC0..0xE0 => 2,
        0xE0..0xF0 => 3,
        _ => 4,
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.pieces() {
            Some(_) => serializer.collect_str(self),
            None => serializer.serialize_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Text::new)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

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

    /// Characters and UTF-16 code units before each byte that starts a character (and the end).
    fn counted(text: &str) -> Vec<Option<(usize, usize)>> {
        let (mut chars, mut utf16) = (0, 0);
        let mut at = vec![None; text.len() + 1];
        for (byte, ch) in text.char_indices() {
            at[byte] = Some((chars, utf16));
            chars += 1;
            utf16 += ch.len_utf16();
        }
        at[text.len()] = Some((chars, utf16));
        at
    }

    /// Every place asked of `text` (by byte, character and UTF-16 unit) is where counting from
    /// its start puts it; and its marks, if any, are each where they say, at most
    /// `MARK_EVERY` bytes apart, up to its end.
    fn check_places(text: &Text, seed: &mut u64) {
        let counts = counted(text);
        let (total_chars, total_utf16) = counts[text.len()].unwrap();
        let mut byte_of_utf16 = vec![None; total_utf16 + 1];
        for (byte, count) in counts.iter().enumerate() {
            if let Some((_, utf16)) = count {
                byte_of_utf16[*utf16] = Some(byte);
            }
        }
        if let Some(marks) = text.0.marks.get() {
            assert_eq!(marks[0].byte, 0);
            for pair in marks.windows(2) {
                assert!(pair[1].byte >= pair[0].byte && pair[1].byte - pair[0].byte <= MARK_EVERY);
            }
            assert!(text.len() - marks[marks.len() - 1].byte <= MARK_EVERY);
            for m in marks {
                assert_eq!(counts[m.byte], Some((m.chars, m.utf16)), "{m:?}");
            }
        }
        for _ in 0..40 {
            let mut byte = next(seed) % (text.len() + 1);
            while counts[byte].is_none() {
                byte -= 1;
            }
            let chars = counts[byte].unwrap().0;
            assert_eq!(text.chars_before(byte), chars);
            assert_eq!(text.byte_at_char(chars), Some(byte));
            // From a place before it, or one after it (not used: counted from a mark).
            let mut known = next(seed) % (text.len() + 1);
            while counts[known].is_none() {
                known -= 1;
            }
            let known = (known, counts[known].unwrap().0);
            assert_eq!(
                text.byte_at_char_from(known, chars),
                Some(byte),
                "from {known:?}"
            );
            let units = next(seed) % (total_utf16 + 1);
            assert_eq!(text.byte_at_utf16(units), byte_of_utf16[units], "{units}");
        }
        assert_eq!(text.byte_at_char(total_chars + 1), None);
        assert_eq!(text.byte_at_utf16(total_utf16 + 1), None);
    }

    fn next(seed: &mut u64) -> usize {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as usize
    }

    /// Some text of `n` characters, of one to four bytes each.
    fn some_text(n: usize, seed: &mut u64) -> String {
        const CHARS: [char; 8] = ['a', 'b', ' ', '\n', 'é', '€', '😀', 'x'];
        (0..n).map(|_| CHARS[next(seed) % CHARS.len()]).collect()
    }

    #[test]
    fn places_in_a_long_text_are_found_as_counting_from_its_start_through_its_splices() {
        let mut seed = 7;
        let mut text = Text::from(some_text(120_000, &mut seed));
        assert!(text.0.marks.get().is_none(), "counted on first use only");
        check_places(&text, &mut seed);
        assert!(text.0.marks.get().is_some());
        for round in 0..60 {
            let len = text.len();
            let mut at = next(&mut seed) % (len + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            // Mostly keystrokes; now and then a long paste or a long cut.
            let (removed_chars, inserted_chars) = match round % 10 {
                3 => (0, 30_000),
                7 => (25_000, 0),
                _ => (next(&mut seed) % 3, next(&mut seed) % 4),
            };
            let end = text[at..]
                .char_indices()
                .nth(removed_chars)
                .map_or(len, |(i, _)| at + i);
            let insert = some_text(inserted_chars, &mut seed);
            let spliced = text.spliced(at, end - at, &insert).unwrap();
            if spliced.len() >= MARKS_FROM {
                assert!(
                    spliced.0.marks.get().is_some(),
                    "the marks are taken over, not counted again"
                );
            }
            check_places(&spliced, &mut seed);
            text = spliced;
        }
        // A short text is counted from its start.
        let short = Text::from("naïve 😀 café");
        assert_eq!(short.byte_at_char(7), Some(11));
        assert_eq!(short.byte_at_utf16(7), None, "inside the surrogate pair");
        assert_eq!(short.byte_at_utf16(8), Some(11));
        assert_eq!(short.chars_before(12), 8);
        assert!(short.0.marks.get().is_none());
    }

    /// Counted by blocks, a place is the one counted a character at a time, with characters of
    /// every width cut by the blocks' edges.
    #[test]
    fn a_place_is_found_by_blocks_as_by_characters() {
        let text: Text = "a\u{e9}\u{20ac}\u{1F600}bc\n".repeat(4096 / 5).into();
        let mut units = 0;
        let mut places = vec![(0, Some(0))];
        for (at, ch) in text.char_indices() {
            // Inside a surrogate pair: no place.
            if ch.len_utf16() == 2 {
                places.push((units + 1, None));
            }
            units += ch.len_utf16();
            places.push((units, Some(at + ch.len_utf8())));
        }
        places.push((units + 1, None));
        for (u, want) in places {
            assert_eq!(text.byte_at_utf16(u), want, "{u} units");
        }
        assert_eq!(
            advance(text.as_bytes(), 0, 10, 8, Unit::Utf16),
            Some(23),
            "from the first b: b, c, newline, then a, é, € and 😀 (8 units, 13 bytes)"
        );
        assert_eq!(advance(text.as_bytes(), 0, 10, 7, Unit::Chars), Some(23));
    }

    /// A long text spliced again and again is made of pieces, not copied, until it would have
    /// too many; read any way (its places, length, splice, digest, equality, JSON, bytes), it is
    /// the text a copy spliced the same way holds.
    #[test]
    fn a_long_text_spliced_is_pieces_that_read_as_the_text_they_stand_for() {
        let mut seed = 5;
        let mut text = Text::from(some_text(100_000, &mut seed));
        let mut copy = text.as_str().to_owned();
        let first_digest = text.digest();
        assert_eq!(first_digest, crate::digest::digest(&copy));
        let (mut pieced, mut written_out) = (0, 0);
        for round in 0..200 {
            let len = text.len();
            let mut at = next(&mut seed) % (len + 1);
            while !copy.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + next(&mut seed) % 5).min(len);
            while !copy.is_char_boundary(end) {
                end += 1;
            }
            let insert = if round % 17 == 0 {
                String::new()
            } else {
                some_text(next(&mut seed) % 6, &mut seed)
            };
            // Asked only through what a save asks: no reading as one `str`.
            let before = text.clone();
            let _ = text.byte_at_char(next(&mut seed) % 1000);
            let spliced = text.spliced(at, end - at, &insert).unwrap();
            copy.replace_range(at..end, &insert);
            if spliced.is_in_pieces() {
                pieced += 1;
            } else {
                written_out += 1;
            }
            assert_eq!(spliced.len(), copy.len());
            assert_eq!(
                spliced.splice_from(&before),
                Some((at, end - at, insert.as_str()))
            );
            assert_eq!(
                spliced.digest(),
                crate::digest::digest(&copy),
                "round {round}"
            );
            assert_eq!(spliced == before, copy == before.as_str());
            assert!(spliced.is_char_boundary(at) && spliced.is_char_boundary(copy.len()));
            assert_eq!(spliced.to_string(), copy, "written piece by piece");
            let (a, b) = (at.saturating_sub(20_000), (at + 20_000).min(copy.len()));
            let (a, b) = (
                (0..=a).rev().find(|&i| copy.is_char_boundary(i)).unwrap(),
                (b..=copy.len())
                    .find(|&i| copy.is_char_boundary(i))
                    .unwrap(),
            );
            assert_eq!(spliced.part(a, b).as_deref(), Some(&copy[a..b]));
            assert_eq!(
                serde_json::to_string(&spliced).unwrap(),
                serde_json::to_string(&copy).unwrap()
            );
            text = spliced;
            if round % 50 == 49 {
                check_places(&text, &mut seed);
            }
        }
        assert!(pieced > 150, "{pieced} spliced as pieces");
        assert!(written_out >= 2, "{written_out} written out whole");
        // Read as one `str` once, it is that text; a holder's change copies it.
        assert_eq!(text.as_str(), copy);
        assert!(!text.is_in_pieces());
        let mut mine = text.clone();
        mine.make_mut().push('!');
        assert_eq!(text, copy.as_str());
        assert_eq!(mine.into_string(), format!("{copy}!"));
    }

    /// A text in pieces holds the text it stands on; once written out, the texts spliced from it
    /// stand on what it wrote, and the text under its pieces can go.
    #[test]
    fn texts_spliced_from_one_written_out_let_go_of_what_its_pieces_stood_on() {
        let base = Text::from("a line of text\n".repeat(10_000));
        let under = Arc::downgrade(&base.0);
        let spliced = base.spliced(15, 0, "new ").unwrap();
        drop(base);
        assert!(
            spliced.is_in_pieces() && under.upgrade().is_some(),
            "held by the pieces"
        );
        let written = spliced.as_str().to_owned();
        let next = spliced.spliced(0, 1, "A").unwrap();
        assert!(next.is_in_pieces());
        drop(spliced);
        assert!(
            under.upgrade().is_none(),
            "the text under the pieces is gone"
        );
        assert_eq!(next.as_str(), format!("A{}", &written[1..]));
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
