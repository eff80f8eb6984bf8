//! The long strings of what the local store writes, kept once each.
//!
//! A Markdown tab's text is in the draft (its base, the person's text, the pending save's), in
//! the Note's base and in the newest seen version, most often the same text in all of them. A
//! row's JSON holds no string of [`TEXT_OUT_MIN`] bytes or more: each is a row of `texts` (its
//! key: its digest, `quire_model::digest`, and its length; keys written before were the
//! XXH3-128 of its bytes and its length, and are still read as such), and `text_refs` says which
//! owner (a draft, a base, a seen tab) holds which text where (a JSON Pointer into the owner's
//! JSON). A keystroke in a 10 MiB tab then writes the new text once, not five times, and its
//! acknowledgement writes no text at all. A text no owner holds any more is deleted in the same transaction.
//!
//! A new text that differs a little from one written or read lately ([`Recent`]) is kept as
//! that text and a splice (`base`, `at`, `removed`, and what it inserts as `body`), at most
//! [`MAX_DEPTH`] splices from a whole text (then as one splice of that whole text, every change
//! since it): a keystroke writes the keystroke, and the newest versions seen of a long tab cost
//! their changes, not their size. A text made from another holds it (an owner `text:<key>`).
//! Each text read back is checked against its key.
//!
//! Rows written before (schema 3 and older) hold their strings inline and own no text; they are
//! read as they are.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::{Arc, OnceLock, Weak};

use quire_model::TabData;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use twox_hash::XxHash3_128;

use super::{LocalError, Result, corrupt};
use crate::content::{splice_between, splice_between_texts};

/// Strings this long or longer are kept in `texts`.
pub const TEXT_OUT_MIN: usize = 64 * 1024;

/// At most this many splices between a text and the whole text it is made from.
pub const MAX_DEPTH: i64 = 64;

/// A splice of at most this many bytes (removed and inserted) is taken without looking further.
const CLOSE_ENOUGH: usize = 4096;

/// How many texts [`Recent`] keeps.
const RECENT_KEPT: usize = 3;

/// How many keys of shared texts [`Recent`] remembers.
const KEYS_KEPT: usize = 16;

/// How many whole texts at the foot of chains [`Recent`] keeps.
const FEET_KEPT: usize = 2;

/// The texts written lately, whole, with their depth: what the next text is made from; and the
/// keys of the shared texts ([`Body::Shared`]) met lately, so that a draft's base and pending
/// save, the same texts keystroke after keystroke, are not hashed again.
#[derive(Default)]
pub struct Recent {
    texts: VecDeque<(String, Body, i64)>,
    /// A key by the text it was computed on. The `Weak` keeps that allocation from being reused
    /// for another text (and an `Arc`'s content never changes while a `Weak` to it is held), so
    /// the same address is the same text.
    keys: VecDeque<(Weak<TabData>, String)>,
    /// Whole texts written or read lately, by key: the feet that a full chain's next text is
    /// made from, without reading and hashing the foot's row again (10 MiB every
    /// [`MAX_DEPTH`] keystrokes in a 10 MiB text). A key is its text's hash, so a text kept
    /// under its key is that key's text wherever the store has it.
    feet: VecDeque<(String, Body)>,
}

impl Recent {
    fn put_foot(&mut self, key: &str, text: Body) {
        self.feet.retain(|(k, _)| k != key);
        self.feet.push_front((key.to_owned(), text));
        self.feet.truncate(FEET_KEPT);
    }

    fn foot(&self, key: &str) -> Option<&Body> {
        self.feet
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, text)| text)
    }

    fn put(&mut self, key: String, text: Body, depth: i64) {
        self.texts.retain(|(k, _, _)| *k != key);
        self.texts.push_front((key, text, depth));
        self.texts.truncate(RECENT_KEPT);
    }

    /// `body`'s key, computed once for a shared text (from the digest the text keeps: a
    /// keystroke's text, spliced from one whose key was taken, is not hashed whole).
    fn key(&mut self, body: &Body) -> String {
        let Body::Shared(data) = body else {
            return key_of(body.as_str());
        };
        if let Some((_, key)) = self
            .keys
            .iter()
            .find(|(seen, _)| std::ptr::eq(seen.as_ptr(), Arc::as_ptr(data)))
        {
            return key.clone();
        }
        let key = match body.shared_text() {
            Some(text) => key_by_digest(text.digest(), text.len()),
            None => key_of(body.as_str()),
        };
        self.keys.push_front((Arc::downgrade(data), key.clone()));
        self.keys.truncate(KEYS_KEPT);
        key
    }
}

/// A long string as it is written: taken out of the value (`Owned`), or a Markdown content's
/// text by reference (`Shared`: see [`share`]), with no copy of it.
#[derive(Clone)]
pub enum Body {
    Owned(String),
    Shared(Arc<TabData>),
}

impl Body {
    /// The same text, shared: cloned without copying it.
    fn into_shared(self) -> Body {
        match self {
            Body::Owned(text) => Body::Shared(Arc::new(TabData::Markdown(text.into()))),
            shared => shared,
        }
    }

    /// The Markdown text it shares, if it does.
    fn shared_text(&self) -> Option<&quire_model::Text> {
        match self {
            Body::Shared(data) => match &**data {
                TabData::Markdown(text) => Some(text),
                _ => None,
            },
            Body::Owned(_) => None,
        }
    }

    /// Its length, without writing out a text held in pieces.
    fn len(&self) -> usize {
        match self {
            Body::Owned(text) => text.len(),
            Body::Shared(_) => self.shared_text().map_or(0, quire_model::Text::len),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            Body::Owned(text) => text,
            // `share` takes Markdown texts only.
            Body::Shared(_) => self.shared_text().map_or("", |text| text.as_str()),
        }
    }
}

/// While [`Prepared::new`] runs: the texts [`share`] and [`share_equal`] took, by index, and the
/// shared texts whose keys are known (what `share_equal` looks among).
struct Sharing {
    taken: Vec<Arc<TabData>>,
    known: Vec<Arc<TabData>>,
}

impl Sharing {
    fn take(&mut self, data: &Arc<TabData>) -> String {
        self.taken.push(data.clone());
        format!("{}{}", placeholder_tag(), self.taken.len() - 1)
    }
}

thread_local! {
    static SHARED: RefCell<Option<Sharing>> = const { RefCell::new(None) };
}

/// What a shared text is written as while its value is prepared: a string no content can hold
/// by chance (a random tag of this process), then the text's index.
fn placeholder_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| format!("\u{0}quire-text-{}:", uuid::Uuid::now_v7().simple()))
}

/// For a content's `Serialize`: while [`Prepared::new`] runs on this thread, a Markdown text of
/// [`TEXT_OUT_MIN`] bytes or more is taken by reference (no copy into the JSON value, and its
/// key is computed once however many drafts hold it), and the string to write in its place is
/// returned. `None` otherwise: the content writes its text.
pub fn share(data: &Arc<TabData>) -> Option<String> {
    let TabData::Markdown(text) = &**data else {
        return None;
    };
    if text.len() < TEXT_OUT_MIN {
        return None;
    }
    SHARED.with(|shared| Some(shared.borrow_mut().as_mut()?.take(data)))
}

/// As [`share`], for a text held by a Note's tab: taken by reference when it is one of the
/// shared texts whose key is known (a save's text, when its Note is written as the base: the
/// same shared text, found without reading it, instead of a copy and a hash).
pub fn share_equal(text: &quire_model::Text) -> Option<String> {
    if text.len() < TEXT_OUT_MIN {
        return None;
    }
    SHARED.with(|shared| {
        let mut shared = shared.borrow_mut();
        let sharing = shared.as_mut()?;
        let same = sharing
            .known
            .iter()
            .find(|d| matches!(&***d, TabData::Markdown(t) if t == text))?
            .clone();
        Some(sharing.take(&same))
    })
}

/// A value as it is written: its JSON without the long strings, and each of those with where it
/// goes and its key.
pub struct Prepared {
    pub json: String,
    texts: Vec<Text>,
}

struct Text {
    pointer: String,
    key: String,
    body: Body,
}

impl Prepared {
    pub fn new<T: Serialize>(what: &'static str, v: &T, recent: &mut Recent) -> Result<Self> {
        let known = recent
            .keys
            .iter()
            .filter_map(|(d, _)| d.upgrade())
            .collect();
        SHARED.with(|shared| {
            *shared.borrow_mut() = Some(Sharing {
                taken: Vec::new(),
                known,
            })
        });
        let value = serde_json::to_value(v);
        let shared = SHARED
            .with(|shared| shared.borrow_mut().take())
            .map(|s| s.taken)
            .unwrap_or_default();
        let mut value = value.map_err(corrupt(what))?;
        let mut taken = Vec::new();
        take_long_strings(&mut value, &mut String::new(), &shared, &mut taken);
        let texts = taken
            .into_iter()
            .map(|(pointer, body)| Text {
                pointer,
                key: recent.key(&body),
                body,
            })
            .collect();
        Ok(Prepared {
            json: serde_json::to_string(&value).map_err(corrupt(what))?,
            texts,
        })
    }

    /// Where each text goes and its key, in the order [`refs`] gives them.
    pub fn refs(&self) -> Vec<(String, String)> {
        let mut refs: Vec<(String, String)> = self
            .texts
            .iter()
            .map(|t| (t.pointer.clone(), t.key.clone()))
            .collect();
        refs.sort();
        refs
    }
}

/// `text`'s key: its digest and its length (two texts share a key only if both match).
fn key_of(text: &str) -> String {
    key_by_digest(quire_model::digest::digest(text), text.len())
}

/// The key of a text with this digest and length: `d:` (no key of before starts so), the
/// digest, its length.
fn key_by_digest(digest: u64, len: usize) -> String {
    format!("d:{digest:016x}-{len}")
}

/// Whether `text` is the one `key` names: by its digest, or for a key written before digests
/// (32 hexadecimal digits, a dash, the length), by its XXH3-128.
fn is_key_of(text: &str, key: &str) -> bool {
    if key.starts_with("d:") {
        return key_of(text) == key;
    }
    format!(
        "{:032x}-{}",
        XxHash3_128::oneshot(text.as_bytes()),
        text.len()
    ) == key
}

/// Moves every string of [`TEXT_OUT_MIN`] bytes or more out of `value`, and every placeholder of
/// a text in `shared`, with its JSON Pointer. It leaves `null`, not an empty string: a release of
/// the app from before these texts reads such a row as corrupt (and says so), never as a tab
/// emptied.
fn take_long_strings(
    value: &mut Value,
    pointer: &mut String,
    shared: &[Arc<TabData>],
    out: &mut Vec<(String, Body)>,
) {
    match value {
        Value::String(s) => {
            let placed = s
                .strip_prefix(placeholder_tag())
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| shared.get(i));
            if let Some(data) = placed {
                out.push((pointer.clone(), Body::Shared(data.clone())));
                *value = Value::Null;
            } else if s.len() >= TEXT_OUT_MIN {
                out.push((pointer.clone(), Body::Owned(std::mem::take(s))));
                *value = Value::Null;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                take_long_strings(item, pointer, shared, out);
                pointer.truncate(len);
            }
        }
        Value::Object(fields) => {
            for (name, item) in fields.iter_mut() {
                let len = pointer.len();
                pointer.push('/');
                // RFC 6901: `~` is `~0`, `/` is `~1`.
                pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                take_long_strings(item, pointer, shared, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Makes `prepared`'s texts `owner`'s, in place of those it held (their keys go to `released`),
/// writing each text not stored yet (made from a [`Recent`] one where that is smaller). Returns
/// the JSON to store in the owner's row.
pub fn write(
    conn: &Connection,
    owner: &str,
    prepared: Prepared,
    released: &mut Vec<String>,
    recent: &mut Recent,
) -> Result<String> {
    release(conn, owner, released)?;
    for text in prepared.texts {
        let (depth, body) = match depth_of(conn, &text.key)? {
            Some(depth) => (depth, text.body),
            None => match insert(conn, &text.key, &text.body, recent)? {
                // Written whole: the foot of the chains to come.
                0 => {
                    let body = text.body.into_shared();
                    recent.put_foot(&text.key, body.clone());
                    (0, body)
                }
                depth => (depth, text.body),
            },
        };
        conn.prepare_cached("INSERT INTO text_refs (owner, pointer, key) VALUES (?1, ?2, ?3)")?
            .execute(params![owner, text.pointer, text.key])?;
        recent.put(text.key, body, depth);
    }
    Ok(prepared.json)
}

/// Stores `body` under `key`: as a splice of the [`Recent`] text it differs least from, when
/// that is under half its size and the chain stays within [`MAX_DEPTH`]; when the chain of the
/// recent text is full, as one splice of the whole text at its foot (every change since that
/// text, while that is under half its size); whole otherwise. Returns its depth. A recent text
/// is a base only while the store holds it (its last holder may have let it go since, or the
/// transaction that wrote it rolled back), at the depth it is stored at.
///
/// A long text typed in is written whole once, then only as splices until half of it has
/// changed: writing 10 MiB again every [`MAX_DEPTH`] keystrokes (and freeing the 10 MiB it
/// replaced) cost that keystroke 70-90 ms.
fn insert(conn: &Connection, key: &str, new: &Body, recent: &mut Recent) -> Result<i64> {
    let len = new.len();
    let small = |removed: usize, inserted: &str| (removed + inserted.len()) * 2 < len;
    let mut best: Option<(&str, i64, (usize, usize, &str))> = None;
    // The first recent text found whose chain is full.
    let mut full: Option<&str> = None;
    // Newest first: a keystroke's text is most often the newest text and that keystroke.
    for (from, old, _) in &recent.texts {
        let Some(depth) = depth_of(conn, from)? else {
            continue;
        };
        if depth >= MAX_DEPTH {
            full.get_or_insert(from);
            continue;
        }
        let splice = splice_of(old, new);
        if best.is_none_or(|(_, _, (_, r, i))| splice.1 + splice.2.len() < r + i.len()) {
            best = Some((from, depth, splice));
        }
        // Small enough: comparing the other recent texts (each a pass over the whole) would
        // save at most this much.
        if best.is_some_and(|(_, _, (_, r, i))| r + i.len() <= CLOSE_ENOUGH) {
            break;
        }
    }
    if let Some((from, depth, splice)) = best
        && small(splice.1, splice.2)
    {
        return insert_splice(conn, key, from, depth + 1, splice);
    }
    let full = full.map(str::to_owned);
    if let Some(full) = full
        && let Some((root, whole)) = foot_of(conn, &full, recent)?
    {
        let splice = splice_of(&whole, new);
        if small(splice.1, splice.2) {
            return insert_splice(conn, key, &root, 1, splice);
        }
    }
    conn.prepare_cached("INSERT INTO texts (key, body, depth) VALUES (?1, ?2, 0)")?
        .execute(params![key, new.as_str()])?;
    Ok(0)
}

/// The splice that makes `new` from `old`: as [`splice_between_texts`] finds it when both are
/// shared texts, else by comparing them.
fn splice_of<'a>(old: &Body, new: &'a Body) -> (usize, usize, &'a str) {
    match (old.shared_text(), new.shared_text()) {
        (Some(old), Some(new)) => splice_between_texts(old, new),
        _ => splice_between(old.as_str(), new.as_str()),
    }
}

/// The depth `key` is stored at, if the store holds it.
fn depth_of(conn: &Connection, key: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT depth FROM texts WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?)
}

/// Stores `key` as the splice `(at, removed, inserted)` of the text `from`, `depth` splices
/// from a whole text; it holds `from`.
fn insert_splice(
    conn: &Connection,
    key: &str,
    from: &str,
    depth: i64,
    (at, removed, inserted): (usize, usize, &str),
) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO texts (key, body, base, at, removed, depth) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        key,
        inserted,
        from,
        at as i64,
        removed as i64,
        depth
    ])?;
    conn.prepare_cached("INSERT INTO text_refs (owner, pointer, key) VALUES (?1, '', ?2)")?
        .execute(params![text_owner(key), from])?;
    Ok(depth)
}

/// The whole text at the foot of `key`'s chain of splices: its key and its text, when it reads
/// back as its key says (else None: the new text is then written whole, never made from it).
/// Taken from `recent` when it keeps it; else read, checked, and kept there.
fn foot_of(conn: &Connection, key: &str, recent: &mut Recent) -> Result<Option<(String, Body)>> {
    let Some(foot) = foot_key(conn, key)? else {
        return Ok(None);
    };
    if let Some(kept) = recent.foot(&foot) {
        return Ok(Some((foot, kept.clone())));
    }
    let whole: Option<String> = conn
        .prepare_cached("SELECT body FROM texts WHERE key = ?1 AND base IS NULL")?
        .query_row([&foot], |r| r.get(0))
        .optional()?;
    Ok(match whole {
        Some(whole) if is_key_of(&whole, &foot) => {
            let whole = Body::Owned(whole).into_shared();
            recent.put_foot(&foot, whole.clone());
            Some((foot, whole))
        }
        _ => None,
    })
}

/// The key of the whole text at the foot of `key`'s chain of splices, if the store holds the
/// chain down to it within [`MAX_DEPTH`] splices.
fn foot_key(conn: &Connection, key: &str) -> Result<Option<String>> {
    let mut at = key.to_owned();
    for _ in 0..=MAX_DEPTH {
        let row: Option<Option<String>> = conn
            .prepare_cached("SELECT base FROM texts WHERE key = ?1")?
            .query_row([&at], |r| r.get(0))
            .optional()?;
        match row {
            Some(Some(base)) => at = base,
            Some(None) => return Ok(Some(at)),
            None => return Ok(None),
        }
    }
    Ok(None)
}

/// The owner that a text made from another is: it holds that other text.
fn text_owner(key: &str) -> String {
    format!("text:{key}")
}

/// `owner` holds no text any more (its row is gone or rewritten); the keys it held go to
/// `released`.
pub fn release(conn: &Connection, owner: &str, released: &mut Vec<String>) -> Result<()> {
    let mut stmt = conn.prepare_cached("DELETE FROM text_refs WHERE owner = ?1 RETURNING key")?;
    let keys = stmt.query_map([owner], |r| r.get::<_, String>(0))?;
    for key in keys {
        released.push(key?);
    }
    Ok(())
}

/// Deletes the texts among `released` that no owner holds, then the texts those were made from
/// that nothing holds any more, and so on.
pub fn collect(conn: &Connection, mut released: Vec<String>) -> Result<()> {
    while !released.is_empty() {
        released.sort();
        released.dedup();
        let mut next = Vec::new();
        for key in released {
            let deleted = conn
                .prepare_cached(
                    "DELETE FROM texts WHERE key = ?1
                     AND NOT EXISTS (SELECT 1 FROM text_refs WHERE key = ?1)",
                )?
                .execute([&key])?;
            if deleted > 0 {
                release(conn, &text_owner(&key), &mut next)?;
            }
        }
        released = next;
    }
    Ok(())
}

/// Where `owner`'s texts go and their keys, sorted as [`Prepared::refs`].
pub fn refs(conn: &Connection, owner: &str) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT pointer, key FROM text_refs WHERE owner = ?1 ORDER BY pointer, key",
    )?;
    let rows = stmt.query_map([owner], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// `owner`'s value from the `json` its row holds, with its texts put back.
pub fn read<T: DeserializeOwned>(
    conn: &Connection,
    what: &'static str,
    owner: &str,
    json: &str,
) -> Result<T> {
    let refs = refs(conn, owner)?;
    if refs.is_empty() {
        return serde_json::from_str(json).map_err(corrupt(what));
    }
    let mut value: Value = serde_json::from_str(json).map_err(corrupt(what))?;
    for (pointer, key) in refs {
        let body = text(conn, what, &key)?;
        let slot = value
            .pointer_mut(&pointer)
            .ok_or_else(|| LocalError::Corrupt {
                what,
                reason: format!("no place {pointer:?} for text {key}"),
            })?;
        *slot = Value::String(body);
    }
    serde_json::from_value(value).map_err(corrupt(what))
}

/// The text stored under `key`, made whole, checked against its key.
fn text(conn: &Connection, what: &'static str, key: &str) -> Result<String> {
    let corrupt = |reason: String| LocalError::Corrupt { what, reason };
    // From `key` back to a whole text: each row's splice, newest first.
    let mut splices = Vec::new();
    let mut at_key = key.to_owned();
    let whole = loop {
        type Row = (String, Option<String>, Option<i64>, Option<i64>);
        let row: Option<Row> = conn
            .prepare_cached("SELECT body, base, at, removed FROM texts WHERE key = ?1")?
            .query_row([&at_key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        match row.ok_or_else(|| corrupt(format!("text {at_key} is missing")))? {
            (body, None, _, _) => break body,
            (inserted, Some(base), Some(at), Some(removed)) => {
                splices.push((at, removed, inserted));
                if splices.len() as i64 > MAX_DEPTH {
                    return Err(corrupt(format!("text {key} is made of too many splices")));
                }
                at_key = base;
            }
            _ => return Err(corrupt(format!("text {at_key} has no splice"))),
        }
    };
    let mut text = whole;
    for (at, removed, inserted) in splices.into_iter().rev() {
        let (at, end) = (at as usize, (at + removed) as usize);
        if end > text.len() || !text.is_char_boundary(at) || !text.is_char_boundary(end) {
            return Err(corrupt(format!("text {key}: a splice out of its text")));
        }
        text.replace_range(at..end, &inserted);
    }
    if !is_key_of(&text, key) {
        return Err(corrupt(format!("text {key} does not read back as stored")));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::content::Content;
    use serde_json::json;

    #[test]
    fn long_strings_are_taken_wherever_they_are_and_put_back() {
        let long = "x".repeat(TEXT_OUT_MIN);
        let value = json!({
            "short": "stays",
            "a/b~c": [1, long.clone(), {"inner": long.clone()}],
            "just_under": "y".repeat(TEXT_OUT_MIN - 1),
        });
        let prepared = Prepared::new("test", &value, &mut Recent::default()).unwrap();
        assert_eq!(
            prepared.refs(),
            vec![
                ("/a~1b~0c/1".to_owned(), key_of(&long)),
                ("/a~1b~0c/2/inner".to_owned(), key_of(&long)),
            ]
        );
        assert!(
            !prepared.json.contains("xxxxxxxx"),
            "the JSON holds no long string"
        );
        assert!(
            prepared.json.contains("yyyyyyyy"),
            "one a byte shorter stays"
        );
        let written: Value = serde_json::from_str(&prepared.json).unwrap();
        assert_eq!(
            written["a/b~c"][1],
            Value::Null,
            "a text taken out leaves null"
        );

        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(super::super::TEXTS_SCHEMA).unwrap();
        let mut released = Vec::new();
        let mut recent = Recent::default();
        let json = write(&conn, "o", prepared, &mut released, &mut recent).unwrap();
        assert!(released.is_empty());
        let count = |table: &str| -> i64 {
            conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(count("texts"), 1, "the same text is stored once");
        assert_eq!(read::<Value>(&conn, "test", "o", &json).unwrap(), value);

        // Another owner of the same text: still one; the text goes with its last owner.
        let other = Prepared::new("test", &json!({"t": long}), &mut recent).unwrap();
        write(&conn, "p", other, &mut released, &mut recent).unwrap();
        assert_eq!(count("texts"), 1);
        release(&conn, "o", &mut released).unwrap();
        collect(&conn, std::mem::take(&mut released)).unwrap();
        assert_eq!(count("texts"), 1, "p still holds it");
        release(&conn, "p", &mut released).unwrap();
        collect(&conn, released).unwrap();
        assert_eq!(count("texts"), 0);
        assert_eq!(count("text_refs"), 0);
    }

    /// A content's long text is taken by reference, not copied, and its key computed once
    /// however many rows hold it; it reads back whole, and the same value written outside the
    /// store holds its text.
    #[test]
    fn a_contents_text_is_taken_by_reference_and_hashed_once() {
        let long = Content::new(TabData::Markdown(
            "é and more\n".repeat(TEXT_OUT_MIN / 8).into(),
        ));
        let short = Content::new(TabData::Markdown("short".into()));
        let value = json!({"n": 1});
        let draft = (&long, &short, &long, &value);
        let mut recent = Recent::default();
        let prepared = Prepared::new("test", &draft, &mut recent).unwrap();
        assert_eq!(prepared.texts.len(), 2, "both places of the long text");
        for text in &prepared.texts {
            assert!(
                matches!(&text.body, Body::Shared(d) if Arc::ptr_eq(d, &long.0)),
                "{} is the content itself",
                text.pointer
            );
            assert_eq!(text.key, key_of(text.body.as_str()));
        }
        assert_eq!(recent.keys.len(), 1, "one key for the one text");
        Prepared::new("test", &draft, &mut recent).unwrap();
        assert_eq!(recent.keys.len(), 1, "known the second time");
        assert!(
            !prepared.json.contains("quire-text"),
            "no placeholder is written: {}",
            prepared.json
        );

        let conn = store();
        let mut released = Vec::new();
        let json = write(&conn, "o", prepared, &mut released, &mut recent).unwrap();
        let back: Value = read(&conn, "test", "o", &json).unwrap();
        assert_eq!(back, serde_json::to_value(draft).unwrap());
        assert_eq!(back[0]["data"], json!(long.0.content()));
        assert_eq!(back[1]["data"], "short");
    }

    /// A text made by a keystroke handed over is stored as the splice it was made with, not one
    /// found by comparing it with the text before (which would also find this one, elsewhere).
    #[test]
    fn a_keystrokes_text_is_stored_as_the_splice_it_was_made_with() {
        let unit = "é and more\n";
        let old = Content::new(TabData::Markdown(unit.repeat(TEXT_OUT_MIN / 8).into()));
        let TabData::Markdown(old_text) = &*old.0 else {
            unreachable!()
        };
        // The unit typed again at the start: comparing finds it inserted at the end.
        let conn = store();
        let (mut released, mut recent) = (Vec::new(), Recent::default());
        let prepared = Prepared::new("test", &old, &mut recent).unwrap();
        write(&conn, "o", prepared, &mut released, &mut recent).unwrap();
        // Typed once the text before it is stored (as the engine does).
        let new_text = crate::content::splice_utf16(old_text, 0, 0, unit).unwrap();
        let new = Content::new(TabData::Markdown(new_text.clone()));
        let prepared = Prepared::new("test", &new, &mut recent).unwrap();
        let json = write(&conn, "p", prepared, &mut released, &mut recent).unwrap();
        // Keyed from the digest it kept and stored as its splice: never written out whole.
        assert!(
            new_text.is_in_pieces(),
            "the keystroke's text was read whole"
        );
        assert_eq!(
            splice_between(old_text, &new_text),
            (old_text.len(), 0, unit)
        );
        let row: (i64, i64, String) = conn
            .query_row(
                "SELECT at, removed, body FROM texts WHERE key = ?1",
                [key_of(&new_text)],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(row, (0, 0, unit.to_owned()));
        let back: Value = read(&conn, "test", "p", &json).unwrap();
        assert_eq!(back["data"], json!(new_text.as_str()));
    }

    /// A text stored under a key of before digests (its XXH3-128 and length) reads back, checked
    /// by that hash: other bytes under it are an error, not another text.
    #[test]
    fn a_text_keyed_before_digests_is_checked_by_its_own_hash() {
        let text = "une ligne\n".repeat(TEXT_OUT_MIN / 8);
        let old_key = format!(
            "{:032x}-{}",
            XxHash3_128::oneshot(text.as_bytes()),
            text.len()
        );
        assert_ne!(old_key, key_of(&text));
        let conn = store();
        conn.execute(
            "INSERT INTO texts (key, body, depth) VALUES (?1, ?2, 0)",
            params![old_key, text],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO text_refs (owner, pointer, key) VALUES ('o', '/t', ?1)",
            [&old_key],
        )
        .unwrap();
        let back: Value = read(&conn, "test", "o", r#"{"t":null}"#).unwrap();
        assert_eq!(back["t"], json!(text));
        conn.execute("UPDATE texts SET body = 'other'", []).unwrap();
        let refused = read::<Value>(&conn, "test", "o", r#"{"t":null}"#);
        assert!(
            matches!(&refused, Err(LocalError::Corrupt { reason, .. }) if reason.contains("does not read back")),
            "{:?}",
            refused.err()
        );
    }

    /// A Note's long text that is a shared text whose key is known (the text of a save just
    /// acknowledged, written as the new base) is taken by reference: compared, not copied and
    /// hashed. The Note is written as its own `Serialize` writes it.
    #[test]
    fn a_notes_text_known_as_shared_is_taken_by_reference() {
        use super::super::NoteOut;
        use quire_model::{Note, Tab, TabId};
        let text = "une ligne\n".repeat(TEXT_OUT_MIN / 8);
        let saved = Content::new(TabData::Markdown(text.clone().into()));
        let mut note = Note::new(
            "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse().unwrap(),
            "T".into(),
        );
        note.tabs = vec![
            Tab {
                id: TabId::new("markdown"),
                label: "Text".into(),
                data: TabData::Markdown(text.clone().into()),
            },
            Tab {
                id: TabId::new("other"),
                label: "Other".into(),
                data: TabData::Markdown(format!("{text}!").into()),
            },
        ];
        assert_eq!(
            serde_json::to_string(&NoteOut(&note)).unwrap(),
            serde_json::to_string(&note).unwrap()
        );
        let mut recent = Recent::default();
        Prepared::new("test", &saved, &mut recent).unwrap();
        let prepared = Prepared::new("base", &NoteOut(&note), &mut recent).unwrap();
        let bodies: Vec<_> = prepared
            .texts
            .iter()
            .map(|t| {
                (
                    t.pointer.as_str(),
                    matches!(&t.body, Body::Shared(d) if Arc::ptr_eq(d, &saved.0)),
                )
            })
            .collect();
        assert_eq!(bodies, [("/tabs/0/data", true), ("/tabs/1/data", false)]);
        let conn = store();
        let json = write(&conn, "o", prepared, &mut Vec::new(), &mut recent).unwrap();
        assert_eq!(read::<Note>(&conn, "base", "o", &json).unwrap(), note);
    }

    /// A string that looks like a placeholder is only one while a value is prepared, and only
    /// with this process's tag.
    #[test]
    fn a_string_like_a_placeholder_is_written_as_it_is() {
        let forged = json!(["\u{0}quire-text-0123:0", format!("{}0", placeholder_tag())]);
        let mut recent = Recent::default();
        let prepared = Prepared::new("test", &forged, &mut recent).unwrap();
        assert!(prepared.texts.is_empty());
        let back: Value = serde_json::from_str(&prepared.json).unwrap();
        assert_eq!(back, forged);
        let outside = Content::new(TabData::Markdown("x".repeat(TEXT_OUT_MIN).into()));
        assert_eq!(
            serde_json::to_value(&outside).unwrap()["data"]
                .as_str()
                .map(str::len),
            Some(TEXT_OUT_MIN),
            "outside the store a content writes its text"
        );
    }

    fn store() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(super::super::TEXTS_SCHEMA).unwrap();
        conn
    }

    /// Writes `text` as all that owner `o` holds, and collects what that releases.
    fn hold(conn: &Connection, recent: &mut Recent, text: &str) -> String {
        let mut released = Vec::new();
        let prepared = Prepared::new("test", &json!({ "t": text }), recent).unwrap();
        let json = write(conn, "o", prepared, &mut released, recent).unwrap();
        collect(conn, released).unwrap();
        json
    }

    fn stats(conn: &Connection) -> (i64, i64, i64) {
        conn.query_row(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE base IS NULL), COALESCE(MAX(depth), 0)
             FROM texts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    }

    fn as_string(text: &[char]) -> String {
        text.iter().collect()
    }

    /// Sets character `*next * 7 + 1` of `text` to `to`, holds the text and moves `next` on;
    /// returns the holder's JSON.
    fn edit_and_hold(
        conn: &Connection,
        recent: &mut Recent,
        text: &mut [char],
        next: &mut usize,
        to: char,
    ) -> String {
        text[*next * 7 + 1] = to;
        *next += 1;
        hold(conn, recent, &as_string(text))
    }

    /// Edits `text` (see [`edit_and_hold`]) until the store's deepest chain is full.
    fn fill_chain(conn: &Connection, recent: &mut Recent, text: &mut [char], next: &mut usize) {
        while stats(conn).2 < MAX_DEPTH {
            edit_and_hold(conn, recent, text, next, 'c');
        }
    }

    /// Then one edit per recent text, so that no recent text under a chain with room is left;
    /// returns the last one's JSON.
    fn past_full_chain(
        conn: &Connection,
        recent: &mut Recent,
        text: &mut [char],
        next: &mut usize,
    ) -> String {
        let mut json = String::new();
        for _ in 0..RECENT_KEPT {
            json = edit_and_hold(conn, recent, text, next, 'd');
        }
        json
    }

    /// Writes `body` in place of the whole text at the foot of the store's chain.
    fn set_foot(conn: &Connection, body: &str) {
        conn.execute("UPDATE texts SET body = ?1 WHERE base IS NULL", [body])
            .unwrap();
    }

    #[test]
    fn a_text_close_to_a_recent_one_is_kept_as_its_splice_and_goes_with_its_last_holder() {
        let conn = store();
        let mut recent = Recent::default();
        // Two-byte characters: every splice must fall between characters.
        let mut text: Vec<char> = "é".repeat(TEXT_OUT_MIN).chars().collect();
        hold(&conn, &mut recent, &as_string(&text));
        let mut deepest = 0;
        for i in 0..(MAX_DEPTH as usize + 3) {
            text[100 + 7 * i] = 'ê';
            let json = hold(&conn, &mut recent, &as_string(&text));
            let back: Value = read(&conn, "test", "o", &json).unwrap();
            assert_eq!(back["t"], as_string(&text), "edit {i}");
            let (rows, whole, depth) = stats(&conn);
            deepest = deepest.max(depth);
            if (i as i64) < MAX_DEPTH {
                // Each text holds the one it is made from, down to the whole one.
                assert_eq!((rows, whole, depth), (i as i64 + 2, 1, i as i64 + 1));
            }
        }
        assert_eq!(deepest, MAX_DEPTH, "never more splices than {MAX_DEPTH}");
        assert_eq!(
            stats(&conn),
            (2, 1, 1),
            "once every recent text is {MAX_DEPTH} splices deep, one splice of the whole text \
             at the foot of the chain, and the chain goes"
        );
        // Every change since the whole text: characters 100 to 100 + 7 * (edits - 1), two
        // bytes each, and nothing else.
        let edits = MAX_DEPTH + 3;
        let (at, removed, inserted): (i64, i64, i64) = conn
            .query_row(
                "SELECT at, removed, length(CAST(body AS BLOB)) FROM texts WHERE base IS NOT NULL",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        let span = 2 * (7 * (edits - 1) + 1);
        assert_eq!((at, removed, inserted), (200, span, span));
        hold(&conn, &mut recent, &format!("{}x", as_string(&text)));
        let inserted: i64 = conn
            .query_row("SELECT length(body) FROM texts WHERE depth = 2", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(inserted, 1, "a splice holds its change");
        assert_eq!(stats(&conn), (3, 1, 2));

        // The text's last holder lets go: it goes, and so does every text it was made from.
        let mut released = Vec::new();
        release(&conn, "o", &mut released).unwrap();
        collect(&conn, released).unwrap();
        assert_eq!(stats(&conn).0, 0);
        let refs: i64 = conn
            .query_row("SELECT COUNT(*) FROM text_refs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(refs, 0);
    }

    /// Once the chain is full, a text that has drifted from the whole text at its foot by half
    /// its size or more is written whole, and so is one whose foot does not read back as its key.
    #[test]
    fn a_full_chain_far_from_its_foot_or_on_a_bad_foot_ends_in_a_whole_text() {
        let conn = store();
        let mut recent = Recent::default();
        let mut text: Vec<char> = "a".repeat(TEXT_OUT_MIN).chars().collect();
        hold(&conn, &mut recent, &as_string(&text));
        // Each edit rewrites the next 500 characters: small, but far from the foot in the end.
        let mut i = 0;
        while stats(&conn).2 < MAX_DEPTH {
            text[i * 500..(i + 1) * 500].fill('b');
            hold(&conn, &mut recent, &as_string(&text));
            i += 1;
        }
        for _ in 0..3 {
            text[i * 500..(i + 1) * 500].fill('b');
            hold(&conn, &mut recent, &as_string(&text));
            i += 1;
        }
        assert_eq!(stats(&conn), (1, 1, 0), "written whole, the chain gone");
        let foot = as_string(&text);

        // A foot read from the store that does not read back as its key is never built on (here
        // it differs by one character near the edits: a splice on it would be small, and read
        // back wrong). The foot kept in memory is forgotten, as by a restart.
        let mut j = 0;
        fill_chain(&conn, &mut recent, &mut text, &mut j);
        set_foot(&conn, &format!("z{}", &foot[1..]));
        recent.feet.clear();
        past_full_chain(&conn, &mut recent, &mut text, &mut j);
        assert_eq!(stats(&conn), (1, 1, 0), "written whole on a bad foot");
        let json = hold(&conn, &mut recent, &as_string(&text));
        let back: Value = read(&conn, "test", "o", &json).unwrap();
        assert_eq!(back["t"], as_string(&text));
    }

    /// The whole text at a full chain's foot is kept in memory, written or read: the next
    /// text is made from it without reading its row. Shown by changing that row under the
    /// store: the new text is still one splice of the foot (a foot read from the row would not
    /// match its key, and the text would be written whole), and reading it back fails loudly.
    /// A foot read once is kept too.
    #[test]
    fn a_full_chains_foot_is_kept_and_not_read_again() {
        let conn = store();
        let mut recent = Recent::default();
        let mut text: Vec<char> = "a".repeat(TEXT_OUT_MIN).chars().collect();
        hold(&conn, &mut recent, &as_string(&text));
        let foot = as_string(&text);
        let mut j = 0;
        let mut fill = |recent: &mut Recent, text: &mut Vec<char>| {
            fill_chain(&conn, recent, text, &mut j);
            past_full_chain(&conn, recent, text, &mut j)
        };
        // Written whole, so kept: the row is not read.
        set_foot(&conn, &format!("z{}", &foot[1..]));
        let json = fill(&mut recent, &mut text);
        assert_eq!(stats(&conn), (2, 1, 1), "one splice of the kept foot");
        assert!(read::<Value>(&conn, "test", "o", &json).is_err());
        set_foot(&conn, &foot);
        let back: Value = read(&conn, "test", "o", &json).unwrap();
        assert_eq!(back["t"], as_string(&text));

        // Forgotten (a restart), then read once at the next full chain, and kept.
        recent.feet.clear();
        let json = fill(&mut recent, &mut text);
        assert_eq!(stats(&conn), (2, 1, 1), "one splice of the foot read");
        let back: Value = read(&conn, "test", "o", &json).unwrap();
        assert_eq!(back["t"], as_string(&text));
        set_foot(&conn, &format!("z{}", &foot[1..]));
        fill(&mut recent, &mut text);
        assert_eq!(
            stats(&conn),
            (2, 1, 1),
            "one splice of the foot read before"
        );
    }

    /// A recent text no holder keeps any more is gone from the store: a text close to it is
    /// stored whole, not made from it.
    #[test]
    fn a_text_is_never_made_from_one_the_store_let_go() {
        let conn = store();
        let mut recent = Recent::default();
        let text = "a line of text\n".repeat(TEXT_OUT_MIN / 8);
        hold(&conn, &mut recent, &text);
        let mut released = Vec::new();
        release(&conn, "o", &mut released).unwrap();
        collect(&conn, released).unwrap();
        assert_eq!(stats(&conn).0, 0, "let go");
        let json = hold(&conn, &mut recent, &format!("{text}one more"));
        assert_eq!(stats(&conn), (1, 1, 0), "stored whole");
        let back: Value = read(&conn, "test", "o", &json).unwrap();
        assert_eq!(back["t"], format!("{text}one more"));
    }

    #[test]
    fn a_text_that_does_not_read_back_as_stored_is_refused() {
        let conn = store();
        let mut recent = Recent::default();
        let text = "a line of text\n".repeat(TEXT_OUT_MIN / 8);
        hold(&conn, &mut recent, &text);
        let json = hold(&conn, &mut recent, &format!("{text}one more"));
        conn.execute(
            "UPDATE texts SET body = 'one mode' WHERE base IS NOT NULL",
            [],
        )
        .unwrap();
        let err = read::<Value>(&conn, "test", "o", &json).unwrap_err();
        assert!(
            err.to_string().contains("does not read back as stored"),
            "{err}"
        );
    }
}
