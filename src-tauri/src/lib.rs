//! Quire's desktop app: a Tauri 2 shell. It holds no logic of its own: commands (in
//! [`commands`]) parse, call one function of the engine (`quire-sync`) or of [`backend`]
//! (servers, tokens, attachment contents), and map the result; errors cross the boundary as
//! [`error::CommandError`] (`{code, message}`), on which the UI switches by `code`.
//!
//! On start the app settles its directories ([`settle_dirs`]: the data directory is
//! `QUIRE_DATA_DIR`, else the platform's app data directory, where the data of Quire 0.1's
//! identifier is moved first, see [`datadir`]), logs to `<data dir>/logs` ([`logs`]), reads its
//! settings, starts the embedded server on loopback unless a remote one is configured, and
//! starts the engine, while the window loads (commands wait for it, see [`ready`]); every engine
//! event reaches the UI as the Tauri event `engine-event`. A second launch on the same data
//! shows the running window instead ([`instance`]).

#![forbid(unsafe_code)]

pub mod agent;
pub mod backend;
#[cfg(test)]
mod bindings;
pub mod commands;
pub mod datadir;
pub mod drops;
pub mod embedded;
pub mod error;
pub mod files;
pub mod instance;
pub mod logs;
pub mod print;
pub mod ready;
pub mod settings;
pub mod spelling;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tauri::{Emitter, Manager};

use crate::backend::{Backend, EventSink};
use crate::drops::Drops;
use crate::ready::BackendReady;

/// The Tauri event every engine event is emitted as.
pub const ENGINE_EVENT: &str = "engine-event";

/// Emitted to a window the person closes: the UI hands the edits it holds to the engine, then
/// calls `close_window`. The window closes after [`CLOSE_GRACE`] whatever the UI does.
pub const CLOSE_REQUESTED: &str = "close-requested";

/// Emitted to the window when the person drops files on it: [`drops::FilesDropped`], the drop's
/// number for `attach_dropped` and the files' names (the paths stay on this side).
pub const FILES_DROPPED: &str = "files-dropped";

/// Emitted to the window while an export or import runs: [`commands::TransferProgress`].
pub const TRANSFER_PROGRESS: &str = "transfer-progress";

/// How long a window being closed waits for its UI (see [`CLOSE_REQUESTED`]).
pub const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// The window the app opens (tauri.conf.json).
pub const MAIN_WINDOW: &str = "main";

/// What the app logs unless `RUST_LOG` says otherwise.
pub const LOG_FILTER: &str = "warn,quire_app=info";

/// How the app finds its data and the embedded server's port.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The data directory; `None`: the platform's app data directory.
    pub data_dir: Option<PathBuf>,
    /// The embedded server's port, overriding the saved preference (0: any free port).
    pub embedded_port: Option<u16>,
}

impl Options {
    /// From the environment: `QUIRE_DATA_DIR`, `QUIRE_EMBEDDED_PORT`.
    pub fn from_env() -> Self {
        Options {
            data_dir: std::env::var_os("QUIRE_DATA_DIR")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
            embedded_port: std::env::var("QUIRE_EMBEDDED_PORT")
                .ok()
                .and_then(|p| p.trim().parse().ok()),
        }
    }
}

/// Where the app keeps its data and its log files (managed state, see [`settle_dirs`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppDirs {
    pub data: PathBuf,
    /// `<data>/logs`: the log travels with the data it is about.
    pub logs: PathBuf,
}

impl AppDirs {
    pub fn in_data_dir(data: PathBuf) -> Self {
        let logs = data.join("logs");
        Self { data, logs }
    }
}

/// Settles the app's directories once it is built (the platform's paths are known) and before it
/// runs (the window's webview creates the data directory): the data directory chosen in
/// `options`, else the platform's, to which Quire 0.1's is moved first ([`datadir::settle`]).
/// Manages them as [`AppDirs`]; returns them and what the move did, to log once logging is up.
pub fn settle_dirs<R: tauri::Runtime>(
    app: &tauri::App<R>,
    options: &Options,
) -> Result<(AppDirs, datadir::Migration), tauri::Error> {
    let (data, migration) = match &options.data_dir {
        Some(dir) => (dir.clone(), datadir::Migration::NothingToMove),
        None => datadir::settle(&app.path().app_data_dir()?, datadir::OLD_IDENTIFIER),
    };
    let dirs = AppDirs::in_data_dir(data);
    app.manage(dirs.clone());
    Ok((dirs, migration))
}

/// Builds the app on any runtime: [`run`] uses the real one (Wry), tests use
/// `tauri::test::mock_builder()`.
pub fn app<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    launch: commands::Launch,
    options: Options,
) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .manage(launch)
        .manage(BackendReady::new())
        .manage(Drops::default())
        .setup(move |app| {
            let data_dir = app
                .try_state::<AppDirs>()
                .ok_or("the app's directories are not settled (settle_dirs before run)")?
                .data
                .clone();
            let handle = app.handle().clone();
            let sink: EventSink = Arc::new(move |event| {
                if let Err(e) = handle.emit(ENGINE_EVENT, &event) {
                    tracing::warn!(error = %e, "cannot emit an engine event");
                }
            });
            // Not awaited here: the window's page loads meanwhile; commands wait for it.
            let handle = app.handle().clone();
            let port = options.embedded_port;
            tauri::async_runtime::spawn(async move {
                let t0 = std::time::Instant::now();
                let started = Backend::start(data_dir, port, sink).await;
                match &started {
                    Ok(_) => tracing::info!(ms = t0.elapsed().as_millis(), "backend started"),
                    Err(e) => tracing::error!(error = %e, "the backend did not start"),
                }
                handle.state::<BackendReady>().set(started);
            });
            Ok(())
        })
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event
                && !paths.is_empty()
            {
                let dropped = window.state::<Drops>().record(paths.clone());
                if let Err(e) = window.emit(FILES_DROPPED, &dropped) {
                    tracing::warn!(error = %e, "cannot tell the UI about dropped files");
                }
            }
            if let tauri::WindowEvent::CloseRequested { api, .. } = event {
                api.prevent_close();
                if let Err(e) = window.emit(CLOSE_REQUESTED, ()) {
                    tracing::warn!(error = %e, "cannot ask the UI to hand its edits over");
                }
                let window = window.clone();
                tauri::async_runtime::spawn(async move {
                    tokio::time::sleep(CLOSE_GRACE).await;
                    // Already gone if the UI closed it: nothing to do.
                    if let Err(e) = window.destroy() {
                        tracing::debug!(error = %e, "closing the window after the grace period");
                    }
                });
            }
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::compute_formulas,
            commands::open_logs_folder,
            commands::close_window,
            commands::report_first_paint,
            commands::enable_spelling,
            commands::get_settings,
            commands::set_remote_server,
            commands::check_server,
            commands::use_embedded_server,
            commands::agent_info,
            commands::create_agent_token,
            commands::revoke_agent_token,
            commands::agent_access,
            commands::set_agent_access,
            commands::list_notes,
            commands::search_notes,
            commands::note_backlinks,
            commands::attach_image,
            commands::image_content,
            commands::create_note,
            commands::rename_note,
            commands::open_note,
            commands::close_note,
            commands::note_status,
            commands::tab_view,
            commands::sheet_rows,
            commands::text_part,
            commands::edit_tab,
            commands::hand_over,
            commands::flush,
            commands::retry,
            commands::conflict,
            commands::preview_conflict_resolution,
            commands::resolve_conflict,
            commands::discard_draft,
            commands::apply_ops,
            commands::history,
            commands::version_at,
            commands::restore,
            commands::revert,
            commands::delete_note,
            commands::undelete_note,
            commands::list_trash,
            commands::empty_trash,
            commands::drafts,
            commands::archived,
            commands::attach_file,
            commands::attach_dropped,
            commands::open_file,
            commands::save_file_copy,
            commands::export_note,
            commands::export_pdf,
            commands::print_page,
            commands::export_pptx,
            commands::export_all_notes,
            commands::import_notes,
            commands::open_url,
        ])
}

/// Stops syncing and the embedded server (the app is exiting).
pub fn shutdown<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    if let Some(ready) = app.try_state::<BackendReady>() {
        tauri::async_runtime::block_on(async {
            // Still starting: let it finish, then stop it (it may hold a database open).
            if let Ok(backend) = ready.wait().await {
                backend.shutdown().await;
            }
        });
    }
}

/// Runs the desktop app until its last window closes. A second launch on the same data exits
/// while the app is being built, having shown the first one's window.
pub fn run() -> Result<(), tauri::Error> {
    let launch = commands::Launch::at(SystemTime::now());
    let options = Options::from_env();
    let context = tauri::generate_context!("../tauri.conf.json");
    // First of the plugins: a second launch goes no further than this.
    let one_app = one_app_per_data_dir(&context.config().identifier, options.data_dir.as_deref());
    let app = app(
        tauri::Builder::default().plugin(one_app),
        launch,
        options.clone(),
    )
    .build(context)?;
    let (dirs, migration) = settle_dirs(&app, &options)?;
    if let Err(error) = logs::install(&dirs.logs, LOG_FILTER) {
        tracing::warn!(%error, "logging to stderr only");
    }
    migration.log(&dirs.data);
    tracing::info!(
        version = %app.package_info().version,
        data = %dirs.data.display(),
        "Quire starts"
    );
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            shutdown(handle);
        }
    });
    Ok(())
}

/// The single-instance plugin, named after the app and its data directory ([`instance`]); a
/// second launch calls back into the first, which shows its window.
fn one_app_per_data_dir<R: tauri::Runtime>(
    identifier: &str,
    data_dir: Option<&Path>,
) -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_single_instance::Builder::new()
        .dbus_id(instance::bus_name(identifier, data_dir))
        .callback(|app, _args, _cwd| show_main_window(app))
        .build()
}

/// Brings the window to the front: shown, not minimised, focused.
fn show_main_window<R: tauri::Runtime>(app: &tauri::AppHandle<R>) {
    tracing::info!("Quire was launched again: showing its window");
    let Some(window) = app.get_webview_window(MAIN_WINDOW) else {
        tracing::warn!("no window to show (the app is closing)");
        return;
    };
    for (step, done) in [
        ("show", window.show()),
        ("unminimize", window.unminimize()),
        ("focus", window.set_focus()),
    ] {
        if let Err(error) = done {
            tracing::warn!(%error, step, "cannot bring the window to the front");
        }
    }
}

/// `quire-app mcp-stdio --url URL [--token-file PATH]`: MCP on stdin/stdout relayed to a
/// server's `/mcp` (for Claude Desktop, which launches local commands), with the token from
/// `QUIRE_TOKEN` or the file, as `quire-server mcp-stdio` (`--token TOKEN` warns).
pub fn mcp_stdio(args: &[String]) -> Result<(), String> {
    let mut url = None;
    let mut token = None;
    let mut token_file = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--url" => url = rest.next().cloned(),
            "--token" => token = rest.next().cloned(),
            "--token-file" => token_file = rest.next().map(PathBuf::from),
            other => return Err(format!("mcp-stdio: unknown argument {other:?}")),
        }
    }
    let url = url.ok_or("mcp-stdio: --url URL is required")?;
    let env = std::env::var(quire_server::mcp::TOKEN_VAR).ok();
    let token = quire_server::mcp::BridgeToken::resolve(token, token_file.as_deref(), env)
        .map_err(|e| format!("mcp-stdio: {e}"))?;
    if let Some(warning) = token.warning() {
        eprintln!("quire-app: mcp-stdio: {warning}");
    }
    tauri::async_runtime::block_on(quire_server::mcp::stdio_bridge(&url, &token.token))
        .map_err(|e| format!("mcp-stdio: {e}"))
}
