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
//! A splice also holds the hash of the text it was made on (`hash`: its digest,
//! `quire_model::digest`, which a spliced text keeps without hashing itself whole; splices
//! written before schema 14 hold `base_hash`, the XXH3-64 of the whole text), and a reader
//! checks it before applying the splice: a splice is applied to the very bytes it was computed
//! on, or the read fails loudly (it never yields a silently different content). Splices
//! written before either existed have none and are applied unchecked.
//!
//! A splice may replace several ranges (`more`, since schema 8): a sheet whose cells were written
//! here and there stores each written row, not the whole grid from the first to the last.
//!
//! Since schema 5 (`versions.deltas`, JSON `{tab_id: splice}`).

use std::borrow::Cow;
use std::collections::HashMap;

use quire_model::digest::Chunks;
use quire_model::{Text, Version};
use serde::{Deserialize, Serialize};

/// Contents shorter than this (in bytes of text) are stored whole: a splice (its JSON about a
/// hundred bytes) would save little. Was 4,096 until session 15: a 2 KB Note grew the file by
/// about 1.5 KB a save.
const MIN_TEXT: usize = 1024;

/// The most splices between a tab's content and the whole text under them.
pub(super) const MAX_CHAIN: u32 = 32;

/// What a range of a splice costs in its JSON beyond the text it puts (`{"at":…,"cut":…,"put":""}`),
/// counted when deciding whether a splice of many ranges is worth storing.
const HUNK_COST: usize = 32;

/// One splice, as a version's row stores it (owned, when read back). Since schema 12 a row
/// leaves out a `base` that is the version before its own, and a `cut` of 0 (here or in a
/// range of `more`): read rows with [`stored`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(super) struct Splice {
    /// Version 0 (which no Note has) when the row left it out, until [`stored`] sets it.
    #[serde(default)]
    pub base: Version,
    pub keep: usize,
    #[serde(default)]
    pub cut: usize,
    pub put: String,
    /// The digest of the text the splice was made on (`hash` in the row); absent in splices
    /// stored before schema 14.
    #[serde(default, rename = "hash")]
    pub base_hash: Option<u64>,
    /// The XXH3-64 of the text the splice was made on ([`old_hash`]; `base_hash` in the row),
    /// in splices stored from schema 6 until schema 14.
    #[serde(default, rename = "base_hash")]
    pub old_hash: Option<u64>,
    /// Further ranges replaced, after the first, in ascending order (schema 8).
    #[serde(default)]
    pub more: Vec<Hunk>,
}

/// One more range a splice replaces: `cut` bytes at byte `at` of the text it was made on,
/// replaced by `put`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Hunk<P = String> {
    pub at: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cut: usize,
    pub put: P,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The splices of the row of `version` (its `deltas` column), by tab ID, each `base` as stored or,
/// left out, the version before.
pub(super) fn stored(
    deltas: &str,
    version: Version,
) -> serde_json::Result<HashMap<String, Splice>> {
    let mut splices: HashMap<String, Splice> = serde_json::from_str(deltas)?;
    for splice in splices.values_mut() {
        if splice.base == Version(0) {
            splice.base = Version(version.0.saturating_sub(1));
        }
    }
    Ok(splices)
}

impl Splice {
    /// Its ranges, in order: `(at, cut, put)` in bytes of the text it was made on.
    fn ranges(&self) -> impl Iterator<Item = (usize, usize, &str)> + Clone {
        std::iter::once((self.keep, self.cut, self.put.as_str()))
            .chain(self.more.iter().map(Hunk::range))
    }
}

impl<P: AsRef<str>> Hunk<P> {
    fn range(&self) -> (usize, usize, &str) {
        (self.at, self.cut, self.put.as_ref())
    }
}

/// One splice to store (borrowing the new text where it can).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct NewSplice<'a> {
    /// Written by the row's writer, which leaves it out when it is the version before its own.
    #[serde(skip)]
    pub base: Version,
    pub keep: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub cut: usize,
    pub put: Cow<'a, str>,
    #[serde(rename = "hash")]
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

/// The hash a splice keeps of the text it was made on (the one search knows long texts by):
/// its digest, which a `Text` made by a splice keeps ([`quire_model::Text::digest`]) and the
/// writer keeps for the texts it wrote, so the store itself takes it only in its tests.
#[cfg(test)]
pub(super) fn hash(text: &str) -> u64 {
    quire_model::digest::digest(text)
}

/// The hash splices stored before schema 14 kept of the text they were made on.
pub(super) fn old_hash(text: &str) -> u64 {
    quire_store::search::text_hash(text)
}

/// The splice turning the text `old` (held by version `base`) into `new`, if storing it is
/// worth it: `new` is long, the chain under `old` (`depth` splices) has room, and the edit
/// leaves most of the text as it was. `old_hash`: `old`'s digest, if the writer kept it;
/// `kept`: as [`diff_kept`] takes it.
pub(super) fn worth<'a>(
    base: Version,
    old: &str,
    new: &'a str,
    depth: u32,
    old_hash: Option<u64>,
    kept: (usize, usize),
) -> Option<NewSplice<'a>> {
    if !may_splice(new.len(), depth) {
        return None;
    }
    let range = diff_kept(old, new, kept);
    one_range(base, range, new.len(), depth, || {
        quire_store::search::known_or_hash(old, old_hash)
    })
}

/// The splice `(keep, cut, put)` that made the Markdown text `new` (of `new_len` bytes) from
/// `old` (held by version `base`), as the text knows it ([`Text::splice_from`]), if storing it
/// is worth it (as [`worth`] decides). `old_hash`: `old`'s digest, if the writer kept it;
/// else `old` keeps it or hashes itself.
pub(super) fn known<'a>(
    base: Version,
    old: &Text,
    new_len: usize,
    range: (usize, usize, &'a str),
    depth: u32,
    old_hash: Option<u64>,
) -> Option<NewSplice<'a>> {
    debug_assert!(old_hash.is_none_or(|hash| hash == old.digest()));
    one_range(base, range, new_len, depth, || {
        old_hash.unwrap_or_else(|| old.digest())
    })
}

/// The splice of one range `(keep, cut, put)` that makes a text of `new_len` bytes, if storing
/// it is worth it (the text long, the chain with room, what it puts at most a quarter of the
/// text); `base_hash` gives the hash of the text it is made on, asked only then.
fn one_range<'a>(
    base: Version,
    (keep, cut, put): (usize, usize, &'a str),
    new_len: usize,
    depth: u32,
    base_hash: impl FnOnce() -> u64,
) -> Option<NewSplice<'a>> {
    (may_splice(new_len, depth) && put.len() <= new_len / 4).then(|| NewSplice {
        base,
        keep,
        cut,
        put: Cow::Borrowed(put),
        base_hash: base_hash(),
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
    of_hunks_hashed(base, old, None, new_len, hunks, depth)
}

/// [`of_hunks`], told `old`'s digest if it is known.
fn of_hunks_hashed<'a>(
    base: Version,
    old: &str,
    old_hash: Option<u64>,
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
        base_hash: quire_store::search::known_or_hash(old, old_hash),
        more: hunks.collect(),
    })
}

/// The splice of the text `root` (the whole text version `base` holds) that gives the text the
/// `chain` of splices above it gives (oldest first: the first is made on `root`), if storing it
/// is worth it: its ranges' text and JSON at most a quarter of the new text's `new_len` bytes.
///
/// This is what keeps a long text's history small when its chain is full: rather than the
/// whole text again (10 MiB every [`MAX_CHAIN`] saves of a 10 MiB Note), the writer stores the
/// sum of every change since the whole text, one splice on it, and the chain grows again from
/// there. Made by [`compose`]: the chain's own ranges, no diff of the texts.
///
/// The splice is checked before it is returned: applied to `root`, it gives `new` (else `None`,
/// and the writer stores the text whole). `root_hash`: `root`'s digest.
pub(super) fn rebased(
    base: Version,
    root: &str,
    root_hash: u64,
    chain: &[Splice],
    new: &str,
) -> Option<NewSplice<'static>> {
    if new.len() < MIN_TEXT {
        return None;
    }
    let hunks = compose(root.len(), chain)?;
    let cost: usize = hunks.iter().map(|h| h.put.len() + HUNK_COST).sum();
    if cost > new.len() / 4 || !rebuilds(root, hunks.iter().map(Hunk::range), new) {
        return None;
    }
    let hunks = (hunks.into_iter())
        .map(|h| Hunk {
            at: h.at,
            cut: h.cut,
            put: Cow::Owned(h.put),
        })
        .collect();
    of_hunks_hashed(base, root, Some(root_hash), new.len(), hunks, 0)
}

/// Where a full chain (oldest first, the new change last, the first splice made on the whole
/// text) is best rebased: on the text after its first `n` splices, so that the splice stored is
/// the sum of the changes above them only. Those are the splices that rebases before made (each
/// spans several versions: a chain's splices but the new one name the version under them, so a
/// splice's span is the next one's base less its own), as long as they leave room for a chain
/// above them; else on the whole text (0), which starts the stack again.
///
/// Rebasing every full chain on the whole text stored every change since that text again at
/// each rebase: a person typing into a 10 MiB Note for 10,000 saves wrote a splice of all they
/// had typed every 32 saves. Stacked, a rebase stores the changes of the chain above the stack,
/// and the whole stack is summed into one splice on the whole text once every
/// `(MAX_CHAIN - 1) * MAX_CHAIN / 2` saves or so. No chain is longer than before.
pub(super) fn rebase_point(chain: &[Splice]) -> usize {
    let stacked = chain
        .windows(2)
        .take_while(|pair| pair[1].base.0.saturating_sub(pair[0].base.0) > 1)
        .count();
    if stacked + 2 <= MAX_CHAIN as usize {
        stacked
    } else {
        0
    }
}

/// The text the first `n` splices of `chain` make of `root` (the whole text the first is made
/// on); `None` if they do not fit it.
pub(super) fn replayed(root: &str, chain: &[Splice]) -> Option<String> {
    let hunks = compose(root.len(), chain)?;
    rebuild(root, hunks.iter().map(Hunk::range))
}

/// Whether `text` with the `ranges` `(at, cut, put)` replaced is `new` (as [`rebuild`] would
/// make it), compared piece by piece: nothing is copied.
fn rebuilds<'p>(
    text: &str,
    ranges: impl Iterator<Item = (usize, usize, &'p str)>,
    new: &str,
) -> bool {
    let mut rest = new.as_bytes();
    let fits = replaced(text, ranges, |piece| {
        match rest.strip_prefix(piece.as_bytes()) {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        }
    });
    fits && rest.is_empty()
}

/// `text` with the `ranges` `(at, cut, put)` replaced; `None` if one is not inside the text, on
/// character boundaries, after the one before it.
fn rebuild<'p>(
    text: &str,
    ranges: impl Iterator<Item = (usize, usize, &'p str)>,
) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let fits = replaced(text, ranges, |piece| {
        out.push_str(piece);
        true
    });
    fits.then_some(out)
}

/// Hands `text` with the `ranges` `(at, cut, put)` replaced to `each`, piece by piece, in order:
/// the bytes kept before a range, what the range puts, ..., the bytes kept after the last.
/// False if a range is not inside the text, on character boundaries, after the one before it,
/// or `each` returns false (it is then given nothing more).
fn replaced<'p>(
    text: &str,
    ranges: impl Iterator<Item = (usize, usize, &'p str)>,
    mut each: impl FnMut(&str) -> bool,
) -> bool {
    let mut from = 0;
    for (at, cut, put) in ranges {
        let Some(kept) = text.get(from..at) else {
            return false;
        };
        if !each(kept) || !each(put) {
            return false;
        }
        let Some(end) = at.checked_add(cut) else {
            return false;
        };
        from = end;
    }
    text.get(from..).is_some_and(each)
}

/// A text made of a root text's byte ranges and new text, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Root(usize, usize),
    New(&'a str),
}

impl Piece<'_> {
    fn len(&self) -> usize {
        match *self {
            Piece::Root(from, to) => to - from,
            Piece::New(text) => text.len(),
        }
    }
}

/// The ranges of a root text of `root_len` bytes that the `chain` of splices (oldest first, the
/// first made on the root) replaced, with what is there now: one splice's ranges, ascending,
/// that makes from the root the text the chain makes. `None` if a splice's range falls outside
/// the text it was made on (a chain that cannot be rebuilt; the caller stores the whole text).
/// Costs the pieces and ranges, not the text: the root is never read.
pub(super) fn compose(root_len: usize, chain: &[Splice]) -> Option<Vec<Hunk>> {
    let mut pieces = vec![Piece::Root(0, root_len)];
    for splice in chain {
        pieces = splice_pieces(&pieces, splice.ranges())?;
    }
    // The pieces back to ranges of the root: a gap between two root pieces, or new text, is
    // a range replaced. (No piece is empty: new text is put only where there is some.)
    let mut hunks: Vec<Hunk> = Vec::new();
    let (mut next, mut put) = (0, String::new());
    for piece in pieces {
        match piece {
            Piece::New(text) => put.push_str(text),
            Piece::Root(from, to) => {
                if !put.is_empty() || from != next {
                    hunks.push(Hunk {
                        at: next,
                        cut: from - next,
                        put: std::mem::take(&mut put),
                    });
                }
                next = to;
            }
        }
    }
    if !put.is_empty() || next != root_len {
        hunks.push(Hunk {
            at: next,
            cut: root_len - next,
            put,
        });
    }
    Some(hunks)
}

/// `pieces` with the ranges `hunks` (ascending, non-overlapping, in bytes of the text the
/// pieces make) replaced: one pass over both.
fn splice_pieces<'a>(
    pieces: &[Piece<'a>],
    hunks: impl Iterator<Item = (usize, usize, &'a str)>,
) -> Option<Vec<Piece<'a>>> {
    let total: usize = pieces.iter().map(Piece::len).sum();
    let mut out = Vec::with_capacity(pieces.len() + 2);
    // Where the walk is: piece `i`, `off` bytes into it, `pos` bytes into the text.
    let (mut i, mut off, mut pos) = (0, 0, 0);
    // Moves to byte `to` of the text, copying what it passes when `keep`; `None` where that
    // would cut a character of new text.
    let mut walk = |to: usize, keep: bool, out: &mut Vec<Piece<'a>>| -> Option<()> {
        while pos < to {
            let piece = *pieces.get(i)?;
            let take = (piece.len() - off).min(to - pos);
            if keep {
                out.push(match piece {
                    Piece::Root(from, _) => Piece::Root(from + off, from + off + take),
                    Piece::New(text) => Piece::New(text.get(off..off + take)?),
                });
            }
            off += take;
            pos += take;
            if off == piece.len() {
                i += 1;
                off = 0;
            }
        }
        Some(())
    };
    let mut from = 0;
    for (at, cut, put) in hunks {
        let end = at.checked_add(cut)?;
        if at < from || end > total {
            return None;
        }
        walk(at, true, &mut out)?;
        walk(end, false, &mut out)?;
        if !put.is_empty() {
            out.push(Piece::New(put));
        }
        from = end;
    }
    walk(total, true, &mut out)?;
    Some(out)
}

/// Whether a new content of `len` bytes, on a content `depth` splices deep, may be stored as
/// a splice at all (else it is stored whole, without diffing).
pub(super) fn may_splice(len: usize, depth: u32) -> bool {
    len >= MIN_TEXT && depth < MAX_CHAIN
}

/// The one splice `(keep, cut, put)` that turns `old` into `new`: the common prefix and suffix
/// are kept (both cut on character boundaries), the middle is replaced.
pub(super) fn diff<'a>(old: &str, new: &'a str) -> (usize, usize, &'a str) {
    diff_kept(old, new, (0, 0))
}

/// [`diff`], told that the first `kept.0` and the last `kept.1` bytes of the two texts are
/// the same (the batch's text operations did not touch them: `Applied::text_ends_kept`), so
/// that it compares only the bytes between, where the change is: the same splice, without a
/// pass over a 10 MiB text to find one changed character.
pub(super) fn diff_kept<'a>(
    old: &str,
    new: &'a str,
    kept: (usize, usize),
) -> (usize, usize, &'a str) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let (start, end) = match kept.0.checked_add(kept.1) {
        Some(both) if both <= a.len().min(b.len()) => kept,
        _ => (0, 0),
    };
    // Taken on the batch's word (a property test of `apply` holds it to it); debug builds,
    // and so every test of the store, check it.
    debug_assert!(
        a[..start] == b[..start] && a[a.len() - end..] == b[b.len() - end..],
        "the ends said kept differ: {kept:?}"
    );
    let mut prefix = start + quire_store::search::common_prefix(&a[start..], &b[start..]);
    while !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let end = end.min(room);
    let mut suffix = end
        + quire_store::search::common_suffix(
            &a[a.len() - room..a.len() - end],
            &b[b.len() - room..b.len() - end],
        );
    while !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (
        prefix,
        a.len() - prefix - suffix,
        &new[prefix..b.len() - suffix],
    )
}

/// One splice applied on its own ([`apply_chained`] with no chunks kept: the store applies
/// splices only in chains).
#[cfg(test)]
pub(super) fn apply(text: &mut String, splice: &Splice) -> Result<(), Misfit> {
    apply_chained(text, splice, &mut None)
}

/// Applies the splice to `text` in place, if `text` is the text it was made on (by its hash,
/// where the splice has one) and its ranges fit; otherwise `text` is left unchanged. For a
/// chain of splices applied one after the other: `chunks` holds the digest's chunks of `text`
/// once a splice that names its base by digest asked for them (taken whole then), and each
/// splice applied updates them around the span of its ranges, so a chain of 32 splices hashes
/// its text whole once, not 32 times.
pub(super) fn apply_chained(
    text: &mut String,
    splice: &Splice,
    chunks: &mut Option<Chunks>,
) -> Result<(), Misfit> {
    let digest = || {
        chunks
            .get_or_insert_with(|| Chunks::of(text.as_bytes()))
            .value
    };
    if !made_on(splice, text, digest) {
        return Err(Misfit::OtherText);
    }
    let was = text.len();
    apply_ranges(text, splice)?;
    if let Some(known) = chunks.take() {
        // The span from the first range's start to the last one's end, replaced.
        let at = splice.keep;
        let end = (splice.ranges().last()).map_or(at, |(last, cut, _)| last + cut);
        let inserted = text.len() + (end - at) - was;
        *chunks = Some(known.spliced(at, end - at, inserted, text.len(), |a, b| {
            Cow::Borrowed(&text.as_bytes()[a..b])
        }));
    }
    Ok(())
}

/// Whether `text` is the text `splice` was made on, by the hash the splice keeps: its digest
/// (`digest` gives `text`'s, asked only then) or, stored before schema 14, its XXH3; a splice
/// with neither is taken as made on it.
fn made_on(splice: &Splice, text: &str, digest: impl FnOnce() -> u64) -> bool {
    match (splice.base_hash, splice.old_hash) {
        (Some(want), _) => want == digest(),
        (None, Some(want)) => want == old_hash(text),
        (None, None) => true,
    }
}

/// Replaces the splice's ranges of `text`, if each is inside it on character boundaries, after
/// the one before it; otherwise `text` is left unchanged.
fn apply_ranges(text: &mut String, splice: &Splice) -> Result<(), Misfit> {
    if splice.more.is_empty() {
        // One range: in place, once it is inside the text on character boundaries.
        let end = (splice.keep.checked_add(splice.cut)).ok_or(Misfit::OutOfRange)?;
        if text.get(splice.keep..end).is_none() {
            return Err(Misfit::OutOfRange);
        }
        text.replace_range(splice.keep..end, &splice.put);
        return Ok(());
    }
    *text = rebuild(text, splice.ranges()).ok_or(Misfit::OutOfRange)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

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
            old_hash: None,
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
        // Around each block size, on both sides of the change.
        let near = [0, 1, 63, 64, 65, 4095, 4096, 4097, 8191, 8192, 8257];
        for head in near {
            for tail in near {
                let old = format!("{}x{}", "a".repeat(head), "z".repeat(tail));
                let new = format!("{}yy{}", "a".repeat(head), "z".repeat(tail));
                assert_eq!(
                    round_trip(&old, &new),
                    (head, 1, "yy".into()),
                    "{head} {tail}"
                );
            }
        }
    }

    #[test]
    fn only_long_mostly_kept_texts_are_spliced() {
        let long = "word ".repeat(MIN_TEXT / 5 + 1);
        let edited = format!("{long}one more line\n");
        assert!(worth(Version(3), &long, &edited, 0, None, (0, 0)).is_some());
        assert!(worth(Version(3), "short", "short text", 0, None, (0, 0)).is_none());
        assert!(worth(Version(3), &long, &edited, MAX_CHAIN, None, (0, 0)).is_none());
        let rewritten = "other ".repeat(MIN_TEXT / 6 + 1);
        assert!(worth(Version(3), &long, &rewritten, 0, None, (0, 0)).is_none());
    }

    #[test]
    fn a_splice_that_does_not_fit_its_base_is_refused() {
        let splice = |keep, cut| Splice {
            base: Version(1),
            keep,
            cut,
            put: "x".into(),
            base_hash: None,
            old_hash: None,
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
            old_hash: None,
            more: Vec::new(),
        };
        let mut text = rebuilt.to_owned();
        assert_eq!(apply(&mut text, &splice), Err(Misfit::OtherText));
        assert_eq!(text, rebuilt);
        let mut text = made_on.to_owned();
        assert_eq!(apply(&mut text, &splice), Ok(()));
        assert_eq!(text, r#"[[1e-30,"xxxx"],[1]]"#);
    }

    /// A chain applied with its chunks kept rebuilds every text as [`apply`] does, checks each
    /// splice's base as [`apply`] does (the chunks updated around each splice, ranges of several
    /// included, are those of the text), and refuses a splice made on other bytes.
    #[test]
    fn a_chain_applied_with_its_chunks_is_checked_at_every_splice() {
        let mut text: String = (0..3000)
            .map(|n| format!("{n:05} line of the chain é\n"))
            .collect();
        let root = text.clone();
        let mut chain = Vec::new();
        let mut seed = 9u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for round in 0..40 {
            let base_hash = Some(hash(&text));
            let mut at = next(text.len() - 40);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let (keep, cut, put) = (at, 1 + next(3), format!("put {round}\n"));
            let cut = (keep + cut..).find(|&e| text.is_char_boundary(e)).unwrap() - keep;
            let mut splice = Splice {
                base: Version(round),
                keep,
                cut,
                put,
                base_hash,
                old_hash: None,
                more: Vec::new(),
            };
            if round % 4 == 1 {
                let at = (keep + cut + 100..)
                    .find(|&e| text.is_char_boundary(e))
                    .unwrap();
                splice.more.push(Hunk {
                    at,
                    cut: 0,
                    put: "more\n".to_owned(),
                });
            }
            apply(&mut text, &splice).unwrap();
            chain.push(splice);
        }
        let (mut chained, mut chunks) = (root.clone(), None);
        for splice in &chain {
            apply_chained(&mut chained, splice, &mut chunks).unwrap();
            assert_eq!(chunks.as_ref().unwrap(), &Chunks::of(chained.as_bytes()));
        }
        assert_eq!(chained, text);
        let mut wrong = chain.clone();
        wrong[20].base_hash = Some(hash("other bytes"));
        let (mut chained, mut chunks) = (root, None);
        let refused = wrong
            .iter()
            .position(|s| apply_chained(&mut chained, s, &mut chunks).is_err());
        assert_eq!(refused, Some(20));
    }

    /// A splice stored before schema 14 names its base by the XXH3-64 of the whole text
    /// (`base_hash` in the row): still checked, by that hash, and refused on other bytes.
    #[test]
    fn a_splice_stored_before_digests_is_checked_by_its_own_hash() {
        let made_on = "word ".repeat(300);
        let json = format!(
            r#"{{"markdown":{{"keep":5,"cut":4,"put":"name","base_hash":{}}}}}"#,
            old_hash(&made_on)
        );
        let splice = stored(&json, Version(4))
            .unwrap()
            .remove("markdown")
            .unwrap();
        assert_eq!(
            (splice.base_hash, splice.old_hash),
            (None, Some(old_hash(&made_on)))
        );
        assert_ne!(old_hash(&made_on), hash(&made_on), "two different hashes");
        let mut other = made_on.replacen("word", "worm", 1);
        assert_eq!(apply(&mut other, &splice), Err(Misfit::OtherText));
        let mut text = made_on.clone();
        assert_eq!(apply(&mut text, &splice), Ok(()));
        assert!(text.starts_with("word name word"));
        // Written now, a splice names its base by its digest, under `hash`.
        let new = format!("{made_on}more");
        let splice = worth(Version(2), &made_on, &new, 0, None, (0, 0)).unwrap();
        let row = serde_json::to_string(&splice).unwrap();
        assert!(
            row.contains(&format!(r#""hash":{}"#, hash(&made_on))),
            "{row}"
        );
        assert!(!row.contains("base_hash"), "{row}");
    }

    #[test]
    fn a_new_splice_carries_the_hash_of_its_base() {
        let old = "word ".repeat(MIN_TEXT / 5 + 1);
        let new = format!("{old}more");
        let splice = worth(Version(2), &old, &new, 0, None, (0, 0)).expect("worth storing");
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
            old_hash: None,
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

    /// One splice of `text` made by `edit` (the new text from the old).
    fn splice_of(text: &str, new: &str) -> Splice {
        let (keep, cut, put) = diff(text, new);
        Splice {
            base: Version(1),
            keep,
            cut,
            put: put.to_owned(),
            base_hash: None,
            old_hash: None,
            more: Vec::new(),
        }
    }

    /// Rows name a splice's base and a cut of nothing as before schema 12, or leave them out:
    /// the base is then the version before the row's own, the cut 0.
    #[test]
    fn stored_splices_read_with_or_without_their_base_and_cut() {
        let old = r#"{"markdown":{"base":3,"keep":1,"cut":0,"put":"x","base_hash":7}}"#;
        let new = r#"{"markdown":{"keep":1,"put":"x","hash":8,"more":[{"at":5,"put":"y"}]}}"#;
        let read = |json: &str| {
            stored(json, Version(9))
                .unwrap()
                .remove("markdown")
                .unwrap()
        };
        let (old, new) = (read(old), read(new));
        assert_eq!(
            (old.base, old.cut, old.old_hash, old.base_hash),
            (Version(3), 0, Some(7), None)
        );
        assert_eq!((new.base, new.cut, new.keep), (Version(8), 0, 1));
        assert_eq!((new.base_hash, new.old_hash), (Some(8), None));
        assert_eq!(
            new.more,
            vec![Hunk {
                at: 5,
                cut: 0,
                put: "y".to_owned()
            }]
        );
    }

    /// A full chain is rebased above the splices that earlier rebases stacked on its whole text
    /// (each spans several versions), while a chain has room above them; else on the text.
    #[test]
    fn full_chains_are_rebased_above_the_stack() {
        let chain = |bases: &[u64]| -> Vec<Splice> {
            bases
                .iter()
                .map(|&b| Splice {
                    base: Version(b),
                    keep: 0,
                    cut: 0,
                    put: "x".to_owned(),
                    base_hash: None,
                    old_hash: None,
                    more: Vec::new(),
                })
                .collect()
        };
        // Versions 3.. on the text at 2: no stack.
        let plain: Vec<u64> = (2..35).collect();
        assert_eq!(rebase_point(&chain(&plain)), 0);
        // The rebase at 35 spans 2..35, the one at 66 spans 35..66: a stack of two.
        let mut stacked = vec![2, 35];
        stacked.extend(66..97);
        assert_eq!(rebase_point(&chain(&stacked)), 2);
        // A stack of 31 leaves no room: back to the text.
        let full: Vec<u64> = (0..32).map(|n| 2 + 3 * n).chain([98, 99]).collect();
        assert_eq!(rebase_point(&chain(&full[..32])), 0);
        assert_eq!(rebase_point(&chain(&full[..31])), 30);
        // Only the leading run counts: a splice spanning versions above plain ones does not.
        assert_eq!(rebase_point(&chain(&[2, 3, 9, 10])), 0);
    }

    #[test]
    fn composed_splices_are_the_ranges_of_the_root_they_changed() {
        let root = "aaaa bbbb cccc dddd";
        let texts = [
            root,
            "aaaa bXbb cccc dddd",
            "aaaa bXbb cccc dYdd",
            "aaaa bXYbb cccc dYdd",
            "aaa bXYbb cccc dYdd",
            "aaa bXYbb cccc dYdd!",
        ];
        let chain: Vec<Splice> = texts.windows(2).map(|w| splice_of(w[0], w[1])).collect();
        let hunks = compose(root.len(), &chain).expect("the chain fits");
        let ranges: Vec<(usize, usize, &str)> = hunks
            .iter()
            .map(|h| (h.at, h.cut, h.put.as_str()))
            .collect();
        assert_eq!(
            ranges,
            vec![(3, 1, ""), (6, 1, "XY"), (16, 1, "Y"), (19, 0, "!")]
        );
        assert_eq!(
            rebuild(root, hunks.iter().map(Hunk::range)).as_deref(),
            Some(texts[5])
        );
        // Nothing changed: no range.
        assert_eq!(compose(4, &[splice_of("same", "same")]), Some(vec![]));
        // A range past the text it was made on: no composition.
        let mut bad = splice_of("ab", "abc");
        bad.keep = 9;
        assert_eq!(compose(2, &[bad]), None);
    }

    /// A chain whose composition costs more than a quarter of the text is stored whole; one
    /// that rebuilds another text is refused.
    #[test]
    fn a_rebased_splice_is_small_and_rebuilds_its_text() {
        let root = "line of text\n".repeat(200);
        let mut new = root.clone();
        new.insert_str(100, "more");
        let chain = [splice_of(&root, &new)];
        let spliced = rebased(Version(4), &root, hash(&root), &chain, &new).expect("worth storing");
        assert_eq!(
            (spliced.base, spliced.keep, spliced.cut),
            (Version(4), 100, 0)
        );
        assert_eq!(spliced.base_hash, hash(&root));
        assert!(rebased(Version(4), &root, hash(&root), &chain, &format!("{new}?")).is_none());
        // The same length, one byte other: refused too.
        let other = new.replacen("more", "mare", 1);
        assert!(rebased(Version(4), &root, hash(&root), &chain, &other).is_none());
        let rewritten = "other words\n".repeat(220);
        assert!(
            rebased(
                Version(4),
                &root,
                hash(&root),
                &[splice_of(&root, &rewritten)],
                &rewritten
            )
            .is_none()
        );
    }

    proptest! {
        /// Any chain of edits, each a splice of the text before it (one range or several),
        /// composes into ranges of the first text that give the last.
        #[test]
        fn any_chain_composes_into_one_splice_of_its_root(
            root in "[a-c€é\n]{0,200}",
            edits in proptest::collection::vec(
                (0usize..300, 0usize..20, "[a-c€é\n]{0,12}", proptest::bool::ANY), 1..40),
        ) {
            let mut text = root.clone();
            let mut chain = Vec::new();
            for (at, cut, put, two) in edits {
                let chars: Vec<char> = text.chars().collect();
                let at = at.min(chars.len());
                let end = (at + cut).min(chars.len());
                let new: String = chars[..at].iter().copied().chain(put.chars()).chain(chars[end..].iter().copied()).collect();
                let mut splice = splice_of(&text, &new);
                if two && splice.keep > 0 {
                    // The same change as two ranges: the first character also replaced by
                    // itself, in a range of its own.
                    let first = text.chars().next().map_or(0, char::len_utf8);
                    if first <= splice.keep {
                        splice.more.push(Hunk { at: splice.keep, cut: splice.cut, put: splice.put.clone() });
                        splice.keep = 0;
                        splice.cut = first;
                        splice.put = text[..first].to_owned();
                    }
                }
                let mut check = text.clone();
                prop_assert_eq!(apply(&mut check, &splice), Ok(()));
                prop_assert_eq!(&check, &new);
                chain.push(splice);
                text = new;
            }
            let hunks = compose(root.len(), &chain).expect("the chain fits");
            prop_assert!(rebuilds(&root, hunks.iter().map(Hunk::range), &text));
            let (longer, shorter) = (format!("{text}a"), text.get(1..).unwrap_or("").to_owned());
            prop_assert!(!rebuilds(&root, hunks.iter().map(Hunk::range), &longer));
            if !text.is_empty() && text.is_char_boundary(1) {
                prop_assert!(!rebuilds(&root, hunks.iter().map(Hunk::range), &shorter));
            }
            prop_assert_eq!(rebuild(&root, hunks.iter().map(Hunk::range)), Some(text));
            for pair in hunks.windows(2) {
                prop_assert!(pair[0].at + pair[0].cut < pair[1].at || (pair[0].at + pair[0].cut == pair[1].at && pair[1].cut > 0));
            }
        }

        /// Any one edit round-trips through its diff; told any ends the two texts share (no
        /// more than the edit left), the diff is the one it finds told nothing.
        #[test]
        fn every_edit_round_trips(
            old in "[a-c€é\n]{0,300}",
            at in 0usize..400,
            cut in 0usize..50,
            put in "[a-c€é\n]{0,40}",
            less in (0usize..8, 0usize..8),
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
            let splice = Splice { base: Version(1), keep, cut, put: put.to_owned(), base_hash: Some(hash(&old)), old_hash: None, more: Vec::new() };
            let mut text = old.clone();
            prop_assert_eq!(apply(&mut text, &splice), Ok(()));
            prop_assert_eq!(text, new.clone());
            prop_assert!(put.len() <= new.len());
            // The bytes before the edit and after it, less a few (a batch may say less).
            let start: usize = chars[..at].iter().map(|c| c.len_utf8()).sum();
            let after: usize = chars[end..].iter().map(|c| c.len_utf8()).sum();
            let kept = (start.saturating_sub(less.0), after.saturating_sub(less.1));
            prop_assert_eq!(diff_kept(&old, &new, kept), (keep, cut, put));
        }
    }
}
