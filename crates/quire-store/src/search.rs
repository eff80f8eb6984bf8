//! Full-text search, the part both stores share: the translation of a person's (or a model's)
//! words into a query ([`SearchQuery`], rendered for SQLite FTS5 and for a PostgreSQL
//! `tsquery`), the words of a text ([`words`], case- and accent-folded), the chunks a tab is
//! indexed in ([`chunks`]), what a write changes in the index ([`plan`]) and the snippet of a
//! hit ([`snippet`]).
//!
//! Query text is hostile by nature: every character that is not part of a word (quotes aside)
//! is a separator, `AND`/`OR`/`NOT`/`NEAR` are words like any other, and a rendered query holds
//! nothing but quoted words, so no input can make the index's query language fail. The only
//! refusal is a query without a single word ([`QueryError::Empty`]).

use std::borrow::Cow;

use quire_model::{Note, Row, Slide, Source, TabData, TabId, TabKind, same_cell};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Most words (and phrases) a query keeps; the rest of a very long query is ignored.
pub const MAX_PARTS: usize = 32;
/// Longest word kept, in characters (a longer one is cut here, in the index and the query).
pub const MAX_WORD_CHARS: usize = 100;
/// A chunk closes at a content-defined line once it holds this many bytes...
const CHUNK_MIN: usize = 1024;
/// ...and at the next line (or inside a very long line) once it holds this many.
const CHUNK_MAX: usize = 4096;
/// About how many characters of text a snippet shows.
const SNIPPET_CHARS: usize = 160;
/// How many of them come before the match.
const SNIPPET_BEFORE: usize = 40;

/// Which Notes a search may find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchScope {
    /// Every Note (the person's search).
    AllNotes,
    /// Only the Notes the person approved for agents (MCP).
    AgentApproved,
}

/// The one way a query is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("the query has no words to search for (letters or digits)")]
    Empty,
}

/// One part of a query: every part must match (in the Note's title or the tab).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// A word; `prefix`: the query's last word, which matches any word it begins.
    Word { word: String, prefix: bool },
    /// Words in a row (a `"quoted phrase"` of two words or more).
    Phrase(Vec<String>),
}

/// A parsed search query: folded words and phrases, all required.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    parts: Vec<Part>,
}

/// Case- and accent-folds a word: canonical decomposition, combining marks dropped, lower case.
pub fn fold(word: &str) -> String {
    word.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .take(MAX_WORD_CHARS)
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// The words of `text`, folded, each with its byte range in `text`. A word is a run of letters,
/// digits and combining marks; everything else separates words.
pub fn words(text: &str) -> impl Iterator<Item = (std::ops::Range<usize>, String)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let start = loop {
            let (i, c) = chars.next()?;
            if is_word_char(c) {
                break i;
            }
        };
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !is_word_char(c) {
                end = i;
                break;
            }
            chars.next();
        }
        let word = fold(&text[start..end]);
        Some((start..end, word))
    })
    .filter(|(_, w)| !w.is_empty())
}

impl SearchQuery {
    /// Reads a person's words: words separated by anything that is not a letter or digit,
    /// `"quoted phrases"` (an unclosed quote runs to the end), the last word a prefix.
    pub fn parse(input: &str) -> Result<SearchQuery, QueryError> {
        let mut parts = Vec::new();
        for (i, piece) in input.split('"').enumerate() {
            let found: Vec<String> = words(piece).map(|(_, w)| w).collect();
            if i % 2 == 1 && found.len() > 1 {
                parts.push(Part::Phrase(found));
            } else {
                parts.extend(found.into_iter().map(|word| Part::Word {
                    word,
                    prefix: false,
                }));
            }
            if parts.len() >= MAX_PARTS {
                break;
            }
        }
        parts.truncate(MAX_PARTS);
        // The last word is a prefix when it is a bare word: the person may still be typing it.
        let ends_in_quote = input.trim_end().ends_with('"');
        if let Some(Part::Word { prefix, .. }) = parts.last_mut()
            && !ends_in_quote
        {
            *prefix = true;
        }
        if parts.is_empty() {
            return Err(QueryError::Empty);
        }
        Ok(SearchQuery { parts })
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// FTS5 `MATCH` text: every part required, each word a quoted string.
    pub fn to_fts5(&self) -> String {
        self.parts
            .iter()
            .map(fts5_part)
            .collect::<Vec<_>>()
            .join(" AND ")
    }

    /// FTS5 `MATCH` text that a chunk matches when any part of the query is in its `body`
    /// column (not only in the Note's title).
    pub fn to_fts5_body_any(&self) -> String {
        let any: Vec<String> = self.parts.iter().map(fts5_part).collect();
        format!("body : ({})", any.join(" OR "))
    }

    /// `tsquery` text (for `::tsquery`, no parser in between): every part required.
    pub fn to_tsquery(&self) -> String {
        self.tsquery_with(" & ", "")
    }

    /// `tsquery` text a chunk matches when any part is in its body (weight D, the title being
    /// weight A).
    pub fn to_tsquery_body_any(&self) -> String {
        self.tsquery_with(" | ", "D")
    }

    /// FTS5 `MATCH` text of each part alone, in the title or the body: a tab whose chunks
    /// share the query's words out among them matches when each of these matches some chunk.
    pub fn parts_fts5(&self) -> Vec<String> {
        self.parts
            .iter()
            .map(|part| format!("{{title body}} : ({})", fts5_part(part)))
            .collect()
    }

    /// `tsquery` text of each part alone (see [`SearchQuery::parts_fts5`]).
    pub fn parts_tsquery(&self) -> Vec<String> {
        self.parts.iter().map(|p| tsquery_part(p, "")).collect()
    }

    fn tsquery_with(&self, join: &str, weight: &str) -> String {
        self.parts
            .iter()
            .map(|part| tsquery_part(part, weight))
            .collect::<Vec<_>>()
            .join(join)
    }

    /// Where the first match of any part starts in `text`, as a byte range.
    fn first_match(&self, text: &str) -> Option<std::ops::Range<usize>> {
        let found: Vec<(std::ops::Range<usize>, String)> = words(text).collect();
        for (i, (range, word)) in found.iter().enumerate() {
            for part in &self.parts {
                let hit = match part {
                    Part::Word {
                        word: want,
                        prefix: true,
                    } => word.starts_with(want.as_str()),
                    Part::Word { word: want, .. } => word == want,
                    Part::Phrase(phrase) => {
                        found.len() >= i + phrase.len()
                            && found[i..i + phrase.len()]
                                .iter()
                                .zip(phrase)
                                .all(|((_, w), p)| w == p)
                    }
                };
                if hit {
                    return Some(range.clone());
                }
            }
        }
        None
    }
}

fn fts5_quote(word: &str) -> String {
    format!("\"{}\"", word.replace('"', "\"\""))
}

fn fts5_part(part: &Part) -> String {
    match part {
        Part::Word { word, prefix } => {
            let star = if *prefix { "*" } else { "" };
            format!("{}{star}", fts5_quote(word))
        }
        Part::Phrase(words) => fts5_quote(&words.join(" ")),
    }
}

/// One part as `tsquery` text; `weight`: the weight its words must have ("" for any).
fn tsquery_part(part: &Part, weight: &str) -> String {
    let lexeme = |w: &str, prefix: bool| {
        let star = if prefix { "*" } else { "" };
        let suffix = if prefix || !weight.is_empty() {
            format!(":{star}{weight}")
        } else {
            String::new()
        };
        format!("{}{suffix}", tsquery_quote(w))
    };
    match part {
        Part::Word { word, prefix } => lexeme(word, *prefix),
        Part::Phrase(words) => {
            let inner: Vec<String> = words.iter().map(|w| lexeme(w, false)).collect();
            format!("({})", inner.join(" <-> "))
        }
    }
}

fn tsquery_quote(word: &str) -> String {
    format!("'{}'", word.replace('\\', "\\\\").replace('\'', "''"))
}

/// A chunk's `tsvector` text (for `::tsvector`): the title's words at weight A, then the
/// body's at the default weight D, each with its position.
pub fn tsvector(title: &str, body: &str) -> String {
    /// PostgreSQL keeps positions up to this one.
    const MAX_POSITION: usize = 16_383;
    let mut out = String::new();
    let title_words = words(title).map(|(_, w)| (w, "A"));
    let body_words = words(body).map(|(_, w)| (w, ""));
    for (pos, (word, weight)) in title_words.chain(body_words).enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&tsquery_quote(&word));
        out.push_str(&format!(":{}{weight}", (pos + 1).min(MAX_POSITION)));
    }
    out
}

/// The plain-text snippet of a hit: about [`SNIPPET_CHARS`] characters of `body` around the
/// query's first match there; the title if the body does not match (a match in the title).
pub fn snippet(query: &SearchQuery, title: &str, body: &str) -> String {
    let Some(range) = query.first_match(body) else {
        return title.to_owned();
    };
    let before: Vec<(usize, char)> = body[..range.start].char_indices().collect();
    let mut start = before
        .len()
        .checked_sub(SNIPPET_BEFORE)
        .map_or(0, |i| before[i].0);
    // Start at a word's beginning.
    if start > 0
        && let Some(space) = body[start..range.start].find(char::is_whitespace)
    {
        start += space + 1;
    }
    let after = SNIPPET_CHARS.saturating_sub(body[start..range.start].chars().count());
    let end = body[range.start..]
        .char_indices()
        .nth(after)
        .map_or(body.len(), |(i, _)| range.start + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(
        &body[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    if end < body.len() {
        out.push('…');
    }
    out
}

/// The texts a tab is indexed as, in order. Markdown: lines grouped into chunks of a few KiB
/// that close at content-defined lines, so an edit changes the chunks around it and not the
/// ones after. Every other kind: its units (a sheet's name and its rows in blocks of
/// [`BLOCK_CELLS`] cells, slides, sources, file names) grouped into runs that close after a
/// unit of [`HARD_BYTES`] or more or one in sixteen by content, and after [`RUN_MAX`] units
/// at most: a run depends on its own units only, so a write re-chunks the runs it touched and
/// nothing else ([`plan`]). A tab with nothing to index has no chunks.
pub fn chunks(data: &TabData) -> Vec<Cow<'_, str>> {
    match data {
        TabData::Markdown(text) => chunk_text(text),
        other => group(&units(other)).into_iter().map(Cow::Owned).collect(),
    }
}

/// How many cells of a row one unit holds (a wide row is several units, so that a cell
/// written re-indexes its block, not its whole row).
const BLOCK_CELLS: usize = 64;
/// A unit of at least this many bytes closes its run.
const HARD_BYTES: usize = 256;
/// Most units a run holds before it closes anyway (a run of small units alike).
const RUN_MAX: usize = 64;

/// One piece of a grouped tab, formatted only when needed.
#[derive(Clone, Copy)]
enum Unit<'a> {
    /// A sheet's name, a file's name.
    Text(&'a str),
    /// Cells `[k * BLOCK_CELLS, (k + 1) * BLOCK_CELLS)` of a row.
    Cells(&'a Row, usize),
    Slide(&'a Slide),
    Source(&'a Source),
}

impl Unit<'_> {
    /// Appends the unit's text to `out`: a block's strings and numbers joined by tabs.
    fn write(&self, out: &mut String) {
        use std::fmt::Write as _;
        // Writing to a String cannot fail: the results are ignored.
        match self {
            Unit::Text(text) => out.push_str(text),
            Unit::Cells(row, k) => {
                let mut first = true;
                for cell in block(row, *k) {
                    if !matches!(
                        cell,
                        serde_json::Value::String(_) | serde_json::Value::Number(_)
                    ) {
                        continue;
                    }
                    if !first {
                        out.push('\t');
                    }
                    first = false;
                    match cell {
                        serde_json::Value::String(s) => out.push_str(s),
                        other => {
                            let _ = write!(out, "{other}");
                        }
                    }
                }
            }
            Unit::Slide(s) => {
                let _ = write!(out, "{}\n{}\n{}", s.title, s.body, s.notes);
            }
            Unit::Source(s) => {
                let _ = write!(out, "{} {}", s.title, s.url);
            }
        }
    }

    /// Whether the two units are the same text, without formatting them (a row shared
    /// between versions is the same by its pointer).
    fn same(&self, other: &Unit<'_>) -> bool {
        match (self, other) {
            (Unit::Text(a), Unit::Text(b)) => a == b,
            (Unit::Cells(a, j), Unit::Cells(b, k)) => {
                let (x, y) = (block(a, *j), block(b, *k));
                j == k
                    && (a.shares(b)
                        || (x.len() == y.len() && x.iter().zip(y).all(|(c, d)| same_cell(c, d))))
            }
            (Unit::Slide(a), Unit::Slide(b)) => {
                a.title == b.title && a.body == b.body && a.notes == b.notes
            }
            (Unit::Source(a), Unit::Source(b)) => a.title == b.title && a.url == b.url,
            _ => false,
        }
    }
}

/// Block `k` of a row's cells.
fn block(row: &Row, k: usize) -> &[serde_json::Value] {
    let start = (k * BLOCK_CELLS).min(row.len());
    &row[start..(start + BLOCK_CELLS).min(row.len())]
}

/// A grouped tab's units, in order (none for Markdown, chunked as text).
fn units(data: &TabData) -> Vec<Unit<'_>> {
    match data {
        TabData::Markdown(_) => Vec::new(),
        TabData::Sheet(tab) => {
            let mut out = Vec::new();
            for sheet in &tab.sheets {
                out.push(Unit::Text(&sheet.name));
                for row in &sheet.rows {
                    out.extend((0..row.len().div_ceil(BLOCK_CELLS)).map(|k| Unit::Cells(row, k)));
                }
            }
            out
        }
        TabData::Slides(deck) => deck.slides.iter().map(Unit::Slide).collect(),
        TabData::Sources(sources) => sources.iter().map(Unit::Source).collect(),
        TabData::Files(files) => files.iter().map(|f| Unit::Text(&f.name)).collect(),
    }
}

/// Whether a chunk may close after this line: a blank line, or one in sixteen by content.
fn closes(line: &str) -> bool {
    line.trim().is_empty() || one_in_sixteen(line)
}

fn one_in_sixteen(text: &str) -> bool {
    text_hash(text).is_multiple_of(16)
}

/// Unit `i` formatted into `buf`, and whether it closes its run: a unit of [`HARD_BYTES`] or
/// more, or one in sixteen by content. None: it has no words (it is left out).
fn hard_at(units: &[Unit<'_>], i: usize, buf: &mut String) -> Option<bool> {
    buf.clear();
    units[i].write(buf);
    words(buf).next()?;
    Some(buf.len() >= HARD_BYTES || one_in_sixteen(buf))
}

/// A Markdown text's chunks: slices of the text itself, cut after lines, those without words
/// left out.
fn chunk_text(text: &str) -> Vec<Cow<'_, str>> {
    let ends = raw_ends(text, 0, |_| false);
    with_words(text, 0, &ends).map(Cow::Borrowed).collect()
}

/// The slices of `text` from `start` to each of `ends` in turn that hold a word.
fn with_words<'t, 'e>(
    text: &'t str,
    start: usize,
    ends: &'e [usize],
) -> impl Iterator<Item = &'t str> + use<'t, 'e> {
    let mut from = start;
    ends.iter()
        .map(move |&end| {
            let chunk = &text[from..end];
            from = end;
            chunk
        })
        .filter(|c| words(c).next().is_some())
}

/// Where the chunks of `text` that start at `from` end (every chunk, words or not), in order;
/// stops after an end for which `stop` says so. `from` must be where a chunk starts (0, or an
/// end this gave): the chunks after a chunk's start depend on the text from there only, which
/// is what lets a write re-chunk only around what it changed ([`markdown_diff`]). Linear in
/// the text: each line's end is found once, however many chunks a long line is cut into.
fn raw_ends(text: &str, from: usize, mut stop: impl FnMut(usize) -> bool) -> Vec<usize> {
    let mut out = Vec::new();
    let mut start = from;
    let mut at = from;
    // The end of the line `at` is in, once found.
    let mut line: Option<usize> = None;
    while at < text.len() {
        let line_end = match line {
            Some(end) if end >= at => end,
            _ => {
                let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
                line = Some(end);
                end
            }
        };
        let next = (line_end + 1).min(text.len());
        let len = next - start;
        if len >= CHUNK_MAX {
            // A long run without a cut: close at the line end if it is near, else inside.
            let cut = if line_end - start <= CHUNK_MAX * 2 {
                next
            } else {
                inner_cut(text, start + CHUNK_MAX)
            };
            out.push(cut);
            start = cut;
            at = cut;
            if stop(cut) {
                return out;
            }
            continue;
        }
        if len >= CHUNK_MIN && closes(&text[at..line_end]) {
            out.push(next);
            start = next;
            if stop(next) {
                return out;
            }
        }
        at = next;
    }
    if start < text.len() {
        out.push(text.len());
    }
    out
}

/// The chunk ends ([`raw_ends`]) of the Markdown texts the index was last brought to, by the
/// text's hash and length, so that a write of a long text finds where its chunks were without
/// chunking it again. What it holds is only ever what [`raw_ends`] gives for that text.
struct EndsCache {
    entries: std::sync::Mutex<std::collections::VecDeque<KeptEnds>>,
}

/// A text's hash and length, and its chunk ends.
type KeptEnds = (u64, usize, std::sync::Arc<Vec<usize>>);

/// Texts the cache keeps (the writes of a burst go to few tabs).
const ENDS_CACHED: usize = 16;
/// Shorter texts are chunked whole: cheaper than hashing them for the cache.
const ENDS_MIN_TEXT: usize = 64 * 1024;

static ENDS: EndsCache = EndsCache {
    entries: std::sync::Mutex::new(std::collections::VecDeque::new()),
};

impl EndsCache {
    fn get(&self, key: (u64, usize)) -> Option<std::sync::Arc<Vec<usize>>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .iter()
            .find(|(h, n, _)| (*h, *n) == key)
            .map(|(_, _, ends)| ends.clone())
    }

    fn put(&self, key: (u64, usize), ends: std::sync::Arc<Vec<usize>>) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(h, n, _)| (*h, *n) != key);
        if entries.len() >= ENDS_CACHED {
            entries.pop_front();
        }
        entries.push_back((key.0, key.1, ends));
    }
}

pub use quire_model::bytes::{common_prefix, common_suffix};
use quire_model::digest::digest;

/// A text's key in [`ENDS`]: its hash (`known`, if the caller has it) and length.
fn ends_key(text: &str, known: Option<u64>) -> (u64, usize) {
    (known_or_hash(text, known), text.len())
}

/// The chunks of Markdown `a` to remove and of `b` to add (words or not filtered yet as
/// [`chunk_text`] does) to go from `a`'s chunks to `b`'s: the chunks from the last one of `a`
/// starting at or before the line where the texts first differ, up to the first end both
/// share inside their common tail; the chunks outside are the same on both sides. `a`'s ends
/// come from [`ENDS`] when it holds them (a long text the index was brought to), and `b`'s
/// are put there. `hints`: what the caller knows of the two texts.
fn markdown_diff<'w, 'n>(a: &'w str, b: &'n str, hints: TextHints) -> (Vec<&'w str>, Vec<&'n str>) {
    if a.len().max(b.len()) < ENDS_MIN_TEXT {
        return (
            with_words(a, 0, &raw_ends(a, 0, |_| false)).collect(),
            with_words(b, 0, &raw_ends(b, 0, |_| false)).collect(),
        );
    }
    let a_ends = match ENDS.get(ends_key(a, hints.before)) {
        Some(ends) => ends,
        None => std::sync::Arc::new(raw_ends(a, 0, |_| false)),
    };
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let head = common_prefix(ab, bb);
    let tail = common_suffix(&ab[head..], &bb[head..]);
    // Every line before the one the texts first differ in is whole in both. A chunk starting
    // at `s` reads the ends of the lines that start before `s + CHUNK_MAX` (the line that
    // makes it too long is read to its end before the chunk is cut, maybe before that line):
    // the chunks that read only whole lines are the same in both texts.
    // By bytes: `head` may fall inside a character both texts begin alike ("é" and "è").
    let line = ab[..head]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let kept = match line.checked_sub(CHUNK_MAX) {
        None => 0,
        Some(last) => (1 + a_ends.partition_point(|&end| end <= last)).min(a_ends.len()),
    };
    let from = if kept == 0 { 0 } else { a_ends[kept - 1] };
    // From an end of `b` inside the common tail that is an end of `a` too, both texts chunk
    // alike to their end.
    let (sync, shift) = (b.len() - tail, a.len() as i128 - b.len() as i128);
    let in_a = |end: usize| {
        let at = (end as i128 + shift) as usize;
        a_ends[kept..].binary_search(&at).ok().map(|i| kept + i)
    };
    let mut met = None;
    let new_ends = raw_ends(b, from, |end| {
        if end >= sync && end < b.len() {
            met = in_a(end);
        }
        met.is_some()
    });
    let gone = met.map_or(a_ends.len(), |i| i + 1);
    let mut b_ends = Vec::with_capacity(kept + new_ends.len() + a_ends.len() - gone);
    b_ends.extend_from_slice(&a_ends[..kept]);
    b_ends.extend_from_slice(&new_ends);
    b_ends.extend(a_ends[gone..].iter().map(|&e| (e as i128 - shift) as usize));
    let remove = with_words(a, from, &a_ends[kept..gone]).collect();
    let add = with_words(b, from, &new_ends).collect();
    ENDS.put(ends_key(b, hints.after), std::sync::Arc::new(b_ends));
    (remove, add)
}

/// Where to cut a long line near `at`: after the last whitespace in the 256 bytes before it,
/// else at a char boundary (never inside a character, whatever the whitespace's width).
fn inner_cut(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut floor = at.saturating_sub(256);
    while !text.is_char_boundary(floor) {
        floor -= 1;
    }
    match text[floor..at]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
    {
        Some((i, c)) if i > 0 => floor + i + c.len_utf8(),
        _ => at,
    }
}

/// Groups units into chunks: runs that close after a unit that closes one ([`hard_at`]) or
/// after [`RUN_MAX`] units; units without words are left out.
fn group(units: &[Unit<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut run = 0;
    let mut buf = String::new();
    for i in 0..units.len() {
        let Some(closes) = hard_at(units, i, &mut buf) else {
            continue;
        };
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(&buf);
        run += 1;
        if closes || run == RUN_MAX {
            out.push(std::mem::take(&mut current));
            run = 0;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The chunks to remove and to add to go from the grouped tab `was` to `now`, formatting
/// and grouping only the runs around the units that differ. Units are compared in place when
/// the tab kept its length (cells set, a slide edited), else past their common beginning and
/// end. A span starts after a unit that closes a run (or at the start) and ends at the first
/// unit alike on both sides that closes one (or at the end), so every chunk outside the spans
/// is the same on both sides.
fn grouped_diff(was: &[Unit<'_>], now: &[Unit<'_>]) -> (Vec<String>, Vec<String>) {
    let mut buf = String::new();
    let mut closes_at = |units: &[Unit<'_>], i: usize| hard_at(units, i, &mut buf) == Some(true);
    let mut spans = Vec::new();
    if was.len() == now.len() {
        let changed: Vec<usize> = (0..was.len()).filter(|&i| !was[i].same(&now[i])).collect();
        let mut next = 0;
        let mut floor = 0;
        while next < changed.len() {
            let start = run_start(was, changed[next], floor, &mut closes_at);
            // The changed units, and the units alike up to the first that closes a run.
            let mut end = changed[next];
            while end < was.len() {
                let i = end;
                end += 1;
                if changed.get(next) == Some(&i) {
                    next += 1;
                } else if closes_at(was, i) {
                    break;
                }
            }
            floor = end;
            spans.push((start..end, start..end));
        }
    } else {
        let head = was.iter().zip(now).take_while(|(a, b)| a.same(b)).count();
        let most = was.len().min(now.len()) - head;
        let tail = was
            .iter()
            .rev()
            .zip(now.iter().rev())
            .take(most)
            .take_while(|(a, b)| a.same(b))
            .count();
        let start = run_start(was, head, 0, &mut closes_at);
        let mut end = was.len() - tail;
        while end < was.len() {
            end += 1;
            if closes_at(was, end - 1) {
                break;
            }
        }
        spans.push((start..end, start..end + now.len() - was.len()));
    }
    let mut remove = Vec::new();
    let mut add = Vec::new();
    for (old, new) in spans {
        remove.extend(group(&was[old]));
        add.extend(group(&now[new]));
    }
    (remove, add)
}

/// Where the run holding unit `at` starts: after the nearest unit before it that closes a run,
/// looking back no further than `floor` (the end of a span, or the start).
fn run_start(
    units: &[Unit<'_>],
    at: usize,
    floor: usize,
    closes_at: &mut impl FnMut(&[Unit<'_>], usize) -> bool,
) -> usize {
    let mut start = at;
    while start > floor && !closes_at(units, start - 1) {
        start -= 1;
    }
    start
}

/// A chunk's key among its tab's chunks.
pub fn chunk_hash(chunk: &str) -> i64 {
    i64::from_ne_bytes(text_hash(chunk).to_ne_bytes())
}

/// The tab a match in the Note's title alone is reported in: the first Markdown tab, else the
/// first tab. It always has a chunk, empty if it must, so that the title alone can find it.
pub fn title_tab(note: &Note) -> Option<&TabId> {
    note.tabs
        .iter()
        .find(|t| t.kind() == TabKind::Markdown)
        .or_else(|| note.tabs.first())
        .map(|t| &t.id)
}

/// What one write changes in the index of one tab.
#[derive(Debug, Clone, PartialEq)]
pub struct TabIndex<'a> {
    pub tab_id: &'a TabId,
    pub kind: TabKind,
    pub label: &'a str,
    /// Whether this is the Note's [`title_tab`].
    pub carries_title: bool,
    /// Remove every chunk of the tab first (a new tab, or one whose kind or role changed).
    pub clear: bool,
    /// The label changed: the tab's kept chunks take the new one.
    pub relabel: bool,
    /// One chunk each to remove, by [`chunk_hash`].
    pub remove: Vec<i64>,
    /// Chunks to add, with their [`chunk_hash`].
    pub add: Vec<(i64, Cow<'a, str>)>,
}

/// What one write changes in a Note's index.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IndexPlan<'a> {
    /// The Note's new title, if it changed (every chunk of the Note takes it).
    pub title: Option<&'a str>,
    /// Tabs gone: all their chunks go.
    pub removed_tabs: Vec<&'a TabId>,
    pub tabs: Vec<TabIndex<'a>>,
}

impl IndexPlan<'_> {
    pub fn is_empty(&self) -> bool {
        self.title.is_none() && self.removed_tabs.is_empty() && self.tabs.is_empty()
    }
}

/// What the index must do to go from `old` (None: a new Note) to `new`. `changed`: the tabs
/// whose data the write may have changed, if the write knows (the others are not compared);
/// None compares every tab (a restore).
pub fn plan<'a>(old: Option<&'a Note>, new: &'a Note, changed: Option<&[TabId]>) -> IndexPlan<'a> {
    plan_known(old, new, changed, KnownHashes::default())
}

/// What a caller already knows of the Markdown texts a write changed, by tab, so that the plan
/// need not hash them again: the digest ([`known_or_hash`]) of the text before the write and
/// after it (a long text's chunks are found by it; a store that keeps the digests of the texts
/// it wrote takes none again). What is given here must be true of the texts (checked in debug
/// builds).
#[derive(Debug, Clone, Copy, Default)]
pub struct KnownHashes<'h> {
    pub before: Option<&'h std::collections::HashMap<TabId, u64>>,
    pub after: Option<&'h std::collections::HashMap<TabId, u64>>,
}

/// What [`KnownHashes`] tells of one tab's texts.
#[derive(Debug, Clone, Copy, Default)]
struct TextHints {
    before: Option<u64>,
    after: Option<u64>,
}

/// The hash a chunk is known by (XXH3-64 of its bytes, seed 0): chunks are keyed by it (and
/// splices stored before SQLite's schema 14 name the text they were made on by it). Its values are
/// the algorithm's, whatever computes them (twox-hash picks AVX2 at run time where the CPU has
/// it); a test holds them to reference values, so databases written before stay readable.
pub fn text_hash(text: &str) -> u64 {
    twox_hash::XxHash3_64::oneshot(text.as_bytes())
}

/// `text`'s digest (`quire_model::digest`, what a long text is known by in what the stores
/// keep: splices name the text they were made on by it, and a spliced `Text` keeps it without
/// hashing itself whole): `known` if the caller kept it (checked in debug builds), else taken.
pub fn known_or_hash(text: &str, known: Option<u64>) -> u64 {
    match known {
        Some(hash) => {
            debug_assert_eq!(hash, digest(text), "a known hash is the text's own");
            hash
        }
        None => digest(text),
    }
}

/// [`plan`], with the hashes of texts the caller already knows.
pub fn plan_known<'a>(
    old: Option<&'a Note>,
    new: &'a Note,
    changed: Option<&[TabId]>,
    known: KnownHashes<'_>,
) -> IndexPlan<'a> {
    let mut plan = IndexPlan {
        title: match old {
            Some(old) if old.title == new.title => None,
            _ if old.is_none() => None,
            _ => Some(new.title.as_str()),
        },
        ..IndexPlan::default()
    };
    let new_carrier = title_tab(new);
    let old_carrier = old.and_then(title_tab);
    if let Some(old) = old {
        plan.removed_tabs = old
            .tabs
            .iter()
            .filter(|t| new.tab(&t.id).is_none())
            .map(|t| &t.id)
            .collect();
    }
    for tab in &new.tabs {
        let carries_title = new_carrier == Some(&tab.id);
        let before = old.and_then(|o| o.tab(&tab.id));
        let mut entry = TabIndex {
            tab_id: &tab.id,
            kind: tab.kind(),
            label: &tab.label,
            carries_title,
            clear: false,
            relabel: false,
            remove: Vec::new(),
            add: Vec::new(),
        };
        match before {
            Some(before)
                if before.kind() == tab.kind()
                    && (old_carrier == Some(&tab.id)) == carries_title =>
            {
                entry.relabel = before.label != tab.label;
                let may_differ = changed.is_none_or(|c| c.contains(&tab.id));
                if may_differ && !before.data.identical(&tab.data) {
                    let hints = TextHints {
                        before: known.before.and_then(|h| h.get(&tab.id).copied()),
                        after: known.after.and_then(|h| h.get(&tab.id).copied()),
                    };
                    let (remove, add) = changes(&before.data, &tab.data, carries_title, hints);
                    entry.remove = remove;
                    entry.add = add;
                }
                if !entry.relabel && entry.remove.is_empty() && entry.add.is_empty() {
                    continue;
                }
            }
            _ => {
                entry.clear = before.is_some();
                let mut add = chunks(&tab.data);
                if carries_title && add.is_empty() {
                    add.push(Cow::Borrowed(""));
                }
                entry.add = add.into_iter().map(|c| (chunk_hash(&c), c)).collect();
            }
        }
        plan.tabs.push(entry);
    }
    plan
}

/// The chunks to remove (by hash) and to add to go from tab data `was` to `now`; a chunk
/// both hold is left alone, as many times as both hold it. Markdown: the chunks around the
/// change ([`markdown_diff`]); other kinds: [`grouped_diff`]. `carries_title`: a tab
/// without words still holds its one empty chunk.
#[allow(clippy::type_complexity)]
fn changes<'a>(
    was: &TabData,
    now: &'a TabData,
    carries_title: bool,
    hints: TextHints,
) -> (Vec<i64>, Vec<(i64, Cow<'a, str>)>) {
    let (mut remove, mut add): (Vec<Cow<'_, str>>, Vec<Cow<'a, str>>) = match (was, now) {
        (TabData::Markdown(a), TabData::Markdown(b)) => {
            let (remove, add) = markdown_diff(a, b, hints);
            (
                remove.into_iter().map(Cow::Borrowed).collect(),
                add.into_iter().map(Cow::Borrowed).collect(),
            )
        }
        _ => {
            let (remove, add) = grouped_diff(&units(was), &units(now));
            (
                remove.into_iter().map(Cow::Owned).collect(),
                add.into_iter().map(Cow::Owned).collect(),
            )
        }
    };
    if carries_title {
        if indexes_nothing(was) {
            remove.push(Cow::Borrowed(""));
        }
        if indexes_nothing(now) {
            add.push(Cow::Borrowed(""));
        }
    }
    let (remove, add) = cancel(remove, add);
    (
        remove.iter().map(|c| chunk_hash(c)).collect(),
        add.into_iter().map(|c| (chunk_hash(&c), c)).collect(),
    )
}

/// Whether the tab has no chunks (no words anywhere).
fn indexes_nothing(data: &TabData) -> bool {
    match data {
        TabData::Markdown(text) => words(text).next().is_none(),
        other => {
            let units = units(other);
            let mut buf = String::new();
            (0..units.len()).all(|i| hard_at(&units, i, &mut buf).is_none())
        }
    }
}

/// Drops the chunks both lists hold, as many times as both hold them: what stays is what the
/// index must really remove and add.
#[allow(clippy::type_complexity)]
fn cancel<'a, 'b>(
    remove: Vec<Cow<'a, str>>,
    add: Vec<Cow<'b, str>>,
) -> (Vec<Cow<'a, str>>, Vec<Cow<'b, str>>) {
    use std::collections::HashMap;
    let mut removed: HashMap<&str, usize> = HashMap::new();
    for chunk in &remove {
        *removed.entry(chunk.as_ref()).or_default() += 1;
    }
    let mut both: HashMap<String, usize> = HashMap::new();
    let mut kept_add = Vec::new();
    for chunk in add {
        match removed.get_mut(chunk.as_ref()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                *both.entry(chunk.into_owned()).or_default() += 1;
            }
            _ => kept_add.push(chunk),
        }
    }
    let kept_remove = remove
        .into_iter()
        .filter(|chunk| match both.get_mut(chunk.as_ref()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect();
    (kept_remove, kept_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(word: &str) -> Part {
        Part::Word {
            word: word.to_owned(),
            prefix: false,
        }
    }
    fn p(word: &str) -> Part {
        Part::Word {
            word: word.to_owned(),
            prefix: true,
        }
    }
    fn ph(words: &[&str]) -> Part {
        Part::Phrase(words.iter().map(|s| (*s).to_owned()).collect())
    }

    /// XXH3-64's values, as stored in every database so far (splices' `base_hash`, chunk keys):
    /// one length for each of the algorithm's paths (empty, 1-3, 4-8, 9-16, 17-128, 129-240
    /// bytes, then stripes and blocks), the longest past the size where the vector path runs.
    /// The empty text's is the published reference; the others were taken with xxhash-rust 0.8,
    /// the crate that wrote them before.
    #[test]
    fn text_hashes_are_xxh3_as_stored_before() {
        let mut text = String::new();
        let mut line = 0u64;
        while text.len() < 1 << 20 {
            text.push_str(&format!("line {line}: the quick brown fox\n"));
            line += 1;
        }
        let cases: [(usize, u64); 16] = [
            (0, 0x2d06_8005_38d3_94c2),
            (1, 0xc00f_9d4f_580c_0c3a),
            (3, 0x73e4_3374_cec2_4eb3),
            (4, 0x34e3_9687_b247_d12b),
            (8, 0x0685_cabf_34c4_f1e6),
            (9, 0xb154_9fb6_7722_f219),
            (16, 0xdde4_7f92_63ed_92f9),
            (17, 0x4a4a_f5f4_7bd9_0c4b),
            (128, 0xe0d5_4574_3260_2fba),
            (129, 0x9889_14f2_2ae6_5281),
            (240, 0x7237_62de_9b20_6610),
            (241, 0x6b19_a21f_010d_e3ff),
            (1024, 0xc4af_6c2a_1e9b_f28a),
            (4096, 0x691f_b537_21eb_21d6),
            (65536, 0x5a78_da92_6544_baa4),
            (1 << 20, 0x2aff_c3ac_1b07_8041),
        ];
        for (len, want) in cases {
            assert_eq!(text_hash(&text[..len]), want, "{len} bytes");
        }
        assert_eq!(
            chunk_hash(&text[..17]),
            i64::from_ne_bytes(0x4a4a_f5f4_7bd9_0c4b_u64.to_ne_bytes())
        );
    }

    #[test]
    fn words_become_parts_and_everything_else_is_a_separator() {
        let cases: Vec<(&str, Vec<Part>)> = vec![
            ("budget", vec![p("budget")]),
            ("Budget  Q3", vec![w("budget"), p("q3")]),
            ("Crème BRÛLÉE", vec![w("creme"), p("brulee")]),
            (
                "\"quarterly report\" draft",
                vec![ph(&["quarterly", "report"]), p("draft")],
            ),
            (
                "draft \"quarterly report\"",
                vec![w("draft"), ph(&["quarterly", "report"])],
            ),
            ("\"single\"", vec![w("single")]),
            (
                "\"unclosed phrase here",
                vec![ph(&["unclosed", "phrase", "here"])],
            ),
            (
                "a AND b OR c NOT d",
                vec![w("a"), w("and"), w("b"), w("or"), w("c"), w("not"), p("d")],
            ),
            ("NEAR(a b)", vec![w("near"), w("a"), p("b")]),
            (
                "title:secret -draft *",
                vec![w("title"), w("secret"), p("draft")],
            ),
            ("🎉 party 🎉", vec![p("party")]),
            ("e\u{301}te\u{301}", vec![p("ete")]),
            ("don't", vec![w("don"), p("t")]),
            (
                "x'); DROP TABLE notes;--",
                vec![w("x"), w("drop"), w("table"), p("notes")],
            ),
            ("日本語 テキスト", vec![w("日本語"), p("テキスト")]),
            ("\"\"\"a\"", vec![w("a")]),
        ];
        for (input, want) in cases {
            let got = SearchQuery::parse(input).map(|q| q.parts);
            assert_eq!(got, Ok(want), "{input:?}");
        }
    }

    #[test]
    fn a_query_without_words_is_the_one_refusal() {
        for input in ["", "   ", "\"\"", "*", "-:", "🎉🎉", "\"", "( ) ? ", "\n\t"] {
            assert_eq!(
                SearchQuery::parse(input),
                Err(QueryError::Empty),
                "{input:?}"
            );
        }
    }

    #[test]
    fn a_long_query_keeps_its_first_words() {
        let long = "lorem ipsum ".repeat(1000);
        let q = SearchQuery::parse(&long).expect("words");
        assert_eq!(q.parts.len(), MAX_PARTS);
        let word = "a".repeat(10_000);
        let q = SearchQuery::parse(&word).expect("a word");
        assert_eq!(q.parts, vec![p(&"a".repeat(MAX_WORD_CHARS))]);
    }

    #[test]
    fn rendered_queries_hold_only_quoted_words() {
        let cases = [
            (
                "Crème \"the plan\" Q3",
                "\"creme\" AND \"the plan\" AND \"q3\"*",
                "'creme' & ('the' <-> 'plan') & 'q3':*",
                "body : (\"creme\" OR \"the plan\" OR \"q3\"*)",
                "'creme':D | ('the':D <-> 'plan':D) | 'q3':*D",
            ),
            (
                "NEAR(\"x\" OR y*",
                "\"near\" AND \"x\" AND \"or\" AND \"y\"*",
                "'near' & 'x' & 'or' & 'y':*",
                "body : (\"near\" OR \"x\" OR \"or\" OR \"y\"*)",
                "'near':D | 'x':D | 'or':D | 'y':*D",
            ),
        ];
        for (input, fts, ts, fts_any, ts_any) in cases {
            let q = SearchQuery::parse(input).expect("words");
            assert_eq!(q.to_fts5(), fts, "{input:?}");
            assert_eq!(q.to_tsquery(), ts, "{input:?}");
            assert_eq!(q.to_fts5_body_any(), fts_any, "{input:?}");
            assert_eq!(q.to_tsquery_body_any(), ts_any, "{input:?}");
        }
    }

    #[test]
    fn each_part_alone_is_rendered_for_a_match_across_chunks() {
        let q = SearchQuery::parse("Crème \"the plan\" Q3").expect("words");
        assert_eq!(
            q.parts_fts5(),
            [
                "{title body} : (\"creme\")",
                "{title body} : (\"the plan\")",
                "{title body} : (\"q3\"*)",
            ]
        );
        assert_eq!(
            q.parts_tsquery(),
            ["'creme'", "('the' <-> 'plan')", "'q3':*"]
        );
    }

    #[test]
    fn a_tsvector_weights_the_title_and_numbers_positions() {
        assert_eq!(
            tsvector("Plan B", "l'été, 2026"),
            "'plan':1A 'b':2A 'l':3 'ete':4 '2026':5"
        );
    }

    #[test]
    fn a_snippet_is_plain_text_around_the_first_match() {
        let q = SearchQuery::parse("quarterly").expect("words");
        let body = format!(
            "{}the quarterly\n\nnumbers {}",
            "word ".repeat(30),
            "tail ".repeat(60)
        );
        let s = snippet(&q, "Title", &body);
        assert!(s.starts_with("…word"), "{s}");
        assert!(s.contains("the quarterly numbers tail"), "{s}");
        assert!(s.ends_with('…'), "{s}");
        assert!(s.chars().count() <= SNIPPET_CHARS + 2, "{s}");
        assert_eq!(snippet(&q, "Quarterly", "nothing here"), "Quarterly");
        let q = SearchQuery::parse("\"big plan\"").expect("words");
        assert_eq!(
            snippet(&q, "t", "a big dog, a BIG Plan"),
            "a big dog, a BIG Plan"
        );
        let q = SearchQuery::parse("cre").expect("words");
        assert_eq!(snippet(&q, "t", "Crème"), "Crème");
    }

    #[test]
    fn a_small_edit_of_a_long_text_changes_the_chunks_around_it() {
        let text: String = (0..20_000)
            .map(|i| format!("line {i} of the long note, with some words\n"))
            .collect();
        let before = chunks_of(&text);
        assert!(before.len() > 100, "{} chunks", before.len());
        assert!(before.iter().all(|c| c.len() <= CHUNK_MAX * 2));
        assert_eq!(before.concat(), text);
        let edited = text.replacen("line 9000 of", "line 9000 (edited) of", 1);
        let (was, now) = (
            TabData::Markdown(text.into()),
            TabData::Markdown(edited.into()),
        );
        let (remove, add) = changes(&was, &now, false, TextHints::default());
        assert!(
            remove.len() <= 2 && add.len() <= 2,
            "{} / {}",
            remove.len(),
            add.len()
        );
        assert!(add.iter().any(|(_, c)| c.contains("(edited)")));
    }

    /// Once the index was brought to a long text, a one-line edit of it chunks only the lines
    /// around the edit: the chunk ends kept for the text are used, not found again.
    #[test]
    fn a_one_line_edit_of_a_long_text_chunks_only_around_it() {
        let text: String = (0..20_000)
            .map(|i| format!("line {i} of the cached note, with some words\n"))
            .collect();
        let first = text.replacen("line 100 of", "line 100 (first) of", 1);
        let (a, b) = (
            TabData::Markdown(text.into()),
            TabData::Markdown(first.into()),
        );
        assert_eq!(applied(&a, &b), hashes(&b));
        let TabData::Markdown(first) = &b else {
            unreachable!()
        };
        let second = first.replacen("line 15000 of", "line 15000 (second) of", 1);
        // Chunking from the last chunk before the edit: an edit far from the start stops at
        // once if the ends are used, and finds the same ends a fresh chunking finds.
        let kept = ENDS.get(ends_key(first, None)).expect("the ends kept");
        assert_eq!(*kept, raw_ends(first, 0, |_| false));
        let (remove, add) = markdown_diff(first, &second, TextHints::default());
        assert!(
            remove.len() <= 2 && add.len() <= 2,
            "{} / {}",
            remove.len(),
            add.len()
        );
        assert!(add.iter().any(|c| c.contains("(second)")));
        let c = TabData::Markdown(second.into());
        assert_eq!(applied(&b, &c), hashes(&c));
    }

    /// Texts that first differ inside a character (its first byte the same in both: "é" made
    /// "è", "ü" typed before "é") are chunked around the edit like any other, not cut there.
    #[test]
    fn an_edit_inside_a_character_is_chunked_around() {
        let text: String = (0..3_000)
            .map(|i| format!("line {i}: café, 5 €, the words of a long note\n"))
            .collect();
        for edited in [
            text.replacen("line 1500: café", "line 1500: cafè", 1),
            text.replacen("line 2000: café", "line 2000: cafüé", 1),
            text.replacen(
                "5 €, the words of a long note\nline 2500",
                "5 ₭, the words of a long note\nline 2500",
                1,
            ),
        ] {
            assert!(text.len() >= ENDS_MIN_TEXT);
            let (a, b) = (
                TabData::Markdown(text.clone().into()),
                TabData::Markdown(edited.into()),
            );
            assert_eq!(applied(&a, &b), hashes(&b));
        }
    }

    fn chunks_of(text: &str) -> Vec<String> {
        chunk_text(text).into_iter().map(Cow::into_owned).collect()
    }

    #[test]
    fn a_long_line_is_cut_between_words() {
        let text = "word ".repeat(5_000);
        let got = chunks_of(&text);
        assert!(got.len() > 1);
        assert_eq!(got.concat(), text);
        assert!(
            got.iter()
                .all(|c| c.ends_with(' ') || c == got.last().expect("one"))
        );
    }

    /// A line of megabytes without a space, or with spaces several bytes wide, is cut into
    /// chunks of at most a few KiB that join back into the text, never inside a character
    /// (16 MiB of one line once took the writer minutes: each cut searched the line again).
    #[test]
    fn a_long_line_without_spaces_is_cut_anywhere_but_inside_a_character() {
        for text in [
            "x".repeat(4 << 20),
            "é".repeat(1 << 20),
            "ab\u{3000}".repeat(200_000),
            format!("{}\u{3000}{}", "y".repeat(4_000), "z".repeat(9_000)),
        ] {
            let got = chunks_of(&text);
            assert_eq!(got.concat(), text);
            assert!(
                got.iter().all(|c| c.len() <= 2 * CHUNK_MAX),
                "chunks of at most 8 KiB"
            );
            assert!(got.len() >= text.len() / (2 * CHUNK_MAX));
        }
    }

    #[test]
    fn the_plan_touches_only_what_the_write_changed() {
        let id: quire_model::NoteId = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"
            .parse()
            .expect("an id");
        let mut old = Note::new(id, "Budget".to_owned());
        let md = old.tabs[0].id.clone();
        old.tabs[0].data = TabData::Markdown("hello world".into());
        let fresh = plan(None, &old, None);
        assert_eq!(fresh.tabs.len(), 3);
        assert_eq!(fresh.tabs[0].add.len(), 1);
        assert!(fresh.tabs[0].carries_title);
        // The empty sources and files tabs have no chunk.
        assert!(fresh.tabs[1].add.is_empty() && fresh.tabs[2].add.is_empty());

        let mut new = old.clone();
        new.tabs[0].data = TabData::Markdown("hello there".into());
        let edit = plan(Some(&old), &new, Some(std::slice::from_ref(&md)));
        assert_eq!(edit.title, None);
        assert_eq!(edit.tabs.len(), 1);
        assert_eq!(edit.tabs[0].remove, vec![chunk_hash("hello world")]);
        assert_eq!(edit.tabs[0].add[0].1, "hello there");
        // Not named as changed: not compared.
        assert!(plan(Some(&old), &new, Some(&[])).is_empty());

        let mut renamed = old.clone();
        renamed.title = "Budget 2027".to_owned();
        renamed.tabs[1].label = "Attachments".to_owned();
        let edit = plan(Some(&old), &renamed, Some(&[]));
        assert_eq!(edit.title, Some("Budget 2027"));
        assert_eq!(edit.tabs.len(), 1);
        assert!(edit.tabs[0].relabel && edit.tabs[0].add.is_empty());

        let mut fewer = old.clone();
        let gone = fewer.tabs.remove(0).id;
        let edit = plan(Some(&old), &fewer, None);
        assert_eq!(edit.removed_tabs, vec![&gone]);
        // The first tab now carries the title: indexed afresh, with an empty chunk.
        assert!(edit.tabs[0].clear && edit.tabs[0].carries_title);
        assert_eq!(edit.tabs[0].add.len(), 1);
    }

    fn sheet(rows: usize, cols: usize) -> TabData {
        let rows = (0..rows)
            .map(|r| {
                Row::from(
                    (0..cols)
                        .map(|c| match c % 2 {
                            0 => serde_json::json!(r * cols + c),
                            _ => serde_json::json!(format!("c{c}")),
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        TabData::Sheet(quire_model::SheetTab {
            sheets: vec![quire_model::Sheet {
                id: "s1".to_owned(),
                name: "Big".to_owned(),
                rows,
            }],
        })
    }

    fn set(data: &mut TabData, row: usize, col: usize, value: serde_json::Value) {
        let TabData::Sheet(tab) = data else {
            panic!("a sheet")
        };
        tab.sheets[0].rows[row][col] = value;
    }

    /// The chunks of `now` as the index holds them after applying `changes` to `was`'s.
    fn applied(was: &TabData, now: &TabData) -> Vec<i64> {
        let mut held: Vec<i64> = chunks(was).iter().map(|c| chunk_hash(c)).collect();
        let (remove, add) = changes(was, now, false, TextHints::default());
        for hash in remove {
            let at = held
                .iter()
                .position(|h| *h == hash)
                .expect("a removed chunk was held");
            held.swap_remove(at);
        }
        held.extend(add.iter().map(|(h, _)| *h));
        held.sort_unstable();
        held
    }

    fn hashes(data: &TabData) -> Vec<i64> {
        let mut all: Vec<i64> = chunks(data).iter().map(|c| chunk_hash(c)).collect();
        all.sort_unstable();
        all
    }

    /// A cell written in a sheet of 2,000 rows of 1,000 cells changes the one block of 64 cells
    /// it is in: one chunk out, one in (before, the whole 14 MB grid was chunked twice).
    #[test]
    fn a_cell_written_in_a_wide_sheet_changes_its_block_only() {
        let was = sheet(2_000, 1_000);
        let mut now = was.clone();
        set(&mut now, 1_234, 567, serde_json::json!("written"));
        let (remove, add) = changes(&was, &now, false, TextHints::default());
        assert_eq!((remove.len(), add.len()), (1, 1));
        assert!(add[0].1.contains("written") && add[0].1.len() < 1_000);
        assert_eq!(applied(&was, &now), hashes(&now));

        // 1,000 cells over as many rows: one block each.
        let mut many = was.clone();
        for i in 0..1_000 {
            set(
                &mut many,
                (i * 37) % 2_000,
                (i * 11) % 1_000,
                serde_json::json!(i),
            );
        }
        let (remove, add) = changes(&was, &many, false, TextHints::default());
        // (A row's last block of 40 cells may be short of closing its run alone.)
        assert!(
            remove.len() <= 1_050 && add.len() <= 1_050,
            "{} / {}",
            remove.len(),
            add.len()
        );
        assert_eq!(applied(&was, &many), hashes(&many));
    }

    /// Small rows alike (one run of many units, cut every RUN_MAX) and rows added at the top.
    #[test]
    fn runs_of_small_units_alike_and_rows_added_keep_the_index_exact() {
        let was = TabData::Sheet(quire_model::SheetTab {
            sheets: vec![quire_model::Sheet {
                id: "s1".to_owned(),
                name: "Same".to_owned(),
                rows: (0..500)
                    .map(|_| Row::from(vec![serde_json::json!("same")]))
                    .collect(),
            }],
        });
        let mut now = was.clone();
        set(&mut now, 250, 0, serde_json::json!("other"));
        assert_eq!(applied(&was, &now), hashes(&now));
        let TabData::Sheet(mut grown) = was.clone() else {
            panic!("a sheet")
        };
        grown.sheets[0]
            .rows
            .insert(0, Row::from(vec![serde_json::json!("top")]));
        let grown = TabData::Sheet(grown);
        assert_eq!(applied(&was, &grown), hashes(&grown));
    }

    mod exact {
        use super::*;
        use proptest::prelude::*;

        /// A Markdown text long enough for [`markdown_diff`] to cache its chunk ends: lines
        /// from `lines`, repeated, with blank lines, long lines and multibyte text among them.
        fn markdown(lines: &[String], copies: usize) -> String {
            let mut text = String::new();
            while text.len() < ENDS_MIN_TEXT {
                for (i, line) in lines.iter().enumerate() {
                    for _ in 0..copies {
                        text.push_str(line);
                        text.push_str(if i % 7 == 0 { "\n\n" } else { "\n" });
                    }
                }
                text.push_str(&format!("{} é\u{3000}", "long".repeat(2_500)));
            }
            text
        }

        /// `text` with bytes `[at, at + cut)` (moved to char boundaries) replaced by `put`.
        fn spliced(text: &str, at: prop::sample::Index, cut: usize, put: &str) -> String {
            let mut start = at.index(text.len() + 1);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + cut).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            format!("{}{put}{}", &text[..start], &text[end..])
        }

        fn edit() -> impl Strategy<Value = (prop::sample::Index, usize, String)> {
            (
                any::<prop::sample::Index>(),
                prop_oneof![0usize..8, 0usize..200, 0usize..9_000],
                prop_oneof![
                    "[a-c ]{0,6}",
                    "([a-z]{0,8}\n){0,6}",
                    "(\n\n|é|x{0,5000}|[a-z ]{0,3000})",
                ],
            )
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            /// After any sequence of edits of a long Markdown text (small or large, at its start,
            /// its end, across lines, chunks and long lines), the chunks left after each write's
            /// `changes` are exactly a fresh chunking of the new text, and the chunk ends the
            /// write keeps for the next one are the fresh ones.
            #[test]
            fn the_index_after_markdown_edits_is_a_fresh_index(
                lines in prop::collection::vec("[a-z]{0,12}( [a-z]{1,9}){0,12}", 1..40),
                copies in 1usize..4,
                edits in prop::collection::vec(edit(), 1..6),
            ) {
                let mut was = TabData::Markdown(markdown(&lines, copies).into());
                for (at, cut, put) in &edits {
                    let TabData::Markdown(text) = &was else { unreachable!() };
                    let now = TabData::Markdown(spliced(text, *at, *cut, put).into());
                    prop_assert_eq!(applied(&was, &now), hashes(&now));
                    let TabData::Markdown(new_text) = &now else { unreachable!() };
                    if new_text.len() >= ENDS_MIN_TEXT || text.len() >= ENDS_MIN_TEXT {
                        let kept = ENDS.get(ends_key(new_text, None)).expect("the ends kept");
                        prop_assert_eq!(&*kept, &raw_ends(new_text, 0, |_| false));
                    }
                    was = now;
                }
            }
        }

        fn cell() -> impl Strategy<Value = serde_json::Value> {
            prop_oneof![
                Just(serde_json::Value::Null),
                any::<i64>().prop_map(serde_json::Value::from),
                any::<f64>()
                    .prop_filter("finite", |f| f.is_finite())
                    .prop_map(serde_json::Value::from),
                "[a-c ]{0,4}".prop_map(serde_json::Value::from),
                "[a-z]{1,3}( [a-z]{1,5}){0,60}".prop_map(serde_json::Value::from),
            ]
        }

        fn grid() -> impl Strategy<Value = Vec<Vec<serde_json::Value>>> {
            prop::collection::vec(prop::collection::vec(cell(), 0..150), 0..40)
        }

        fn as_sheet(rows: &[Vec<serde_json::Value>]) -> TabData {
            TabData::Sheet(quire_model::SheetTab {
                sheets: vec![quire_model::Sheet {
                    id: "s1".to_owned(),
                    name: "S".to_owned(),
                    rows: rows.iter().cloned().map(Row::from).collect(),
                }],
            })
        }

        fn slides(texts: &[String]) -> TabData {
            TabData::Slides(quire_model::Deck {
                slides: texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| quire_model::Slide {
                        id: format!("s{i}"),
                        title: format!("Slide {}", i % 3),
                        body: t.clone(),
                        notes: String::new(),
                        layout: quire_model::Layout::default(),
                    })
                    .collect(),
                theme: quire_model::Theme::default(),
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(96))]
            /// Whatever the edit (cells set in place, rows inserted or removed, slides edited,
            /// added or removed), the chunks left after `changes` are exactly the new tab's.
            #[test]
            fn the_index_after_a_write_is_the_new_tabs_chunks(
                rows in grid(),
                sets in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), cell()), 0..12),
                cut in any::<prop::sample::Index>(),
                inserted in prop::collection::vec(prop::collection::vec(cell(), 0..80), 0..4),
                removed in 0usize..4,
                texts in prop::collection::vec("[a-d]{0,3}( [a-z]{1,4}){0,100}", 0..30),
                edits in prop::collection::vec((any::<prop::sample::Index>(), "[a-d ]{0,300}"), 0..5),
            ) {
                // Cells set in place: the rows shared, but those written.
                let was = as_sheet(&rows);
                let mut now = was.clone();
                for (r, c, value) in &sets {
                    if rows.is_empty() { break; }
                    let r = r.index(rows.len());
                    if rows[r].is_empty() { continue; }
                    set(&mut now, r, c.index(rows[r].len()), value.clone());
                }
                prop_assert_eq!(applied(&was, &now), hashes(&now));
                // Rows removed and inserted at one place.
                let mut other = rows.clone();
                let at = cut.index(rows.len() + 1);
                let gone = removed.min(rows.len() - at);
                other.splice(at..at + gone, inserted.iter().cloned());
                let moved = as_sheet(&other);
                prop_assert_eq!(applied(&was, &moved), hashes(&moved));
                // Slides edited, then some added or removed.
                let deck = slides(&texts);
                let mut edited = texts.clone();
                for (i, body) in &edits {
                    if edited.is_empty() { break; }
                    let i = i.index(edited.len());
                    edited[i] = body.clone();
                }
                let after = slides(&edited);
                prop_assert_eq!(applied(&deck, &after), hashes(&after));
                edited.truncate(edited.len().saturating_sub(removed));
                let fewer = slides(&edited);
                prop_assert_eq!(applied(&deck, &fewer), hashes(&fewer));
            }
        }
    }
}
