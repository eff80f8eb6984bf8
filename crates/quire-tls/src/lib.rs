//! TLS both ways, with rustls and one crypto provider (aws-lc-rs: the one reqwest 0.13's
//! `rustls` feature ships, so that every client in the process, rmcp's included, has a provider
//! without a process-wide default being installed first).
//!
//! - [`server`]: the server's certificate chain and private key (`serve --tls-cert --tls-key`),
//!   checked at start, as a [`tokio_rustls::TlsAcceptor`].
//! - [`client`]: whom a client trusts ([`Trust`]: the system's CA store, plus a team's private
//!   CA from a PEM file), the certificate a server showed ([`PeerCertificate`]), and why a
//!   server was refused ([`TlsProblem`]), found in the error rather than in its text.
#![forbid(unsafe_code)]

pub mod client;
pub mod server;

use std::sync::Arc;

pub use client::{CA_FILE_VAR, PeerCertificate, TlsProblem, Trust, TrustError};
pub use server::{ServerTlsError, TlsFiles};

/// The crypto provider every TLS configuration here is built with.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}
