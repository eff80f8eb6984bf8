//! `serve --tls-cert --tls-key`: REST and MCP over HTTPS, with a certificate authority made in
//! the test (rcgen). The real binary (quire-testkit) for what a team's server does, spoken to
//! by clients that trust the CA (reqwest, rmcp's client, the stdio bridge); the server
//! in-process where the point is a deadline or a refusal at start.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use quire_server::{ServeConfig, ServerError, TlsFiles};
use quire_testkit::tls::{IssuedCert, TestCa, Validity};
use quire_testkit::{Options, ServerProcess};
use quire_tls::{TlsProblem, Trust};
use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};

/// The real binary serving HTTPS with a certificate for `localhost` and `127.0.0.1` from `ca`.
fn https_server(ca: &mut TestCa) -> ServerProcess {
    let issued = ca
        .issue(&["localhost", "127.0.0.1"], Validity::Current)
        .unwrap();
    ServerProcess::spawn_with(tls_options(&issued)).expect("start quire-server with TLS")
}

fn tls_options(issued: &IssuedCert) -> Options {
    Options::new(env!("CARGO_BIN_EXE_quire-server"))
        .arg("--tls-cert")
        .arg(issued.cert.display().to_string())
        .arg("--tls-key")
        .arg(issued.key.display().to_string())
}

fn trusting(ca: &TestCa) -> Trust {
    Trust::with_ca_file(ca.ca_file(), "the test's CA file")
}

async fn mcp_agent(
    url: &str,
    token: &str,
    http: reqwest::Client,
) -> Result<RunningService<RoleClient, ClientConfig>, rmcp::service::ClientInitializeError> {
    let transport = StreamableHttpClientTransport::with_client(
        http,
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    ClientConfig::default()
        .serve_with_lifecycle(transport, lifecycle)
        .await
}

async fn tool(agent: &RunningService<RoleClient, ClientConfig>, name: &str, args: Value) -> Value {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let result = agent
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    result.structured_content.unwrap_or(Value::Null)
}

/// The person on REST and the agent on MCP, both over HTTPS to the real binary, which says
/// `listening on https://ADDR`; plain HTTP to that port gets no answer.
#[tokio::test]
async fn rest_and_mcp_are_served_over_https_to_clients_that_trust_the_ca() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let server = https_server(&mut ca);
    assert_eq!(server.scheme, "https", "the first line names the scheme");
    let url = format!("https://localhost:{}", server.addr.port());
    let http = trusting(&ca).client().unwrap();

    let created = http
        .post(format!("{url}/notes"))
        .bearer_auth(&server.token)
        .json(&json!({"title": "Over HTTPS"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let note: Value = created.json().await.unwrap();
    let id = note["id"].as_str().unwrap().to_owned();
    let approved = http
        .put(format!("{url}/notes/{id}/agent-access"))
        .bearer_auth(&server.token)
        .json(&json!({"approved": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), 200);

    let agent = mcp_agent(&format!("{url}/mcp"), &server.token, http.clone())
        .await
        .expect("the MCP client connects over HTTPS");
    let listed = tool(&agent, "list_notes", json!({})).await;
    assert_eq!(listed["notes"][0]["note_id"], id.as_str(), "{listed}");
    agent.cancel().await.unwrap();

    let plain = reqwest::Client::new()
        .get(format!("http://{}/healthz", server.addr))
        .timeout(Duration::from_secs(10))
        .send()
        .await;
    assert!(plain.is_err(), "plain HTTP on the HTTPS port: {plain:?}");
}

/// `quire-server mcp-stdio --url https://…` trusts the CA file `QUIRE_CA_FILE` names; without
/// it, the server's certificate is refused and the bridge says why.
#[tokio::test]
async fn the_stdio_bridge_reaches_an_https_server_through_the_ca_file() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let server = https_server(&mut ca);
    let mcp = format!("https://localhost:{}/mcp", server.addr.port());
    let bridge = |ca_file: Option<&Path>| {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_quire-server"));
        cmd.args(["mcp-stdio", "--url", &mcp])
            .env("QUIRE_TOKEN", &server.token)
            .env_remove("QUIRE_CA_FILE")
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(file) = ca_file {
            cmd.env("QUIRE_CA_FILE", file);
        }
        cmd.spawn().unwrap()
    };

    let mut child = bridge(Some(ca.ca_file()));
    let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
    let agent = ClientConfig::default()
        .serve((stdout, stdin))
        .await
        .expect("the bridge answers on stdio");
    let tools = agent.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "list_notes"), "{tools:?}");
    agent.cancel().await.unwrap();
    let status = timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the bridge exits when stdin closes")
        .unwrap();
    assert!(status.success(), "{status}");

    let mut refused = bridge(None);
    drop(refused.stdin.take());
    let out = timeout(Duration::from_secs(30), refused.wait_with_output())
        .await
        .expect("the bridge gives up")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(TlsProblem::UntrustedIssuer.describe()),
        "the bridge names the cause: {stderr}"
    );
}

/// A client that connects and never starts the TLS handshake is dropped at the header deadline,
/// as one that never sends its headers; the server goes on serving.
#[tokio::test]
async fn a_client_that_never_handshakes_is_closed_at_the_header_timeout() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let issued = ca
        .issue(&["localhost", "127.0.0.1"], Validity::Current)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let header = Duration::from_millis(300);
    let config = ServeConfig {
        header_timeout: header,
        idle_timeout: Duration::from_secs(30),
        tls: Some(TlsFiles {
            cert: issued.cert.clone(),
            key: issued.key.clone(),
        }),
        ..ServeConfig::new(
            dir.path().join("tls.db"),
            SocketAddr::from(([127, 0, 0, 1], 0)),
        )
    };
    let running = quire_server::serve(config).await.unwrap();
    assert!(running.url().starts_with("https://"), "{}", running.url());

    let mut silent = TcpStream::connect(running.addr()).await.unwrap();
    let start = Instant::now();
    let mut buf = [0u8; 64];
    let read = timeout(Duration::from_secs(10), silent.read(&mut buf))
        .await
        .expect("a silent client is still connected after 10 s");
    let took = start.elapsed();
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    assert!(took >= header - Duration::from_millis(20), "{took:?}");

    let health = trusting(&ca)
        .client()
        .unwrap()
        .get(format!(
            "https://localhost:{}/healthz",
            running.addr().port()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    running.shutdown().await.unwrap();
}

/// A certificate or key that is missing, not PEM, or not a pair is refused before the server
/// opens its database, naming the flag at fault.
#[tokio::test]
async fn a_missing_unreadable_or_mismatched_certificate_is_refused_at_start() {
    let mut ca = TestCa::new("Quire Test CA").unwrap();
    let one = ca.issue(&["localhost"], Validity::Current).unwrap();
    let other = ca.issue(&["localhost"], Validity::Current).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let missing = dir.path().join("missing.pem");

    let cases = [
        (
            missing.clone(),
            one.key.clone(),
            "--tls-cert",
            "cannot read it",
        ),
        (
            garbage.clone(),
            one.key.clone(),
            "--tls-cert",
            "no certificate in it",
        ),
        (
            one.cert.clone(),
            garbage.clone(),
            "--tls-key",
            "no private key in it",
        ),
        (
            one.cert.clone(),
            missing.clone(),
            "--tls-key",
            "cannot read it",
        ),
        (
            one.cert.clone(),
            other.key.clone(),
            "--tls-key",
            "is not the key of the certificate in --tls-cert",
        ),
        // A certificate file given as the key: PEM, but no key in it.
        (
            one.cert.clone(),
            one.cert.clone(),
            "--tls-key",
            "no private key in it",
        ),
    ];
    for (i, (cert, key, flag, reason)) in cases.into_iter().enumerate() {
        let db = dir.path().join(format!("refused-{i}.db"));
        let config = ServeConfig {
            tls: Some(TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
            }),
            ..ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0)))
        };
        let message = match quire_server::serve(config).await {
            Err(e @ ServerError::Tls(_)) => e.to_string(),
            Err(other) => panic!("case {i}: {other}"),
            Ok(_) => panic!("case {i}: served with {cert:?} and {key:?}"),
        };
        assert!(
            message.contains(flag) && message.contains(reason),
            "case {i}: {message}"
        );
        assert!(!db.exists(), "case {i}: no database is made");
    }

    // The binary says so and exits; each flag needs the other.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("cli.db"))
        .arg("--tls-cert")
        .arg(&one.cert)
        .arg("--tls-key")
        .arg(&other.key)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(out.stdout.is_empty(), "never says it is listening");
    assert!(
        stderr.contains(&format!("--tls-key {}", other.key.display())),
        "{stderr}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_quire-server"))
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(dir.path().join("cli.db"))
        .arg("--tls-cert")
        .arg(&one.cert)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("--tls-key"),
        "{stderr}"
    );
}
