//! Test support: the real `quire-server` binary with a temporary SQLite file, on a free
//! loopback port. Ready when it says so: the server prints `listening on http://ADDR` (with
//! TLS: `https://ADDR`) once its listener is bound, and [`ServerProcess::spawn`] returns after
//! reading that line (no sleeps).
//!
//! ```no_run
//! let server = quire_testkit::ServerProcess::spawn().expect("server");
//! // server.url(), server.token: a token with notes:read and notes:write
//! ```
//!
//! Blocking (std::process) so it works from any test, async or not; the waits are short.
//!
//! [`bench`] is the benchmarks' share: percentiles and the text they write; [`tls`] a
//! certificate authority made in the test, for servers over HTTPS; `pg` (feature `pg`) a
//! throwaway PostgreSQL and a fresh database per test.
#![forbid(unsafe_code)]

pub mod bench;
#[cfg(feature = "pg")]
pub mod pg;
pub mod tls;

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long a starting server may take to print its address.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error)]
pub enum TestkitError {
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(
        "no quire-server binary at {0}: build it first (cargo build -p quire-server) or set QUIRE_SERVER_BIN"
    )]
    BinaryNotFound(PathBuf),
    #[error("the server did not report its address: {reason}\n--- server log ---\n{log}")]
    NotReady { reason: String, log: String },
    #[error("`quire-server token create` failed ({status}): {stderr}")]
    Token { status: ExitStatus, stderr: String },
}

pub type Result<T, E = TestkitError> = std::result::Result<T, E>;

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TestkitError {
    let what = what.into();
    move |source| TestkitError::Io { what, source }
}

/// How to start the server.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `quire-server` binary.
    pub bin: PathBuf,
    /// Extra `serve` arguments, e.g. `["--body-limit", "1024"]`.
    pub serve_args: Vec<String>,
    /// Name of the token made at start (the author recorded in history).
    pub token_name: String,
    /// Extra environment variables for `serve`, e.g. `("RUST_LOG", "debug")`.
    pub env: Vec<(String, String)>,
}

impl Options {
    pub fn new(bin: impl Into<PathBuf>) -> Self {
        Options {
            bin: bin.into(),
            serve_args: Vec::new(),
            token_name: "test".to_owned(),
            env: Vec::new(),
        }
    }

    /// `$QUIRE_SERVER_BIN`, else `quire-server` in the target directory the running test or
    /// example was built into (`target/<profile>/`).
    pub fn locate() -> Result<Self> {
        if let Some(bin) = std::env::var_os("QUIRE_SERVER_BIN") {
            return Ok(Options::new(bin));
        }
        let exe = std::env::current_exe().map_err(io("cannot find the running executable"))?;
        let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        if dir.ends_with("deps") || dir.ends_with("examples") {
            dir.pop();
        }
        let bin = dir.join(format!("quire-server{}", std::env::consts::EXE_SUFFIX));
        if bin.is_file() {
            Ok(Options::new(bin))
        } else {
            Err(TestkitError::BinaryNotFound(bin))
        }
    }

    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.serve_args.push(arg.into());
        self
    }

    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// A running `quire-server serve` on a temporary database. Killed when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    /// The bound address; kept across [`ServerProcess::restart`].
    pub addr: SocketAddr,
    /// `http`, or `https` when the server said it serves TLS.
    pub scheme: &'static str,
    /// A bearer token with `notes:read` and `notes:write`.
    pub token: String,
    pub db_path: PathBuf,
    child: Option<Child>,
    options: Options,
    log_path: PathBuf,
    _dir: tempfile::TempDir,
}

impl ServerProcess {
    /// Starts the binary found by [`Options::locate`].
    pub fn spawn() -> Result<Self> {
        Self::spawn_with(Options::locate()?)
    }

    /// Makes a fresh database with a read+write token, then serves it on `127.0.0.1:0`.
    pub fn spawn_with(options: Options) -> Result<Self> {
        if !options.bin.is_file() {
            return Err(TestkitError::BinaryNotFound(options.bin));
        }
        let dir = tempfile::Builder::new()
            .prefix("quire-test-")
            .tempdir()
            .map_err(io("cannot make a temporary directory"))?;
        let db_path = dir.path().join("quire.db");
        let log_path = dir.path().join("server.log");
        let token = create_token(
            &options.bin,
            &db_path,
            &options.token_name,
            &["notes:read", "notes:write"],
            &[],
        )?;
        let listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 0));
        let (child, addr, scheme) = start(&options, &db_path, &log_path, listen)?;
        Ok(ServerProcess {
            addr,
            scheme,
            token,
            db_path,
            child: Some(child),
            options,
            log_path,
            _dir: dir,
        })
    }

    /// `http://127.0.0.1:PORT` (`https://` when serving TLS).
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The server's process ID, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Another person's token on the same database (the server may be running).
    pub fn create_token(&self, name: &str, scopes: &[&str]) -> Result<String> {
        create_token(&self.options.bin, &self.db_path, name, scopes, &[])
    }

    /// An agent's token (`token create --agent`) on the same database.
    pub fn create_agent_token(&self, name: &str, scopes: &[&str]) -> Result<String> {
        create_token(&self.options.bin, &self.db_path, name, scopes, &["--agent"])
    }

    /// SIGKILL: the process dies at once, mid-write if it was writing.
    pub fn kill9(&mut self) -> Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill().map_err(io("cannot kill the server"))?;
            child.wait().map_err(io("cannot reap the server"))?;
        }
        Ok(())
    }

    /// SIGTERM, then waits for the process to exit (graceful shutdown).
    pub fn terminate(&mut self) -> Result<Option<ExitStatus>> {
        let Some(mut child) = self.child.take() else {
            return Ok(None);
        };
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .map_err(io("cannot run kill -TERM"))?;
        if !status.success() {
            return Err(TestkitError::Io {
                what: "kill -TERM".to_owned(),
                source: std::io::Error::other(format!("exited with {status}")),
            });
        }
        child
            .wait()
            .map(Some)
            .map_err(io("cannot wait for the server"))
    }

    /// Starts the server again on the same database and address (SIGKILL first if it still
    /// runs). Tokens stay valid.
    pub fn restart(&mut self) -> Result<()> {
        self.kill9()?;
        let (child, addr, scheme) = start(&self.options, &self.db_path, &self.log_path, self.addr)?;
        self.child = Some(child);
        self.addr = addr;
        self.scheme = scheme;
        Ok(())
    }

    /// Everything the server wrote to stderr so far (all runs).
    pub fn log(&self) -> String {
        read_log(&self.log_path)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            stop(&mut child);
        }
    }
}

/// `token create` with `extra` arguments after the name and scopes.
fn create_token(
    bin: &Path,
    db: &Path,
    name: &str,
    scopes: &[&str],
    extra: &[&str],
) -> Result<String> {
    let mut cmd = Command::new(bin);
    cmd.args(["token", "create", "--db"])
        .arg(db)
        .args(["--name", name])
        .args(extra);
    for scope in scopes {
        cmd.args(["--scope", scope]);
    }
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(io(format!("cannot run {}", bin.display())))?;
    if !out.status.success() {
        return Err(TestkitError::Token {
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Starts `serve` and waits for its `listening on http(s)://ADDR` line.
fn start(
    options: &Options,
    db: &Path,
    log_path: &Path,
    listen: SocketAddr,
) -> Result<(Child, SocketAddr, &'static str)> {
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log_path)
        .map_err(io("cannot open the server log"))?;
    let mut child = Command::new(&options.bin)
        .args(["serve", "--db"])
        .arg(db)
        .args(["--listen", &listen.to_string()])
        .args(&options.serve_args)
        .envs(options.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(io(format!("cannot start {}", options.bin.display())))?;
    let Some(stdout) = child.stdout.take() else {
        return Err(not_ready(&mut child, log_path, "no stdout pipe"));
    };
    let (first_line, line) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        let read = reader.read_line(&mut line).map(|_| line);
        if first_line.send(read).is_ok() {
            // Keep draining so the server never blocks on a full pipe. Ends with the process.
            if let Err(e) = std::io::copy(&mut reader, &mut std::io::sink()) {
                eprintln!("quire-testkit: reading the server's stdout: {e}");
            }
        }
    });
    let line = match line.recv_timeout(READY_TIMEOUT) {
        Ok(Ok(line)) => line,
        Ok(Err(e)) => return Err(not_ready(&mut child, log_path, &e.to_string())),
        Err(_) => return Err(not_ready(&mut child, log_path, "timed out")),
    };
    let listening = line.trim().strip_prefix("listening on ");
    let addr = ["https", "http"].into_iter().find_map(|scheme| {
        let addr = listening?.strip_prefix(scheme)?.strip_prefix("://")?;
        Some((addr.parse::<SocketAddr>().ok()?, scheme))
    });
    match addr {
        Some((addr, scheme)) => Ok((child, addr, scheme)),
        None => {
            let reason = if line.is_empty() {
                "it exited before listening".to_owned()
            } else {
                format!("unexpected first line {line:?}")
            };
            Err(not_ready(&mut child, log_path, &reason))
        }
    }
}

/// SIGKILL and reap; a process that is already gone is fine.
fn stop(child: &mut Child) {
    if let Err(e) = child.kill().and_then(|()| child.wait()) {
        eprintln!("quire-testkit: cannot stop the server: {e}");
    }
}

fn not_ready(child: &mut Child, log_path: &Path, reason: &str) -> TestkitError {
    stop(child);
    TestkitError::NotReady {
        reason: reason.to_owned(),
        log: read_log(log_path),
    }
}

fn read_log(path: &Path) -> String {
    let mut text = String::new();
    match File::open(path) {
        Ok(mut f) => match f.read_to_string(&mut text) {
            Ok(_) => text,
            Err(e) => format!("(cannot read {}: {e})", path.display()),
        },
        Err(e) => format!("(cannot open {}: {e})", path.display()),
    }
}
