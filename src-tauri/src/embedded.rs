//! The embedded server: `quire-server` in-process on loopback, its SQLite file in the app's data
//! directory. The app keeps the store handle to make tokens (the person's on first start, and
//! agents' from the "Connect an agent" panel).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;

use quire_api::{Clock, Scope, SystemClock};
use quire_model::AuthorKind;
use quire_server::RunningServer;
use quire_server::tokens::{self, Listed, NewToken, TokenError};
use quire_store::Store;
use quire_store_sqlite::Synchronous;
use url::Url;

#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    #[error("the embedded server cannot start: {0}")]
    Server(#[from] quire_server::ServerError),
    #[error("the embedded server's token: {0}")]
    Token(#[from] TokenError),
    #[error("the embedded server's address {0} is not a URL")]
    Url(String),
}

/// A running embedded server.
pub struct Embedded {
    server: RunningServer,
    store: Arc<dyn Store>,
    url: Url,
}

impl Embedded {
    /// Opens (or creates) the database `db` and serves on 127.0.0.1:`port`; when that port is
    /// taken (another app, a previous run still exiting), on any free port instead.
    pub async fn start(db: &Path, port: u16) -> Result<Self, EmbeddedError> {
        // Full: an acknowledged save survives a power cut, as the status "Saved" promises.
        let store = quire_server::open_store(db, Synchronous::Full).await?;
        let body_limit = quire_server::DEFAULT_BODY_LIMIT;
        let server = match quire_server::serve_store(store.clone(), loopback(port), body_limit)
            .await
        {
            Ok(server) => server,
            Err(quire_server::ServerError::Bind { addr, source }) if port != 0 => {
                tracing::info!(%addr, error = %source, "preferred port taken; using a free one");
                quire_server::serve_store(store.clone(), loopback(0), body_limit).await?
            }
            Err(other) => return Err(other.into()),
        };
        let url = Url::parse(&server.url()).map_err(|_| EmbeddedError::Url(server.url()))?;
        tracing::info!(%url, db = %db.display(), "embedded server listening");
        Ok(Embedded { server, store, url })
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The store it serves: export and import read and write it directly (`quire_server::transfer`).
    pub fn store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }

    pub fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// Whether `token` is one this server knows and takes (not revoked, not expired).
    pub async fn knows(&self, token: &str) -> Result<bool, EmbeddedError> {
        let found = self
            .store
            .find_token(&tokens::hash(token))
            .await
            .map_err(TokenError::from)?;
        Ok(tokens::admit(found, SystemClock.now()).is_ok())
    }

    /// The agent tokens of this server, oldest first, revoked ones included.
    pub async fn agent_tokens(&self) -> Result<Vec<Listed>, EmbeddedError> {
        let now = SystemClock.now();
        Ok(tokens::list(self.store.as_ref(), Some(AuthorKind::Agent), now).await?)
    }

    /// Revokes the agent tokens named `name` (never a person's token of that name); how many
    /// were still in use. The embedded server refuses them from the next request on.
    pub async fn revoke_agent_token(&self, name: &str) -> Result<usize, EmbeddedError> {
        let now = SystemClock.now();
        Ok(tokens::revoke(self.store.as_ref(), name, Some(AuthorKind::Agent), now).await?)
    }

    /// Makes a token of `kind` named `name` (the author recorded in history).
    pub async fn create_token(
        &self,
        name: &str,
        scopes: &[Scope],
        kind: AuthorKind,
    ) -> Result<NewToken, EmbeddedError> {
        Ok(tokens::create(self.store.as_ref(), name, scopes, kind).await?)
    }

    /// Gives a kind to the tokens made before tokens had one: `person_token` stays the
    /// person's, every other became an agent's (this database holds only the app's person token
    /// and the tokens its "Connect an agent" panel made). Does nothing once done.
    pub async fn settle_token_kinds(&self, person_token: &str) -> Result<(), EmbeddedError> {
        let agents = self
            .store
            .settle_token_kinds(&tokens::hash(person_token))
            .await
            .map_err(TokenError::from)?;
        if !agents.is_empty() {
            tracing::info!(
                ?agents,
                "tokens made by the agent panel are now agent tokens"
            );
        }
        Ok(())
    }

    /// Stops accepting, lets in-flight requests finish, closes the database.
    pub async fn stop(self) -> Result<(), EmbeddedError> {
        Ok(self.server.shutdown().await?)
    }
}

fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}
