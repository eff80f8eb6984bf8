//! The app pointed at team servers over HTTPS, certificates from certificate authorities made
//! in the test: one whose CA this computer does not trust shows the certificate message in the
//! settings and leaves the app where it was; one whose CA the app trusts (`QUIRE_CA_FILE`)
//! connects, the settings showing the certificate it verified, and a Note typed in the window
//! is saved there.

use anyhow::{Result, ensure};
use quire_api::Scope;
use quire_e2e::{App, Harness, scenario, screenshot, tid};
use quire_server::{RunningServer, ServeConfig, TlsFiles};
use quire_store_sqlite::Synchronous;
use quire_testkit::tls::{IssuedCert, TestCa, Validity};
use serde_json::json;

/// A quire-server in this process serving HTTPS with `cert`, and a person's token for it.
async fn team_server(dir: &std::path::Path, cert: &IssuedCert) -> Result<(RunningServer, String)> {
    std::fs::create_dir_all(dir)?;
    let db = dir.join("team.db");
    let store = quire_server::open_store(&db, Synchronous::Normal).await?;
    let made = quire_server::tokens::create(
        store.as_ref(),
        "team person",
        &[Scope::NotesRead, Scope::NotesWrite],
        quire_model::AuthorKind::Person,
    )
    .await?;
    store.close().await?;
    let config = ServeConfig {
        tls: Some(TlsFiles {
            cert: cert.cert.clone(),
            key: cert.key.clone(),
        }),
        ..ServeConfig::new(&db, "127.0.0.1:0".parse()?)
    };
    Ok((quire_server::serve(config).await?, made.token))
}

fn address(server: &RunningServer) -> String {
    format!("https://localhost:{}", server.addr().port())
}

/// Fills in the remote server's address and token on the settings screen and saves; returns
/// the message the screen shows.
async fn connect(app: &App, url: &str, token: &str) -> Result<String> {
    app.click("settings-open").await?;
    app.testid("settings").await?;
    app.click("settings-mode-remote").await?;
    let field = app.testid("settings-url").await?;
    field.clear().await?;
    field.send_keys(url).await?;
    // A refused token stays in its field, for the person to correct.
    let field = app.testid("settings-token").await?;
    field.clear().await?;
    field.send_keys(token).await?;
    app.click("settings-save").await?;
    app.wait_text(&tid("settings-message"), "the save's outcome", |t| {
        !t.trim().is_empty()
    })
    .await
}

#[tokio::test]
async fn an_untrusted_certificate_is_named_and_a_trusted_one_connects() -> Result<()> {
    let mut team_ca = TestCa::new("Team CA")?;
    let mut other_ca = TestCa::new("Unknown CA")?;
    let trusted = team_ca.issue(&["localhost"], Validity::Current)?;
    let untrusted = other_ca.issue(&["localhost"], Validity::Current)?;
    let dir = tempfile::tempdir()?;
    let (good, good_token) = team_server(&dir.path().join("good"), &trusted).await?;
    let (bad, bad_token) = team_server(&dir.path().join("bad"), &untrusted).await?;

    let harness = Harness::start_with_env(&[("QUIRE_CA_FILE", team_ca.ca_file())])?;
    scenario(&harness, "https-remote", async |app: &App| {
        let refused = connect(app, &address(&bad), &bad_token).await?;
        ensure!(
            refused.contains("signed by an authority this computer does not trust"),
            "the certificate message: {refused:?}"
        );
        let settings = app.invoke("get_settings", json!({})).await?;
        ensure!(
            settings["mode"] == "embedded",
            "nothing changed: {settings}"
        );
        screenshot(&app.driver, "https-untrusted").await?;

        let connected = connect(app, &address(&good), &good_token).await?;
        ensure!(connected.starts_with("Connected to"), "{connected:?}");
        let certificate = app
            .wait_text(&tid("settings-certificate"), "the certificate shown", |t| {
                t.contains("CN=localhost") && t.contains("CN=Team CA")
            })
            .await?;
        let check = app.testid("settings-server-check").await?;
        ensure!(
            check.attr("data-status").await?.as_deref() == Some("reached"),
            "{certificate}"
        );
        screenshot(&app.driver, "https-verified").await?;

        let note = app.new_note("Over HTTPS").await?;
        app.type_markdown("Saved on the team server").await?;
        let version = app.wait_saved(2).await?;
        let history = app.invoke("history", json!({"noteId": note})).await?;
        ensure!(
            history
                .as_array()
                .and_then(|h| h.last())
                .map(|v| &v["version"])
                == Some(&json!(version)),
            "the team server has version {version}: {history}"
        );
        Ok(())
    })
    .await?;
    good.shutdown().await?;
    bad.shutdown().await?;
    Ok(())
}
