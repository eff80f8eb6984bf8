//! A text's digest: a 64-bit hash of its bytes that a splice of the text updates by hashing
//! only around the splice, so a keystroke in a 10 MiB text does not hash 10 MiB.
//!
//! The text is cut into chunks where its content says (after a line whose end, the line break
//! and up to [`LINE_END`] bytes before it, mixes to a value with six high zero bits: a line in
//! 64 on average; and after [`MAX_CHUNK`] bytes without such a line), each chunk is hashed
//! (XXH3-64), and the digest is the XXH3-64 of the chunks' hashes and the text's length. Where
//! a chunk ends depends only on the bytes since the chunk before ended, so after a splice the
//! chunks past it are the same as before, shifted: only the chunks around the splice are hashed
//! again ([`Chunks::spliced`]). The value is a function of the bytes alone, however the text was
//! made: [`digest`] of the same bytes gives the same value.

use std::borrow::Cow;

/// A chunk with no cut in it ends after this many bytes (a text of very long lines).
const MAX_CHUNK: usize = 64 * 1024;

/// A line's end that decides whether a chunk ends after it: its last bytes, this many at most.
const LINE_END: usize = 64;

/// Bytes of the text a splice's update reads past the splice at first.
const WINDOW: usize = 16 * 1024;

/// The digest of `text` (what [`Chunks::value`] gives for its chunks).
pub fn digest(text: &str) -> u64 {
    Chunks::of(text.as_bytes()).value
}

/// A text's chunks: where each ends and its hash, and the digest they make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunks {
    ends: Vec<usize>,
    hashes: Vec<u64>,
    pub value: u64,
}

impl Chunks {
    /// The chunks of the whole of `bytes`.
    pub fn of(bytes: &[u8]) -> Chunks {
        let (mut ends, mut hashes) = (Vec::new(), Vec::new());
        scan(bytes, 0, 0, true, |end, hash| {
            ends.push(end);
            hashes.push(hash);
            false
        });
        Chunks::made(ends, hashes, bytes.len())
    }

    fn made(ends: Vec<usize>, hashes: Vec<u64>, len: usize) -> Chunks {
        let mut all = Vec::with_capacity(hashes.len() * 8 + 8);
        for hash in &hashes {
            all.extend_from_slice(&hash.to_le_bytes());
        }
        all.extend_from_slice(&(len as u64).to_le_bytes());
        let value = twox_hash::XxHash3_64::oneshot(&all);
        Chunks {
            ends,
            hashes,
            value,
        }
    }

    /// The chunks of a text made from the one these are of by replacing the `removed` bytes at
    /// byte `at` with `inserted` bytes; `read(from, to)` gives the new text's bytes in that
    /// range, and `len` is its length. The chunks before the splice are kept, those after it
    /// moved, and only the ones between are hashed again.
    pub fn spliced<'t>(
        &self,
        at: usize,
        removed: usize,
        inserted: usize,
        len: usize,
        read: impl Fn(usize, usize) -> Cow<'t, [u8]>,
    ) -> Chunks {
        // Chunks that end at or before the splice keep their bytes and their end (not the last:
        // it ends where the text did, not at a cut).
        let kept =
            (self.ends.partition_point(|&end| end <= at)).min(self.ends.len().saturating_sub(1));
        let mut ends = self.ends[..kept].to_vec();
        let mut hashes = self.hashes[..kept].to_vec();
        let mut from = kept.checked_sub(1).map_or(0, |i| self.ends[i]);
        // The first end past the splice's reach that the old text had too (moved): every
        // chunk after it is the same.
        let reach = at + inserted + LINE_END;
        let old_end = |end: usize| (end + removed).checked_sub(inserted);
        let mut rest = None;
        // Read a little past the splice first (a chunk is a few KiB), more if that was not enough.
        let mut size = inserted + WINDOW;
        while from < len {
            let start = from.saturating_sub(LINE_END);
            let to = len.min(from + size);
            size = size.saturating_mul(2);
            let window = read(start, to);
            let at_end = to == len;
            from = scan(&window, start, from, at_end, |end, hash| {
                ends.push(end);
                hashes.push(hash);
                if end >= reach
                    && end < len
                    && let Some(old) = old_end(end)
                    && let Ok(i) = self.ends.binary_search(&old)
                    && i >= kept
                {
                    rest = Some(i + 1);
                    return true;
                }
                false
            });
            if rest.is_some() || at_end {
                break;
            }
        }
        if let Some(i) = rest {
            ends.extend(self.ends[i..].iter().map(|&end| end + inserted - removed));
            hashes.extend_from_slice(&self.hashes[i..]);
        }
        Chunks::made(ends, hashes, len)
    }
}

/// Cuts the text into chunks from byte `from` (a chunk's start), given its bytes from `start`
/// (`window`; `start` is 0 or at least [`LINE_END`] bytes before `from`), handing each chunk's
/// end and hash to `each` until it returns true. `at_end`: the window reaches the text's end, whose last
/// chunk then ends there. Returns where the last chunk handed over ends (where a scan of a
/// longer window goes on from).
fn scan(
    window: &[u8],
    start: usize,
    from: usize,
    at_end: bool,
    mut each: impl FnMut(usize, u64) -> bool,
) -> usize {
    let mut chunk = from;
    let mut cut = |end: usize, chunk: &mut usize| {
        let hash = twox_hash::XxHash3_64::oneshot(&window[*chunk - start..end - start]);
        *chunk = end;
        each(end, hash)
    };
    let window_end = start + window.len();
    // The line break before the one at hand, if it is in the window.
    let mut before = memchr::memrchr(b'\n', &window[..from - start]).map(|i| start + i);
    for i in memchr::memchr_iter(b'\n', &window[from - start..]) {
        let line_end = from + i + 1;
        while line_end - chunk > MAX_CHUNK {
            let end = chunk + MAX_CHUNK;
            if cut(end, &mut chunk) {
                return chunk;
            }
        }
        let line_start = before
            .map_or(0, |b| b + 1)
            .max(line_end.saturating_sub(LINE_END));
        before = Some(line_end - 1);
        let line = &window[line_start - start..line_end - start];
        if cuts_after(line) && cut(line_end, &mut chunk) {
            return chunk;
        }
    }
    while window_end - chunk > MAX_CHUNK {
        let end = chunk + MAX_CHUNK;
        if cut(end, &mut chunk) {
            return chunk;
        }
    }
    if at_end && window_end > chunk {
        cut(window_end, &mut chunk);
    }
    chunk
}

/// Whether a chunk ends after `line` (the end of a line: its last [`LINE_END`] bytes at most,
/// the line break included): its first and last eight bytes and its length mix to a value with
/// six high zero bits.
fn cuts_after(line: &[u8]) -> bool {
    let n = line.len();
    let (first, last) = match (line.first_chunk::<8>(), line.last_chunk::<8>()) {
        (Some(first), Some(last)) => (u64::from_le_bytes(*first), u64::from_le_bytes(*last)),
        _ => {
            let mut word = [0u8; 8];
            word[..n].copy_from_slice(line);
            (u64::from_le_bytes(word), u64::from_le_bytes(word))
        }
    };
    let mut mix = (first ^ last.rotate_left(29) ^ (n as u64).wrapping_mul(0xFF51_AFD7_ED55_8CCD))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mix ^= mix >> 29;
    mix.wrapping_mul(0xC4CE_B9FE_1A85_EC53) >> 58 == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn next(seed: &mut u64) -> usize {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as usize
    }

    /// Lines of `words` words (a few very long ones), of one to four bytes a character.
    fn some_text(bytes: usize, seed: &mut u64) -> String {
        const WORDS: [&str; 8] = ["the", "naïve", "café", "€", "😀", "quire", "x", "note"];
        let mut out = String::new();
        while out.len() < bytes {
            let words = if next(seed).is_multiple_of(50) {
                30_000
            } else {
                next(seed) % 20
            };
            for _ in 0..words {
                out.push_str(WORDS[next(seed) % WORDS.len()]);
                out.push(' ');
            }
            out.push('\n');
        }
        out
    }

    #[test]
    fn chunks_end_where_the_content_says_and_within_the_longest() {
        let mut seed = 3;
        let text = some_text(2 << 20, &mut seed);
        let chunks = Chunks::of(text.as_bytes());
        assert_eq!(chunks.ends.last(), Some(&text.len()));
        let mut start = 0;
        for &end in &chunks.ends {
            assert!(end > start && end - start <= MAX_CHUNK);
            start = end;
        }
        assert!(chunks.ends.len() > 20, "{} chunks", chunks.ends.len());
        assert_eq!(digest(&text), chunks.value);
        assert_ne!(digest(&format!("x{text}")), chunks.value);
        assert_ne!(digest(""), digest("\n"));
    }

    /// Lines that differ only at their start (a numbered log) are still cut where their content
    /// says, so a splice is hashed again only around it.
    #[test]
    fn lines_alike_but_for_their_start_are_cut_by_their_content() {
        let text: String = (0..20_000)
            .map(|n| format!("{n:06} the log of a long study, one line of many, kept alike.\n"))
            .collect();
        let chunks = Chunks::of(text.as_bytes());
        assert!(chunks.ends.len() > 100, "{} chunks", chunks.ends.len());
        let read = std::cell::Cell::new(0);
        let mut new = text.clone();
        new.insert(500_000, 'x');
        let spliced = chunks.spliced(500_000, 0, 1, new.len(), |a, b| {
            read.set(read.get() + b - a);
            Cow::Borrowed(&new.as_bytes()[a..b])
        });
        assert_eq!(spliced, Chunks::of(new.as_bytes()));
        assert!(read.get() <= 4 * WINDOW, "read {} bytes", read.get());
    }

    /// Spliced anywhere (inside a chunk, across several, at the ends, in the long lines), the
    /// chunks are those of the new text counted whole.
    #[test]
    fn a_splice_updates_the_chunks_as_counting_the_new_text_whole() {
        let mut seed = 11;
        let mut text = some_text(1 << 20, &mut seed);
        let mut chunks = Chunks::of(text.as_bytes());
        for round in 0..120 {
            let len = text.len();
            let mut at = match round % 12 {
                0 => 0,
                1 => len,
                _ => next(&mut seed) % (len + 1),
            };
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at
                + match round % 7 {
                    3 => next(&mut seed) % 300_000,
                    _ => next(&mut seed) % 4,
                })
            .min(len);
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let insert = match round % 5 {
                2 => some_text(next(&mut seed) % 200_000, &mut seed),
                4 => "\n".repeat(next(&mut seed) % 3),
                _ => "é".repeat(next(&mut seed) % 3),
            };
            let mut new = String::with_capacity(len + insert.len());
            new.push_str(&text[..at]);
            new.push_str(&insert);
            new.push_str(&text[end..]);
            let spliced = chunks.spliced(at, end - at, insert.len(), new.len(), |a, b| {
                Cow::Borrowed(&new.as_bytes()[a..b])
            });
            assert_eq!(spliced, Chunks::of(new.as_bytes()), "round {round}");
            text = new;
            chunks = spliced;
        }
    }
}
