//! `quire-sync-probe`: the sync engine in a process of its own, driven line by line over stdin,
//! so tests can kill it (SIGKILL) in the middle of a save and start it again on the same local
//! store.
//!
//! ```text
//! quire-sync-probe --server URL --token TOKEN --db PATH --key-prefix P [--debounce-ms N]
//!                  [--fresh-connections]
//! ```
//!
//! Each stdin line is a JSON command; each answer is one stdout line, `{"ok": ...}` or
//! `{"error": {"code", "message"}}`. Commands: `{"cmd": "open", "note"}`,
//! `{"cmd": "edit", "note", "tab", "data"}`, `{"cmd": "flush", "note"}`,
//! `{"cmd": "status", "note"}`, `{"cmd": "view", "note"}`, `{"cmd": "drafts"}`,
//! `{"cmd": "wait_settled", "note", "timeout_ms"}`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use quire_model::{NoteId, TabId};
use quire_sync::machine::Config;
use quire_sync::{Engine, EngineConfig, EngineError, SystemClock};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(Deserialize)]
#[serde(tag = "cmd", rename_all = "snake_case")]
enum Command {
    Open {
        note: NoteId,
    },
    Edit {
        note: NoteId,
        tab: TabId,
        data: Value,
    },
    Flush {
        note: NoteId,
    },
    Status {
        note: NoteId,
    },
    View {
        note: NoteId,
    },
    Drafts,
    WaitSettled {
        note: NoteId,
        timeout_ms: u64,
    },
}

struct Args {
    server: url::Url,
    token: String,
    db: PathBuf,
    key_prefix: String,
    debounce_ms: u64,
    fresh_connections: bool,
}

fn args() -> anyhow::Result<Args> {
    let mut server = None;
    let mut token = None;
    let mut db = None;
    let mut key_prefix = None;
    let mut debounce_ms = 50;
    let mut fresh_connections = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--server" => server = Some(value()?.parse().context("--server")?),
            "--token" => token = Some(value()?),
            "--db" => db = Some(PathBuf::from(value()?)),
            "--key-prefix" => key_prefix = Some(value()?),
            "--debounce-ms" => debounce_ms = value()?.parse().context("--debounce-ms")?,
            "--fresh-connections" => fresh_connections = true,
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(Args {
        server: server.context("--server is required")?,
        token: token.context("--token is required")?,
        db: db.context("--db is required")?,
        key_prefix: key_prefix.unwrap_or_else(EngineConfig::fresh_key_prefix),
        debounce_ms,
        fresh_connections,
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = args()?;
    let mut http = reqwest::Client::builder().connect_timeout(Duration::from_secs(3));
    if args.fresh_connections {
        // One connection per request, so a test proxy can tell requests apart.
        http = http.pool_max_idle_per_host(0);
    }
    let engine = Engine::start(
        EngineConfig {
            server: args.server,
            token: args.token,
            db_path: args.db,
            timing: Config {
                debounce: Duration::from_millis(args.debounce_ms),
                backoff_min: Duration::from_millis(50),
                backoff_max: Duration::from_millis(500),
            },
            http: Some(http.build()?),
            key_prefix: args.key_prefix,
        },
        Arc::new(SystemClock),
    )?;
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Some(line) = lines.next_line().await? {
        let answer = match serde_json::from_str::<Command>(&line) {
            Ok(cmd) => match run(&engine, cmd).await {
                Ok(v) => json!({ "ok": v }),
                Err(e) => json!({ "error": e.to_body() }),
            },
            Err(e) => json!({ "error": { "code": "bad_command", "message": e.to_string() } }),
        };
        out.write_all(format!("{answer}\n").as_bytes()).await?;
        out.flush().await?;
    }
    engine.shutdown();
    Ok(())
}

async fn run(engine: &Engine, cmd: Command) -> Result<Value, EngineError> {
    let v = match cmd {
        Command::Open { note } => to_value(engine.open_note(&note).await?),
        Command::Edit { note, tab, data } => to_value(engine.edit_tab(&note, &tab, data).await?),
        Command::Flush { note } => to_value(engine.flush(&note).await?),
        Command::Status { note } => to_value(engine.status(&note)?),
        Command::View { note } => to_value(engine.view(&note)?),
        Command::Drafts => to_value(engine.drafts()?),
        Command::WaitSettled { note, timeout_ms } => {
            let snap = engine
                .wait_until(&note, Duration::from_millis(timeout_ms), "settled", |s| {
                    s.status.settled
                })
                .await?;
            to_value(&snap.status)
        }
    };
    Ok(v)
}

fn to_value(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
