//! A throwaway PostgreSQL for tests and benchmarks (feature `pg`): the same steps as
//! `scripts/pg-env.sh`. [`Cluster::shared`] is the server named by `QUIRE_TEST_PG` or, if that
//! is unset, one started here once per process: `initdb` into a fresh directory in /tmp, `pg_ctl start -w` on a free loopback port (`-w` waits until the server
//! accepts connections: readiness is detected, never slept for). A watchdog process stops the
//! server and removes the directory when this process ends, however it ends (it waits for its
//! standard input, which only this process holds, to close).
//!
//! Missing PostgreSQL binaries are an error naming what to install, never a silent pass.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use tokio_postgres::NoTls;

/// The variable naming an existing server to test against (`postgres://user@host:port/db`;
/// the user must be allowed to create databases).
pub const ENV: &str = "QUIRE_TEST_PG";

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(
        "PostgreSQL server binaries (initdb, pg_ctl) not found in {searched}: install Debian's \
         `postgresql` package, or set {ENV}=postgres://... to use a running server"
    )]
    NoBinaries { searched: String },
    #[error("{ENV}={url:?} is not a usable URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot run {what}: {source}")]
    Spawn {
        what: String,
        source: std::io::Error,
    },
    #[error("{what} failed ({status}):\n{output}")]
    Failed {
        what: String,
        status: std::process::ExitStatus,
        output: String,
    },
    #[error("PostgreSQL at {url}: {reason}")]
    Sql { url: String, reason: String },
}

/// How much a started cluster cares about its disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `fsync=off`: for tests, whose data dies with them.
    Throwaway,
    /// PostgreSQL's defaults (every commit flushed to disk): for benchmarks.
    Durable,
}

/// A PostgreSQL server to make databases on.
pub struct Cluster {
    admin_url: String,
    /// Closing it (when this value or the process goes) stops a server started here.
    watchdog: Mutex<Option<(ChildStdin, Child)>>,
    data_dir: Option<PathBuf>,
}

impl Cluster {
    /// The process-wide cluster for tests: `QUIRE_TEST_PG`'s server, or one started here
    /// ([`Durability::Throwaway`]) on first use.
    pub fn shared() -> Result<&'static Cluster, String> {
        static SHARED: OnceLock<Result<Cluster, String>> = OnceLock::new();
        SHARED
            .get_or_init(|| {
                Cluster::from_env_or_start(Durability::Throwaway).map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// `QUIRE_TEST_PG`'s server if set, else a new one.
    pub fn from_env_or_start(durability: Durability) -> Result<Cluster, ClusterError> {
        match std::env::var(ENV) {
            Ok(url) if !url.is_empty() => {
                with_database(&url, "postgres")?;
                Ok(Cluster {
                    admin_url: url,
                    watchdog: Mutex::new(None),
                    data_dir: None,
                })
            }
            _ => Cluster::start(durability),
        }
    }

    /// Starts a new server in a fresh directory on a free port.
    pub fn start(durability: Durability) -> Result<Cluster, ClusterError> {
        let bin = bindir()?;
        // /tmp rather than $TMPDIR: the `postgres` user must be able to write there.
        let dir = PathBuf::from(format!("/tmp/quire-pg-{}", uuid::Uuid::now_v7().simple()));
        let data = dir.to_string_lossy().into_owned();
        run(as_postgres(bin.join("initdb")).args([
            "-D",
            &data,
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        ]))?;
        let watchdog = watchdog(&bin, &dir)?;
        let mut last = None;
        // A free port can be taken between finding it and the server binding it: try again.
        for _ in 0..3 {
            let port = free_port()?;
            let mut options = format!(
                "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={data} \
                 -c max_connections=300"
            );
            if durability == Durability::Throwaway {
                options.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
            }
            let log = dir.join("server.log").to_string_lossy().into_owned();
            let started = run(as_postgres(bin.join("pg_ctl")).args([
                "start", "-w", "-t", "120", "-D", &data, "-l", &log, "-o", &options,
            ]));
            match started {
                Ok(()) => {
                    return Ok(Cluster {
                        admin_url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
                        watchdog: Mutex::new(Some(watchdog)),
                        data_dir: Some(dir),
                    });
                }
                Err(e) => {
                    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
                    last = Some(match e {
                        ClusterError::Failed {
                            what,
                            status,
                            output,
                        } => ClusterError::Failed {
                            what,
                            status,
                            output: format!("{output}\nserver log:\n{log}"),
                        },
                        other => other,
                    });
                }
            }
        }
        Err(last.unwrap_or_else(|| ClusterError::Sql {
            url: data,
            reason: "the server did not start".to_owned(),
        }))
    }

    /// A URL to the `postgres` database, for administration.
    pub fn admin_url(&self) -> &str {
        &self.admin_url
    }

    /// The data directory of a server started here.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// A new, empty database with a random name, dropped when the returned value is.
    pub async fn fresh_database(&self) -> Result<TestDatabase, ClusterError> {
        let name = format!("quire_test_{}", uuid::Uuid::now_v7().simple());
        let url = with_database(&self.admin_url, &name)?;
        admin(&self.admin_url, &format!("CREATE DATABASE {name}")).await?;
        Ok(TestDatabase {
            url,
            name,
            admin_url: self.admin_url.clone(),
        })
    }

    /// Stops a server started here now (the watchdog does it at exit otherwise).
    pub fn stop(&self) {
        let watchdog = match self.watchdog.lock() {
            Ok(mut w) => w.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some((stdin, mut child)) = watchdog {
            drop(stdin);
            if let Err(e) = child.wait() {
                tracing::warn!("the PostgreSQL watchdog did not finish: {e}");
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A database made by [`Cluster::fresh_database`]; dropping it drops the database (closing
/// any connection still open to it).
pub struct TestDatabase {
    url: String,
    name: String,
    admin_url: String,
}

impl TestDatabase {
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let admin_url = self.admin_url.clone();
        // Drop may run inside an async runtime, which cannot be blocked on: a thread of its own.
        let dropped = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            rt.block_on(admin(&admin_url, &sql))
                .map_err(|e| e.to_string())
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!("cannot drop test database {}: {e}", self.name),
            Err(_) => tracing::warn!("dropping test database {} panicked", self.name),
        }
    }
}

/// A plain connection to a test database, for a test to reach under the store (rows as an
/// older build left them, rows taken away). Derefs to the client; [`RawClient::close`] ends it.
pub struct RawClient {
    client: tokio_postgres::Client,
    driver: tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>,
}

impl RawClient {
    /// Connects to `url` (without TLS); panics if it cannot.
    pub async fn connect(url: &str) -> Self {
        let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect");
        RawClient {
            client,
            driver: tokio::spawn(connection),
        }
    }

    /// Closes the connection and waits for it to end; panics if it ended in an error.
    pub async fn close(self) {
        drop(self.client);
        self.driver
            .await
            .expect("connection task")
            .expect("connection");
    }
}

impl std::ops::Deref for RawClient {
    type Target = tokio_postgres::Client;

    fn deref(&self) -> &Self::Target {
        &self.client
    }
}

/// Runs one statement on a connection of its own.
async fn admin(url: &str, sql: &str) -> Result<(), ClusterError> {
    let fail = |e: tokio_postgres::Error| ClusterError::Sql {
        url: url.to_owned(),
        reason: match e.as_db_error() {
            Some(db) => db.message().to_owned(),
            None => e.to_string(),
        },
    };
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.map_err(fail)?;
    let driver = tokio::spawn(connection);
    let done = client.batch_execute(sql).await.map_err(fail);
    drop(client);
    match driver.await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!("admin connection ended: {e}"),
        Err(e) => tracing::debug!("admin connection task: {e}"),
    }
    done
}

/// `url` with its database replaced by `name`.
pub fn with_database(url: &str, name: &str) -> Result<String, ClusterError> {
    let bad = |reason: String| ClusterError::BadUrl {
        url: url.to_owned(),
        reason,
    };
    let mut parsed = url::Url::parse(url).map_err(|e| bad(e.to_string()))?;
    if !matches!(parsed.scheme(), "postgres" | "postgresql") || !parsed.has_host() {
        return Err(bad("expected postgres://user@host:port/database".to_owned()));
    }
    parsed.set_path(&format!("/{name}"));
    Ok(parsed.into())
}

/// Where `initdb` and `pg_ctl` are: `QUIRE_PG_BINDIR`, else the newest Debian
/// `/usr/lib/postgresql/N/bin`, else `PATH`.
fn bindir() -> Result<PathBuf, ClusterError> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    let mut searched = Vec::new();
    if let Some(dir) = std::env::var_os("QUIRE_PG_BINDIR") {
        let dir = PathBuf::from(dir);
        if has_tools(&dir) {
            return Ok(dir);
        }
        searched.push(dir.display().to_string());
    }
    let debian = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir(debian)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse().ok()?;
            Some((n, e.path().join("bin")))
        })
        .filter(|(_, dir)| has_tools(dir))
        .collect();
    versions.sort();
    if let Some((_, dir)) = versions.pop() {
        return Ok(dir);
    }
    searched.push(format!("{}/*/bin", debian.display()));
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        if has_tools(&dir) {
            return Ok(dir);
        }
    }
    searched.push("PATH".to_owned());
    Err(ClusterError::NoBinaries {
        searched: searched.join(", "),
    })
}

/// PostgreSQL refuses to run as root: as root, run its tools as the `postgres` user.
fn as_postgres(program: PathBuf) -> Command {
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    if root {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn describe(cmd: &Command) -> String {
    let mut out = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        out.push(' ');
        out.push_str(&arg.to_string_lossy());
    }
    out
}

/// Runs a command to completion; its output becomes part of the error if it fails.
fn run(cmd: &mut Command) -> Result<(), ClusterError> {
    let what = describe(cmd);
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ClusterError::Spawn {
            what: what.clone(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(ClusterError::Failed {
        what,
        status: out.status,
        output: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    })
}

/// A process that, once its standard input closes, stops the server in `dir` and removes it.
fn watchdog(bin: &Path, dir: &Path) -> Result<(ChildStdin, Child), ClusterError> {
    let mut cmd = as_postgres(PathBuf::from("/bin/sh"));
    cmd.args([
        "-c",
        "cat >/dev/null; \"$0/pg_ctl\" stop -D \"$1\" -m immediate >/dev/null 2>&1; rm -rf \"$1\"",
    ])
    .arg(bin)
    .arg(dir)
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    let what = describe(&cmd);
    let mut child = cmd.spawn().map_err(|source| ClusterError::Spawn {
        what: what.clone(),
        source,
    })?;
    // Nothing is ever written to it: its closing is the signal.
    let stdin = child.stdin.take().ok_or_else(|| ClusterError::Spawn {
        what,
        source: std::io::Error::other("no standard input"),
    })?;
    Ok((stdin, child))
}

fn free_port() -> Result<u16, ClusterError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|source| ClusterError::Spawn {
        what: "a loopback listener (to find a free port)".to_owned(),
        source,
    })?;
    let port = listener
        .local_addr()
        .map_err(|source| ClusterError::Spawn {
            what: "a loopback listener (to find a free port)".to_owned(),
            source,
        })?
        .port();
    Ok(port)
}
