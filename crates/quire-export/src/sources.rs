//! The Sources tab as `sources.md`: a heading, then one Markdown link a line,
//! `- [title](<url>)`. A title's `\`, `[`, `]` and line breaks are escaped (`\\`, `\[`, `\]`,
//! `\n`), a URL's `\`, `<` and `>` too, so that every link reads back as it was.

/// A cited page as the file holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub title: String,
    pub url: String,
}

/// The file.
pub fn write(links: &[Link]) -> String {
    let mut out = String::from("# Sources\n\n");
    for link in links {
        out.push_str("- [");
        escape(&mut out, &link.title, &['\\', '[', ']']);
        out.push_str("](<");
        escape(&mut out, &link.url, &['\\', '<', '>']);
        out.push_str(">)\n");
    }
    out
}

/// The links of the file: lines `- [title](<url>)` or `- [title](url)`, and bare URLs
/// (`- <url>`, `- url`: the URL is then the title too). Other lines are not links.
pub fn read(text: &str) -> Vec<Link> {
    text.lines().filter_map(link).collect()
}

fn link(line: &str) -> Option<Link> {
    let item = line.trim().strip_prefix(['-', '*'])?.trim_start();
    if let Some(rest) = item.strip_prefix('[') {
        let (title, rest) = until(rest, ']')?;
        let rest = rest.strip_prefix('(')?;
        let url = match rest.strip_prefix('<') {
            Some(inside) => until(inside, '>')?.0,
            None => unescape(rest.strip_suffix(')')?.trim()),
        };
        return Some(Link { title, url });
    }
    let bare = item
        .strip_prefix('<')
        .and_then(|u| u.strip_suffix('>'))
        .unwrap_or(item);
    (bare.contains("://") && !bare.contains(char::is_whitespace)).then(|| Link {
        title: unescape(bare),
        url: unescape(bare),
    })
}

/// The unescaped text before the first unescaped `end`, and what follows it.
fn until(text: &str, end: char) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, next)) => out.push(next),
                None => out.push('\\'),
            },
            c if c == end => return Some((out, &text[i + c.len_utf8()..])),
            c => out.push(c),
        }
    }
    None
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('\\' | '<' | '>' | '[' | ']' | '(' | ')'))) => {
                out.push(next);
                chars.next();
            }
            (c, _) => out.push(c),
        }
    }
    out
}

fn escape(out: &mut String, text: &str, special: &[char]) {
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            c if special.contains(&c) => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(title: &str, url: &str) -> Link {
        Link {
            title: title.into(),
            url: url.into(),
        }
    }

    #[test]
    fn links_read_back_exactly() {
        let links = vec![
            l("Plain", "https://example.com/a"),
            l(
                "[brackets] and \\ back",
                "https://example.com/(x)?q=<1>&r=\\",
            ),
            l("two\nlines", "https://example.com/ é"),
            l("", "https://example.com/"),
        ];
        assert_eq!(read(&write(&links)), links);
    }

    #[test]
    fn a_list_written_by_hand_reads_too() {
        let text = "# My sources\n\nSome prose.\n- [Docs](https://docs.rs/csv)\n\
                    * <https://example.org/x>\n- https://example.net\n- not a link\n";
        assert_eq!(
            read(text),
            vec![
                l("Docs", "https://docs.rs/csv"),
                l("https://example.org/x", "https://example.org/x"),
                l("https://example.net", "https://example.net"),
            ]
        );
    }
}
