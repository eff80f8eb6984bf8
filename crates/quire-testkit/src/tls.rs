//! A certificate authority made inside a test (rcgen), and the certificates it issues: what
//! a team with its own CA would hand its server, and the ways such a certificate goes wrong.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, date_time_ymd,
};

use crate::{Result, TestkitError, io};

/// A CA with its certificate in a PEM file ([`TestCa::ca_file`]), issuing server certificates
/// into the same temporary directory.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
    dir: tempfile::TempDir,
    ca_file: PathBuf,
    issued: usize,
}

/// A server's certificate and key, as PEM files (what `serve --tls-cert --tls-key` reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedCert {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// How long an issued certificate is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// From 2000 to 4000: valid whenever the test runs.
    Current,
    /// Throughout 2001 only: expired.
    Expired,
}

fn rcgen_failed(what: &str) -> impl FnOnce(rcgen::Error) -> TestkitError + '_ {
    move |e| TestkitError::Io {
        what: what.to_owned(),
        source: std::io::Error::other(e),
    }
}

impl TestCa {
    /// A fresh CA called `name` (its certificate's common name).
    pub fn new(name: &str) -> Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("quire-ca-")
            .tempdir()
            .map_err(io("cannot make a temporary directory"))?;
        let mut params =
            CertificateParams::new(Vec::<String>::new()).map_err(rcgen_failed("CA parameters"))?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params
            .distinguished_name
            .push(DnType::OrganizationName, "Quire tests");
        let key = KeyPair::generate().map_err(rcgen_failed("CA key"))?;
        let issuer =
            CertifiedIssuer::self_signed(params, key).map_err(rcgen_failed("CA certificate"))?;
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, issuer.pem()).map_err(io("cannot write the CA file"))?;
        Ok(TestCa {
            issuer,
            dir,
            ca_file,
            issued: 0,
        })
    }

    /// The CA's certificate (PEM): what a client is told to trust.
    pub fn ca_file(&self) -> &Path {
        &self.ca_file
    }

    /// A server certificate for `hosts` (DNS names or IP addresses), its common name the first.
    pub fn issue(&mut self, hosts: &[&str], validity: Validity) -> Result<IssuedCert> {
        let names: Vec<String> = hosts.iter().map(|h| (*h).to_owned()).collect();
        let mut params =
            CertificateParams::new(names).map_err(rcgen_failed("certificate parameters"))?;
        if let Some(first) = hosts.first() {
            params.distinguished_name.push(DnType::CommonName, *first);
        }
        (params.not_before, params.not_after) = match validity {
            Validity::Current => (date_time_ymd(2000, 1, 1), date_time_ymd(4000, 1, 1)),
            Validity::Expired => (date_time_ymd(2001, 1, 1), date_time_ymd(2001, 12, 31)),
        };
        let key = KeyPair::generate().map_err(rcgen_failed("server key"))?;
        let cert = params
            .signed_by(&key, &self.issuer)
            .map_err(rcgen_failed("server certificate"))?;
        self.issued += 1;
        let issued = IssuedCert {
            cert: self.dir.path().join(format!("server-{}.pem", self.issued)),
            key: self.dir.path().join(format!("server-{}.key", self.issued)),
        };
        std::fs::write(&issued.cert, cert.pem()).map_err(io("cannot write a certificate"))?;
        std::fs::write(&issued.key, key.serialize_pem()).map_err(io("cannot write a key"))?;
        Ok(issued)
    }
}
