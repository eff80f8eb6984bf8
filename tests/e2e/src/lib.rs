//! The end-to-end harness: the built `quire-app` in a real window under Xvfb, driven through
//! tauri-driver, which starts WebKitWebDriver, which starts the app.
//!
//! [`Harness::start`] brings up a private desktop (an X server, a D-Bus session bus, XDG
//! directories with a file manager that records what it is asked to open) and tauri-driver, and
//! waits until they are ready (by polling them, never by sleeping a fixed time);
//! [`Harness::open_app`] starts a WebDriver session, that is, launches the app. Dropping the
//! harness stops everything it started.
//!
//! Environment (all optional):
//! - `QUIRE_APP_BINARY`: the app to test; default `<target>/release/quire-app`, where `<target>`
//!   is `CARGO_TARGET_DIR` or the workspace's `target/`.
//! - `TAURI_DRIVER`: the tauri-driver binary; default from `PATH`, then `~/.cargo/bin`.
//! - `QUIRE_NATIVE_DRIVER`: the WebKitWebDriver binary; default `/usr/bin/WebKitWebDriver`.

#![forbid(unsafe_code)]

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use tempfile::TempDir;
use thirtyfour::{Capabilities, WebDriver};

/// How long the X server and tauri-driver may take to become ready.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// Interval between two readiness probes.
const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// How long a process may take to exit after SIGTERM before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// Where screenshots and logs go: `<workspace>/test-output/e2e`, created on demand.
pub fn output_dir() -> Result<PathBuf> {
    let dir = workspace_root().join("test-output").join("e2e");
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// Mesa's shader cache shared by every app the tests start (see [`Harness::start`]).
fn shader_cache() -> Result<PathBuf> {
    let dir = workspace_root().join("target").join("e2e-shader-cache");
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// The app binary under test (see the module docs).
pub fn app_binary() -> Result<PathBuf> {
    let path = match std::env::var_os("QUIRE_APP_BINARY") {
        Some(path) => PathBuf::from(path),
        None => {
            let target = std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| workspace_root().join("target"));
            target.join("release").join("quire-app")
        }
    };
    if !path.is_file() {
        bail!(
            "the app binary {} does not exist: build it first with \
             `cargo build -p quire-app --release --features custom-protocol` \
             (scripts/e2e.sh does everything), or set QUIRE_APP_BINARY",
            path.display()
        );
    }
    let path = path
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", path.display()))?;
    Ok(path)
}

fn tauri_driver_binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("TAURI_DRIVER") {
        return Ok(PathBuf::from(path));
    }
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("tauri-driver"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cargo/bin/tauri-driver"));
    }
    candidates
        .into_iter()
        .find(|path| path.is_file())
        .ok_or_else(|| {
            anyhow!("tauri-driver not found: `cargo install tauri-driver --version ^2 --locked`")
        })
}

fn native_driver_binary() -> Result<PathBuf> {
    let path = std::env::var_os("QUIRE_NATIVE_DRIVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/WebKitWebDriver"));
    if !path.is_file() {
        bail!(
            "{} not found: install the Debian package webkit2gtk-driver",
            path.display()
        );
    }
    Ok(path)
}

/// The app's identifier (tauri.conf.json): its data directory is `$XDG_DATA_HOME/<identifier>`.
pub fn identifier() -> Result<String> {
    let path = workspace_root().join("tauri.conf.json");
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let config: serde_json::Value = serde_json::from_str(&text)?;
    config["identifier"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no identifier in {}", path.display()))
}

/// A port that was free a moment ago. tauri-driver cannot report a port it picked itself,
/// so this is the one small race left; two ports are needed (its own and WebKitWebDriver's).
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).context("cannot bind a port")?;
    Ok(listener.local_addr().context("no local address")?.port())
}

/// Saves a screenshot of the app window as `<output_dir>/<name>.png` and returns its path.
///
/// WebKit snapshots what it last rendered, which can lag the DOM (a screenshot taken right after
/// an assertion on new text showed the old text), so this first waits until the page has
/// rendered two more frames.
pub async fn screenshot(driver: &WebDriver, name: &str) -> Result<PathBuf> {
    driver
        .execute_async(
            "const done = arguments[arguments.length - 1];\n\
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
            Vec::new(),
        )
        .await
        .context("waiting for the page to render")?;
    let path = output_dir()?.join(format!("{name}.png"));
    driver
        .screenshot(&path)
        .await
        .with_context(|| format!("screenshot {}", path.display()))?;
    Ok(path)
}

/// `name` as the window shows it, then `{name}-dark` in the dark theme (`data-theme` on
/// `<html>`, as `ui/src/lib/theme.ts` applies a choice; the `appearance` scenario covers choosing
/// it in Settings), then the theme as it was. The same state in both themes, nothing else
/// touched.
pub async fn screenshot_both(driver: &WebDriver, name: &str) -> Result<()> {
    screenshot(driver, name).await?;
    let was = driver
        .execute(
            "const was = document.documentElement.dataset.theme ?? null;\n\
             document.documentElement.dataset.theme = 'dark';\n\
             return was;",
            Vec::new(),
        )
        .await?
        .json()
        .clone();
    let dark = screenshot(driver, &format!("{name}-dark")).await;
    driver
        .execute(
            "const was = arguments[0];\n\
             if (was === null) delete document.documentElement.dataset.theme;\n\
             else document.documentElement.dataset.theme = was;",
            vec![was],
        )
        .await?;
    dark.map(drop)
}

/// A child process that is stopped when dropped: SIGTERM, then SIGKILL after [`EXIT_GRACE`].
#[derive(Debug)]
struct Process {
    child: Child,
    name: &'static str,
    /// Also sweep the child's process group (it was started as a group leader).
    group: bool,
}

impl Drop for Process {
    fn drop(&mut self) {
        terminate(&mut self.child, self.name);
        if self.group {
            let group = format!("-{}", self.child.id());
            // Exit status 1 means the group is already empty: the expected case.
            if let Err(error) = Command::new("kill")
                .args(["-KILL", "--", &group])
                .stderr(Stdio::null())
                .status()
            {
                eprintln!("quire-e2e: cannot sweep process group {group}: {error}");
            }
        }
    }
}

/// Which WebKit renderer the app runs with under the harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Renderer {
    /// WebKit's default (the DMA-BUF renderer, on Mesa's software GL without a GPU): slower,
    /// but WebDriver screenshots work.
    WebKitDefault,
    /// Whatever the app picks (see `src-tauri/src/main.rs`).
    AsShipped,
}

/// A running Xvfb and tauri-driver (and, once a session is open, WebKitWebDriver and the app).
/// Dropping it stops them all.
#[derive(Debug)]
pub struct Harness {
    // Fields drop in order: the driver (and the app with it) before the bus and the X server.
    driver: Process,
    _bus: Process,
    _xvfb: Process,
    display: String,
    port: u16,
    app: PathBuf,
    /// The environment the app runs in (under tauri-driver, or from [`Harness::app_command`]).
    env: Vec<(String, std::ffi::OsString)>,
    log: PathBuf,
    home: TempDir,
}

impl Harness {
    /// Starts Xvfb and tauri-driver and returns once tauri-driver answers `/status` as ready.
    /// The app's XDG directories point into a fresh temporary directory, so a test never sees
    /// the developer's data nor an earlier test's.
    pub fn start() -> Result<Self> {
        Self::start_with(Renderer::WebKitDefault, app_binary()?, &[])
    }

    /// Like [`Harness::start`], the app's environment carrying `vars` as well (e.g.
    /// `QUIRE_CA_FILE`): tauri-driver passes its environment on to WebKitWebDriver and the app.
    pub fn start_with_env(vars: &[(&str, &Path)]) -> Result<Self> {
        Self::start_with(Renderer::WebKitDefault, app_binary()?, vars)
    }

    /// Like [`Harness::start`], for the app at `app` (e.g. the one a package installed).
    pub fn start_app(app: &Path) -> Result<Self> {
        Self::start_with(Renderer::WebKitDefault, app.to_owned(), &[])
    }

    /// Like [`Harness::start`], with WebKit's renderer chosen as the shipped app chooses it
    /// (without a GPU: the DMA-BUF renderer off). For measurements of what a person sees;
    /// WebDriver screenshots never return in that mode under Xvfb, so take none.
    pub fn start_as_shipped() -> Result<Self> {
        Self::start_with(Renderer::AsShipped, app_binary()?, &[])
    }

    fn start_with(renderer: Renderer, app: PathBuf, vars: &[(&str, &Path)]) -> Result<Self> {
        let tauri_driver = tauri_driver_binary()?;
        let native_driver = native_driver_binary()?;
        let home = tempfile::Builder::new().prefix("quire-e2e-").tempdir()?;
        for dir in ["data", "config", "cache", "runtime"] {
            fs::create_dir_all(home.path().join(dir))?;
        }
        install_file_manager(home.path())?;
        let port = free_port()?;
        let native_port = loop {
            let candidate = free_port()?;
            if candidate != port {
                break candidate;
            }
        };
        // One log per test (libtest names the thread after it): a later test does not write
        // over the log of one that failed.
        let test = std::thread::current()
            .name()
            .map(|name| name.replace("::", "-"));
        let log = match test.filter(|name| name != "main") {
            Some(name) => output_dir()?.join(format!("driver-{name}.log")),
            None => output_dir()?.join("driver.log"),
        };
        let log_file =
            File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;

        let (xvfb, display) = start_xvfb()?;
        let (bus, bus_address) = start_session_bus(home.path())?;
        let mut env: Vec<(String, std::ffi::OsString)> = vec![
            ("DISPLAY".into(), display.clone().into()),
            ("GDK_BACKEND".into(), "x11".into()),
            ("DBUS_SESSION_BUS_ADDRESS".into(), bus_address.into()),
        ];
        for (var, dir) in [
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
            ("XDG_RUNTIME_DIR", "runtime"),
        ] {
            env.push((var.into(), home.path().join(dir).into()));
        }
        // Without a GPU, WebKit draws through Mesa's llvmpipe, which compiles each shader with
        // LLVM on first use (a second of one core at times, a frame stall the page cannot
        // see). Mesa caches what it compiled in XDG_CACHE_HOME, fresh per test: one cache for
        // the whole run instead, warm after the first test, as a person's is after the first
        // start.
        env.push(("MESA_SHADER_CACHE_DIR".into(), shader_cache()?.into()));
        // Without a GPU the app switches WebKit's DMA-BUF renderer off (src-tauri/src/main.rs);
        // WebKitWebDriver's screenshots then never return under Xvfb. Keep it on here.
        if renderer == Renderer::WebKitDefault {
            env.push(("WEBKIT_DISABLE_DMABUF_RENDERER".into(), "0".into()));
        }
        let mut driver = Command::new(&tauri_driver);
        driver
            .env_remove("WEBKIT_DISABLE_DMABUF_RENDERER")
            .env_remove("WAYLAND_DISPLAY")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .envs(vars.iter().copied());
        let driver = driver
            .arg("--port")
            .arg(port.to_string())
            .arg("--native-port")
            .arg(native_port.to_string())
            .arg("--native-driver")
            .arg(&native_driver)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            // Its own process group: WebKitWebDriver and the app join it, so one signal to
            // the group cleans up whatever a failed test leaves behind.
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {}", tauri_driver.display()))?;
        let mut harness = Self {
            driver: Process {
                child: driver,
                name: "tauri-driver",
                group: true,
            },
            _bus: bus,
            _xvfb: xvfb,
            display,
            port,
            app,
            env,
            log,
            home,
        };
        harness.wait_for_driver()?;
        Ok(harness)
    }

    /// The absolute path of the app under test.
    pub fn app(&self) -> &Path {
        &self.app
    }

    /// The X display the app runs on (like `:99`).
    pub fn display(&self) -> &str {
        &self.display
    }

    /// `XDG_DATA_HOME` of the app: its data directory is `<this>/<identifier>`.
    pub fn data_home(&self) -> PathBuf {
        self.home.path().join("data")
    }

    /// The app as a person launches it (no WebDriver), in the same desktop as the app under
    /// test: same display, session bus and XDG directories.
    pub fn app_command(&self) -> Command {
        let mut command = Command::new(&self.app);
        command
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WEBKIT_DISABLE_DMABUF_RENDERER")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        command
    }

    /// The folders the desktop's file manager was asked to open, in order (see
    /// [`install_file_manager`]).
    pub fn opened_folders(&self) -> Vec<String> {
        fs::read_to_string(self.home.path().join(OPENED))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The X id of the app's window (titled "Quire"), once it is shown.
    pub async fn app_window(&self) -> Result<String> {
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            let found = self.xdotool(&["search", "--onlyvisible", "--name", "^Quire$"]);
            if let Some(id) = found
                .ok()
                .and_then(|out| out.lines().next().map(str::to_owned))
            {
                return Ok(id);
            }
            if Instant::now() >= deadline {
                bail!("no window titled Quire shown within {UI_TIMEOUT:?}");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// Whether the window `id` is shown (mapped and viewable).
    pub fn window_shown(&self, id: &str) -> bool {
        self.xdotool(&["search", "--onlyvisible", "--name", "^Quire$"])
            .is_ok_and(|out| out.lines().any(|line| line == id))
    }

    /// Hides the window `id` (unmaps it), as a window manager does when it minimises a window.
    pub fn hide_window(&self, id: &str) -> Result<()> {
        self.xdotool(&["windowunmap", "--sync", id]).map(drop)
    }

    /// Takes the keyboard focus from every window (X's PointerRoot), as another application
    /// taking it would.
    pub fn focus_nothing(&self) -> Result<()> {
        self.xdotool(&["windowfocus", "--sync", "1"]).map(drop)
    }

    /// The X id of the window that has the keyboard focus.
    pub fn focused_window(&self) -> Result<String> {
        Ok(self.xdotool(&["getwindowfocus", "-f"])?.trim().to_owned())
    }

    /// The window's `WM_CLASS`: (instance, class), by which a desktop matches a window to the
    /// entry whose `StartupWMClass` names one of them (xprop, Debian package x11-utils).
    pub fn window_class(&self, id: &str) -> Result<(String, String)> {
        let out = Command::new("xprop")
            .args(["-id", id, "WM_CLASS"])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .output()
            .context("cannot run xprop (Debian: apt-get install x11-utils)")?;
        let text = String::from_utf8_lossy(&out.stdout);
        // WM_CLASS(STRING) = "quire", "Quire"
        let parts: Vec<&str> = text.split('"').collect();
        match parts.as_slice() {
            [_, instance, _, class, ..] if out.status.success() => {
                Ok(((*instance).to_owned(), (*class).to_owned()))
            }
            _ => bail!("xprop -id {id} WM_CLASS: {} {text}", out.status),
        }
    }

    /// Picks `path` in the app's open dialog titled `title` (GTK's file chooser) as a person
    /// would: Ctrl+L opens the location field, the path is typed, Enter accepts.
    pub async fn answer_open_dialog(&self, title: &str, path: &Path) -> Result<()> {
        self.answer_dialog(title, "ctrl+l", path).await
    }

    /// Picks the folder `path` in the app's folder dialog titled `title` (GTK's chooser in
    /// folder mode) as a person would: the path typed (a leading `/` opens the location field;
    /// Ctrl+L would close it again in this mode), Enter accepts. A dialog that did not take it
    /// (keys that came while it was still settling) has it typed again over what it holds.
    pub async fn answer_folder_dialog(&self, title: &str, path: &Path) -> Result<()> {
        let window = self.focus_dialog(title).await?;
        let path = path.to_str().context("a UTF-8 path")?;
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            self.xdotool(&["key", "--clearmodifiers", "ctrl+a"])?;
            self.xdotool(&["type", "--delay", "30", path.trim_end_matches('/')])?;
            // As in `answer_dialog`: an Enter taken by the completion is pressed again.
            for _ in 0..3 {
                self.xdotool(&["key", "--clearmodifiers", "Return"])?;
                let pressed = Instant::now();
                while pressed.elapsed() < Duration::from_secs(1) {
                    if !self.dialog_shown(&window) {
                        return Ok(());
                    }
                    tokio::time::sleep(POLL_INTERVAL).await;
                }
            }
            if Instant::now() >= deadline {
                bail!("the folder dialog {title:?} did not take {path:?} within {UI_TIMEOUT:?}");
            }
        }
    }

    /// Saves to `path` from the app's save dialog titled `title`: the name field (focused, with
    /// the suggested name) is replaced by the whole path, Enter accepts.
    pub async fn answer_save_dialog(&self, title: &str, path: &Path) -> Result<()> {
        self.answer_dialog(title, "ctrl+a", path).await
    }

    /// Cancels the app's dialog titled `title` (Escape).
    pub async fn cancel_dialog(&self, title: &str) -> Result<()> {
        let window = self.focus_dialog(title).await?;
        self.xdotool(&["key", "--clearmodifiers", "Escape"])?;
        self.wait_dialog_gone(title, &window).await
    }

    /// The real dialog, driven through the X server (xdotool sends XTEST key events, as a
    /// keyboard does): nothing in the app knows it is being tested.
    async fn answer_dialog(&self, title: &str, select: &str, path: &Path) -> Result<()> {
        let window = self.focus_dialog(title).await?;
        let path = path.to_str().context("a UTF-8 path")?;
        self.xdotool(&["key", "--clearmodifiers", select])?;
        self.xdotool(&["type", "--delay", "5", path])?;
        // The location field completes what is typed as the folder loads, and an Enter that
        // comes before that is taken by the completion: press it again, as a person would.
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            self.xdotool(&["key", "--clearmodifiers", "Return"])?;
            let pressed = Instant::now();
            while pressed.elapsed() < Duration::from_secs(1) {
                if !self.dialog_shown(&window) {
                    return Ok(());
                }
                tokio::time::sleep(POLL_INTERVAL).await;
            }
            if Instant::now() >= deadline {
                bail!("the dialog {title:?} did not take {path:?} within {UI_TIMEOUT:?}");
            }
        }
    }

    /// Whether the dialog `window` is still shown, asked of that window alone (`xwininfo -id`).
    /// A `search` of the whole tree (as `focus_dialog` makes) could miss it while other windows
    /// come and go under it (the location field's completion popup, as the path is typed), and
    /// a dialog taken for closed that still waits for its Enter leaves the app's command
    /// waiting for its answer. A query that fails for another reason counts as shown: the
    /// caller then asks again until its deadline.
    fn dialog_shown(&self, window: &str) -> bool {
        let out = match Command::new("xwininfo")
            .args(["-id", window])
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .output()
        {
            Ok(out) => out,
            Err(_) => return true,
        };
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout).contains("Map State: IsViewable");
        }
        // A destroyed window: "No such window", after X's BadWindow / BadDrawable.
        let stderr = String::from_utf8_lossy(&out.stderr);
        !(stderr.contains("No such window")
            || stderr.contains("Bad Window")
            || stderr.contains("Bad Drawable"))
    }

    /// Resizes the app's window (titled "Quire") through the X server, as a person dragging its
    /// corner would; `app` waits until the page has the new width.
    pub async fn resize_app_window(&self, app: &App, width: u32, height: u32) -> Result<()> {
        let found = self.xdotool(&["search", "--onlyvisible", "--name", "^Quire$"])?;
        let window = found.lines().next().context("the app's window")?;
        self.xdotool(&[
            "windowsize",
            "--sync",
            window,
            &width.to_string(),
            &height.to_string(),
        ])?;
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            let inner = app
                .driver
                .execute("return window.innerWidth;", vec![])
                .await?;
            if inner.json().as_u64() == Some(u64::from(width)) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("the page is {} px wide, not {width}", inner.json());
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// Waits for a visible window titled `title`, gives it the keyboard (there is no window
    /// manager under Xvfb to do it) and returns its X id.
    async fn focus_dialog(&self, title: &str) -> Result<String> {
        let deadline = Instant::now() + UI_TIMEOUT;
        let window = loop {
            let found = self.xdotool(&["search", "--onlyvisible", "--name", title]);
            if let Some(id) = found
                .ok()
                .and_then(|out| out.lines().next().map(str::to_owned))
            {
                break id;
            }
            if Instant::now() >= deadline {
                bail!("no dialog titled {title:?} within {UI_TIMEOUT:?}");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        };
        self.xdotool(&["windowfocus", "--sync", &window])?;
        Ok(window)
    }

    /// Waits until the dialog `window` titled `title` is no longer shown.
    async fn wait_dialog_gone(&self, title: &str, window: &str) -> Result<()> {
        let deadline = Instant::now() + UI_TIMEOUT;
        while self.dialog_shown(window) {
            if Instant::now() >= deadline {
                bail!("the dialog {title:?} ({window}) is still open after {UI_TIMEOUT:?}");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
        Ok(())
    }

    /// Runs xdotool on this harness's display; its stdout. (`search` exits 1 when it finds
    /// nothing: an error here.)
    fn xdotool(&self, args: &[&str]) -> Result<String> {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .stdin(Stdio::null())
            .output()
            .context("cannot run xdotool (Debian: apt-get install xdotool)")?;
        if !out.status.success() {
            bail!(
                "xdotool {args:?}: {} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// tauri-driver's log (with WebKitWebDriver's and the app's stderr).
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// Launches the app by opening a WebDriver session on it, once the driver says it can take
    /// one (the session before, if any, closed).
    pub async fn open_app(&self) -> Result<WebDriver> {
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("wry"));
        caps.insert("tauri:options".into(), json!({ "application": self.app }));
        let url = format!("http://127.0.0.1:{}", self.port);
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let mut dropped = 0;
        loop {
            let deadline = Instant::now() + READY_TIMEOUT;
            while !driver_ready(address).unwrap_or(false) {
                if Instant::now() >= deadline {
                    bail!(
                        "tauri-driver takes no new session within {READY_TIMEOUT:?}; see {}",
                        self.log.display()
                    );
                }
                tokio::time::sleep(POLL_INTERVAL).await;
            }
            match WebDriver::new(url.clone(), Capabilities::from(caps.clone())).await {
                Ok(driver) => return Ok(driver),
                // The request dropped on its way (a transport error, not the driver's answer:
                // no app was launched), as happened once on a loaded machine right after the
                // session before was closed: asked again, at most twice.
                Err(e)
                    if dropped < 2
                        && matches!(
                            e.as_inner(),
                            thirtyfour::error::WebDriverErrorInner::HttpError(_)
                        ) =>
                {
                    dropped += 1;
                }
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!(
                            "cannot open a session on the app; see {}",
                            self.log.display()
                        )
                    });
                }
            }
        }
    }

    fn wait_for_driver(&mut self) -> Result<()> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = self.driver.child.try_wait()? {
                bail!(
                    "tauri-driver exited early ({status}); see {}",
                    self.log.display()
                );
            }
            match driver_ready(address) {
                Ok(true) => return Ok(()),
                Ok(false) | Err(_) if Instant::now() < deadline => thread::sleep(POLL_INTERVAL),
                Ok(false) => bail!(
                    "tauri-driver never reported ready; see {}",
                    self.log.display()
                ),
                Err(error) => {
                    return Err(error.context(format!(
                        "tauri-driver did not answer on {address}; see {}",
                        self.log.display()
                    )));
                }
            }
        }
    }
}

/// Asks GET /status; `Ok(true)` once the driver is ready for a new session.
fn driver_ready(address: SocketAddr) -> Result<bool> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(1))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.write_all(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let ok = response.starts_with("HTTP/1.1 200");
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    let ready = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|status| status["value"]["ready"].as_bool())
        .unwrap_or(false);
    Ok(ok && ready)
}

/// Where the file manager records what it was asked to open (in the harness's home).
const OPENED: &str = "opened-folders.txt";

/// The desktop's file manager, for the app's "Open folder" actions: a desktop entry that is the
/// default application for folders (`mimeapps.list`), whose command appends the folder it is
/// given to [`OPENED`]. The app opens folders as on any desktop (tauri-plugin-opener runs
/// `xdg-open` or `gio open`, which look the default application up in these XDG directories);
/// only the file manager at the end is this script.
fn install_file_manager(home: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let script = home.join("file-manager");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '{}'\n",
            home.join(OPENED).display()
        ),
    )?;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755))?;
    let applications = home.join("data/applications");
    fs::create_dir_all(&applications)?;
    fs::write(
        applications.join("quire-e2e-file-manager.desktop"),
        format!(
            "[Desktop Entry]\nType=Application\nName=Files (e2e)\nExec={} %f\n\
             MimeType=inode/directory;\nNoDisplay=true\n",
            script.display()
        ),
    )?;
    fs::write(
        home.join("config/mimeapps.list"),
        "[Default Applications]\ninode/directory=quire-e2e-file-manager.desktop\n",
    )?;
    Ok(())
}

/// Starts a D-Bus session bus of its own (a desktop session has one; the app finds its running
/// copy there), listening in `home`, in its own process group (services it starts on demand go
/// with it). It prints its address once it accepts connections: that is the readiness signal.
fn start_session_bus(home: &Path) -> Result<(Process, String)> {
    let child = Command::new("dbus-daemon")
        .arg("--session")
        .arg("--nofork")
        .arg("--nopidfile")
        .arg(format!(
            "--address=unix:path={}",
            home.join("bus").display()
        ))
        .arg("--print-address=1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .context("cannot start dbus-daemon: install the Debian package dbus")?;
    let mut bus = Process {
        child,
        name: "dbus-daemon",
        group: true,
    };
    let line = first_line(&mut bus, "dbus-daemon")?;
    Ok((bus, line))
}

/// The first line the process prints on stdout (its readiness signal), within [`READY_TIMEOUT`].
fn first_line(process: &mut Process, name: &str) -> Result<String> {
    let stdout = process.child.stdout.take().context("no stdout")?;
    let (sender, receiver) = mpsc::channel();
    let who = name.to_owned();
    thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        // The receiver may have given up already; nothing else to tell.
        if sender.send(read).is_err() {
            eprintln!("quire-e2e: {who} answered after the timeout");
        }
    });
    match receiver.recv_timeout(READY_TIMEOUT) {
        Ok(Ok(line)) if !line.trim().is_empty() => Ok(line.trim().to_owned()),
        outcome => bail!("{name} did not report ready: {outcome:?}"),
    }
}

/// Starts Xvfb on a display number it picks itself (`-displayfd`), which it prints once it
/// accepts connections: that line is the readiness signal.
fn start_xvfb() -> Result<(Process, String)> {
    let child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-nolisten",
            "tcp",
            "-screen",
            "0",
            "1280x800x24",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start Xvfb: install the Debian package xvfb")?;
    let mut xvfb = Process {
        child,
        name: "Xvfb",
        group: false,
    };
    // On failure, dropping `xvfb` stops it.
    let display = first_line(&mut xvfb, "Xvfb")?;
    Ok((xvfb, format!(":{display}")))
}

/// SIGTERM, wait up to [`EXIT_GRACE`], then SIGKILL. Reports problems on stderr (drop path).
fn terminate(child: &mut Child, name: &str) {
    match child.try_wait() {
        Ok(Some(_)) => return,
        Ok(None) => {}
        Err(error) => eprintln!("quire-e2e: cannot check {name}: {error}"),
    }
    let pid = child.id().to_string();
    if let Err(error) = Command::new("kill").args(["-TERM", &pid]).status() {
        eprintln!("quire-e2e: cannot signal {name}: {error}");
    }
    let deadline = Instant::now() + EXIT_GRACE;
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) => return,
            Ok(None) => thread::sleep(POLL_INTERVAL),
            Err(error) => {
                eprintln!("quire-e2e: cannot wait for {name}: {error}");
                break;
            }
        }
    }
    eprintln!("quire-e2e: {name} ignored SIGTERM; killing it");
    if let Err(error) = child.kill().and_then(|()| child.wait().map(|_| ())) {
        eprintln!("quire-e2e: cannot kill {name}: {error}");
    }
}

/// How long the UI may take to show what a test waits for.
pub const UI_TIMEOUT: Duration = Duration::from_secs(20);

/// The app's window, as a test drives it: elements by `data-testid` (see `ui/src/testids.ts`),
/// commands through the app's own IPC (for setup and for checks by tab ID), and waits that poll.
pub struct App {
    pub driver: thirtyfour::WebDriver,
}

/// `[data-testid="id"]`.
pub fn tid(id: &str) -> thirtyfour::By {
    thirtyfour::By::Css(format!("[data-testid=\"{id}\"]"))
}

/// `[data-testid="id"][data-tab-id="tab"]`.
pub fn tid_tab(id: &str, tab: &str) -> thirtyfour::By {
    thirtyfour::By::Css(format!("[data-testid=\"{id}\"][data-tab-id=\"{tab}\"]"))
}

impl App {
    /// Opens a session on the app (launches it) and waits until the UI says it is ready.
    pub async fn launch(harness: &Harness) -> Result<Self> {
        let driver = harness.open_app().await?;
        let app = App { driver };
        app.wait_for(&thirtyfour::By::Css(
            "[data-testid=\"app\"][data-ready=\"true\"]",
        ))
        .await
        .context("the app never became ready")?;
        Ok(app)
    }

    /// The first element matching `by`, once there (polls up to [`UI_TIMEOUT`]).
    pub async fn wait_for(&self, by: &thirtyfour::By) -> Result<thirtyfour::WebElement> {
        self.wait_for_within(by, UI_TIMEOUT).await
    }

    /// Like [`App::wait_for`] with another timeout.
    pub async fn wait_for_within(
        &self,
        by: &thirtyfour::By,
        timeout: Duration,
    ) -> Result<thirtyfour::WebElement> {
        let deadline = Instant::now() + timeout;
        loop {
            // An error is no answer: WebKitWebDriver calls an element that went while it was
            // being found "stale" (thirtyfour's query passes that on); look again.
            let last = match self.driver.find_all(by.clone()).await {
                Ok(found) => match found.into_iter().next() {
                    Some(el) => return Ok(el),
                    None => "none".to_owned(),
                },
                Err(e) => e.to_string(),
            };
            if Instant::now() >= deadline {
                bail!("no element {by:?} within {timeout:?} ({last})");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// Clicks the menu button `button` until its item `item` shows, then clicks the item.
    pub async fn menu(&self, button: &str, item: &str) -> Result<()> {
        for _ in 0..5 {
            self.click(button).await?;
            if let Ok(found) = self
                .wait_for_within(&tid(item), Duration::from_secs(2))
                .await
            {
                return found.click().await.with_context(|| format!("click {item}"));
            }
        }
        bail!("the menu {button} never showed {item}")
    }

    /// Types `text` into the element `by`, finding it again if it re-rendered meanwhile.
    pub async fn type_into(&self, by: &thirtyfour::By, text: &str) -> Result<()> {
        let mut last = None;
        for _ in 0..5 {
            let el = self.wait_for(by).await?;
            match el.send_keys(text.to_owned() + thirtyfour::Key::Enter).await {
                Ok(()) => return Ok(()),
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
        Err(anyhow!("cannot type into {by:?}: {last:?}"))
    }

    /// Waits until no element matches `by`.
    pub async fn wait_gone(&self, by: &thirtyfour::By) -> Result<()> {
        self.wait_gone_within(by, UI_TIMEOUT).await
    }

    /// Waits at most `timeout` until no element matches `by`; an error if one still does.
    pub async fn wait_gone_within(&self, by: &thirtyfour::By, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            // An error is an answer too: WebKitWebDriver calls an element that went while it
            // was being found "stale"; look again.
            let last = match self.driver.find_all(by.clone()).await {
                Ok(found) if found.is_empty() => return Ok(()),
                Ok(found) => format!("{} still there", found.len()),
                Err(e) => e.to_string(),
            };
            if Instant::now() >= deadline {
                bail!("{by:?} still there after {timeout:?} ({last})");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    pub async fn testid(&self, id: &str) -> Result<thirtyfour::WebElement> {
        self.wait_for(&tid(id)).await
    }

    pub async fn click(&self, id: &str) -> Result<()> {
        self.click_by(&tid(id)).await
    }

    /// Sets the checkbox `id` to `checked` by clicking it, and waits until the page has it so.
    /// A click is only sent while the box is in the other state: WebKitWebDriver at times
    /// loses a click under load, or answers an error for one it delivered (`click_by` would
    /// then click again and toggle it back), so each click is checked before the next.
    pub async fn set_checked(&self, id: &str, checked: bool) -> Result<()> {
        let by = tid(id);
        let deadline = Instant::now() + UI_TIMEOUT;
        let mut clicked: Option<Instant> = None;
        loop {
            let el = self.wait_for(&by).await?;
            let now = el.prop("checked").await?.as_deref() == Some("true");
            if now == checked {
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("{id} still not checked={checked} after {UI_TIMEOUT:?}");
            }
            // Another click only when the last has had a second to land.
            if clicked.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
                // An error here may be a click that landed: the state read above decides.
                let _ = el.click().await;
                clicked = Some(Instant::now());
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// Clicks the element `by`, finding it again if it re-rendered between find and click.
    pub async fn click_by(&self, by: &thirtyfour::By) -> Result<()> {
        let mut last = None;
        for _ in 0..5 {
            match self.wait_for(by).await?.click().await {
                Ok(()) => return Ok(()),
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
        Err(anyhow!("cannot click {by:?}: {last:?}"))
    }

    /// Waits until the text of an element matching `by` satisfies `pred`; returns the text.
    pub async fn wait_text(
        &self,
        by: &thirtyfour::By,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<String> {
        let deadline = Instant::now() + UI_TIMEOUT;
        let mut last = String::new();
        loop {
            // Every match's textContent (WebDriver's "visible text" is empty for some
            // elements WebKit lays out lazily, e.g. grid cells).
            let found = self.driver.find_all(by.clone()).await.unwrap_or_default();
            for el in &found {
                if let Ok(Some(text)) = el.prop("textContent").await {
                    let text = text.trim().to_owned();
                    if pred(&text) {
                        return Ok(text);
                    }
                    last = text;
                }
            }
            if Instant::now() >= deadline {
                // A failure says whether the element is still there at all.
                if found.is_empty() {
                    bail!("{what}: {by:?} is gone (it last showed {last:?}) after {UI_TIMEOUT:?}");
                }
                bail!("{what}: {by:?} still shows {last:?} after {UI_TIMEOUT:?}");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// The always-visible sync status, once it reads `Saved (version N)` with N >= `at_least`;
    /// returns N.
    pub async fn wait_saved(&self, at_least: u64) -> Result<u64> {
        let text = self
            .wait_text(&tid("sync-status"), "saved", |t| {
                saved_version(t).is_some_and(|v| v >= at_least)
            })
            .await?;
        saved_version(&text).context("parsed above")
    }

    /// Calls one of the app's commands through its IPC, as the UI does.
    pub async fn invoke(&self, cmd: &str, args: serde_json::Value) -> Result<serde_json::Value> {
        let ret = self
            .driver
            .execute_async(
                "const [cmd, args, done] = arguments;\n\
                 window.__TAURI_INTERNALS__.invoke(cmd, args)\n\
                   .then((value) => done({ ok: value ?? null }), (error) => done({ error }));",
                vec![json!(cmd), args],
            )
            .await
            .with_context(|| format!("invoke {cmd}"))?;
        let value = ret.json().clone();
        match value.get("ok") {
            Some(ok) => Ok(ok.clone()),
            None => bail!("{cmd} failed: {}", value["error"]),
        }
    }

    /// The current route's Note ID (`#/notes/{id}/...` or `/notes/{id}/...`).
    pub async fn open_note_id(&self) -> Result<String> {
        let el = self
            .wait_for(&thirtyfour::By::Css(
                "[data-testid=\"notes-item\"][data-active=\"true\"]",
            ))
            .await?;
        el.attr("data-note-id")
            .await?
            .context("the active note has no data-note-id")
    }

    /// Types into the Markdown editor of the open Note (at the end of its text).
    pub async fn type_markdown(&self, text: &str) -> Result<()> {
        self.focus_markdown().await?;
        let focused = self.driver.active_element().await?;
        focused
            .send_keys(thirtyfour::Key::Control + thirtyfour::Key::End)
            .await?;
        // A line break is the Enter key (CodeMirror takes keys, not characters).
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                focused.send_keys(thirtyfour::Key::Enter).await?;
            }
            if !line.is_empty() {
                focused.send_keys(line).await?;
            }
        }
        Ok(())
    }

    /// Clicks into the Markdown editor (again if the editor re-rendered under the click).
    pub async fn focus_markdown(&self) -> Result<()> {
        let by = thirtyfour::By::Css("[data-testid=\"editor-markdown\"] .cm-content");
        let mut last = None;
        for _ in 0..5 {
            match self.wait_for(&by).await?.click().await {
                Ok(()) => return Ok(()),
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
        Err(anyhow!("cannot click into the editor: {last:?}"))
    }

    /// Creates a Note from the "New note" button, names it in the list's rename field, and
    /// returns its ID once it is the open Note.
    pub async fn new_note(&self, title: &str) -> Result<String> {
        self.click("new-note").await?;
        self.type_into(&tid("notes-item-rename"), title).await?;
        let note = self.open_note_id().await?;
        // The new title is the Note's second version.
        self.wait_saved(2).await?;
        Ok(note)
    }

    /// Waits until nothing is left to sync (no draft in the ledger, every tab of the Note clean
    /// or saved) and the status says "Saved (version N)"; returns N.
    pub async fn wait_synced(&self, note: &str) -> Result<u64> {
        let deadline = Instant::now() + UI_TIMEOUT;
        loop {
            let drafts = self.invoke("drafts", json!({})).await?;
            let status = self.invoke("note_status", json!({"noteId": note})).await?;
            let quiet = status["tabs"].as_array().is_some_and(|tabs| {
                tabs.iter()
                    .all(|t| t["state"] == "clean" || t["state"] == "saved")
            });
            if drafts == json!([]) && quiet && status["settled"] == true {
                let version = status["guard"].as_u64().context("guard")?;
                return self.wait_saved(version).await;
            }
            if Instant::now() >= deadline {
                bail!("still syncing after {UI_TIMEOUT:?}: drafts {drafts}, status {status}");
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// The text of a tab as the app's engine holds it (by tab ID).
    pub async fn tab_data(&self, note: &str, tab: &str) -> Result<serde_json::Value> {
        let view = self
            .invoke("tab_view", json!({"noteId": note, "tabId": tab}))
            .await?;
        Ok(view["data"].clone())
    }

    /// Saves a screenshot (see [`screenshot`]) and quits the app.
    pub async fn finish(self, name: &str) -> Result<PathBuf> {
        let shot = screenshot(&self.driver, name).await;
        self.driver.quit().await.context("close the app")?;
        shot
    }
}

/// `Saved (version 7)` -> 7.
pub fn saved_version(status: &str) -> Option<u64> {
    status
        .trim()
        .strip_prefix("Saved (version ")?
        .strip_suffix(')')?
        .parse()
        .ok()
}

/// Runs a scenario: launches the app, runs `body`, saves a screenshot named `name` whatever the
/// outcome, and reports the failure with the screenshot's and the driver log's paths.
pub async fn scenario<F>(harness: &Harness, name: &str, body: F) -> Result<()>
where
    F: AsyncFnOnce(&App) -> Result<()>,
{
    let app = App::launch(harness).await?;
    let outcome = body(&app).await;
    let shot = app.finish(name).await;
    let shot = shot
        .as_ref()
        .map_or_else(|e| format!("none ({e:#})"), |p| p.display().to_string());
    outcome.with_context(|| {
        format!(
            "screenshot: {shot}; driver log: {}",
            harness.log().display()
        )
    })?;
    println!("screenshot: {shot}");
    Ok(())
}
