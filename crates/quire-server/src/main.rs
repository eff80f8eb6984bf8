//! `quire-server serve`, `check`, `export`, `import`, `mcp-stdio`, `token ...` and `trash empty`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use axum::http::uri::Authority;
use clap::{Parser, Subcommand, ValueEnum};
use quire_api::Scope;
use quire_model::{AuthorKind, NoteId};
use quire_server::{
    DEFAULT_BODY_LIMIT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_EVENT_STREAMS, ServeConfig, TlsFiles,
};
use quire_store_sqlite::Synchronous;
use quire_tls::Trust;

/// jemalloc, as the app that embeds the server allocates (BENCHMARKS.md, "A small write
/// against its physical limit", session 24).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The author `check --repair` records in history.
const REPAIR_AUTHOR: &str = "quire-server check --repair";

/// How long in-flight requests get to finish after SIGTERM or Ctrl-C.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Parser)]
#[command(
    name = "quire-server",
    version,
    about = "Quire's notes server: REST for the app, MCP for agents."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve REST, MCP (/mcp) and /healthz. Prints `listening on http://ADDR` (with TLS:
    /// `https://ADDR`) once bound.
    Serve {
        /// The SQLite database file (created if missing), or a postgres://user@host:port/db
        /// URL (several servers may share one PostgreSQL database).
        #[arg(long)]
        db: PathBuf,
        /// Address to listen on; port 0 picks a free one.
        #[arg(long, default_value = "127.0.0.1:7878")]
        listen: SocketAddr,
        /// Largest request body in bytes; larger ones get 413.
        #[arg(long, default_value_t = DEFAULT_BODY_LIMIT)]
        body_limit: usize,
        /// full: acknowledged writes survive power loss; normal: they survive a crash of
        /// the server, not of the machine.
        #[arg(long, value_enum, default_value_t = SyncMode::Full)]
        synchronous: SyncMode,
        /// A name /mcp accepts in the Host header besides loopback, e.g. the machine's LAN
        /// name or address when listening on one (NAME or NAME:PORT); repeatable.
        #[arg(long = "allowed-host", value_name = "NAME", value_parser = parse_host)]
        allowed_hosts: Vec<String>,
        /// Seconds a request's headers may take to arrive, from its first byte.
        #[arg(long, value_name = "SECS", default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs())]
        header_timeout: u64,
        /// Seconds a connection may stay open with no request in progress.
        #[arg(long, value_name = "SECS", default_value_t = DEFAULT_IDLE_TIMEOUT.as_secs())]
        idle_timeout: u64,
        /// Most connections served at once; more wait to be accepted.
        #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS)]
        max_connections: usize,
        /// Most event streams (GET /notes/{id}/events) one token may hold open; more get 429.
        #[arg(long, default_value_t = DEFAULT_MAX_EVENT_STREAMS)]
        max_event_streams: usize,
        /// Serve HTTPS with this certificate chain (PEM: the server's certificate first, then
        /// any intermediates). Needs --tls-key.
        #[arg(long, value_name = "PEM", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
        #[arg(long, value_name = "PEM", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
    },
    /// Serve MCP on stdin/stdout, relaying every call to a running server's /mcp (for MCP
    /// hosts that only launch local commands).
    McpStdio {
        /// The server's MCP endpoint.
        #[arg(long, default_value = "http://127.0.0.1:7878/mcp")]
        url: String,
        /// A file holding the bearer token, readable by its owner only (chmod 600). Without
        /// it the token is read from the QUIRE_TOKEN environment variable.
        #[arg(long, value_name = "PATH")]
        token_file: Option<PathBuf>,
        /// The bearer token itself: avoid, every local user can read a command line (a
        /// warning says so); use QUIRE_TOKEN or --token-file.
        #[arg(long)]
        token: Option<String>,
        /// Certificate authorities (PEM) to trust for an https:// URL besides the system's
        /// store, e.g. a team's own CA. Without it, QUIRE_CA_FILE names the file, if set.
        #[arg(long, value_name = "PEM")]
        ca_file: Option<PathBuf>,
    },
    /// Read every version of every Note back and report any that cannot be rebuilt (exit
    /// status 1 if one cannot).
    Check {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// Then make each Note whose newest version cannot be read back readable again, by
        /// restoring the newest version that reads (a new version; history is kept).
        #[arg(long)]
        repair: bool,
    },
    /// Write a folder per Note (index.md, a .csv per sheet, a .md per deck, sources.md,
    /// quire-export.json) under --out: every Note, or those named with --note.
    Export {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// The folder to write into (made if missing; what is there already is left alone).
        #[arg(long)]
        out: PathBuf,
        /// A Note's ID; repeat for several. Without it: every Note.
        #[arg(long = "note", value_parser = parse_note_id)]
        notes: Vec<NoteId>,
    },
    /// Make new Notes from a folder: an export (its root, or one Note's folder), or plain
    /// Markdown files (each .md a Note, a .csv of the same name beside it its Sheet tab).
    Import {
        /// The SQLite database file (created if missing), or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// The folder to read.
        dir: PathBuf,
    },
    /// Manage bearer tokens.
    Token {
        #[command(subcommand)]
        command: TokenCommand,
    },
    /// The trash: Notes deleted with DELETE /notes/{id} (or the app's Delete Note).
    Trash {
        #[command(subcommand)]
        command: TrashCommand,
    },
}

#[derive(Subcommand)]
enum TrashCommand {
    /// Erase for good the Notes in the trash, with their whole history: the only way anything
    /// is erased. Prints the ID of each Note erased.
    Empty {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// Only the Notes moved to the trash more than this many days ago.
        #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
        older_than_days: Option<u32>,
    },
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Make a token; prints it alone on stdout (only its hash is stored).
    Create {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// Who uses it: the author recorded in history.
        #[arg(long)]
        name: String,
        /// notes:read and/or notes:write; repeat the flag for both.
        #[arg(long = "scope", required = true, value_parser = parse_scope)]
        scopes: Vec<Scope>,
        /// An agent's token: it works on /mcp only (every REST route refuses it with 403) and
        /// sees only the Notes the person approved. Without it: the person's token.
        #[arg(long)]
        agent: bool,
        /// The token stops working this many days from now (1 to 3650); refused from then on
        /// with 401 `token_expired`. Without it the token works until revoked.
        #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
        expires_in_days: Option<u32>,
    },
    /// Every token: name, kind, scopes, state, created, expires, last used (to the minute).
    /// Never the token nor its hash.
    List {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// One JSON array on stdout instead of the table, for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Revoke every token of a name: refused from the next request on (401 `token_revoked`),
    /// also by a server already running; its open event streams end. An unknown name is an
    /// error.
    Revoke {
        /// The SQLite database file, or a postgres:// URL.
        #[arg(long)]
        db: PathBuf,
        /// The token's name, as `token list` shows it.
        #[arg(long)]
        name: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum SyncMode {
    Full,
    Normal,
}

impl From<SyncMode> for Synchronous {
    fn from(mode: SyncMode) -> Self {
        match mode {
            SyncMode::Full => Synchronous::Full,
            SyncMode::Normal => Synchronous::Normal,
        }
    }
}

fn parse_scope(s: &str) -> Result<Scope, String> {
    Scope::parse(s).ok_or_else(|| format!("unknown scope {s:?}: use notes:read or notes:write"))
}

/// A `Host` header value: a name or address, optionally with a port; no scheme, no path.
fn parse_host(s: &str) -> Result<String, String> {
    match s.parse::<Authority>() {
        Ok(a) if !a.as_str().contains('@') && !a.host().is_empty() => Ok(s.to_owned()),
        _ => Err(format!(
            "{s:?} is not a host name: use NAME or NAME:PORT, e.g. notes.lan or notes.lan:7878"
        )),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    quire_server::logging::log_to_stderr("info");
    match Cli::parse().command {
        Command::Serve {
            db,
            listen,
            body_limit,
            synchronous,
            allowed_hosts,
            header_timeout,
            idle_timeout,
            max_connections,
            max_event_streams,
            tls_cert,
            tls_key,
        } => {
            let tls = match (tls_cert, tls_key) {
                (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
                _ => None,
            };
            serve(ServeConfig {
                db,
                listen,
                body_limit,
                synchronous: synchronous.into(),
                allowed_hosts,
                header_timeout: Duration::from_secs(header_timeout),
                idle_timeout: Duration::from_secs(idle_timeout),
                max_connections,
                max_event_streams,
                tls,
            })
            .await
        }
        Command::McpStdio {
            url,
            token_file,
            token,
            ca_file,
        } => {
            let env = std::env::var(quire_server::mcp::TOKEN_VAR).ok();
            let token = quire_server::mcp::BridgeToken::resolve(token, token_file.as_deref(), env)?;
            if let Some(warning) = token.warning() {
                eprintln!("quire-server: {warning}");
            }
            let trust = match ca_file {
                Some(path) => Trust::with_ca_file(path, "--ca-file"),
                None => Trust::from_env(),
            };
            Ok(quire_server::mcp::stdio_bridge_trusting(&url, &token.token, &trust).await?)
        }
        Command::Check { db, repair } => check(&db, repair).await,
        Command::Export { db, out, notes } => export(&db, &out, &notes).await,
        Command::Import { db, dir } => import(&db, &dir).await,
        Command::Token { command } => match command {
            TokenCommand::Create {
                db,
                name,
                scopes,
                agent,
                expires_in_days,
            } => {
                let kind = if agent {
                    AuthorKind::Agent
                } else {
                    AuthorKind::Person
                };
                create_token(&db, &name, &scopes, kind, expires_in_days).await
            }
            TokenCommand::List { db, json } => list_tokens(&db, json).await,
            TokenCommand::Revoke { db, name } => revoke_tokens(&db, &name).await,
        },
        Command::Trash {
            command:
                TrashCommand::Empty {
                    db,
                    older_than_days,
                },
        } => empty_trash(&db, older_than_days).await,
    }
}

async fn empty_trash(db: &Path, older_than_days: Option<u32>) -> anyhow::Result<()> {
    let store = existing_store(db).await?;
    let before = older_than_days.map(|days| {
        let now = quire_api::Clock::now(&quire_api::SystemClock);
        quire_server::notes::trash::cutoff(now, days)
    });
    let erased = store.empty_trash(before).await;
    store.close().await?;
    let erased = erased?;
    for id in &erased {
        println!("{id}");
    }
    eprintln!("quire-server: erased {} notes from the trash", erased.len());
    Ok(())
}

fn parse_note_id(s: &str) -> Result<NoteId, String> {
    s.parse()
        .map_err(|e: quire_model::NoteIdError| e.to_string())
}

async fn export(db: &Path, out: &Path, notes: &[NoteId]) -> anyhow::Result<()> {
    if quire_server::postgres_url(db).is_none() && !db.exists() {
        anyhow::bail!("no database at {}", db.display());
    }
    let store = quire_server::open_store(db, Synchronous::Full)
        .await
        .with_context(|| format!("cannot open {}", db.display()))?;
    let started = std::time::Instant::now();
    let report = quire_server::transfer::export_to_dir(store.as_ref(), out, notes, |_| {}).await?;
    for (id, dir) in &report.notes {
        println!("{id}\t{}", dir.display());
    }
    eprintln!(
        "quire-server: exported {} notes to {} in {:.1} s",
        report.notes.len(),
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

async fn import(db: &Path, dir: &Path) -> anyhow::Result<()> {
    let store = quire_server::open_store(db, Synchronous::Full)
        .await
        .with_context(|| format!("cannot open {}", db.display()))?;
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let report = quire_server::transfer::import_dir(
        store.as_ref(),
        &quire_api::SystemClock,
        dir,
        |so_far, _| {
            if interactive {
                eprint!("\rimported {} notes", so_far.notes.len());
            }
        },
    )
    .await?;
    if interactive {
        eprintln!();
    }
    for (from, id, title) in &report.notes {
        println!("{id}\t{title}\t{}", from.display());
    }
    for (path, why) in &report.skipped {
        eprintln!("skipped {}: {why}", path.display());
    }
    eprintln!(
        "quire-server: imported {} notes from {}; {} skipped",
        report.notes.len(),
        dir.display(),
        report.skipped.len()
    );
    Ok(())
}

async fn check(db: &Path, repair: bool) -> anyhow::Result<()> {
    if quire_server::postgres_url(db).is_none() && !db.exists() {
        anyhow::bail!("no database at {}", db.display());
    }
    let store = quire_server::open_store(db, Synchronous::Full)
        .await
        .with_context(|| format!("cannot open {}", db.display()))?;
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let report = quire_server::check::check(store.as_ref(), |so_far| {
        if interactive {
            eprint!(
                "\rchecked {} notes, {} versions",
                so_far.notes, so_far.versions
            );
        }
    })
    .await?;
    if interactive {
        eprintln!();
    }
    for failure in &report.failures {
        println!("{failure}");
    }
    if repair {
        let now = quire_api::Clock::now(&quire_api::SystemClock);
        let repairs = quire_server::check::repair(store.as_ref(), REPAIR_AUTHOR, now).await?;
        for done in &repairs.repaired {
            println!(
                "note {}: version {} cannot be read back; restored version {} as version {} \
                 (history kept)",
                done.note_id, done.broken, done.restored, done.version
            );
        }
        for failed in &repairs.unrepaired {
            println!(
                "note {}: cannot be repaired: {}",
                failed.note_id, failed.error
            );
        }
        store.close().await?;
        if !repairs.unrepaired.is_empty() {
            anyhow::bail!("{} notes cannot be repaired", repairs.unrepaired.len());
        }
        println!(
            "repaired {} notes; the versions that cannot be read back stay in their history",
            repairs.repaired.len()
        );
        return Ok(());
    }
    store.close().await?;
    if !report.failures.is_empty() {
        anyhow::bail!(
            "checked {} notes, {} versions: {} cannot be read back",
            report.notes,
            report.versions,
            report.failures.len()
        );
    }
    println!(
        "checked {} notes, {} versions: every version reads back",
        report.notes, report.versions
    );
    Ok(())
}

async fn serve(config: ServeConfig) -> anyhow::Result<()> {
    // The connection cap, not the process's soft limit, should decide how many clients are
    // served (the soft limit is often 1,024 while the hard one is far higher).
    match quire_server::raise_fd_limit() {
        Ok(limit) => tracing::debug!(limit, "open files"),
        Err(e) => tracing::warn!(error = %e, "cannot raise the open-files limit"),
    }
    let fresh = quire_server::postgres_url(&config.db).is_none() && !config.db.exists();
    let db = config.db.clone();
    let running = quire_server::serve(config)
        .await
        .with_context(|| format!("cannot start the server on {}", db.display()))?;
    // The first line on stdout: scripts and tests read the bound address from it.
    println!("listening on {}", running.url());
    if fresh {
        eprintln!(
            "quire-server: new database {db}. Make a token, then call the API:\n  \
             quire-server token create --db {db} --name me --scope notes:read --scope notes:write\n  \
             curl -H \"Authorization: Bearer $TOKEN\" -H 'Content-Type: application/json' \\\n    \
             -d '{{\"title\": \"First note\"}}' {url}/notes",
            db = db.display(),
            url = running.url(),
        );
    }
    let handle = running.shutdown_handle();
    let signal = shutdown_signal().await;
    tracing::info!(signal, "shutting down: finishing in-flight requests");
    handle.shutdown();
    tokio::time::timeout(DRAIN_TIMEOUT, running.wait())
        .await
        .context("in-flight requests did not finish in time")??;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM, naming which.
async fn shutdown_signal() -> &'static str {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => "Ctrl-C",
        () = terminate => "SIGTERM",
    }
}

/// The store of an existing database: the token commands never make one.
async fn existing_store(db: &Path) -> anyhow::Result<std::sync::Arc<dyn quire_store::Store>> {
    if quire_server::postgres_url(db).is_none() && !db.exists() {
        anyhow::bail!("no database at {}", db.display());
    }
    quire_server::open_store(db, Synchronous::Full)
        .await
        .with_context(|| format!("cannot open {}", db.display()))
}

async fn list_tokens(db: &Path, json: bool) -> anyhow::Result<()> {
    let store = existing_store(db).await?;
    let now = quire_api::Clock::now(&quire_api::SystemClock);
    let listed = quire_server::tokens::list(store.as_ref(), None, now).await;
    store.close().await?;
    let rows = listed?;
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", quire_server::tokens::table(&rows));
    }
    Ok(())
}

async fn revoke_tokens(db: &Path, name: &str) -> anyhow::Result<()> {
    let store = existing_store(db).await?;
    let now = quire_api::Clock::now(&quire_api::SystemClock);
    let revoked = quire_server::tokens::revoke(store.as_ref(), name, None, now).await;
    store.close().await?;
    match revoked? {
        0 => println!("every token named {name:?} was already revoked"),
        1 => println!("revoked the token named {name:?}"),
        n => println!("revoked {n} tokens named {name:?}"),
    }
    Ok(())
}

async fn create_token(
    db: &Path,
    name: &str,
    scopes: &[Scope],
    kind: AuthorKind,
    expires_in_days: Option<u32>,
) -> anyhow::Result<()> {
    let now = quire_api::Clock::now(&quire_api::SystemClock);
    let expires_at = expires_in_days
        .map(|days| quire_server::tokens::expiry(now, days))
        .transpose()?;
    let store = quire_server::open_store(db, Synchronous::Full)
        .await
        .with_context(|| format!("cannot open {}", db.display()))?;
    let made =
        quire_server::tokens::create_until(store.as_ref(), name, scopes, kind, expires_at).await;
    store.close().await?;
    let made = made?;
    println!("{}", made.token);
    let scopes: Vec<&str> = made.record.scopes.iter().map(|s| s.as_str()).collect();
    let usage = match kind {
        AuthorKind::Person => "a person's token, for the REST API and MCP",
        AuthorKind::Agent => "an agent's token, for MCP at /mcp only",
    };
    let until = match made.record.expires_at {
        Some(end) => format!("; it expires at {}", end.to_rfc3339()),
        None => String::new(),
    };
    eprintln!(
        "quire-server: token for {:?} ({}): {usage}{until}; it is shown only now. Send it as \
         Authorization: Bearer <token>",
        made.record.name,
        scopes.join(", ")
    );
    Ok(())
}
