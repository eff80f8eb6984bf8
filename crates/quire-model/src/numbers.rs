//! Integers that would not read back as written. A JSON number is kept as a 64-bit integer
//! when it is whole and fits one, otherwise as a double; an integer literal wider than 64 bits
//! (`123456789012345678901234567890`) would become the nearest double without a word, and a
//! cell would read back as another number. Such a literal is found in the request's text, before
//! it is parsed, so that it can be refused by name: the writer can send it as a string to keep
//! every digit. Every other finite number reads back as the very double its text names.

/// An integer literal wider than 64 bits, and where it is in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WideInteger {
    /// The member holding it, as `changes[0].values[1][2]` (empty: the document itself).
    pub path: String,
    /// The literal, shortened to its first digits when long.
    pub literal: String,
}

impl WideInteger {
    /// Why it is refused, for an error message.
    pub fn reason(&self) -> String {
        format!(
            "the integer {} does not fit in 64 bits and would be rounded; send it as a string \
             to keep every digit",
            self.literal
        )
    }
}

/// The shortest digit run that can hold an integer wider than 64 bits (`-9223372036854775809`
/// has 19 digits; every integer of 18 digits or fewer fits).
const WIDE_DIGITS: usize = 19;

/// The first integer literal in `json` that fits neither an `i64` nor a `u64`, if any. A text
/// that is not well-formed JSON gives whatever was found before the fault (the parser that
/// follows reports the fault itself).
pub fn find_wide_integer(json: &str) -> Option<WideInteger> {
    if !has_digit_run(json.as_bytes(), WIDE_DIGITS) {
        return None;
    }
    Scan::new(json).run()
}

/// Whether `bytes` holds `n` ASCII digits in a row (a quick test most documents fail, so that
/// the full scan runs only where a wide integer can be). Any `n` bytes in a row include one of
/// every `n`th byte: only those are probed, and a run measured only around a probe that is a
/// digit, so a text is read about once per `n` bytes.
fn has_digit_run(bytes: &[u8], n: usize) -> bool {
    let mut probe = n.saturating_sub(1);
    while probe < bytes.len() {
        if !bytes[probe].is_ascii_digit() {
            probe += n;
            continue;
        }
        let start = bytes[..probe]
            .iter()
            .rposition(|b| !b.is_ascii_digit())
            .map_or(0, |at| at + 1);
        let end = bytes[probe..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(bytes.len(), |len| probe + len);
        if end - start >= n {
            return true;
        }
        // `bytes[end]` is not a digit: a later run starts after it and holds `end + n` or a
        // probe after that.
        probe = end + n;
    }
    false
}

enum Frame {
    Object { key: Option<String>, want_key: bool },
    Array { index: usize },
}

struct Scan<'a> {
    text: &'a str,
    at: usize,
    frames: Vec<Frame>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        Scan {
            text,
            at: 0,
            frames: Vec::new(),
        }
    }

    fn run(mut self) -> Option<WideInteger> {
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() {
            match bytes[self.at] {
                b'{' => {
                    self.frames.push(Frame::Object {
                        key: None,
                        want_key: true,
                    });
                    self.at += 1;
                }
                b'[' => {
                    self.frames.push(Frame::Array { index: 0 });
                    self.at += 1;
                }
                b'}' | b']' => {
                    self.frames.pop();
                    self.at += 1;
                }
                b',' => {
                    match self.frames.last_mut() {
                        Some(Frame::Array { index }) => *index += 1,
                        Some(Frame::Object { want_key, .. }) => *want_key = true,
                        None => {}
                    }
                    self.at += 1;
                }
                b'"' => {
                    let (start, end) = self.string()?;
                    if let Some(Frame::Object { key, want_key }) = self.frames.last_mut()
                        && *want_key
                    {
                        let raw = &self.text[start..end];
                        *key = Some(if raw.contains('\\') {
                            serde_json::from_str(&self.text[start - 1..=end])
                                .unwrap_or_else(|_| raw.to_owned())
                        } else {
                            raw.to_owned()
                        });
                        *want_key = false;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = self.at;
                    while self.at < bytes.len()
                        && matches!(
                            bytes[self.at],
                            b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                        )
                    {
                        self.at += 1;
                    }
                    let literal = &self.text[start..self.at];
                    if is_wide(literal) {
                        return Some(WideInteger {
                            path: self.path(),
                            literal: shorten(literal),
                        });
                    }
                }
                _ => self.at += 1,
            }
        }
        None
    }

    /// Skips the string opening at `self.at`; returns the byte range of its contents, or `None`
    /// if it never closes.
    fn string(&mut self) -> Option<(usize, usize)> {
        let bytes = self.text.as_bytes();
        let start = self.at + 1;
        let mut i = start;
        loop {
            let next = i + bytes
                .get(i..)?
                .iter()
                .position(|b| matches!(b, b'"' | b'\\'))?;
            if bytes[next] == b'\\' {
                i = next + 2;
            } else {
                self.at = next + 1;
                return Some((start, next));
            }
        }
    }

    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            match frame {
                Frame::Object { key: Some(key), .. } => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Frame::Object { key: None, .. } => {}
                Frame::Array { index } => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }
}

/// An integer literal (no fraction, no exponent) that fits neither `i64` nor `u64`.
fn is_wide(literal: &str) -> bool {
    if literal.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        return false;
    }
    let digits = literal.trim_start_matches('-');
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if literal.starts_with('-') {
        literal.parse::<i64>().is_err()
    } else {
        literal.parse::<u64>().is_err()
    }
}

fn shorten(literal: &str) -> String {
    const SHOWN: usize = 32;
    if literal.len() <= SHOWN {
        literal.to_owned()
    } else {
        format!(
            "{}… ({} digits)",
            &literal[..SHOWN],
            literal.trim_start_matches('-').len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(json: &str) -> Option<(String, String)> {
        find_wide_integer(json).map(|w| (w.path, w.literal))
    }

    fn at(path: &str, literal: &str) -> Option<(String, String)> {
        Some((path.to_owned(), literal.to_owned()))
    }

    #[test]
    fn wide_integers_are_found_where_they_are() {
        let cases: &[(&str, Option<(String, String)>)] = &[
            (r#"{"a": 1}"#, None),
            (r#"{"a": 18446744073709551615}"#, None),
            (r#"{"a": -9223372036854775808}"#, None),
            (r#"{"a": 9007199254740993}"#, None),
            (
                r#"{"a": 18446744073709551616}"#,
                at("a", "18446744073709551616"),
            ),
            (
                r#"{"a": -9223372036854775809}"#,
                at("a", "-9223372036854775809"),
            ),
            // A double's spelling, however long, is a double.
            (r#"{"a": 123456789012345678901234567890.0}"#, None),
            (r#"{"a": 1234567890123456789012345e3}"#, None),
            (r#"[1e400]"#, None),
            // Digits inside strings, keys included, are text.
            (
                r#"{"123456789012345678901234567890": "123456789012345678901234567890"}"#,
                None,
            ),
            (r#"{"a": "\"123456789012345678901234567890"}"#, None),
            (
                r#"{"expected_version": 3, "changes": [{"op": "replace_text", "text": "x"}, {"op": "sheet_set_range", "values": [[1, "a"], [2, 99999999999999999999]]}]}"#,
                at("changes[1].values[1][1]", "99999999999999999999"),
            ),
            (
                r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "edit_note_tab", "arguments": {"values": [[-99999999999999999999]]}}}"#,
                at("params.arguments.values[0][0]", "-99999999999999999999"),
            ),
            (
                r#"{"a\"b": {"c": [0, 0, 100000000000000000000]}}"#,
                at("a\"b.c[2]", "100000000000000000000"),
            ),
            (
                r#"123456789012345678901234567890"#,
                at("", "123456789012345678901234567890"),
            ),
            // Not JSON: whatever was found before the fault, else nothing.
            (
                r#"{"a": "unterminated 123456789012345678901234567890"#,
                None,
            ),
        ];
        for (json, want) in cases {
            assert_eq!(&found(json), want, "{json}");
        }
    }

    #[test]
    fn a_long_literal_is_shortened_in_the_message() {
        let digits = "9".repeat(10_000);
        let wide = find_wide_integer(&format!("[{digits}]")).expect("found");
        assert_eq!(wide.path, "[0]");
        assert!(wide.literal.ends_with("(10000 digits)"), "{}", wide.literal);
        assert!(wide.reason().len() < 200);
    }

    #[test]
    fn the_quick_test_sees_runs_of_digits_only() {
        assert!(has_digit_run(b"a1234567890123456789b", 19));
        assert!(!has_digit_run(b"a123456789012345678b9", 19));
        assert!(!has_digit_run(b"", 19));
    }

    proptest::proptest! {
        /// The probing test agrees with reading every byte, wherever the runs fall.
        #[test]
        fn probing_finds_exactly_the_runs_a_full_read_finds(
            text in "[0-9a ]{0,200}",
            n in 1usize..25,
        ) {
            let bytes = text.as_bytes();
            let mut longest = 0;
            let mut run = 0;
            for b in bytes {
                run = if b.is_ascii_digit() { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            proptest::prop_assert_eq!(has_digit_run(bytes, n), longest >= n);
        }
    }
}
