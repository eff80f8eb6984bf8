//! Spell-check for the window: WebKitGTK leaves it off unless the web context turns it on, and
//! then checks the languages it is given (enchant's dictionaries, e.g. Debian's hunspell-en-us).
//! The editor decides where it applies (`spellcheck` attributes: on in Markdown, off in code).

/// The languages to check, from the locale variables as glibc reads them (`LANGUAGE`, then
/// `LC_ALL`, `LC_MESSAGES`, `LANG`): `de_DE.UTF-8@euro` is `de_DE`; `C` and `POSIX` name none.
/// American English is always among them, last, so a locale without a dictionary still checks.
pub fn languages(var: impl Fn(&str) -> Option<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |raw: &str| {
        let name = raw.split(['.', '@']).next().unwrap_or_default().trim();
        if name.is_empty() || name == "C" || name == "POSIX" || out.iter().any(|l| l == name) {
            return;
        }
        out.push(name.to_string());
    };
    if let Some(list) = var("LANGUAGE") {
        list.split(':').for_each(&mut add);
    }
    for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        if let Some(value) = var(key) {
            add(&value);
        }
    }
    add("en_US");
    out
}

/// Turns the platform's spell-checker on for the window's web context (Linux: WebKitGTK; on
/// macOS and Windows the webview checks `spellcheck` fields by itself).
#[cfg(target_os = "linux")]
pub fn enable<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>) {
    use webkit2gtk::{WebContextExt, WebViewExt};
    let langs = languages(|k| std::env::var(k).ok());
    let done = window.with_webview(move |webview| {
        let Some(context) = webview.inner().context() else {
            tracing::warn!("the webview has no web context: spell-check stays off");
            return;
        };
        let names: Vec<&str> = langs.iter().map(String::as_str).collect();
        context.set_spell_checking_enabled(true);
        context.set_spell_checking_languages(&names);
        tracing::info!(languages = ?names, "spell-check on");
    });
    if let Err(error) = done {
        tracing::warn!(%error, "cannot reach the webview: spell-check stays off");
    }
}

#[cfg(not(target_os = "linux"))]
pub fn enable<R: tauri::Runtime>(_window: &tauri::WebviewWindow<R>) {}

/// [`enable`], the first time only: the first Markdown editor asks for it.
pub fn enable_once<R: tauri::Runtime>(window: &tauri::WebviewWindow<R>) {
    static ENABLED: std::sync::Once = std::sync::Once::new();
    ENABLED.call_once(|| enable(window));
}

#[cfg(test)]
mod tests {
    use super::languages;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| {
            pairs
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn spell_languages_come_from_the_locale_with_english_last() {
        assert_eq!(
            languages(env(&[("LANG", "de_DE.UTF-8")])),
            ["de_DE", "en_US"]
        );
        assert_eq!(
            languages(env(&[("LANG", "fr_FR.UTF-8@euro"), ("LC_ALL", "fr_CA")])),
            ["fr_CA", "fr_FR", "en_US"]
        );
        assert_eq!(
            languages(env(&[("LANGUAGE", "pt_BR:pt"), ("LANG", "pt_BR.UTF-8")])),
            ["pt_BR", "pt", "en_US"]
        );
        assert_eq!(languages(env(&[("LANG", "en_US.UTF-8")])), ["en_US"]);
    }

    #[test]
    fn spell_languages_without_a_locale_are_english() {
        assert_eq!(languages(env(&[])), ["en_US"]);
        assert_eq!(
            languages(env(&[("LANG", "C.UTF-8"), ("LC_ALL", "POSIX")])),
            ["en_US"]
        );
        assert_eq!(languages(env(&[("LANGUAGE", "")])), ["en_US"]);
    }
}
