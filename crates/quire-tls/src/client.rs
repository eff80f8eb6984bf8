//! The clients' side: whom they trust, what the server showed, and why a server was refused.
//!
//! Every Quire client (the app's engine, the stdio bridge) trusts the system's CA store
//! (rustls-platform-verifier, as reqwest 0.13 does by default) plus, for a team whose server
//! has a certificate from its own CA, the authorities in a PEM file ([`CA_FILE_VAR`], or the
//! app's `ca_file` setting). Nothing here turns verification off.

use std::error::Error as StdError;
use std::path::{Path, PathBuf};

use rustls::CertificateError;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::{self, PemObject};
use serde::{Deserialize, Serialize};

/// The environment variable naming a PEM file of certificate authorities trusted besides the
/// system's store.
pub const CA_FILE_VAR: &str = "QUIRE_CA_FILE";

/// Whom a client trusts: the system's CA store, plus the authorities in a CA file if one is
/// named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trust {
    ca_file: Option<CaFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CaFile {
    path: PathBuf,
    /// Where the file was named (`QUIRE_CA_FILE`, `ca_file`): errors say so.
    named_by: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("{named_by} {}: cannot read it: {source}", .path.display())]
    Read {
        named_by: String,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{named_by} {}: {reason}", .path.display())]
    Invalid {
        named_by: String,
        path: PathBuf,
        reason: String,
    },
    #[error("cannot set up HTTPS: {0}")]
    Client(String),
}

impl Trust {
    /// The system's CA store only.
    pub fn system() -> Self {
        Trust::default()
    }

    /// The system's store plus the CA file `path`, which `named_by` named (for errors).
    pub fn with_ca_file(path: impl Into<PathBuf>, named_by: impl Into<String>) -> Self {
        Trust {
            ca_file: Some(CaFile {
                path: path.into(),
                named_by: named_by.into(),
            }),
        }
    }

    /// The system's store plus the file [`CA_FILE_VAR`] names, if it is set and not empty.
    pub fn from_env() -> Self {
        match std::env::var_os(CA_FILE_VAR) {
            Some(path) if !path.is_empty() => Trust::with_ca_file(path, CA_FILE_VAR),
            _ => Trust::system(),
        }
    }

    /// This trust, or `other`'s CA file where this one names none.
    pub fn or(self, other: Trust) -> Trust {
        if self.ca_file.is_some() { self } else { other }
    }

    pub fn ca_file(&self) -> Option<&Path> {
        self.ca_file.as_ref().map(|f| f.path.as_path())
    }

    /// A reqwest client builder speaking HTTPS with rustls and this trust; each response carries
    /// the server's certificate ([`PeerCertificate::of`]).
    pub fn client_builder(&self) -> Result<reqwest::ClientBuilder, TrustError> {
        let mut builder = reqwest::Client::builder()
            .tls_backend_rustls()
            .tls_info(true);
        if let Some(file) = &self.ca_file {
            let roots = file
                .read()?
                .into_iter()
                .map(|der| {
                    reqwest::Certificate::from_der(&der).map_err(|e| TrustError::Invalid {
                        named_by: file.named_by.clone(),
                        path: file.path.clone(),
                        reason: format!("not a usable certificate: {e}"),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            builder = builder.tls_certs_merge(roots);
        }
        Ok(builder)
    }

    /// A client built by [`Trust::client_builder`] with nothing else set.
    pub fn client(&self) -> Result<reqwest::Client, TrustError> {
        self.client_builder()?
            .build()
            .map_err(|e| TrustError::Client(e.to_string()))
    }
}

impl CaFile {
    fn read(&self) -> Result<Vec<CertificateDer<'static>>, TrustError> {
        let bytes = std::fs::read(&self.path).map_err(|source| TrustError::Read {
            named_by: self.named_by.clone(),
            path: self.path.clone(),
            source,
        })?;
        let invalid = |reason: String| TrustError::Invalid {
            named_by: self.named_by.clone(),
            path: self.path.clone(),
            reason,
        };
        let certs = CertificateDer::pem_slice_iter(&bytes)
            .collect::<Result<Vec<_>, pem::Error>>()
            .map_err(|e| invalid(format!("not a PEM file of certificates: {e}")))?;
        if certs.is_empty() {
            return Err(invalid(
                "no certificate in it (a PEM file with -----BEGIN CERTIFICATE----- blocks)"
                    .to_owned(),
            ));
        }
        Ok(certs)
    }
}

/// The certificate a server showed, as the person reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PeerCertificate {
    /// Who it was issued to, e.g. `CN=notes.example.org`.
    pub subject: String,
    /// Who issued it, e.g. `CN=Example Team CA, O=Example`.
    pub issuer: String,
    /// When it expires (RFC 2822).
    pub not_after: String,
}

impl PeerCertificate {
    /// The certificate behind `response`, when it came over HTTPS from a client built by
    /// [`Trust::client_builder`].
    pub fn of(response: &reqwest::Response) -> Option<Self> {
        let info = response.extensions().get::<reqwest::tls::TlsInfo>()?;
        Self::from_der(info.peer_certificate()?)
    }

    pub fn from_der(der: &[u8]) -> Option<Self> {
        let (_, cert) = x509_parser::parse_x509_certificate(der).ok()?;
        let not_after = cert.validity().not_after;
        Some(PeerCertificate {
            subject: cert.subject().to_string(),
            issuer: cert.issuer().to_string(),
            not_after: not_after
                .to_rfc2822()
                .unwrap_or_else(|_| not_after.to_string()),
        })
    }
}

/// Why a client refused a server at the TLS step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TlsProblem {
    /// Signed by an authority this computer does not trust (self-signed, or a private CA not
    /// in the CA file).
    UntrustedIssuer,
    Expired,
    NotYetValid,
    /// Issued for another host name than the one in the URL.
    WrongHost,
    Revoked,
    /// Malformed, or not meant for a server.
    BadCertificate,
    /// The TLS handshake failed before any certificate could be judged (e.g. the port does not
    /// speak HTTPS).
    Handshake,
}

impl TlsProblem {
    /// The stable code the app's UI switches on.
    pub fn code(self) -> &'static str {
        match self {
            TlsProblem::UntrustedIssuer => "certificate_untrusted",
            TlsProblem::Expired => "certificate_expired",
            TlsProblem::NotYetValid => "certificate_not_yet_valid",
            TlsProblem::WrongHost => "certificate_wrong_host",
            TlsProblem::Revoked => "certificate_revoked",
            TlsProblem::BadCertificate => "certificate_invalid",
            TlsProblem::Handshake => "tls_handshake",
        }
    }

    /// What went wrong, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            TlsProblem::UntrustedIssuer => {
                "the server's certificate is signed by an authority this computer does not trust"
            }
            TlsProblem::Expired => "the server's certificate has expired",
            TlsProblem::NotYetValid => "the server's certificate is not valid yet",
            TlsProblem::WrongHost => "the server's certificate is for another host name",
            TlsProblem::Revoked => "the server's certificate has been revoked",
            TlsProblem::BadCertificate => "the server's certificate is not valid for a server",
            TlsProblem::Handshake => "the TLS handshake failed (does this port speak HTTPS?)",
        }
    }

    /// The TLS problem somewhere in `error`'s chain of causes, with rustls's own words for it.
    pub fn find(error: &(dyn StdError + 'static)) -> Option<(TlsProblem, String)> {
        let mut next = Some(error);
        while let Some(e) = next {
            if let Some(tls) = e.downcast_ref::<rustls::Error>() {
                return Some((TlsProblem::from_rustls(tls), tls.to_string()));
            }
            // An io::Error's `source()` skips the error it wraps: look inside it.
            next = match e
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
            {
                Some(inner) => Some(inner as &(dyn StdError + 'static)),
                None => e.source(),
            };
        }
        None
    }

    fn from_rustls(error: &rustls::Error) -> TlsProblem {
        let rustls::Error::InvalidCertificate(cert) = error else {
            return TlsProblem::Handshake;
        };
        match cert {
            CertificateError::UnknownIssuer => TlsProblem::UntrustedIssuer,
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                TlsProblem::Expired
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                TlsProblem::NotYetValid
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                TlsProblem::WrongHost
            }
            CertificateError::Revoked => TlsProblem::Revoked,
            _ => TlsProblem::BadCertificate,
        }
    }
}
