//! The package as a person installs it (`scripts/package.sh`, then `apt-get install
//! ./quire_*.deb`; .ci/app.sh does both): what dpkg installed (the desktop entry the menu shows,
//! its icons in the usual sizes, the two binaries), then the app started as the entry says, on
//! the data a person made with Quire 0.1 (identifier `dev.quire.app`): the data moves to the new
//! place, the Note written before is there, the window paints (its log says so) and a new Note
//! is saved; its window's class is the entry's `StartupWMClass`. The installed quire-server then
//! reads the moved database.
//!
//! Not in `cargo test`'s default set (it needs the package installed): `cargo test -p quire-e2e
//! --test installed`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use quire_e2e::{App, Harness, scenario, tid};
use quire_model::{AuthorKind, NoteId, Timestamp};
use quire_store::NewNote;
use quire_store_sqlite::Synchronous;

/// The package's name (Tauri's bundler: the product name, lower case).
const PACKAGE: &str = "quire";
/// The data directory's name in Quire 0.1.
const OLD_IDENTIFIER: &str = "dev.quire.app";
const OLD_NOTE: &str = "Written with Quire 0.1";

#[tokio::test]
async fn the_installed_app_starts_from_its_menu_entry_with_the_notes_written_before() -> Result<()>
{
    let files = installed_files()?;
    let entry_path = files
        .iter()
        .find(|f| f.starts_with("/usr/share/applications/") && f.ends_with(".desktop"))
        .with_context(|| format!("no desktop entry among {files:?}"))?;
    let entry = desktop_entry(Path::new(entry_path))?;
    let field = |key: &str| entry.get(key).map(String::as_str).unwrap_or_default();
    ensure!(
        field("Type") == "Application" && field("Name") == "Quire",
        "{entry:?}"
    );
    ensure!(field("Terminal") == "false", "{entry:?}");
    let categories: Vec<&str> = field("Categories").split(';').collect();
    ensure!(
        categories.contains(&"Office") && categories.contains(&"TextEditor"),
        "Categories: {categories:?}"
    );
    for size in [32, 48, 64, 128, 256, 512] {
        let icon = format!(
            "/usr/share/icons/hicolor/{size}x{size}/apps/{}.png",
            field("Icon")
        );
        ensure!(files.contains(&icon), "no {icon} in the package");
        ensure!(
            png_size(Path::new(&icon))? == (size, size),
            "{icon} is not {size} px"
        );
    }
    for binary in ["/usr/bin/quire", "/usr/bin/quire-server"] {
        ensure!(
            files.iter().any(|f| f == binary),
            "no {binary} in the package"
        );
    }
    // The menu starts `Exec` (its first word) from PATH.
    let exec = field("Exec").split_whitespace().next().unwrap_or_default();
    let app = which(exec)?;
    ensure!(
        app == Path::new("/usr/bin/quire"),
        "Exec {exec} is {}",
        app.display()
    );

    let harness = Harness::start_app(&app)?;
    let old = harness.data_home().join(OLD_IDENTIFIER);
    seed_quire_0_1(&old).await?;
    let new = harness.data_home().join(quire_e2e::identifier()?);

    scenario(&harness, "installed", async |app: &App| {
        app.wait_text(&tid("notes-item"), "the Note written before", |t| {
            t.contains(OLD_NOTE)
        })
        .await?;
        let note = app.new_note("Installed").await?;
        app.type_markdown("Installed from the package.").await?;
        app.wait_saved(3).await?;
        app.wait_synced(&note).await?;
        let window = harness.app_window().await?;
        let (instance, class) = harness.window_class(&window)?;
        ensure!(
            class == field("StartupWMClass"),
            "the window's WM_CLASS {instance:?}, {class:?}; the entry's StartupWMClass {:?}",
            field("StartupWMClass")
        );
        Ok(())
    })
    .await?;

    ensure!(!old.exists(), "{} is still there", old.display());
    ensure!(
        std::fs::read_to_string(new.join("files/kept"))? == "attachment",
        "the attachment did not move"
    );
    let log = std::fs::read_to_string(new.join("logs/quire.log"))?;
    for line in [
        "moved the data directory",
        "the window painted its first frame",
    ] {
        ensure!(log.contains(line), "no {line:?} in the log:\n{log}");
    }
    let check = Command::new("/usr/bin/quire-server")
        .args(["check", "--db"])
        .arg(new.join("server.db"))
        .output()?;
    ensure!(
        check.status.success(),
        "quire-server check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    Ok(())
}

/// What Quire 0.1 left in its data directory: the embedded server's database with a Note, and
/// an attachment's content.
async fn seed_quire_0_1(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir.join("files"))?;
    std::fs::write(dir.join("files/kept"), "attachment")?;
    let store = quire_server::open_store(&dir.join("server.db"), Synchronous::Full).await?;
    store
        .create_note(NewNote {
            id: NoteId::from_uuid(uuid::Uuid::now_v7()),
            title: OLD_NOTE.to_owned(),
            author: "person".to_owned(),
            author_kind: AuthorKind::Person,
            now: Timestamp(1_796_019_881_000),
            idempotency_key: None,
        })
        .await?;
    store.close().await?;
    Ok(())
}

/// The files the package installed (`dpkg-query -L`).
fn installed_files() -> Result<Vec<String>> {
    let out = Command::new("dpkg-query")
        .args(["-L", PACKAGE])
        .output()
        .context("dpkg-query")?;
    if !out.status.success() {
        bail!(
            "the package {PACKAGE} is not installed (scripts/package.sh, then \
             `apt-get install ./quire_*.deb`): {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8(out.stdout)?
        .lines()
        .map(str::to_owned)
        .collect())
}

/// The `[Desktop Entry]` group's keys.
fn desktop_entry(path: &Path) -> Result<HashMap<String, String>> {
    let text = std::fs::read_to_string(path)?;
    let mut group = "";
    let mut keys = HashMap::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            group = line;
        } else if group == "[Desktop Entry]"
            && let Some((key, value)) = line.split_once('=')
        {
            keys.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    Ok(keys)
}

/// A PNG's width and height (its IHDR chunk).
fn png_size(path: &Path) -> Result<(u32, u32)> {
    let bytes = std::fs::read(path)?;
    ensure!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{} is not a PNG",
        path.display()
    );
    let int =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Ok((int(16), int(20)))
}

fn which(program: &str) -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .with_context(|| format!("{program} is not on PATH"))
}
