//! Links inside a Note's text that name other things by ID: another Note
//! (`[title](quire:note/ID)`) and an attached image (`![name](quire:file/ID)`). An import gives
//! Notes and attachments new IDs; [`relink`] points the text at them.

use std::collections::BTreeMap;

/// The prefix of a link to another Note.
pub const NOTE_LINK: &str = "quire:note/";
/// The prefix of a link to one of the Note's attachments.
pub const FILE_LINK: &str = "quire:file/";

/// `text` with each `quire:note/OLD` whose `OLD` is a key of `notes` pointing at its value, and
/// each `quire:file/OLD` likewise with `files`. An ID is the longest run of ASCII letters,
/// digits, `-` and `_` after the prefix (as the app writes them); an ID in neither map (a Note
/// that was not imported with this one) is left as it is.
pub fn relink(
    text: &str,
    notes: &BTreeMap<String, String>,
    files: &BTreeMap<String, String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, prefix, map)) = next_link(rest, notes, files) {
        let start = at + prefix.len();
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(tail.len());
        let id = &tail[..len];
        out.push_str(map.get(id).map_or(id, String::as_str));
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// The first link prefix in `text`: where, which, and the map that serves it.
fn next_link<'m>(
    text: &str,
    notes: &'m BTreeMap<String, String>,
    files: &'m BTreeMap<String, String>,
) -> Option<(usize, &'static str, &'m BTreeMap<String, String>)> {
    let note = text.find(NOTE_LINK).map(|at| (at, NOTE_LINK, notes));
    let file = text.find(FILE_LINK).map(|at| (at, FILE_LINK, files));
    match (note, file) {
        (Some(n), Some(f)) => Some(if n.0 < f.0 { n } else { f }),
        (n, f) => n.or(f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn links_to_imported_notes_and_files_point_at_their_new_ids() {
        let notes = map(&[("0190-old", "0199-new")]);
        let files = map(&[("file-3-ab", "file-9-cd")]);
        let text = "See [Plan](quire:note/0190-old) and [Gone](quire:note/0190-gone).\n\
                    ![shot.png](quire:file/file-3-ab) ![web](https://e.org/quire:file/x.png)\n\
                    quire:note/0190-old, twice: [again](quire:note/0190-old)";
        assert_eq!(
            relink(text, &notes, &files),
            "See [Plan](quire:note/0199-new) and [Gone](quire:note/0190-gone).\n\
             ![shot.png](quire:file/file-9-cd) ![web](https://e.org/quire:file/x.png)\n\
             quire:note/0199-new, twice: [again](quire:note/0199-new)"
        );
    }

    #[test]
    fn a_text_without_links_or_with_a_bare_prefix_is_unchanged() {
        let notes = map(&[("a", "b")]);
        for text in [
            "",
            "no links here, café",
            "quire:note/",
            "(quire:file/)",
            "quire:note/é",
        ] {
            assert_eq!(relink(text, &notes, &notes), text);
        }
        // An ID is the whole run: "a" does not match inside "ab".
        assert_eq!(relink("quire:note/ab", &notes, &notes), "quire:note/ab");
    }
}
