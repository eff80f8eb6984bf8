//! Tauri commands: adapters only. Each parses its arguments, calls one function of the engine
//! (or of [`Backend`] for servers, tokens and files), and maps the result; failures become
//! [`CommandError`] `{code, message}`.
//!
//! Arguments arrive as JSON and are parsed here, not by Tauri's deserializer, so that a bad one
//! is a `CommandError` with code `invalid_argument` naming the field (Tauri's own rejection is
//! a bare string the UI could not switch on).
//!
//! Commands live here, not at the crate root: `#[tauri::command]` emits a macro named after the
//! function, which clashes with `generate_handler!` at the root (E0255).

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use quire_api::{AgentAccess, Scope, SearchHit, TrashedNote, VersionInfo, WriteResult};
use quire_model::{Note, NoteId, NoteSummary, Op, TabId, Version};
use quire_sync::{
    ArchivedDraft, ClashChoice, ConflictChoice, DraftPolicy, EngineError, LedgerEntry,
    MergePreview, NoteStatus, NoteView, TabStatus, TabView, WriteOutcome,
    engine::{ConflictView, HandOver, Taken, TextChange},
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tauri::{AppHandle, Emitter, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

use crate::AppDirs;
use crate::backend::{
    AgentInfo, AgentToken, AgentTokenInfo, AttachedFile, Settings, TransferSummary,
};
use crate::drops::Drops;
use crate::error::{CommandError, ErrorCode};
use crate::ready::BackendReady;

type Result<T, E = CommandError> = std::result::Result<T, E>;

/// The app's name and version (the header, the About page) and where its log files are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AppInfo {
    pub name: String,
    pub version: String,
    pub log_dir: String,
}

#[tauri::command]
pub fn app_info<R: Runtime>(app: AppHandle<R>, dirs: State<'_, AppDirs>) -> AppInfo {
    let package = app.package_info();
    AppInfo {
        name: package.name.clone(),
        version: package.version.to_string(),
        log_dir: dirs.logs.display().to_string(),
    }
}

/// Opens the folder of the log files in the system's file manager (the About page's "Open logs
/// folder").
#[tauri::command]
pub async fn open_logs_folder<R: Runtime>(
    app: AppHandle<R>,
    dirs: State<'_, AppDirs>,
) -> Result<()> {
    let dir = &dirs.logs;
    if !dir.is_dir() {
        return Err(CommandError::new(
            ErrorCode::NotFound,
            format!(
                "the logs folder {} does not exist (nothing logged yet)",
                dir.display()
            ),
        ));
    }
    app.opener()
        .open_path(dir.display().to_string(), None::<&str>)
        .map_err(|e| {
            CommandError::new(
                ErrorCode::Io,
                format!("cannot open the logs folder {}: {e}", dir.display()),
            )
        })
}

/// Closes the calling window now: the UI calls it on `close-requested`, once it has handed the
/// edits it held to the engine. The app quits with its last window.
#[tauri::command]
pub fn close_window<R: Runtime>(window: tauri::Window<R>) -> Result<()> {
    window.destroy().map_err(|e| {
        CommandError::new(ErrorCode::Internal, format!("cannot close the window: {e}"))
    })
}

/// When `main` started, as milliseconds since the Unix epoch (managed state).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Launch {
    unix_ms: f64,
}

impl Launch {
    pub fn at(time: SystemTime) -> Self {
        Self {
            unix_ms: unix_ms(time),
        }
    }
}

fn unix_ms(time: SystemTime) -> f64 {
    time.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
        * 1000.0
}

/// Startup timing reported by the UI once it has painted its first frame: when the page's
/// navigation started (`performance.timeOrigin`), when the shell was mounted (its script ran
/// and rendered) and when its first frame was on screen, also as milliseconds after `main`
/// started (native start-up, then the page's own).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FirstPaint {
    pub painted_at_unix_ms: f64,
    pub since_launch_ms: f64,
    pub navigation_since_launch_ms: f64,
    pub mounted_since_launch_ms: f64,
}

/// Spell-check for the window, turned on when the first Markdown editor opens (not at start:
/// loading the dictionaries cost the cold start about 80 ms and 12 MiB before any text was
/// shown). Once per run; later calls do nothing.
#[tauri::command]
pub fn enable_spelling<R: Runtime>(window: tauri::WebviewWindow<R>) {
    crate::spelling::enable_once(&window);
}

/// The UI calls this once, after its first frame. The app logs one line on stderr, which
/// `scripts/app-bench.sh` reads:
/// `quire-app: first paint at unix_ms=<ms> (<ms> ms after main); navigation started at
/// unix_ms=<ms>; shell mounted at unix_ms=<ms>`.
#[tauri::command]
pub fn report_first_paint(
    launch: State<'_, Launch>,
    navigation_started_at_unix_ms: f64,
    mounted_at_unix_ms: f64,
    painted_at_unix_ms: f64,
) -> Result<FirstPaint, CommandError> {
    let paint = first_paint(
        *launch,
        navigation_started_at_unix_ms,
        mounted_at_unix_ms,
        painted_at_unix_ms,
    )?;
    eprintln!(
        "quire-app: first paint at unix_ms={:.0} ({:.0} ms after main); \
         navigation started at unix_ms={navigation_started_at_unix_ms:.0}; \
         shell mounted at unix_ms={mounted_at_unix_ms:.0}",
        paint.painted_at_unix_ms, paint.since_launch_ms
    );
    tracing::info!(
        ms_after_main = paint.since_launch_ms.round(),
        "the window painted its first frame"
    );
    Ok(paint)
}

fn first_paint(
    launch: Launch,
    navigation_started_at_unix_ms: f64,
    mounted_at_unix_ms: f64,
    painted_at_unix_ms: f64,
) -> Result<FirstPaint, CommandError> {
    for (name, value) in [
        (
            "navigation_started_at_unix_ms",
            navigation_started_at_unix_ms,
        ),
        ("mounted_at_unix_ms", mounted_at_unix_ms),
        ("painted_at_unix_ms", painted_at_unix_ms),
    ] {
        if !value.is_finite() || value < 0.0 {
            return Err(CommandError::new(
                ErrorCode::InvalidArgument,
                format!("{name} must be a time since the epoch, got {value}"),
            ));
        }
    }
    Ok(FirstPaint {
        painted_at_unix_ms,
        since_launch_ms: painted_at_unix_ms - launch.unix_ms,
        navigation_since_launch_ms: navigation_started_at_unix_ms - launch.unix_ms,
        mounted_since_launch_ms: mounted_at_unix_ms - launch.unix_ms,
    })
}

// ---- argument parsing -------------------------------------------------------------------

fn invalid(message: String) -> CommandError {
    CommandError::new(ErrorCode::InvalidArgument, message)
}

fn note_id(value: &str) -> Result<NoteId> {
    value.parse().map_err(|e| invalid(format!("note_id: {e}")))
}

fn tab_id(value: &str) -> Result<TabId> {
    if value.trim().is_empty() {
        return Err(invalid("tab_id: empty".to_owned()));
    }
    Ok(TabId::new(value))
}

/// Parses a JSON argument, naming the field and the path inside it at fault.
fn parse<T: DeserializeOwned>(field: &str, value: Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| invalid(format!("{field}: {e}")))
}

fn version(value: Value) -> Result<Version> {
    match value.as_u64() {
        Some(v) if v > 0 => Ok(Version(v)),
        _ => Err(invalid(format!(
            "version: expected a version number, got {value}"
        ))),
    }
}

fn scopes(values: Vec<String>) -> Result<Vec<Scope>> {
    values
        .iter()
        .enumerate()
        .map(|(i, s)| {
            Scope::parse(s).ok_or_else(|| {
                invalid(format!(
                    "scopes[{i}]: unknown scope {s:?}: use notes:read or notes:write"
                ))
            })
        })
        .collect()
}

// ---- settings and agents ----------------------------------------------------------------

#[tauri::command]
pub async fn get_settings(backend: State<'_, BackendReady>) -> Result<Settings> {
    let backend = backend.wait().await?;
    Ok(backend.settings().await)
}

#[tauri::command]
pub async fn set_remote_server(
    backend: State<'_, BackendReady>,
    url: Option<String>,
    token: Option<String>,
) -> Result<Settings> {
    let backend = backend.wait().await?;
    Ok(backend.use_remote(url, token).await?)
}

/// Asks the server the app talks to who it is: the settings, with `server_check` fresh.
#[tauri::command]
pub async fn check_server(backend: State<'_, BackendReady>) -> Result<Settings> {
    let backend = backend.wait().await?;
    Ok(backend.check_server().await)
}

#[tauri::command]
pub async fn use_embedded_server(backend: State<'_, BackendReady>) -> Result<Settings> {
    let backend = backend.wait().await?;
    Ok(backend.use_embedded().await?)
}

#[tauri::command]
pub async fn agent_info(backend: State<'_, BackendReady>) -> Result<AgentInfo> {
    let backend = backend.wait().await?;
    Ok(backend.agent_info().await?)
}

#[tauri::command]
pub async fn create_agent_token(
    backend: State<'_, BackendReady>,
    name: String,
    scopes: Vec<String>,
) -> Result<AgentToken> {
    let backend = backend.wait().await?;
    let scopes = self::scopes(scopes)?;
    Ok(backend.create_agent_token(&name, &scopes).await?)
}

/// Revokes the embedded server's agent tokens named `name`: the agent tokens after it.
#[tauri::command]
pub async fn revoke_agent_token(
    backend: State<'_, BackendReady>,
    name: String,
) -> Result<Vec<AgentTokenInfo>> {
    let backend = backend.wait().await?;
    Ok(backend.revoke_agent_token(&name).await?)
}

#[tauri::command]
pub async fn agent_access(
    backend: State<'_, BackendReady>,
    note_id: String,
) -> Result<AgentAccess> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().agent_access(&note_id).await?)
}

#[tauri::command]
pub async fn set_agent_access(
    backend: State<'_, BackendReady>,
    note_id: String,
    approved: bool,
) -> Result<AgentAccess> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend
        .engine()
        .set_agent_access(&note_id, approved)
        .await?)
}

// ---- notes ------------------------------------------------------------------------------

#[tauri::command]
pub async fn list_notes(backend: State<'_, BackendReady>) -> Result<Vec<NoteSummary>> {
    let backend = backend.wait().await?;
    Ok(backend.engine().list_notes().await?)
}

/// Full-text search on the server the app uses: the `limit` (1 to 100) tabs that match `q`
/// best, best first.
#[tauri::command]
pub async fn search_notes(
    backend: State<'_, BackendReady>,
    q: String,
    limit: usize,
) -> Result<Vec<SearchHit>> {
    let backend = backend.wait().await?;
    Ok(backend.engine().search(&q, limit).await?)
}

/// The Notes that link to `note_id` (`[title](quire:note/ID)`), by title.
#[tauri::command]
pub async fn note_backlinks(
    backend: State<'_, BackendReady>,
    note_id: String,
) -> Result<Vec<quire_api::Backlink>> {
    let note_id = self::note_id(&note_id)?;
    let backend = backend.wait().await?;
    Ok(backend.engine().backlinks(&note_id).await?)
}

/// What each formula of a Sheet tab's content computes to (the tab as the editor holds it, its
/// unsaved edits included), per sheet: `[{id, cells: [{row, col, value}]}]`, an error as
/// `{"error": "#DIV/0!"}`. Off the main thread: a large tab takes a while.
#[tauri::command]
pub async fn compute_formulas(content: Value) -> Result<Vec<quire_formula::ComputedSheet>> {
    let tab: quire_model::SheetTab = parse("content", content)?;
    tokio::task::spawn_blocking(move || quire_formula::compute(&tab.sheets))
        .await
        .map_err(|e| CommandError::new(ErrorCode::Internal, format!("formulas: {e}")))?
        .map_err(|e| CommandError::new(ErrorCode::Internal, e.to_string()))
}

#[tauri::command]
pub async fn create_note(backend: State<'_, BackendReady>, title: String) -> Result<NoteView> {
    let backend = backend.wait().await?;
    Ok(backend.engine().create_note(&title).await?)
}

#[tauri::command]
pub async fn rename_note(
    backend: State<'_, BackendReady>,
    note_id: String,
    title: String,
) -> Result<WriteOutcome> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.rename_note(&note_id, title).await?)
}

/// `showing`: the tabs whose data the view must carry (the one about to be shown, and any
/// known to have changed); large tabs other than those, and every long text, come `deferred`,
/// read apart with `tab_view`, `text_part` and `sheet_rows`. Without it, every tab's data.
#[tauri::command]
pub async fn open_note(
    backend: State<'_, BackendReady>,
    note_id: String,
    showing: Option<Vec<String>>,
) -> Result<NoteView> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    let showing = showing
        .map(|ids| {
            ids.iter()
                .map(|id| match id.trim() {
                    "" => Err(invalid("showing: an empty tab ID".to_owned())),
                    _ => Ok(TabId::new(id)),
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    Ok(backend.open_note(&note_id, showing.as_deref()).await?)
}

#[tauri::command]
pub async fn close_note(backend: State<'_, BackendReady>, note_id: String) -> Result<()> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    backend.engine().close_note(&note_id);
    Ok(())
}

#[tauri::command]
pub async fn note_status(backend: State<'_, BackendReady>, note_id: String) -> Result<NoteStatus> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().status(&note_id)?)
}

#[tauri::command]
pub async fn tab_view(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
) -> Result<TabView> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    Ok(backend.engine().tab(&note_id, &tab_id)?)
}

/// Bytes `start..start + max_bytes` of a Markdown tab's text, each end moved back to a
/// character boundary (a deferred text, read in parts; `next` is where the next part starts).
#[tauri::command]
pub async fn text_part(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    start: usize,
    max_bytes: usize,
) -> Result<quire_sync::engine::TextPart> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    Ok(backend
        .engine()
        .text_part(&note_id, &tab_id, start, max_bytes)?)
}

/// Rows `start..start + count` of one sheet of a sheet tab (a deferred tab, read in parts).
#[tauri::command]
pub async fn sheet_rows(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    sheet_id: String,
    start: usize,
    count: usize,
) -> Result<quire_sync::engine::SheetRows> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    Ok(backend
        .engine()
        .sheet_rows(&note_id, &tab_id, &sheet_id, start, count)?)
}

/// `base_version`: the version the editor's content was loaded at. Give it: an edit typed on
/// content older than what the engine holds then becomes a conflict, not an overwrite of the
/// other writer's change (see `Engine::edit_tab_on`).
#[tauri::command]
pub async fn edit_tab(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    content: Value,
    base_version: Option<Value>,
) -> Result<TabStatus> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    let engine = backend.engine();
    Ok(match base_version.filter(|v| !v.is_null()) {
        Some(v) => {
            let base = self::version(v)?;
            engine.edit_tab_on(&note_id, &tab_id, content, base).await?
        }
        None => engine.edit_tab(&note_id, &tab_id, content).await?,
    })
}

/// An editor's edit as `Engine::hand_over` takes it: `content`, the tab's whole content, or
/// `change`, what changed in a Markdown text since the text this editor handed over last (named
/// by the token that hand-over returned; refused as `change_refused` when it is not the newest,
/// and the editor then hands the whole text over). One of the two. `base_version` as for
/// `edit_tab`.
#[tauri::command]
pub async fn hand_over(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    content: Option<Value>,
    change: Option<TextChange>,
    base_version: Option<Value>,
) -> Result<Taken> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    let edit = match (content, change) {
        (Some(content), None) => HandOver::Whole(content),
        (None, Some(change)) => HandOver::Change(change),
        _ => {
            return Err(invalid(
                "content, change: give the whole content or the change, one of the two".to_owned(),
            ));
        }
    };
    let base = base_version
        .filter(|v| !v.is_null())
        .map(self::version)
        .transpose()?;
    Ok(backend
        .engine()
        .hand_over(&note_id, &tab_id, edit, base)
        .await?)
}

#[tauri::command]
pub async fn flush(backend: State<'_, BackendReady>, note_id: String) -> Result<NoteStatus> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().flush(&note_id).await?)
}

#[tauri::command]
pub async fn retry(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
) -> Result<TabStatus> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    Ok(backend.engine().retry(&note_id, &tab_id).await?)
}

#[tauri::command]
pub async fn conflict(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
) -> Result<ConflictView> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    Ok(backend.engine().conflict(&note_id, &tab_id)?)
}

/// What Merge would save for `picks` (one per clash, `null` while undecided), for the review.
#[tauri::command]
pub async fn preview_conflict_resolution(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    picks: Value,
) -> Result<MergePreview> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    let picks: Vec<Option<ClashChoice>> = parse("picks", picks)?;
    Ok(backend
        .engine()
        .preview_resolution(&note_id, &tab_id, &picks)?)
}

#[tauri::command]
pub async fn resolve_conflict(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    choice: Value,
) -> Result<TabStatus> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    let choice: ConflictChoice = parse("choice", choice)?;
    Ok(backend
        .engine()
        .resolve_conflict(&note_id, &tab_id, choice)
        .await?)
}

/// Without `confirm`, refuses with `would_discard_drafts`, as `apply_ops` does with
/// `DraftPolicy::Refuse`: the UI asks the person, then calls again with `confirm: true`.
#[tauri::command]
pub async fn discard_draft(
    backend: State<'_, BackendReady>,
    note_id: String,
    tab_id: String,
    confirm: bool,
) -> Result<TabStatus> {
    let backend = backend.wait().await?;
    let (note_id, tab_id) = (self::note_id(&note_id)?, self::tab_id(&tab_id)?);
    if !confirm {
        return Err(EngineError::WouldDiscardDrafts {
            tab_ids: vec![tab_id],
        }
        .into());
    }
    Ok(backend.engine().discard_draft(&note_id, &tab_id).await?)
}

#[tauri::command]
pub async fn apply_ops(
    backend: State<'_, BackendReady>,
    note_id: String,
    ops: Value,
    policy: Option<Value>,
) -> Result<WriteOutcome> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    let ops: Vec<Op> = parse("ops", ops)?;
    if ops.is_empty() {
        return Err(invalid("ops: at least one operation".to_owned()));
    }
    let policy: DraftPolicy = match policy {
        Some(p) if !p.is_null() => parse("policy", p)?,
        _ => DraftPolicy::Refuse,
    };
    Ok(backend.apply_ops(&note_id, ops, policy).await?)
}

// ---- versions ---------------------------------------------------------------------------

/// The Note's history, oldest first; with `limit`, one page: the newest `limit` versions
/// before `before`.
#[tauri::command]
pub async fn history(
    backend: State<'_, BackendReady>,
    note_id: String,
    before: Option<Value>,
    limit: Option<usize>,
) -> Result<Vec<VersionInfo>> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    let engine = backend.engine();
    Ok(match limit {
        None => engine.history(&note_id).await?,
        Some(limit) => {
            let before = before
                .map(|v| match v.as_u64() {
                    Some(n) if n > 0 => Ok(Version(n)),
                    _ => Err(invalid(format!(
                        "before: expected a version number, got {v}"
                    ))),
                })
                .transpose()?;
            engine.history_page(&note_id, before, limit).await?
        }
    })
}

#[tauri::command]
pub async fn version_at(
    backend: State<'_, BackendReady>,
    note_id: String,
    version: Value,
) -> Result<Note> {
    let backend = backend.wait().await?;
    let (note_id, version) = (self::note_id(&note_id)?, self::version(version)?);
    Ok(backend.engine().version(&note_id, version).await?)
}

#[tauri::command]
pub async fn restore(
    backend: State<'_, BackendReady>,
    note_id: String,
    version: Value,
) -> Result<WriteOutcome> {
    let backend = backend.wait().await?;
    let (note_id, version) = (self::note_id(&note_id)?, self::version(version)?);
    Ok(backend.restore(&note_id, version).await?)
}

/// Takes back what one version changed ("Undo this change"): a guarded write; a clash with
/// later writes is `revert_conflict`, naming the tabs, with nothing written.
#[tauri::command]
pub async fn revert(
    backend: State<'_, BackendReady>,
    note_id: String,
    version: Value,
) -> Result<WriteOutcome> {
    let backend = backend.wait().await?;
    let (note_id, version) = (self::note_id(&note_id)?, self::version(version)?);
    Ok(backend.revert(&note_id, version).await?)
}

// ---- the trash --------------------------------------------------------------------------

/// Moves the Note into the trash (its waiting saves go out first); the Undo toast calls
/// [`undelete_note`].
#[tauri::command]
pub async fn delete_note(backend: State<'_, BackendReady>, note_id: String) -> Result<TrashedNote> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().trash_note(&note_id).await?)
}

/// Brings the Note back out of the trash, with its history.
#[tauri::command]
pub async fn undelete_note(
    backend: State<'_, BackendReady>,
    note_id: String,
) -> Result<WriteResult> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().undelete_note(&note_id).await?)
}

/// The Notes in the trash, most recently trashed first.
#[tauri::command]
pub async fn list_trash(backend: State<'_, BackendReady>) -> Result<Vec<NoteSummary>> {
    let backend = backend.wait().await?;
    Ok(backend.engine().list_trash().await?)
}

/// Erases the Notes in the trash for good (`DELETE /trash`); their IDs.
#[tauri::command]
pub async fn empty_trash(backend: State<'_, BackendReady>) -> Result<Vec<NoteId>> {
    let backend = backend.wait().await?;
    Ok(backend.engine().empty_trash().await?)
}

// ---- drafts -----------------------------------------------------------------------------

#[tauri::command]
pub async fn drafts(backend: State<'_, BackendReady>) -> Result<Vec<LedgerEntry>> {
    let backend = backend.wait().await?;
    Ok(backend.engine().drafts()?)
}

#[tauri::command]
pub async fn archived(
    backend: State<'_, BackendReady>,
    note_id: String,
) -> Result<Vec<ArchivedDraft>> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    Ok(backend.engine().archived(&note_id)?)
}

// ---- files and links --------------------------------------------------------------------
//
// No command takes a path from the window: a file is read only where the person picked it in
// the system's open dialog or dropped it on the window, and written only where they picked in
// the save dialog, both run here. A page that went wrong (a script injected into a Note's
// preview, say) can at most open a dialog.

/// The open dialog's title (tests find the dialog by it).
pub const ATTACH_DIALOG_TITLE: &str = "Attach a file";
/// The save dialog's title.
pub const SAVE_DIALOG_TITLE: &str = "Save a copy";

/// What a dialog answers: the path picked, or `None` when cancelled.
type DialogAnswer = Box<dyn FnOnce(Option<tauri_plugin_dialog::FilePath>) + Send>;

/// Shows a dialog (`show` starts it, handing it the callback that takes its answer) and waits
/// for the person: the path they picked, `None` when they cancel. `what` names the dialog in
/// errors ("file", "save", "folder").
async fn dialog_answer(what: &str, show: impl FnOnce(DialogAnswer)) -> Result<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let gone = format!("the {what} dialog's caller is gone");
    show(Box::new(move |path| {
        if tx.send(path).is_err() {
            tracing::debug!("{gone}");
        }
    }));
    let picked = rx
        .await
        .map_err(|_| CommandError::new(ErrorCode::Internal, format!("the {what} dialog closed")))?;
    picked
        .map(|p| {
            p.into_path()
                .map_err(|e| CommandError::new(ErrorCode::Io, e.to_string()))
        })
        .transpose()
}

/// Runs the system's open-file dialog (the person picks); `None` when cancelled.
async fn pick_file<R: Runtime>(app: &AppHandle<R>) -> Result<Option<PathBuf>> {
    dialog_answer("file", |answer| {
        app.dialog()
            .file()
            .set_title(ATTACH_DIALOG_TITLE)
            .pick_file(answer)
    })
    .await
}

/// Runs the system's save dialog, suggesting `name`; `None` when cancelled.
async fn pick_destination<R: Runtime>(app: &AppHandle<R>, name: String) -> Result<Option<PathBuf>> {
    dialog_answer("save", |answer| {
        app.dialog()
            .file()
            .set_title(SAVE_DIALOG_TITLE)
            .set_file_name(name)
            .save_file(answer)
    })
    .await
}

/// Attaches the file the person picks in the open dialog; `None` if they cancel.
#[tauri::command]
pub async fn attach_file<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    note_id: String,
) -> Result<Option<AttachedFile>> {
    let note_id = self::note_id(&note_id)?;
    let backend = backend.wait().await?;
    let Some(path) = pick_file(&app).await? else {
        return Ok(None);
    };
    Ok(Some(backend.attach_file(&note_id, &path).await?))
}

/// Attaches an image pasted or dropped into the Markdown editor: the raw body is its bytes, the
/// headers `quire-note-id` and `quire-file-name` (percent-encoded) say where and what.
#[tauri::command]
pub async fn attach_image(
    backend: State<'_, BackendReady>,
    request: tauri::ipc::Request<'_>,
) -> Result<AttachedFile> {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                url::form_urlencoded::parse(format!("v={v}").as_bytes())
                    .map(|(_, v)| v.into_owned())
                    .next()
                    .unwrap_or_default()
            })
    };
    let note_id = self::note_id(&header("quire-note-id").unwrap_or_default())?;
    let name = header("quire-file-name").unwrap_or_default();
    let tauri::ipc::InvokeBody::Raw(bytes) = request.body() else {
        return Err(invalid(
            "image: expected the image's bytes as the body".to_owned(),
        ));
    };
    let bytes = bytes.clone();
    let backend = backend.wait().await?;
    Ok(backend.attach_image(&note_id, &name, bytes).await?)
}

/// The content of an attached image, for the Markdown preview (raw bytes).
#[tauri::command]
pub async fn image_content(
    backend: State<'_, BackendReady>,
    note_id: String,
    file_id: String,
) -> Result<tauri::ipc::Response> {
    let note_id = self::note_id(&note_id)?;
    let backend = backend.wait().await?;
    Ok(tauri::ipc::Response::new(
        backend.image_bytes(&note_id, &file_id).await?,
    ))
}

/// Attaches the files of drop `drop_id` (announced by the [`FILES_DROPPED`](crate::FILES_DROPPED)
/// event), in order; a drop is attached once. Stops at the first file that fails.
#[tauri::command]
pub async fn attach_dropped(
    backend: State<'_, BackendReady>,
    drops: State<'_, Drops>,
    note_id: String,
    drop_id: Value,
) -> Result<Vec<AttachedFile>> {
    let note_id = self::note_id(&note_id)?;
    let drop_id = drop_id
        .as_u64()
        .ok_or_else(|| invalid(format!("drop_id: expected a drop number, got {drop_id}")))?;
    let backend = backend.wait().await?;
    let paths = drops.take(drop_id).ok_or_else(|| {
        CommandError::new(
            ErrorCode::NotFound,
            format!("drop_id: no files dropped as {drop_id} (each drop is attached once)"),
        )
    })?;
    let mut attached = Vec::with_capacity(paths.len());
    for path in paths {
        attached.push(backend.attach_file(&note_id, &path).await?);
    }
    Ok(attached)
}

#[tauri::command]
pub async fn open_file<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    note_id: String,
    file_id: String,
) -> Result<()> {
    let backend = backend.wait().await?;
    let note_id = self::note_id(&note_id)?;
    let path = backend.file_to_open(&note_id, &file_id)?;
    app.opener()
        .open_path(path.display().to_string(), None::<&str>)
        .map_err(|e| CommandError::new(ErrorCode::Io, format!("cannot open the file: {e}")))
}

/// Saves a copy where the person picks in the save dialog; returns that path, or `None` if
/// they cancel.
#[tauri::command]
pub async fn save_file_copy<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    note_id: String,
    file_id: String,
) -> Result<Option<String>> {
    let note_id = self::note_id(&note_id)?;
    let backend = backend.wait().await?;
    let name = backend.file_name(&note_id, &file_id)?;
    let Some(dest) = pick_destination(&app, name).await? else {
        return Ok(None);
    };
    backend.save_file_copy(&note_id, &file_id, &dest)?;
    Ok(Some(dest.display().to_string()))
}

// ---- export and import ------------------------------------------------------------------
//
// The folder is picked in the system's folder dialog, run here (the window names no path).
// Progress goes to the window as `TRANSFER_PROGRESS` events carrying the caller's `job`
// number; the summary is the command's answer (`None`: the dialog was cancelled).

/// The folder dialogs' titles (tests find the dialogs by them).
pub const EXPORT_NOTE_DIALOG_TITLE: &str = "Export Note to a folder";
pub const EXPORT_ALL_DIALOG_TITLE: &str = "Export all Notes to a folder";
pub const IMPORT_DIALOG_TITLE: &str = "Import a folder";

/// How often progress events go out at most (the first and last always do).
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// How far a transfer is, as the window receives it (`transfer-progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TransferProgress {
    /// The number the window gave the command.
    #[cfg_attr(test, ts(type = "number"))]
    pub job: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub done: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub total: u64,
}

/// Runs the system's folder dialog titled `title`; `None` when cancelled.
async fn pick_folder<R: Runtime>(app: &AppHandle<R>, title: &str) -> Result<Option<PathBuf>> {
    dialog_answer("folder", |answer| {
        app.dialog().file().set_title(title).pick_folder(answer)
    })
    .await
}

fn job(value: &Value) -> Result<u64> {
    value
        .as_u64()
        .ok_or_else(|| invalid(format!("job: expected a job number, got {value}")))
}

/// Emits `job`'s progress to the window, throttled.
fn progress_events<R: Runtime>(
    app: &AppHandle<R>,
    job: u64,
) -> impl FnMut(quire_server::transfer::Progress) + Send + use<R> {
    let app = app.clone();
    quire_server::transfer::throttled(PROGRESS_EVERY, move |p| {
        let event = TransferProgress {
            job,
            done: p.done as u64,
            total: p.total as u64,
        };
        if let Err(e) = app.emit(crate::TRANSFER_PROGRESS, event) {
            tracing::warn!(error = %e, "cannot emit transfer progress");
        }
    })
}

/// Export Note…: the Note's folder under the folder the person picks.
#[tauri::command]
pub async fn export_note<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    note_id: String,
    job: Value,
) -> Result<Option<TransferSummary>> {
    let (note_id, job) = (self::note_id(&note_id)?, self::job(&job)?);
    let backend = backend.wait().await?;
    backend.transfer_store().await?;
    let Some(out) = pick_folder(&app, EXPORT_NOTE_DIALOG_TITLE).await? else {
        return Ok(None);
    };
    let progress = progress_events(&app, job);
    Ok(Some(
        backend.export_notes(&[note_id], &out, progress).await?,
    ))
}

/// Export all Notes…: a folder per Note (the trash's left out) under the folder picked.
#[tauri::command]
pub async fn export_all_notes<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    job: Value,
) -> Result<Option<TransferSummary>> {
    let job = self::job(&job)?;
    let backend = backend.wait().await?;
    backend.transfer_store().await?;
    let Some(out) = pick_folder(&app, EXPORT_ALL_DIALOG_TITLE).await? else {
        return Ok(None);
    };
    let progress = progress_events(&app, job);
    Ok(Some(backend.export_notes(&[], &out, progress).await?))
}

/// Import…: the folder picked (a Quire export, or Markdown files with a `.csv` beside a note
/// as its Sheet) as new Notes; the summary lists what was skipped and why.
#[tauri::command]
pub async fn import_notes<R: Runtime>(
    app: AppHandle<R>,
    backend: State<'_, BackendReady>,
    job: Value,
) -> Result<Option<TransferSummary>> {
    let job = self::job(&job)?;
    let backend = backend.wait().await?;
    backend.transfer_store().await?;
    let Some(dir) = pick_folder(&app, IMPORT_DIALOG_TITLE).await? else {
        return Ok(None);
    };
    let progress = progress_events(&app, job);
    Ok(Some(backend.import_folder(&dir, progress).await?))
}

// ---- decks and Notes leaving the app -----------------------------------------------------
//
// The window makes the file's content (a PowerPoint file's bytes, or the print view it shows
// to the webview's print engine); the destination is picked here in the save dialog, as for a
// file's copy, so the window still names no path.

/// The save dialogs' titles (tests find the dialogs by them).
pub const EXPORT_PDF_DIALOG_TITLE: &str = "Export PDF";
pub const EXPORT_PPTX_DIALOG_TITLE: &str = "Export PowerPoint";

/// Runs the save dialog titled `title`, suggesting `name`, offering files ending `.extension`;
/// `None` when cancelled. A name picked without the extension gets it.
async fn pick_export<R: Runtime>(
    app: &AppHandle<R>,
    title: &str,
    name: String,
    (filter, extension): (&str, &str),
) -> Result<Option<PathBuf>> {
    let picked = dialog_answer("save", |answer| {
        app.dialog()
            .file()
            .set_title(title)
            .set_file_name(name)
            .add_filter(filter, &[extension])
            .save_file(answer)
    })
    .await?;
    Ok(picked.map(|p| {
        if p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case(extension))
        {
            p
        } else {
            let mut name = p.into_os_string();
            name.push(format!(".{extension}"));
            PathBuf::from(name)
        }
    }))
}

/// A suggested file name from the window: its last path component only.
fn file_name(value: &str, extension: &str) -> String {
    let name = value.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    if name.is_empty() || name.starts_with('.') {
        format!("Untitled.{extension}")
    } else {
        name.to_owned()
    }
}

/// Export PowerPoint…: writes the file the window made (pptxgenjs) where the person picks;
/// returns that path, or `None` if they cancel.
#[tauri::command]
pub async fn export_pptx<R: Runtime>(
    app: AppHandle<R>,
    file_name: String,
    bytes: Value,
) -> Result<Option<String>> {
    let bytes: Vec<u8> = parse("bytes", bytes)?;
    let name = self::file_name(&file_name, "pptx");
    let Some(dest) =
        pick_export(&app, EXPORT_PPTX_DIALOG_TITLE, name, ("PowerPoint", "pptx")).await?
    else {
        return Ok(None);
    };
    std::fs::write(&dest, bytes).map_err(|e| {
        CommandError::new(
            ErrorCode::Io,
            format!("cannot write {}: {e}", dest.display()),
        )
    })?;
    Ok(Some(dest.display().to_string()))
}

/// Export PDF…: the webview prints what its print stylesheet shows (the print view the window
/// laid out: a deck's slides or a Note) to a PDF file where the person picks, on pages of
/// `width_mm` × `height_mm` with `margin_mm` on every side (GTK's page setup decides them:
/// WebKitGTK does not read `@page`). Returns that path, or `None` if they cancel.
#[tauri::command]
pub async fn export_pdf<R: Runtime>(
    app: AppHandle<R>,
    webview: tauri::Webview<R>,
    file_name: String,
    width_mm: Value,
    height_mm: Value,
    margin_mm: Value,
) -> Result<Option<String>> {
    let page = page_of(&width_mm, &height_mm, &margin_mm)?;
    let name = self::file_name(&file_name, "pdf");
    let Some(dest) = pick_export(&app, EXPORT_PDF_DIALOG_TITLE, name, ("PDF", "pdf")).await? else {
        return Ok(None);
    };
    crate::print::to_pdf(&webview, &dest, page)
        .await
        .map_err(|e| CommandError::new(ErrorCode::Io, e.to_string()))?;
    Ok(Some(dest.display().to_string()))
}

/// Print…: the system's print dialog over the window, for what the webview's print stylesheet
/// shows (the print view the window laid out), the page offered as in Export PDF…. Returns
/// whether the person printed (false: cancelled).
#[tauri::command]
pub async fn print_page<R: Runtime>(
    webview: tauri::Webview<R>,
    width_mm: Value,
    height_mm: Value,
    margin_mm: Value,
) -> Result<bool> {
    let page = page_of(&width_mm, &height_mm, &margin_mm)?;
    crate::print::with_dialog(&webview, page)
        .await
        .map_err(|e| CommandError::new(ErrorCode::Io, e.to_string()))
}

/// A printed page from the window's words: sides from 10 to 2000 mm, a margin from 0 to 50 mm,
/// each refused by name.
fn page_of(width_mm: &Value, height_mm: &Value, margin_mm: &Value) -> Result<crate::print::Page> {
    Ok(crate::print::Page {
        width_mm: page_length("widthMm", width_mm)?,
        height_mm: page_length("heightMm", height_mm)?,
        margin_mm: margin_mm
            .as_f64()
            .filter(|m| (0.0..=50.0).contains(m))
            .ok_or_else(|| {
                invalid(format!(
                    "marginMm: expected millimetres from 0 to 50, got {margin_mm}"
                ))
            })?,
    })
}

/// A page's side in millimetres: a number from 10 to 2000.
fn page_length(field: &str, value: &Value) -> Result<f64> {
    value
        .as_f64()
        .filter(|v| (10.0..=2000.0).contains(v))
        .ok_or_else(|| {
            invalid(format!(
                "{field}: expected millimetres from 10 to 2000, got {value}"
            ))
        })
}

/// Opens an http(s) URL in the system browser; anything else is refused.
#[tauri::command]
pub async fn open_url<R: Runtime>(app: AppHandle<R>, url: String) -> Result<()> {
    let parsed = web_url(&url)?;
    app.opener()
        .open_url(parsed.as_str(), None::<&str>)
        .map_err(|e| CommandError::new(ErrorCode::Io, format!("cannot open the browser: {e}")))
}

fn web_url(url: &str) -> Result<url::Url> {
    let parsed = url::Url::parse(url.trim()).map_err(|e| invalid(format!("url: {url:?}: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "url: only http and https links open in the browser, not {:?}",
            parsed.scheme()
        )));
    }
    Ok(parsed)
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
