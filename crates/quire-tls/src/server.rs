//! The server's side: a certificate chain and its private key, read from PEM files and checked
//! at start (readable, a certificate and a key in them, the key the certificate's), so that a
//! server never starts with a certificate it cannot serve. Errors name the flag at fault.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

/// The server's certificate chain (the server's own certificate first, then any intermediates)
/// and its private key (PKCS#8, PKCS#1 or SEC1), both PEM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum ServerTlsError {
    #[error("--tls-cert {}: cannot read it: {source}", .path.display())]
    ReadCert {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--tls-key {}: cannot read it: {source}", .path.display())]
    ReadKey {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--tls-cert {}: {reason}", .path.display())]
    BadCert { path: PathBuf, reason: String },
    #[error("--tls-key {}: {reason}", .path.display())]
    BadKey { path: PathBuf, reason: String },
    #[error(
        "--tls-key {} is not the key of the certificate in --tls-cert {}: give the key the \
         certificate was issued for",
        .key.display(),
        .cert.display()
    )]
    Mismatch { cert: PathBuf, key: PathBuf },
    #[error("--tls-cert {} with --tls-key {}: {reason}", .cert.display(), .key.display())]
    Config {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
}

impl TlsFiles {
    /// Reads and checks both files; the acceptor serves HTTP/1.1 (ALPN `http/1.1`).
    pub fn acceptor(&self) -> Result<TlsAcceptor, ServerTlsError> {
        let chain = read_chain(&self.cert)?;
        let key = read_key(&self.key)?;
        let provider = crate::provider();
        let signing = provider
            .key_provider
            .load_private_key(key.clone_key())
            .map_err(|e| ServerTlsError::BadKey {
                path: self.key.clone(),
                reason: format!("not a usable private key: {e}"),
            })?;
        match CertifiedKey::new(chain.clone(), signing).keys_match() {
            // A key that does not show its public half cannot be compared; rustls accepts it.
            Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {}
            Err(rustls::Error::InconsistentKeys(_)) => {
                return Err(ServerTlsError::Mismatch {
                    cert: self.cert.clone(),
                    key: self.key.clone(),
                });
            }
            Err(e) => {
                return Err(ServerTlsError::BadCert {
                    path: self.cert.clone(),
                    reason: format!("not a usable certificate: {e}"),
                });
            }
        }
        let config = |e: rustls::Error| ServerTlsError::Config {
            cert: self.cert.clone(),
            key: self.key.clone(),
            reason: e.to_string(),
        };
        let mut server = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(config)?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(config)?;
        // The server speaks HTTP/1 only (crates/quire-server/src/connections.rs).
        server.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(server)))
    }
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, ServerTlsError> {
    let bytes = std::fs::read(path).map_err(|source| ServerTlsError::ReadCert {
        path: path.to_owned(),
        source,
    })?;
    let bad = |reason: String| ServerTlsError::BadCert {
        path: path.to_owned(),
        reason,
    };
    let chain = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, pem::Error>>()
        .map_err(|e| bad(format!("not a PEM certificate chain: {e}")))?;
    if chain.is_empty() {
        return Err(bad(
            "no certificate in it (a PEM file with -----BEGIN CERTIFICATE----- blocks)".to_owned(),
        ));
    }
    Ok(chain)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, ServerTlsError> {
    let bytes = std::fs::read(path).map_err(|source| ServerTlsError::ReadKey {
        path: path.to_owned(),
        source,
    })?;
    PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| ServerTlsError::BadKey {
        path: path.to_owned(),
        reason: match e {
            pem::Error::NoItemsFound => {
                "no private key in it (a PEM file with a -----BEGIN PRIVATE KEY-----, \
                 RSA PRIVATE KEY or EC PRIVATE KEY block)"
                    .to_owned()
            }
            other => format!("not a PEM private key: {other}"),
        },
    })
}
