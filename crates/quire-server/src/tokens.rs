//! Bearer tokens: `qk_` and 64 hex digits (32 random bytes). Only the SHA-256 of a token is
//! stored; the token itself is shown once, when it is made. A token is the person's or an
//! agent's ([`AuthorKind`]): an agent's works on `/mcp` only.

use quire_api::Scope;
use quire_model::AuthorKind;
use quire_store::{Store, StoreError, TokenRecord};
use sha2::{Digest, Sha256};

const PREFIX: &str = "qk_";

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("no randomness available from the OS: {0}")]
    Random(getrandom::Error),
    #[error("a token needs at least one scope")]
    NoScope,
    #[error("a token needs a name (it is the author recorded in history)")]
    NoName,
    #[error(transparent)]
    Store(#[from] StoreError),
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
        .create_token(name, scopes, kind, &hash(&token))
        .await?;
    Ok(NewToken { token, record })
}

/// The stored form of a token: lower-case hex SHA-256.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
