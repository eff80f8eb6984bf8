//! Bearer tokens: `qk_` and 64 hex digits (32 random bytes). Only the SHA-256 of a token is
//! stored; the token itself is shown once, when it is made. A token is the person's or an
//! agent's ([`AuthorKind`]): an agent's works on `/mcp` only. It may have an end
//! (`expires_at`) and may be revoked; either way it is refused from then on ([`admit`]), also
//! by a server already running: the token is read from the database on every request.
//!
//! Its last use is recorded coarsely ([`UseLog`]): at most once a minute per token, so a busy
//! token costs one write a minute, not one per request.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use quire_api::Scope;
use quire_model::{AuthorKind, Timestamp};
use quire_store::{HashedToken, Store, StoreError, TokenRecord, TokenState};
use sha2::{Digest, Sha256};

const PREFIX: &str = "qk_";

/// How finely the last use is recorded: a use within this long of the recorded one is not
/// written.
pub const USE_GRANULARITY_MS: i64 = 60_000;

/// The longest `--expires-in-days` (about ten years).
pub const MAX_EXPIRY_DAYS: u32 = 3650;

const DAY_MS: i64 = 86_400_000;

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("no randomness available from the OS: {0}")]
    Random(getrandom::Error),
    #[error("a token needs at least one scope")]
    NoScope,
    #[error("a token needs a name (it is the author recorded in history)")]
    NoName,
    #[error("--expires-in-days: give a number of days from 1 to {MAX_EXPIRY_DAYS}, not {0}")]
    BadExpiry(u32),
    #[error(
        "no token named {0:?}: `quire-server token list` shows the names (they are case-sensitive)"
    )]
    UnknownName(String),
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for TokenError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::TokenNotFound(name) => TokenError::UnknownName(name),
            other => TokenError::Store(other),
        }
    }
}

/// Why a bearer token is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("unknown bearer token")]
    Unknown,
    #[error("this token was revoked; ask for a new one")]
    Revoked,
    #[error("this token has expired; ask for a new one")]
    Expired,
}

/// The token, if it may be used at `now`: known, not revoked, not expired.
pub fn admit(found: Option<TokenRecord>, now: Timestamp) -> Result<TokenRecord, Refusal> {
    let record = found.ok_or(Refusal::Unknown)?;
    match record.state(now) {
        TokenState::Active => Ok(record),
        TokenState::Revoked => Err(Refusal::Revoked),
        TokenState::Expired => Err(Refusal::Expired),
    }
}

/// When a token made at `now` to last `days` days ends.
pub fn expiry(now: Timestamp, days: u32) -> Result<Timestamp, TokenError> {
    if !(1..=MAX_EXPIRY_DAYS).contains(&days) {
        return Err(TokenError::BadExpiry(days));
    }
    Ok(Timestamp(now.millis() + i64::from(days) * DAY_MS))
}

/// Revokes every token named `name` (of `kind`, if given) at `now`; how many were still in
/// use. An unknown name is [`TokenError::UnknownName`].
pub async fn revoke(
    store: &dyn Store,
    name: &str,
    kind: Option<AuthorKind>,
    now: Timestamp,
) -> Result<usize, TokenError> {
    Ok(store.revoke_tokens(name, kind, now).await?)
}

/// Every token (of `kind`, if given) as `token list` shows it, at `now`, oldest first.
pub async fn list(
    store: &dyn Store,
    kind: Option<AuthorKind>,
    now: Timestamp,
) -> Result<Vec<Listed>, TokenError> {
    let tokens = store.list_tokens().await?;
    Ok(tokens
        .iter()
        .filter(|t| kind.is_none_or(|k| t.kind == k))
        .map(|t| Listed::of(t, now))
        .collect())
}

/// Which tokens' use is due to be written: the last use noted per token (in memory, for this
/// process) and the one stored, each at most [`USE_GRANULARITY_MS`] old.
#[derive(Debug, Default)]
pub struct UseLog {
    noted: Mutex<HashMap<i64, Timestamp>>,
}

impl UseLog {
    /// Whether this use of `token` at `now` should be written; if so, it counts as written
    /// (one caller writes it, concurrent ones do not).
    pub fn due(&self, token: &TokenRecord, now: Timestamp) -> bool {
        if token
            .last_used_at
            .is_some_and(|at| now.millis() - at.millis() < USE_GRANULARITY_MS)
        {
            return false;
        }
        let mut noted = self.noted.lock().unwrap_or_else(PoisonError::into_inner);
        match noted.get(&token.id) {
            Some(at) if now.millis() - at.millis() < USE_GRANULARITY_MS => false,
            _ => {
                noted.insert(token.id, now);
                true
            }
        }
    }
}

/// A new token and its stored record.
#[derive(Debug, Clone)]
pub struct NewToken {
    /// The bearer token. Not stored anywhere: show it once.
    pub token: String,
    pub record: TokenRecord,
}

/// Makes a token of `kind` named `name` (the author in history) with `scopes`, and stores its
/// hash.
pub async fn create(
    store: &dyn Store,
    name: &str,
    scopes: &[Scope],
    kind: AuthorKind,
) -> Result<NewToken, TokenError> {
    create_until(store, name, scopes, kind, None).await
}

/// [`create`], the token working until `expires_at` if given.
pub async fn create_until(
    store: &dyn Store,
    name: &str,
    scopes: &[Scope],
    kind: AuthorKind,
    expires_at: Option<Timestamp>,
) -> Result<NewToken, TokenError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(TokenError::NoName);
    }
    if scopes.is_empty() {
        return Err(TokenError::NoScope);
    }
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(TokenError::Random)?;
    let token = format!("{PREFIX}{}", hex::encode(secret));
    let record = store
        .create_token(HashedToken::new(
            name,
            scopes,
            kind,
            &hash(&token),
            expires_at,
        ))
        .await?;
    Ok(NewToken { token, record })
}

/// The stored form of a token: lower-case hex SHA-256.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A token as `token list` shows it: never the token, never its hash. Times are RFC 3339 UTC.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Listed {
    pub name: String,
    pub kind: AuthorKind,
    pub scopes: Vec<Scope>,
    /// `active`, `expired` or `revoked`, at the time of listing.
    pub state: &'static str,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub revoked_at: Option<String>,
    /// To the minute: uses closer together than that are not each recorded.
    pub last_used_at: Option<String>,
}

impl Listed {
    pub fn of(token: &TokenRecord, now: Timestamp) -> Self {
        Listed {
            name: token.name.clone(),
            kind: token.kind,
            scopes: token.scopes.clone(),
            state: token.state(now).as_str(),
            created_at: token.created_at.clone(),
            expires_at: token.expires_at.map(Timestamp::to_rfc3339),
            revoked_at: token.revoked_at.map(Timestamp::to_rfc3339),
            last_used_at: token.last_used_at.map(Timestamp::to_rfc3339),
        }
    }
}

/// `token list`'s table: a header, then a row per token, columns padded to line up; times to
/// the minute (`2026-12-01 15:29Z`); `-` for none.
pub fn table(rows: &[Listed]) -> String {
    let header = [
        "NAME",
        "KIND",
        "SCOPES",
        "STATE",
        "CREATED",
        "EXPIRES",
        "LAST USED",
    ]
    .map(str::to_owned);
    let minute = |t: &Option<String>| t.as_deref().map_or_else(|| "-".to_owned(), to_minute);
    let cells: Vec<[String; 7]> = std::iter::once(header)
        .chain(rows.iter().map(|r| {
            let scopes: Vec<&str> = r.scopes.iter().map(|s| s.as_str()).collect();
            [
                r.name.clone(),
                r.kind.as_str().to_owned(),
                scopes.join(","),
                r.state.to_owned(),
                to_minute(&r.created_at),
                minute(&r.expires_at),
                r.last_used_at
                    .as_deref()
                    .map_or_else(|| "never".to_owned(), to_minute),
            ]
        }))
        .collect();
    let mut widths = [0usize; 7];
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &cells {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `2026-12-01T15:29:43.123Z` as `2026-12-01 15:29Z`; anything else as it is.
fn to_minute(t: &str) -> String {
    match (t.get(..10), t.get(11..16)) {
        (Some(day), Some(time)) if t.len() > 16 && t.as_bytes()[10] == b'T' => {
            format!("{day} {time}Z")
        }
        _ => t.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn record(id: i64, last_used_at: Option<i64>) -> TokenRecord {
        TokenRecord {
            id,
            name: "claude".to_owned(),
            scopes: vec![Scope::NotesRead],
            kind: AuthorKind::Agent,
            created_at: "2026-12-01T00:00:00.000Z".to_owned(),
            expires_at: None,
            revoked_at: None,
            last_used_at: last_used_at.map(Timestamp),
        }
    }

    #[test]
    fn a_use_is_written_at_most_once_a_minute_per_token() {
        let log = UseLog::default();
        // (token, stored last use, now): written?
        let cases = [
            (1, None, 0, true),
            (1, None, 1_000, false),
            (1, None, 59_999, false),
            (2, None, 59_999, true),
            (1, None, 60_000, true),
            (1, None, 60_001, false),
            // Stored recently (by this server before a restart, or by another one).
            (3, Some(100_000), 130_000, false),
            (3, Some(100_000), 160_000, true),
        ];
        for (id, stored, now, want) in cases {
            assert_eq!(
                log.due(&record(id, stored), Timestamp(now)),
                want,
                "token {id}, stored {stored:?}, now {now}"
            );
        }
    }

    #[test]
    fn expiry_counts_whole_days_and_refuses_zero() {
        assert_eq!(expiry(Timestamp(5), 1).unwrap(), Timestamp(5 + DAY_MS));
        assert_eq!(
            expiry(Timestamp(0), MAX_EXPIRY_DAYS).unwrap(),
            Timestamp(i64::from(MAX_EXPIRY_DAYS) * DAY_MS)
        );
        for days in [0, MAX_EXPIRY_DAYS + 1] {
            let e = expiry(Timestamp(0), days).unwrap_err();
            assert!(e.to_string().starts_with("--expires-in-days:"), "{e}");
        }
    }

    #[test]
    fn admission_says_why_a_token_is_refused() {
        let now = Timestamp(10_000);
        assert_eq!(admit(None, now), Err(Refusal::Unknown));
        let active = record(1, None);
        assert_eq!(admit(Some(active.clone()), now), Ok(active.clone()));
        let expired = TokenRecord {
            expires_at: Some(now),
            ..active.clone()
        };
        assert_eq!(admit(Some(expired), now), Err(Refusal::Expired));
        let revoked = TokenRecord {
            revoked_at: Some(Timestamp(1)),
            ..active
        };
        assert_eq!(admit(Some(revoked), now), Err(Refusal::Revoked));
    }

    #[test]
    fn the_table_lines_up_and_shows_no_secret() {
        let mut revoked = record(7, Some(1_764_602_983_123));
        revoked.revoked_at = Some(Timestamp(1_764_603_000_000));
        let mut expiring = record(8, None);
        expiring.name = "reader-for-a-week".to_owned();
        expiring.kind = AuthorKind::Person;
        expiring.scopes = vec![Scope::NotesRead, Scope::NotesWrite];
        expiring.expires_at = Some(Timestamp(1_765_207_783_000));
        let now = Timestamp(1_764_603_600_000);
        let rows = [Listed::of(&revoked, now), Listed::of(&expiring, now)];
        assert_eq!(
            table(&rows),
            "NAME               KIND    SCOPES                  STATE    CREATED            \
             EXPIRES            LAST USED\n\
             claude             agent   notes:read              revoked  2026-12-01 00:00Z  \
             -                  2025-12-01 15:29Z\n\
             reader-for-a-week  person  notes:read,notes:write  active   2026-12-01 00:00Z  \
             2025-12-08 15:29Z  never\n"
        );
    }

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
