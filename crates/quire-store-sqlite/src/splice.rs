//! Deltas in the history. The app saves a tab's whole content with every save (a person
//! typing in a long Markdown tab sends the whole text every few seconds), so storing each
//! version's content whole would grow the history by the content's size per save. A version
//! whose new content is long and mostly the content before it stores one splice instead: keep
//! the first `keep` bytes of the content at version `base` (the tab's previous content), drop
//! the `cut` bytes after them, put `put` there. A Markdown tab is spliced as its text; the
//! other kinds as their content's JSON text, in the form the store writes it (the same for a
//! content however it was read). A tab's content is a chain of at most [`MAX_CHAIN`] splices
//! on top of a whole content, so reading any version costs a bounded number of rows.
//!
//! A splice also holds the hash of the text it was made on (`base_hash`, XXH3-64), and a
//! reader checks it before applying the splice: a splice is applied to the very bytes it was
//! computed on, or the read fails loudly (it never yields a silently different content).
//! Splices written before the hash existed have none and are applied unchecked.
//!
//! A splice may replace several ranges (`more`, since schema 8): a sheet whose cells were written
//! here and there stores each written row, not the whole grid from the first to the last.
//!
//! Since schema 5 (`versions.deltas`, JSON `{tab_id: splice}`).

use std::borrow::Cow;

use quire_model::Version;
use serde::{Deserialize, Serialize};

/// Contents shorter than this (in bytes of text) are stored whole: a splice would save less
/// than a page.
const MIN_TEXT: usize = 4096;

/// The most splices between a tab's content and the whole text under them.
const MAX_CHAIN: u32 = 32;

/// One splice, as a version's row stores it (owned, when read back).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct Splice {
    pub base: Version,
    pub keep: usize,
    pub cut: usize,
    pub put: String,
    /// [`hash`] of the text the splice was made on; absent in splices stored before it was.
    #[serde(default)]
    pub base_hash: Option<u64>,
    /// Further ranges replaced, after the first, in ascending order (schema 8).
    #[serde(default)]
    pub more: Vec<Hunk>,
}

/// One more range a splice replaces: `cut` bytes at byte `at` of the text it was made on,
/// replaced by `put`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Hunk<P = String> {
    pub at: usize,
    pub cut: usize,
    pub put: P,
}

/// One splice to store (borrowing the new text where it can).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct NewSplice<'a> {
    pub base: Version,
    pub keep: usize,
    pub cut: usize,
    pub put: Cow<'a, str>,
    pub base_hash: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<Hunk<Cow<'a, str>>>,
}

/// Why a stored splice cannot be applied to the text rebuilt under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Misfit {
    /// The text is not the one the splice was made on.
    OtherText,
    /// The splice's range is not inside the text, or cuts a character.
    OutOfRange,
}

/// The hash a splice keeps of the text it was made on.
pub(super) fn hash(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// The splice turning the text `old` (held by version `base`) into `new`, if storing it is
/// worth it: `new` is long, the chain under `old` (`depth` splices) has room, and the edit
/// leaves most of the text as it was.
pub(super) fn worth<'a>(
    base: Version,
    old: &str,
    new: &'a str,
    depth: u32,
) -> Option<NewSplice<'a>> {
    if !may_splice(new.len(), depth) {
        return None;
    }
    let (keep, cut, put) = diff(old, new);
    (put.len() <= new.len() / 4).then(|| NewSplice {
        base,
        keep,
        cut,
        put: Cow::Borrowed(put),
        base_hash: hash(old),
        more: Vec::new(),
    })
}

/// The splice replacing `hunks` (ascending, non-overlapping ranges of `old`, the text version
/// `base` holds, each with its new text), if storing it is worth it (as [`worth`] decides, on
/// all the text the hunks put). `new_len` is the length of the text the splice makes.
pub(super) fn of_hunks<'a>(
    base: Version,
    old: &str,
    new_len: usize,
    hunks: Vec<Hunk<Cow<'a, str>>>,
    depth: u32,
) -> Option<NewSplice<'a>> {
    if !may_splice(new_len, depth) {
        return None;
    }
    let put: usize = hunks.iter().map(|h| h.put.len()).sum();
    if put > new_len / 4 {
        return None;
    }
    let mut hunks = hunks.into_iter();
    let first = hunks.next().unwrap_or(Hunk {
        at: 0,
        cut: 0,
        put: Cow::Borrowed(""),
    });
    Some(NewSplice {
        base,
        keep: first.at,
        cut: first.cut,
        put: first.put,
        base_hash: hash(old),
        more: hunks.collect(),
    })
}

/// Whether a new content of `len` bytes, on a content `depth` splices deep, may be stored as
/// a splice at all (else it is stored whole, without diffing).
pub(super) fn may_splice(len: usize, depth: u32) -> bool {
    len >= MIN_TEXT && depth < MAX_CHAIN
}

/// The one splice `(keep, cut, put)` that turns `old` into `new`: the common prefix and suffix
/// are kept (both cut on character boundaries), the middle is replaced.
pub(super) fn diff<'a>(old: &str, new: &'a str) -> (usize, usize, &'a str) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = common_prefix(a, b);
    while !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = common_suffix(&a[a.len() - room..], &b[b.len() - room..]);
    while !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (
        prefix,
        a.len() - prefix - suffix,
        &new[prefix..b.len() - suffix],
    )
}

/// Applies the splice to `text` in place, if `text` is the text it was made on (by its hash,
/// where the splice has one) and its range fits; otherwise `text` is left unchanged.
pub(super) fn apply(text: &mut String, splice: &Splice) -> Result<(), Misfit> {
    if splice.base_hash.is_some_and(|want| want != hash(text)) {
        return Err(Misfit::OtherText);
    }
    let first = (splice.keep, splice.cut, splice.put.as_str());
    let hunks =
        std::iter::once(first).chain(splice.more.iter().map(|h| (h.at, h.cut, h.put.as_str())));
    // Every range inside the text, on character boundaries, after the one before it.
    let mut from = 0;
    for (at, cut, _) in hunks.clone() {
        let end = at.checked_add(cut).ok_or(Misfit::OutOfRange)?;
        if at < from || text.get(at..end).is_none() {
            return Err(Misfit::OutOfRange);
        }
        from = end;
    }
    if splice.more.is_empty() {
        text.replace_range(splice.keep..splice.keep + splice.cut, &splice.put);
        return Ok(());
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, cut, put) in hunks {
        out.push_str(&text[from..at]);
        out.push_str(put);
        from = at + cut;
    }
    out.push_str(&text[from..]);
    *text = out;
    Ok(())
}

/// Compared a block at a time (`memcmp`), then byte by byte within the first block that differs.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let blocks = a
        .chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = blocks * BLOCK;
    at + a[at.min(a.len())..]
        .iter()
        .zip(&b[at.min(b.len())..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// `a` and `b` have the same length.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let blocks = a
        .rchunks(BLOCK)
        .zip(b.rchunks(BLOCK))
        .take_while(|(x, y)| x == y)
        .count();
    let at = (blocks * BLOCK).min(a.len());
    at + a[..a.len() - at]
        .iter()
        .rev()
        .zip(b[..b.len() - at].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(old: &str, new: &str) -> (usize, usize, String) {
        let (keep, cut, put) = diff(old, new);
        let splice = Splice {
            base: Version(1),
            keep,
            cut,
            put: put.to_owned(),
            base_hash: Some(hash(old)),
            more: Vec::new(),
        };
        let mut text = old.to_owned();
        assert_eq!(apply(&mut text, &splice), Ok(()), "{old:?} -> {new:?}");
        assert_eq!(text, new);
        (keep, cut, put.to_owned())
    }

    #[test]
    fn a_splice_keeps_what_both_texts_share() {
        assert_eq!(
            round_trip("hello world", "hello brave world"),
            (6, 0, "brave ".into())
        );
        assert_eq!(round_trip("hello world", "hello"), (5, 6, String::new()));
        assert_eq!(round_trip("", "new"), (0, 0, "new".into()));
        assert_eq!(round_trip("same", "same"), (4, 0, String::new()));
        // A repeated run: the prefix takes what it can, the suffix only the rest.
        assert_eq!(round_trip("aaaa", "aaaaaa"), (4, 0, "aa".into()));
    }

    #[test]
    fn a_splice_never_splits_a_character() {
        // "é" and "è" share their first byte (0xC3); "€" and "₭" share two of three.
        assert_eq!(round_trip("café", "cafè"), (3, 2, "è".into()));
        assert_eq!(round_trip("5€ net", "5₭ net"), (1, 3, "₭".into()));
        round_trip("ab€", "b€");
        round_trip("€€€", "€€");
    }

    #[test]
    fn blocks_and_bytes_agree_past_a_block() {
        let old = format!("{}x{}", "a".repeat(200), "z".repeat(130));
        let new = format!("{}y{}", "a".repeat(200), "z".repeat(130));
        assert_eq!(round_trip(&old, &new), (200, 1, "y".into()));
    }

    #[test]
    fn only_long_mostly_kept_texts_are_spliced() {
        let long = "word ".repeat(MIN_TEXT / 5 + 1);
        let edited = format!("{long}one more line\n");
        assert!(worth(Version(3), &long, &edited, 0).is_some());
        assert!(worth(Version(3), "short", "short text", 0).is_none());
        assert!(worth(Version(3), &long, &edited, MAX_CHAIN).is_none());
        let rewritten = "other ".repeat(MIN_TEXT / 6 + 1);
        assert!(worth(Version(3), &long, &rewritten, 0).is_none());
    }

    #[test]
    fn a_splice_that_does_not_fit_its_base_is_refused() {
        let splice = |keep, cut| Splice {
            base: Version(1),
            keep,
            cut,
            put: "x".into(),
            base_hash: None,
            more: Vec::new(),
        };
        for (text, splice) in [
            ("abc", splice(4, 0)),
            ("abc", splice(2, 5)),
            ("é", splice(1, 0)),
            ("abc", splice(usize::MAX, 1)),
        ] {
            let mut applied = text.to_owned();
            assert_eq!(
                apply(&mut applied, &splice),
                Err(Misfit::OutOfRange),
                "{splice:?} on {text:?}"
            );
            assert_eq!(applied, text);
        }
    }

    /// A splice that fits the text's range but was made on other bytes (the number `1e-30`
    /// spelled another way, say) is refused by its hash, not applied to give another content.
    #[test]
    fn a_splice_made_on_other_bytes_is_refused() {
        let made_on = r#"[[1e-30,"xxxx"]]"#;
        let rebuilt = r#"[[1.0000000000000001e-30,"xxxx"]]"#;
        let (keep, cut, put) = diff(made_on, r#"[[1e-30,"xxxx"],[1]]"#);
        let splice = Splice {
            base: Version(3),
            keep,
            cut,
            put: put.to_owned(),
            base_hash: Some(hash(made_on)),
            more: Vec::new(),
        };
        let mut text = rebuilt.to_owned();
        assert_eq!(apply(&mut text, &splice), Err(Misfit::OtherText));
        assert_eq!(text, rebuilt);
        let mut text = made_on.to_owned();
        assert_eq!(apply(&mut text, &splice), Ok(()));
        assert_eq!(text, r#"[[1e-30,"xxxx"],[1]]"#);
    }

    #[test]
    fn a_new_splice_carries_the_hash_of_its_base() {
        let old = "word ".repeat(MIN_TEXT / 5 + 1);
        let new = format!("{old}more");
        let splice = worth(Version(2), &old, &new, 0).expect("worth storing");
        assert_eq!(splice.base_hash, hash(&old));
        assert_ne!(splice.base_hash, hash(&new));
    }

    /// A splice of several ranges puts each in place, and is refused whole when one range does
    /// not fit (out of the text, inside a character, or before the range ahead of it).
    #[test]
    fn a_splice_of_several_ranges_replaces_each() {
        let splice = |more: Vec<Hunk>| Splice {
            base: Version(1),
            keep: 1,
            cut: 1,
            put: "B".into(),
            base_hash: Some(hash("abcdéf")),
            more,
        };
        let hunk = |at, cut, put: &str| Hunk {
            at,
            cut,
            put: put.to_owned(),
        };
        let mut text = "abcdéf".to_owned();
        let two = splice(vec![hunk(3, 0, "+"), hunk(4, 2, "E")]);
        assert_eq!(apply(&mut text, &two), Ok(()));
        assert_eq!(text, "aBc+dEf");
        for more in [
            vec![hunk(5, 1, "x")],
            vec![hunk(0, 1, "x")],
            vec![hunk(6, 2, "x")],
            vec![hunk(3, 0, ""), hunk(2, 0, "")],
        ] {
            let mut text = "abcdéf".to_owned();
            assert_eq!(
                apply(&mut text, &splice(more.clone())),
                Err(Misfit::OutOfRange),
                "{more:?}"
            );
            assert_eq!(text, "abcdéf");
        }
    }

    proptest! {
        #[test]
        fn every_edit_round_trips(
            old in "[a-c€é\n]{0,300}",
            at in 0usize..400,
            cut in 0usize..50,
            put in "[a-c€é\n]{0,40}",
        ) {
            let chars: Vec<char> = old.chars().collect();
            let at = at.min(chars.len());
            let end = (at + cut).min(chars.len());
            let new: String = chars[..at]
                .iter()
                .chain(put.chars().collect::<Vec<_>>().iter())
                .chain(chars[end..].iter())
                .collect();
            let (keep, cut, put) = diff(&old, &new);
            let splice = Splice { base: Version(1), keep, cut, put: put.to_owned(), base_hash: Some(hash(&old)), more: Vec::new() };
            let mut text = old.clone();
            prop_assert_eq!(apply(&mut text, &splice), Ok(()));
            prop_assert_eq!(text, new.clone());
            prop_assert!(put.len() <= new.len());
        }
    }
}
