//! The long strings of what the local store writes, kept once each.
//!
//! A Markdown tab's text is in the draft (its base, the person's text, the pending save's), in
//! the Note's base and in the newest seen version, most often the same text in all of them. A
//! row's JSON holds no string of [`TEXT_OUT_MIN`] bytes or more: each is a row of `texts` (its
//! key: the XXH3-128 of its bytes and its length), and `text_refs` says which owner (a draft, a
//! base, a seen tab) holds which text where (a JSON Pointer into the owner's JSON). A keystroke
//! in a 10 MiB tab then writes the new text once, not five times, and its acknowledgement writes
//! no text at all. A text no owner holds any more is deleted in the same transaction.
//!
//! Rows written before (schema 3 and older) hold their strings inline and own no text; they are
//! read as they are.

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use twox_hash::XxHash3_128;

use super::{LocalError, Result, corrupt};

/// Strings this long or longer are kept in `texts`.
pub const TEXT_OUT_MIN: usize = 64 * 1024;

/// A value as it is written: its JSON without the long strings, and each of those with where it
/// goes and its key.
pub struct Prepared {
    pub json: String,
    texts: Vec<Text>,
}

struct Text {
    pointer: String,
    key: String,
    body: String,
}

impl Prepared {
    pub fn new<T: Serialize>(what: &'static str, v: &T) -> Result<Self> {
        let mut value = serde_json::to_value(v).map_err(corrupt(what))?;
        let mut taken = Vec::new();
        take_long_strings(&mut value, &mut String::new(), &mut taken);
        let texts = taken
            .into_iter()
            .map(|(pointer, body)| Text {
                pointer,
                key: key_of(&body),
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

/// `text`'s key: its XXH3-128 and its length (two texts share a key only if both match).
fn key_of(text: &str) -> String {
    format!(
        "{:032x}-{}",
        XxHash3_128::oneshot(text.as_bytes()),
        text.len()
    )
}

/// Moves every string of [`TEXT_OUT_MIN`] bytes or more out of `value` (leaving an empty
/// string), with its JSON Pointer.
fn take_long_strings(value: &mut Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(s) if s.len() >= TEXT_OUT_MIN => {
            out.push((pointer.clone(), std::mem::take(s)));
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                take_long_strings(item, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Object(fields) => {
            for (name, item) in fields.iter_mut() {
                let len = pointer.len();
                pointer.push('/');
                // RFC 6901: `~` is `~0`, `/` is `~1`.
                pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                take_long_strings(item, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Makes `prepared`'s texts `owner`'s, in place of those it held (their keys go to `released`),
/// writing each text not stored yet. Returns the JSON to store in the owner's row.
pub fn write(
    conn: &Connection,
    owner: &str,
    prepared: Prepared,
    released: &mut Vec<String>,
) -> Result<String> {
    release(conn, owner, released)?;
    for text in prepared.texts {
        let stored = conn
            .prepare_cached("SELECT 1 FROM texts WHERE key = ?1")?
            .query_row([&text.key], |_| Ok(()))
            .optional()?;
        if stored.is_none() {
            conn.prepare_cached("INSERT INTO texts (key, body) VALUES (?1, ?2)")?
                .execute(params![text.key, text.body])?;
        }
        conn.prepare_cached("INSERT INTO text_refs (owner, pointer, key) VALUES (?1, ?2, ?3)")?
            .execute(params![owner, text.pointer, text.key])?;
    }
    Ok(prepared.json)
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

/// Deletes the texts among `released` that no owner holds.
pub fn collect(conn: &Connection, mut released: Vec<String>) -> Result<()> {
    released.sort();
    released.dedup();
    for key in released {
        conn.prepare_cached(
            "DELETE FROM texts WHERE key = ?1
             AND NOT EXISTS (SELECT 1 FROM text_refs WHERE key = ?1)",
        )?
        .execute([key])?;
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
        let body: Option<String> = conn
            .prepare_cached("SELECT body FROM texts WHERE key = ?1")?
            .query_row([&key], |r| r.get(0))
            .optional()?;
        let missing = |reason: String| LocalError::Corrupt { what, reason };
        let body = body.ok_or_else(|| missing(format!("text {key} is missing")))?;
        let slot = value
            .pointer_mut(&pointer)
            .ok_or_else(|| missing(format!("no place {pointer:?} for text {key}")))?;
        *slot = Value::String(body);
    }
    serde_json::from_value(value).map_err(corrupt(what))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn long_strings_are_taken_wherever_they_are_and_put_back() {
        let long = "x".repeat(TEXT_OUT_MIN);
        let value = json!({
            "short": "stays",
            "a/b~c": [1, long.clone(), {"inner": long.clone()}],
            "just_under": "y".repeat(TEXT_OUT_MIN - 1),
        });
        let prepared = Prepared::new("test", &value).unwrap();
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

        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(super::super::TEXTS_SCHEMA).unwrap();
        let mut released = Vec::new();
        let json = write(&conn, "o", prepared, &mut released).unwrap();
        assert!(released.is_empty());
        let count = |table: &str| -> i64 {
            conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(count("texts"), 1, "the same text is stored once");
        assert_eq!(read::<Value>(&conn, "test", "o", &json).unwrap(), value);

        // Another owner of the same text: still one; the text goes with its last owner.
        let other = Prepared::new("test", &json!({"t": long})).unwrap();
        write(&conn, "p", other, &mut released).unwrap();
        assert_eq!(count("texts"), 1);
        release(&conn, "o", &mut released).unwrap();
        collect(&conn, std::mem::take(&mut released)).unwrap();
        assert_eq!(count("texts"), 1, "p still holds it");
        release(&conn, "p", &mut released).unwrap();
        collect(&conn, released).unwrap();
        assert_eq!(count("texts"), 0);
        assert_eq!(count("text_refs"), 0);
    }
}
