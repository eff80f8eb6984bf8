//! How a version's row stores its write's idempotency key (schema 12). The app keys every save
//! with a UUID (lowercase, hyphenated: 36 characters); a row stores such a key as `~` and its 16
//! bytes in unpadded base64url (23 characters). Any other key is stored as it is, but one that
//! starts with `~`, which gets another in front, so that no stored form stands for two keys.
//! Rows written before schema 12 hold their keys as they are: the migration indexed them all in
//! `write_keys`, so none is read back through this.

use std::borrow::Cow;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

const MARK: char = '~';

/// `key` as a row stores it.
pub(super) fn stored(key: &str) -> Cow<'_, str> {
    if let Ok(uuid) = Uuid::try_parse(key) {
        let mut canonical = Uuid::encode_buffer();
        if uuid.hyphenated().encode_lower(&mut canonical) == key {
            return Cow::Owned(format!("{MARK}{}", URL_SAFE_NO_PAD.encode(uuid.as_bytes())));
        }
    }
    match key.starts_with(MARK) {
        true => Cow::Owned(format!("{MARK}{key}")),
        false => Cow::Borrowed(key),
    }
}

/// The key a row stores as `stored`; `None` if no key is stored so.
pub(super) fn key_of(stored: String) -> Option<String> {
    let Some(rest) = stored.strip_prefix(MARK) else {
        return Some(stored);
    };
    if rest.starts_with(MARK) {
        return Some(rest.to_owned());
    }
    let bytes: [u8; 16] = URL_SAFE_NO_PAD.decode(rest).ok()?.try_into().ok()?;
    Some(Uuid::from_bytes(bytes).hyphenated().to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A UUID key in 23 characters, any other as it is (a `~` doubled in front), and each back.
    #[test]
    fn keys_are_stored_short_and_read_back() {
        let uuid = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
        for (key, want) in [
            (uuid, None),
            ("k-71", Some("k-71")),
            ("~k", Some("~~k")),
            ("~~", Some("~~~")),
            // Not as the app writes a UUID: kept as it is.
            (
                "01936F0E-7C1A-7B2E-9F00-2A5C1D3E4F50",
                Some("01936F0E-7C1A-7B2E-9F00-2A5C1D3E4F50"),
            ),
            (
                "01936f0e7c1a7b2e9f002a5c1d3e4f50",
                Some("01936f0e7c1a7b2e9f002a5c1d3e4f50"),
            ),
            ("", Some("")),
        ] {
            let stored = stored(key).into_owned();
            match want {
                Some(want) => assert_eq!(stored, want),
                None => assert_eq!((stored.len(), stored.starts_with('~')), (23, true)),
            }
            assert_eq!(key_of(stored).as_deref(), Some(key));
        }
        assert_eq!(key_of("~not base64!".to_owned()), None);
        assert_eq!(key_of("~AAAA".to_owned()), None, "not 16 bytes");
    }
}
