//! A deck as one Markdown file: slides separated by `---` lines, each slide its `# title`
//! line, a blank line and its body, then its speaker notes as `Note: ` lines.
//!
//! ```text
//! # Why now
//!
//! Costs fell by half.
//!
//! Note: pause here
//! ---
//!
//! # Next
//! ```
//!
//! Written so that it reads back exactly: a body line that would read as something else (a
//! `---` line, a line starting `Note:`, a line starting with a backslash) gets a backslash in
//! front, and a title's backslashes and line breaks are written `\\`, `\n` and `\r`.

/// One slide's text: what the file holds of it (layouts and IDs are in the manifest).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SlideText {
    pub title: String,
    pub body: String,
    pub notes: String,
}

const SEPARATOR: &str = "---";
const NOTE: &str = "Note:";

/// The deck's file.
pub fn write(slides: &[SlideText]) -> String {
    let mut out = String::new();
    for (i, slide) in slides.iter().enumerate() {
        if i > 0 {
            out.push_str(SEPARATOR);
            out.push_str("\n\n");
        }
        out.push_str("# ");
        out.push_str(&escape_title(&slide.title));
        out.push('\n');
        if !slide.body.is_empty() {
            out.push('\n');
            for line in slide.body.split('\n') {
                if needs_escape(line) {
                    out.push('\\');
                }
                out.push_str(line);
                out.push('\n');
            }
        }
        if !slide.notes.is_empty() {
            out.push('\n');
            for line in slide.notes.split('\n') {
                out.push_str(NOTE);
                out.push(' ');
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The slides of a deck's file. Reads what [`write`] wrote exactly, and a deck written by
/// hand as well as it can (no `# ` line: the slide's first line is its title; `Note:` with or
/// without a space; Windows line ends).
pub fn read(text: &str) -> Vec<SlideText> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Vec::new();
    }
    let mut slides = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut lines: Vec<&str> = text.split('\n').collect();
    // The file's last line break ends the last line; it does not start another one.
    if lines.last() == Some(&"") {
        lines.pop();
    }
    for line in lines {
        if line.trim_end_matches('\r') == SEPARATOR {
            slides.push(slide(&current));
            current.clear();
        } else {
            current.push(line);
        }
    }
    slides.push(slide(&current));
    slides
}

/// One slide from its lines (between separators).
fn slide(lines: &[&str]) -> SlideText {
    let mut lines = lines;
    // The blank line written after a separator.
    if let [first, rest @ ..] = lines
        && first.trim_end_matches('\r').is_empty()
        && rest.first().is_some_and(|l| is_title(l))
    {
        lines = rest;
    }
    let (title, rest) = match lines {
        [first, rest @ ..] if is_title(first) => (unescape_title(&first[2..]), rest),
        [first, rest @ ..] => (first.trim().to_owned(), rest),
        [] => (String::new(), lines),
    };
    let notes_at = rest
        .iter()
        .position(|l| l.starts_with(NOTE))
        .unwrap_or(rest.len());
    let (body_lines, note_lines) = rest.split_at(notes_at);
    let notes = note_lines
        .iter()
        .map(|l| {
            let l = l.strip_prefix(NOTE).unwrap_or(l);
            l.strip_prefix(' ').unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut body_lines = body_lines;
    // The blank line written before the notes, and the one after the title.
    if !note_lines.is_empty()
        && let [init @ .., last] = body_lines
        && last.trim_end_matches('\r').is_empty()
    {
        body_lines = init;
    }
    if let [first, rest @ ..] = body_lines
        && first.trim_end_matches('\r').is_empty()
    {
        body_lines = rest;
    }
    let body = body_lines
        .iter()
        .map(|l| l.strip_prefix('\\').filter(|_| escaped(l)).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    SlideText { title, body, notes }
}

fn is_title(line: &str) -> bool {
    line.starts_with("# ") || line == "#"
}

/// A body line that must be escaped to read back as body text.
fn needs_escape(line: &str) -> bool {
    line.trim_end_matches('\r') == SEPARATOR || line.starts_with(NOTE) || line.starts_with('\\')
}

/// A line [`write`] escaped: a backslash, then a line that needed it.
fn escaped(line: &str) -> bool {
    line.strip_prefix('\\').is_some_and(needs_escape)
}

fn escape_title(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for c in title.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape_title(text: &str) -> String {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(title: &str, body: &str, notes: &str) -> SlideText {
        SlideText {
            title: title.into(),
            body: body.into(),
            notes: notes.into(),
        }
    }

    #[test]
    fn a_deck_reads_back_exactly() {
        let decks = [
            vec![],
            vec![s("", "", "")],
            vec![s("One", "", "")],
            vec![s("One", "body", "")],
            vec![s("One", "", "notes")],
            vec![
                s("One", "a\n\nb", "n1\nn2"),
                s("Two", "", ""),
                s("", "x", ""),
            ],
            vec![s(
                "Tricky",
                "---\nNote: not a note\n\\back\n# not a title",
                "",
            )],
            vec![s("Blank edges", "\n\nmiddle\n\n", "\nnote\n")],
            vec![s("Windows", "a\r\nb\r\n", "n\r")],
            vec![s("Title with \\ and \n line", "Note:", "Note: nested")],
            vec![s("---", "---", "---")],
        ];
        for deck in decks {
            let text = write(&deck);
            assert_eq!(read(&text), deck, "{text:?}");
        }
    }

    #[test]
    fn the_file_reads_as_a_person_would_write_it() {
        let text = "# Why now\n\nCosts fell.\n\nNote: pause here\n---\n\n# Next\n";
        assert_eq!(
            write(&[s("Why now", "Costs fell.", "pause here"), s("Next", "", "")]),
            text
        );
        let by_hand = "Intro\nhello\nNote:quiet\n---\n# Two\r\n\r\nbody\r\n";
        assert_eq!(
            read(by_hand),
            vec![s("Intro", "hello", "quiet"), s("Two", "body\r", "")]
        );
        assert_eq!(read(""), vec![]);
        assert_eq!(read("\u{feff}# A\n"), vec![s("A", "", "")]);
    }
}
