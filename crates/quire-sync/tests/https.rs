//! The engine against a team server over HTTPS: the real `quire-server` binary serving TLS
//! with a certificate from a certificate authority made in the test (rcgen). Trusting that CA
//! (the `ca_file` a team with its own CA hands out), the engine saves and follows events as
//! over HTTP and sees whom it reached; a certificate that is untrusted, expired or for another
//! host is refused with a typed error naming the cause, distinct from "unreachable" and from a
//! refused token.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::time::Duration;

use futures::StreamExt;
use quire_model::TabId;
use quire_sync::{
    Client, ClientError, EngineError, ServerEvent, ServerIdentity, TlsProblem, Trust, http_client,
};
use quire_testkit::tls::{IssuedCert, TestCa, Validity};
use quire_testkit::{Options, ServerProcess};
use serde_json::json;
use support::{server_bin, url};

fn https_server(cert: &IssuedCert) -> ServerProcess {
    let options = Options::new(server_bin())
        .arg("--tls-cert")
        .arg(cert.cert.display().to_string())
        .arg("--tls-key")
        .arg(cert.key.display().to_string());
    ServerProcess::spawn_with(options).expect("start quire-server with TLS")
}

/// `https://localhost:PORT/`: the name the certificates below are issued for.
fn localhost(server: &ServerProcess) -> String {
    format!("https://localhost:{}/", server.addr.port())
}

fn client(base: &str, token: &str, trust: &Trust) -> Client {
    Client::with_http(http_client(trust).unwrap(), url(base), token)
}

fn trusting(ca: &TestCa) -> Trust {
    Trust::with_ca_file(ca.ca_file(), "ca_file")
}

/// Trusting the CA, the engine opens, edits and saves a Note, the event stream follows a
/// write, and `identify` reports the certificate the server showed.
#[tokio::test]
async fn the_engine_saves_over_https_to_a_server_its_ca_file_trusts() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let issued = ca
        .issue(&["localhost", "127.0.0.1"], Validity::Current)
        .unwrap();
    let server = https_server(&issued);
    let base = localhost(&server);
    let trust = trusting(&ca);

    let identity = client(&base, &server.token, &trust)
        .identify()
        .await
        .unwrap();
    let certificate = identity.certificate.clone().expect("a certificate");
    assert_eq!(
        identity,
        ServerIdentity {
            url: base.clone(),
            certificate: Some(certificate.clone()),
        }
    );
    assert_eq!(certificate.subject, "CN=localhost");
    assert_eq!(certificate.issuer, "CN=Quire Test CA, O=Quire tests");

    let dir = tempfile::tempdir().unwrap();
    let engine = support::engine(
        &base,
        &server.token,
        dir.path(),
        Some(http_client(&trust).unwrap()),
    );
    assert_eq!(engine.identify().await.unwrap(), identity);
    let view = engine.create_note("Over HTTPS").await.unwrap();
    let note = view.note_id.clone();
    let rest = client(&base, &server.token, &trust);
    let mut events = Box::pin(rest.events(&note).await.unwrap());
    assert!(matches!(
        events.next().await,
        Some(Ok(ServerEvent::Hello { .. }))
    ));

    let markdown = TabId::new("markdown");
    engine
        .edit_tab(&note, &markdown, json!("Saved through TLS"))
        .await
        .unwrap();
    let written = tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("the write is announced over HTTPS");
    match written {
        Some(Ok(ServerEvent::Write(w))) => assert_eq!(w.changed_tab_ids, vec![markdown.clone()]),
        other => panic!("{other:?}"),
    }
    let stored = rest.get_note(&note).await.unwrap();
    assert_eq!(
        stored.note.tab(&markdown).unwrap().data,
        quire_model::TabData::Markdown("Saved through TLS".into())
    );
    engine.shutdown();
}

/// Each way a certificate goes wrong is refused with its own problem and code, before the
/// token is sent; the system's store alone does not trust a private CA.
#[tokio::test]
async fn a_refused_certificate_names_its_cause() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let good = ca
        .issue(&["localhost", "127.0.0.1"], Validity::Current)
        .unwrap();
    let expired = ca
        .issue(&["localhost", "127.0.0.1"], Validity::Expired)
        .unwrap();
    let elsewhere = ca.issue(&["notes.example.org"], Validity::Current).unwrap();
    // Its files live as long as the CA that issued them.
    let mut other_ca = TestCa::new("Someone Else's CA").unwrap();
    let stranger = other_ca.issue(&["localhost"], Validity::Current).unwrap();

    let cases = [
        (
            &good,
            Trust::system(),
            TlsProblem::UntrustedIssuer,
            "certificate_untrusted",
        ),
        (
            &stranger,
            trusting(&ca),
            TlsProblem::UntrustedIssuer,
            "certificate_untrusted",
        ),
        (
            &expired,
            trusting(&ca),
            TlsProblem::Expired,
            "certificate_expired",
        ),
        (
            &elsewhere,
            trusting(&ca),
            TlsProblem::WrongHost,
            "certificate_wrong_host",
        ),
    ];
    for (i, (cert, trust, problem, code)) in cases.into_iter().enumerate() {
        let server = https_server(cert);
        let refused = client(&localhost(&server), &server.token, &trust)
            .identify()
            .await
            .unwrap_err();
        let ClientError::Tls { problem: found, .. } = &refused else {
            panic!("case {i}: {refused:?}");
        };
        assert_eq!(*found, problem, "case {i}: {refused}");
        assert!(
            refused.to_string().starts_with(problem.describe()),
            "case {i}: the message says why: {refused}"
        );
        assert_eq!(EngineError::from(refused).code(), code, "case {i}");
    }
}

/// Unreachable, not HTTPS, token refused: each its own error, none a certificate problem.
#[tokio::test]
async fn unreachable_plain_http_and_a_refused_token_are_told_apart() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let issued = ca.issue(&["localhost"], Validity::Current).unwrap();
    let server = https_server(&issued);
    let trust = trusting(&ca);

    let refused = client(&localhost(&server), "qk_not_a_token", &trust)
        .identify()
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, ClientError::Server { status: 401, code, .. } if code == "unauthorized"),
        "{refused:?}"
    );

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nobody = format!("https://localhost:{}/", closed.local_addr().unwrap().port());
    drop(closed);
    let offline = client(&nobody, &server.token, &trust)
        .identify()
        .await
        .unwrap_err();
    assert!(matches!(offline, ClientError::Offline(_)), "{offline:?}");

    let plain = support::server();
    let not_tls = client(
        &format!("https://localhost:{}/", plain.addr.port()),
        &plain.token,
        &trust,
    )
    .identify()
    .await
    .unwrap_err();
    assert!(
        matches!(
            not_tls,
            ClientError::Tls {
                problem: TlsProblem::Handshake,
                ..
            }
        ),
        "{not_tls:?}"
    );
    let over_http = client(&plain.url(), &plain.token, &trust)
        .identify()
        .await
        .unwrap();
    assert_eq!(
        over_http.certificate, None,
        "plain HTTP shows no certificate"
    );
}

/// A CA file that cannot be read, or holds no certificate, is an error naming where it was
/// set, before any request.
#[test]
fn an_unusable_ca_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.pem");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "nothing here\n").unwrap();
    for (path, reason) in [
        (&missing, "cannot read it"),
        (&empty, "no certificate in it"),
    ] {
        let trust = Trust::with_ca_file(path, "QUIRE_CA_FILE");
        let Err(error) = http_client(&trust) else {
            panic!("{} was accepted", path.display());
        };
        let message = error.to_string();
        assert!(
            message.contains(&format!("QUIRE_CA_FILE {}", path.display()))
                && message.contains(reason),
            "{message}"
        );
    }
}
