//! The Markdown tab's operations: the whole text replaced, spliced, or edited by quoting it.

use super::{Draft, OpResult, wrong_kind};
use crate::error::{EditMiss, OpError, OpErrorCode};
use crate::op::{TextEdit, TextSplice};
use crate::tab::TabData;
use crate::{TabId, Text, limits};

pub(super) fn replace_text(d: &mut Draft, tab_id: &TabId, text: &str) -> OpResult {
    let (current, _) = markdown(d, tab_id, "replace_text")?;
    *current = text.into();
    d.kept_ends(tab_id, 0, 0);
    d.edited(tab_id, format!("replaced the text of {}", d.named(tab_id)))
}

/// `splice_text`: the splices, in characters of the text as it is before the operation.
pub(super) fn splice_text(d: &mut Draft, tab_id: &TabId, splices: &[TextSplice]) -> OpResult {
    if splices.is_empty() {
        return Err(OpError::invalid(
            "splices",
            "at least one splice is required",
        ));
    }
    if splices.len() > limits::TEXT_SPLICES {
        return Err(OpError::over_limit(
            "splices",
            format!(
                "{} splices; at most {}",
                splices.len(),
                limits::TEXT_SPLICES
            ),
        ));
    }
    let (current, lent) = markdown(d, tab_id, "splice_text")?;
    let was = lent.unwrap_or(current);
    let (spliced, first, last) = splice(was, splices)?;
    let end = was.len() - last;
    *current = spliced;
    d.kept_ends(tab_id, first, end);
    let n = splices.len();
    let what = if n == 1 {
        "1 splice".to_owned()
    } else {
        format!("{n} splices")
    };
    d.edited(
        tab_id,
        format!("edited the text of {} ({what})", d.named(tab_id)),
    )
}

/// The text with `splices` applied, each place found from the text's marks ([`Text`]): one
/// splice makes a text that takes them over ([`Text::spliced`]), so the next splice of a long
/// text finds its place without counting it from the start; several are written in one pass,
/// from the first character to the last, into a text with room for all of it. With it, the
/// bytes of `text` where the first splice starts and where the last one ends.
fn splice(text: &Text, splices: &[TextSplice]) -> Result<(Text, usize, usize), OpError> {
    let past_end = |field: String| {
        let n = text.chars().count();
        OpError::invalid(field, format!("past the end of the text ({n} characters)"))
    };
    let mut places = Vec::with_capacity(splices.len());
    let mut last_end = 0u64;
    // The last place found (a byte and the characters before it): the next is counted from it
    // when no mark is nearer.
    let mut known = (0usize, 0usize);
    for (i, s) in splices.iter().enumerate() {
        if s.at < last_end {
            return Err(OpError::invalid(
                format!("splices[{i}].at"),
                "splices go in ascending order and do not overlap",
            ));
        }
        let end = s.at.saturating_add(s.delete);
        let mut place = |chars: u64| {
            let chars = usize::try_from(chars).ok()?;
            let byte = text.byte_at_char_from(known, chars)?;
            known = (byte, chars);
            Some(byte)
        };
        let from = place(s.at).ok_or_else(|| past_end(format!("splices[{i}].at")))?;
        let to = place(end).ok_or_else(|| past_end(format!("splices[{i}].delete")))?;
        places.push((from, to, s.insert.as_str()));
        last_end = end;
    }
    let (first, last) = match (places.first(), places.last()) {
        (Some(first), Some(last)) => (first.0, last.1),
        _ => (text.len(), text.len()),
    };
    if let [(from, to, insert)] = places[..] {
        let spliced = (text.spliced(from, to - from, insert))
            .ok_or_else(|| OpError::invalid("splices[0]", "not on a character boundary"))?;
        return Ok((spliced, first, last));
    }
    let inserted: usize = splices.iter().map(|s| s.insert.len()).sum();
    let mut out = String::with_capacity(text.len().saturating_add(inserted));
    let mut copied = 0;
    for (from, to, insert) in places {
        out.push_str(&text[copied..from]);
        out.push_str(insert);
        copied = to;
    }
    out.push_str(&text[copied..]);
    Ok((out.into(), first, last))
}

/// `edit_text`: each edit's `old_text`, found exactly once in the text the edits before it
/// left, becomes its `new_text`.
pub(super) fn edit_text(d: &mut Draft, tab_id: &TabId, edits: &[TextEdit]) -> OpResult {
    if edits.is_empty() {
        return Err(OpError::invalid("edits", "at least one edit is required"));
    }
    if edits.len() > limits::TEXT_EDITS {
        return Err(OpError::over_limit(
            "edits",
            format!("{} edits; at most {}", edits.len(), limits::TEXT_EDITS),
        ));
    }
    // Edited in the draft's own text: a refused edit refuses the whole batch, and the draft
    // is dropped with it. A lent text is not copied first: the first edit writes the draft's
    // text from it, with room for what the edits after it add.
    let (text, lent) = markdown(d, tab_id, "edit_text")?;
    let mut lent = lent.map(Text::as_str);
    // The bytes at the text's start and end no edit changed.
    let mut kept = (usize::MAX, usize::MAX);
    for (i, edit) in edits.iter().enumerate() {
        if edit.old_text.is_empty() {
            return Err(OpError::invalid(
                format!("edits[{i}].old_text"),
                "the text to replace is empty: quote the text to change",
            ));
        }
        let found = occurrences(lent.unwrap_or(text.as_str()), &edit.old_text);
        let at = match found.as_slice() {
            [at] => *at,
            _ => {
                let (code, reason) = match found.len() {
                    0 => (
                        OpErrorCode::OldTextNotFound,
                        "not found in the text".to_owned(),
                    ),
                    n => (
                        OpErrorCode::OldTextNotUnique,
                        format!("found {n} times in the text: quote more of it to pick one"),
                    ),
                };
                return Err(OpError {
                    edit: Some(EditMiss {
                        index: i,
                        occurrences: found.len(),
                    }),
                    ..OpError::new(code, format!("edits[{i}].old_text"), reason)
                });
            }
        };
        let end = at + edit.old_text.len();
        let after = lent.unwrap_or(text.as_str()).len() - end;
        match lent.take() {
            Some(from) => {
                let added: usize = (edits[i + 1..].iter())
                    .map(|e| e.new_text.len().saturating_sub(e.old_text.len()))
                    .sum();
                let mut edited = String::with_capacity(
                    from.len() - edit.old_text.len() + edit.new_text.len() + added,
                );
                edited.push_str(&from[..at]);
                edited.push_str(&edit.new_text);
                edited.push_str(&from[end..]);
                *text = edited.into();
            }
            None => text.make_mut().replace_range(at..end, &edit.new_text),
        }
        kept = (kept.0.min(at), kept.1.min(after));
    }
    d.kept_ends(tab_id, kept.0, kept.1);
    let n = edits.len();
    // One quote replaced by other text in its one place: the text surely changed (no need to
    // compare it whole at the end). Several may put back what an earlier one changed.
    if let [edit] = edits
        && edit.old_text != edit.new_text
    {
        d.surely_changed.insert(tab_id.clone());
    }
    let what = if n == 1 {
        "1 edit".to_owned()
    } else {
        format!("{n} edits")
    };
    d.edited(
        tab_id,
        format!("edited the text of {} ({what})", d.named(tab_id)),
    )
}

/// Where `needle` starts in `text`, overlapping occurrences counted (`"aa"` is twice in
/// `"aaa"`).
/// Searched with `memchr`'s SIMD finder: the quote of one line is found in a text of
/// megabytes in a fraction of the time `str::find` takes (a one-line edit of a long Note should
/// cost what it changes). The finder first looks for two of the quote's rarest bytes; in a
/// long text, which bytes are rare is sampled from the text itself ([`SampledRank`]).
fn occurrences(text: &str, needle: &str) -> Vec<usize> {
    let finder = if text.len() >= SAMPLED_FROM {
        memchr::memmem::FinderBuilder::new()
            .build_forward_with_ranker(SampledRank::of(text.as_bytes()), needle.as_bytes())
    } else {
        memchr::memmem::Finder::new(needle.as_bytes())
    };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = finder.find(&text.as_bytes()[from..]).map(|i| from + i) {
        found.push(at);
        // The next occurrence may start inside this one: one character on.
        from = at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// Texts from this long on are searched with byte ranks sampled from them.
const SAMPLED_FROM: usize = 64 * 1024;

/// How common each byte is in a text, from 16 windows of 512 bytes spread over it: what the
/// finder ranks bytes by. `memchr`'s own ranks are those of common text, where a quote's
/// rarest bytes are rare; in a text whose lines repeat a pattern (a log, a table, a list) the
/// bytes those ranks pick are on every line and the finder stops at each line: `edit_text` of
/// one line in 1 MiB of such lines took 0.80 ms, 0.12-0.14 ms with sampled ranks (prose: 0.12
/// ms either way; `cargo run --release -p quire-model --example bench_find`).
struct SampledRank([u8; 256]);

impl SampledRank {
    const WINDOWS: usize = 16;
    const WINDOW: usize = 512;

    /// `text` is at least [`SAMPLED_FROM`] bytes long, so the windows do not overlap.
    fn of(text: &[u8]) -> Self {
        // Four tallies, a byte of every four each, so that runs of one byte do not wait on
        // their own count.
        let mut tallies = [[0u32; 256]; 4];
        let step = text.len() / Self::WINDOWS;
        for i in 0..Self::WINDOWS {
            for bytes in text[i * step..i * step + Self::WINDOW].chunks_exact(4) {
                for (tally, &byte) in tallies.iter_mut().zip(bytes) {
                    tally[usize::from(byte)] += 1;
                }
            }
        }
        let counts: Vec<u32> = (0..256)
            .map(|b| tallies.iter().map(|t| t[b]).sum())
            .collect();
        let most = u64::from(counts.iter().copied().max().unwrap_or(1).max(1));
        let mut ranks = [0u8; 256];
        for (rank, &count) in ranks.iter_mut().zip(&counts) {
            // 0 for a byte not seen, 255 for the most common one.
            *rank = u8::try_from((u64::from(count) * 255).div_ceil(most)).unwrap_or(u8::MAX);
        }
        SampledRank(ranks)
    }
}

impl memchr::arch::all::packedpair::HeuristicFrequencyRank for SampledRank {
    fn rank(&self, byte: u8) -> u8 {
        self.0[usize::from(byte)]
    }
}

/// The text of the Markdown tab `tab_id`, to change.
/// The draft's text of Markdown tab `tab_id`, for `op` to write, and the Note's own text where
/// the draft holds no copy of it yet (it is lent; see `Draft::lent`): the caller then writes the
/// draft's text whole, from the lent one.
fn markdown<'d, 'a>(
    d: &'d mut Draft<'a>,
    tab_id: &TabId,
    op: &str,
) -> Result<(&'d mut Text, Option<&'a Text>), OpError> {
    let lent = d.lent.remove(tab_id);
    let tab = d.tab_mut(tab_id)?;
    if !matches!(tab.data, TabData::Markdown(_)) {
        return Err(wrong_kind(tab, op, "a markdown"));
    }
    match &mut tab.data {
        TabData::Markdown(text) => Ok((text, lent)),
        _ => Err(OpError::invalid("tab_id", "not a markdown tab")),
    }
}
