use url::Url;

/// Why a URL cannot be a source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("only http and https links can be sources, not {0}:")]
    Scheme(String),
    #[error("not a web address: {0}")]
    Malformed(String),
    #[error("the address has no host")]
    NoHost,
}

/// The key of a source in a Note: "this page". `https`, lower-case host without `www.`, no
/// fragment, no `utm_*` parameters, no trailing slash. An address without a scheme is taken as
/// https; any scheme but http and https is refused (`javascript:`, `ftp:`, `file:`, ...).
pub fn normalize_url(raw: &str) -> Result<String, UrlError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(UrlError::Malformed("empty".to_owned()));
    }
    let url = parse_web_url(raw)?;
    let host = url.host_str().ok_or(UrlError::NoHost)?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let port = match url.port() {
        Some(p) if !(url.scheme() == "http" && p == 80) => format!(":{p}"),
        _ => String::new(),
    };
    let path = url.path().trim_end_matches('/');
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !k.to_ascii_lowercase().starts_with("utm_"))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let query = if kept.is_empty() {
        String::new()
    } else {
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in &kept {
            ser.append_pair(k, v);
        }
        format!("?{}", ser.finish())
    };
    Ok(format!("https://{host}{port}{path}{query}"))
}

/// The address as the person would open it: parsed, with `https://` added when no scheme was
/// given. Refuses what `normalize_url` refuses.
pub fn web_url(raw: &str) -> Result<String, UrlError> {
    let url = parse_web_url(raw.trim())?;
    url.host_str().ok_or(UrlError::NoHost)?;
    Ok(url.to_string())
}

fn parse_web_url(raw: &str) -> Result<Url, UrlError> {
    let candidate = if has_scheme(raw) {
        raw.to_owned()
    } else {
        format!("https://{raw}")
    };
    let url = Url::parse(&candidate).map_err(|e| UrlError::Malformed(e.to_string()))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(UrlError::Scheme(other.to_owned())),
    }
}

/// `scheme:` at the start, where the scheme is letters, digits, `+`, `-`, `.` starting with a
/// letter, and what follows is not a port number (`example.org:8080/x` has no scheme).
fn has_scheme(raw: &str) -> bool {
    let Some((scheme, rest)) = raw.split_once(':') else {
        return false;
    };
    let valid = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let looks_like_port = rest
        .split(['/', '?', '#'])
        .next()
        .is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    valid && !looks_like_port
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeds' seven spellings of one page: all one source.
    #[test]
    fn seven_spellings_are_one_page() {
        let spellings = [
            "https://example.org/report",
            "https://example.org/report/",
            "https://www.example.org/report",
            "https://example.org/report?utm_source=newsletter&utm_medium=email",
            "https://example.org/report#methods",
            "http://example.org/report",
            "example.org/report",
        ];
        for s in spellings {
            assert_eq!(
                normalize_url(s).as_deref(),
                Ok("https://example.org/report"),
                "{s}"
            );
        }
    }

    #[test]
    fn normalisation_table() {
        let cases = [
            (
                "HTTPS://WWW.Example.ORG/Report",
                Ok("https://example.org/Report"),
            ),
            ("https://example.org/", Ok("https://example.org")),
            (
                "https://example.org/a?b=1&utm_campaign=x",
                Ok("https://example.org/a?b=1"),
            ),
            (
                "https://example.org/a?UTM_Source=x&q=r%20s",
                Ok("https://example.org/a?q=r+s"),
            ),
            (
                "https://example.org:8443/a",
                Ok("https://example.org:8443/a"),
            ),
            ("http://example.org:80/a", Ok("https://example.org/a")),
            ("example.org:8080/a", Ok("https://example.org:8080/a")),
            ("  https://example.org/a  ", Ok("https://example.org/a")),
            ("https://wwwexample.org/a", Ok("https://wwwexample.org/a")),
        ];
        for (raw, want) in cases {
            let want: Result<&str, UrlError> = want;
            assert_eq!(
                normalize_url(raw).as_deref().map_err(Clone::clone),
                want,
                "{raw}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_a_web_page() {
        assert_eq!(
            normalize_url("javascript:alert(1)"),
            Err(UrlError::Scheme("javascript".into()))
        );
        assert_eq!(
            normalize_url("ftp://example.org/file"),
            Err(UrlError::Scheme("ftp".into()))
        );
        assert_eq!(
            normalize_url("mailto:a@b.c"),
            Err(UrlError::Scheme("mailto".into()))
        );
        assert!(matches!(normalize_url(""), Err(UrlError::Malformed(_))));
        assert!(matches!(
            normalize_url("https://"),
            Err(UrlError::Malformed(_))
        ));
        assert!(matches!(
            normalize_url("not a url"),
            Err(UrlError::Malformed(_))
        ));
    }
}
