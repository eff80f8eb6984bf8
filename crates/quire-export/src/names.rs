//! File names made from titles and labels: safe on every common file system, unique in their
//! folder (compared without case, as macOS and Windows do).

use std::collections::HashSet;

/// The longest name made, in characters (before a suffix that makes it unique).
const MAX_CHARS: usize = 80;

/// Names Windows reserves, whatever the extension.
const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// `text` made safe as a file name: no path separators, no characters Windows refuses, no
/// control characters, white space folded, no leading or trailing dots or spaces, at most
/// [`MAX_CHARS`] characters; `fallback` if nothing is left.
pub fn safe(text: &str, fallback: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_CHARS * 4));
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '-',
            c if c.is_whitespace() || c.is_control() => ' ',
            c => c,
        };
        if c == ' ' {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    let clipped: String = out.chars().take(MAX_CHARS).collect();
    let trimmed = clipped.trim_matches(|c| c == '.' || c == ' ');
    if trimmed.is_empty() {
        return fallback.to_owned();
    }
    let stem = trimmed.split('.').next().unwrap_or(trimmed);
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
        return format!("_{trimmed}");
    }
    trimmed.to_owned()
}

/// Hands out names unique within one folder: the second `Plan` is `Plan (2)`.
#[derive(Debug, Default)]
pub struct Unique {
    taken: HashSet<String>,
}

impl Unique {
    /// Reserves a name the folder holds anyway (e.g. `index.md`).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_lowercase());
    }

    /// `stem` + `ext` (e.g. `".csv"`, or `""` for a folder), with ` (N)` after the stem where
    /// the name is taken.
    pub fn name(&mut self, stem: &str, ext: &str) -> String {
        let mut candidate = format!("{stem}{ext}");
        let mut n = 2;
        while !self.taken.insert(candidate.to_lowercase()) {
            candidate = format!("{stem} ({n}){ext}");
            n += 1;
        }
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_safe_names() {
        let cases = [
            ("Plan", "Plan"),
            ("a/b\\c:d*e?f\"g<h>i|j", "a-b-c-d-e-f-g-h-i-j"),
            ("  two   words\tand\nlines  ", "two words and lines"),
            ("...hidden.", "hidden"),
            ("", "Untitled"),
            ("   ", "Untitled"),
            ("..", "Untitled"),
            ("CON", "_CON"),
            ("nul.txt", "_nul.txt"),
            ("Résumé 2026 ✓", "Résumé 2026 ✓"),
            ("a\u{0}b", "a b"),
        ];
        for (title, want) in cases {
            assert_eq!(safe(title, "Untitled"), want, "{title:?}");
        }
        let long = "é".repeat(200);
        assert_eq!(safe(&long, "x").chars().count(), MAX_CHARS);
    }

    #[test]
    fn names_are_unique_without_case() {
        let mut u = Unique::default();
        u.reserve("index.md");
        assert_eq!(u.name("index", ".md"), "index (2).md");
        assert_eq!(u.name("Plan", ""), "Plan");
        assert_eq!(u.name("plan", ""), "plan (2)");
        assert_eq!(u.name("Plan", ""), "Plan (3)");
    }
}
