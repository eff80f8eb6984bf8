//! The commands through Tauri's IPC on the mock runtime (no display), against the real embedded
//! server on port 0 with its SQLite file in a temporary data directory.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;
use tauri::{Listener, WebviewWindow, WebviewWindowBuilder};

use quire_model::{NoteId, TabId, Version};

use super::*;
use crate::Options;

const LAUNCH_MS: u64 = 1_700_000_000_000;
const WAIT: Duration = Duration::from_secs(20);

/// One app on the mock runtime with its main window, and every `engine-event` it emitted.
struct Fixture {
    app: tauri::App<MockRuntime>,
    window: WebviewWindow<MockRuntime>,
    events: mpsc::Receiver<Value>,
}

impl Fixture {
    fn start(data_dir: &Path) -> Self {
        let launch = Launch::at(UNIX_EPOCH + Duration::from_millis(LAUNCH_MS));
        let options = Options {
            data_dir: Some(data_dir.to_owned()),
            embedded_port: Some(0),
        };
        let mut app = crate::app(mock_builder(), launch, options.clone())
            .build(mock_context(noop_assets()))
            .expect("build the app on the mock runtime");
        crate::settle_dirs(&app, &options).expect("the app's directories");
        // The first iteration runs the app's setup: the embedded server and the engine start.
        #[allow(deprecated)] // no loop here: one iteration, to run the setup
        app.run_iteration(|_, _| {});
        let (tx, events) = mpsc::channel();
        app.listen(crate::ENGINE_EVENT, move |event| {
            let payload: Value = serde_json::from_str(event.payload()).unwrap();
            // The receiver lives as long as the fixture; later sends go nowhere.
            tx.send(payload).ok();
        });
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("open a mock window");
        Fixture {
            app,
            window,
            events,
        }
    }

    /// The app as built for real: its ACL (build.rs's command manifest and
    /// `capabilities/main.json`) and its configured "main" window.
    fn start_with_real_acl(data_dir: &Path) -> Self {
        use tauri::Manager;
        let launch = Launch::at(UNIX_EPOCH + Duration::from_millis(LAUNCH_MS));
        let options = Options {
            data_dir: Some(data_dir.to_owned()),
            embedded_port: Some(0),
        };
        let mut app = crate::app(mock_builder(), launch, options.clone())
            .build(tauri::generate_context!("../tauri.conf.json"))
            .expect("build the app with its real context on the mock runtime");
        crate::settle_dirs(&app, &options).expect("the app's directories");
        #[allow(deprecated)] // no loop here: one iteration, to run the setup
        app.run_iteration(|_, _| {});
        let (_, events) = mpsc::channel();
        let window = app
            .get_webview_window("main")
            .expect("the configured main window");
        Fixture {
            app,
            window,
            events,
        }
    }

    fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        let request = InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            // On Linux the IPC origin of the app's own pages is tauri://localhost.
            url: "tauri://localhost".parse().expect("a valid URL"),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: tauri::test::INVOKE_KEY.to_string(),
        };
        get_ipc_response(&self.window, request)
            .map(|body| body.deserialize::<Value>().expect("a JSON response"))
    }

    fn ok(&self, cmd: &str, args: Value) -> Value {
        self.invoke(cmd, args.clone())
            .unwrap_or_else(|e| panic!("{cmd}({args}) failed: {e}"))
    }

    fn err(&self, cmd: &str, args: Value) -> Value {
        match self.invoke(cmd, args.clone()) {
            Ok(v) => panic!("{cmd}({args}) should fail, returned {v}"),
            Err(e) => e,
        }
    }

    /// The first engine event (from now on) that `pred` accepts.
    fn wait_event(&self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) if pred(&event) => return event,
                Ok(event) => eprintln!("{what}: skipping {event}"),
                Err(_) => panic!("no engine event for {what} within {WAIT:?}"),
            }
        }
    }

    /// As if the person dropped `paths` on the window; the drop's number.
    fn drop(&self, paths: Vec<std::path::PathBuf>) -> u64 {
        use tauri::Manager;
        self.app
            .state::<crate::drops::Drops>()
            .record(paths)
            .drop_id
    }

    fn create_note(&self, title: &str) -> String {
        let view = self.ok("create_note", json!({"title": title}));
        view["note_id"].as_str().unwrap().to_owned()
    }

    fn stop(self) {
        crate::shutdown(self.app.handle());
    }
}

fn tab_state(status: &Value, tab: &str) -> String {
    status["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tab_id"] == tab)
        .map(|t| t["state"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("no tab {tab} in {status}"))
}

#[test]
fn app_info_names_the_package() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let info = app.ok("app_info", json!({}));
    // mock_context() describes a package named "test" at version 0.1.0.
    let logs = dir.path().join("logs").display().to_string();
    assert_eq!(
        info,
        json!({"name": "test", "version": "0.1.0", "log_dir": logs})
    );
    app.stop();
}

/// "Open logs folder" names the folder it cannot open (here: nothing logged, so no folder).
/// Opening one that exists is the e2e scenario about_and_logs (a real file manager launch).
#[test]
fn open_logs_folder_refuses_a_folder_that_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let error = app.err("open_logs_folder", json!({}));
    assert_eq!(error["code"], "not_found", "{error}");
    let logs = dir.path().join("logs").display().to_string();
    assert!(
        error["message"].as_str().unwrap().contains(&logs),
        "{error}"
    );
    app.stop();
}

/// The setup hook does not wait for the backend (the window loads meanwhile): a command sent
/// at once waits for it; a backend that cannot start is an error every such command returns,
/// while the commands that need no backend still answer.
#[test]
fn commands_wait_for_the_backend_and_report_why_it_did_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    assert_eq!(app.ok("list_notes", json!({})), json!([]));
    app.stop();

    // The data directory is a file: the backend cannot start.
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, b"x").unwrap();
    let app = Fixture::start(&file);
    let info = app.ok("app_info", json!({}));
    assert_eq!(info["name"], "test");
    for cmd in ["list_notes", "get_settings", "drafts"] {
        let error = app.err(cmd, json!({}));
        assert_eq!(error["code"], "io", "{cmd}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("the app could not start: ") && message.contains("not-a-directory"),
            "{cmd}: {message}"
        );
    }
    app.stop();
}

#[test]
fn first_paint_is_measured_from_launch() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let launch = LAUNCH_MS as f64;
    let args = json!({
        "navigationStartedAtUnixMs": launch + 100.0,
        "mountedAtUnixMs": launch + 180.0,
        "paintedAtUnixMs": launch + 250.0,
    });
    let paint = app.ok("report_first_paint", args);
    assert_eq!(
        paint,
        json!({
            "painted_at_unix_ms": launch + 250.0,
            "since_launch_ms": 250.0,
            "navigation_since_launch_ms": 100.0,
            "mounted_since_launch_ms": 180.0,
        })
    );
    let error = app.err(
        "report_first_paint",
        json!({"navigationStartedAtUnixMs": 1.0, "mountedAtUnixMs": 2.0, "paintedAtUnixMs": -1.0}),
    );
    assert_eq!(error["code"], "invalid_argument");
    app.stop();
}

#[test]
fn a_new_note_edited_is_saved_as_the_next_version() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let view = app.ok("create_note", json!({"title": "Plan"}));
    assert_eq!(view["title"], "Plan");
    assert_eq!(view["version"], 1);
    let ids: Vec<&str> = view["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["markdown", "files", "sources"]);
    let note = view["note_id"].as_str().unwrap();

    let status = app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "# Plan\n\nShip it.\n"}),
    );
    assert_eq!(status["state"], "dirty", "saved after the debounce");
    app.ok("flush", json!({"noteId": note}));
    let saved = app.wait_event("the save", |e| {
        e["kind"] == "saved" && e["note_id"] == note && e["tab_id"] == "markdown"
    });
    assert_eq!(saved["version"], 2);

    let status = app.ok("note_status", json!({"noteId": note}));
    assert_eq!(status["guard"], 2);
    assert_eq!(tab_state(&status, "markdown"), "saved");
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(tab["data"], "# Plan\n\nShip it.\n");
    assert_eq!(tab["type"], "markdown");

    // The server has it, authored by the person's token.
    let settings = app.ok("get_settings", json!({}));
    let history = app.ok("history", json!({"noteId": note}));
    let last = history.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["version"], 2);
    assert_eq!(last["author"], settings["person_name"]);
    let listed = app.ok("list_notes", json!({}));
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["id"] == note && n["version"] == 2),
        "{listed}"
    );
    assert_eq!(app.ok("drafts", json!({})), json!([]), "nothing unsynced");
    app.stop();
}

/// `hand_over` takes the whole content or a change on the text it took last (named by the token
/// it returned); a change on an older one is refused as `change_refused`, and a call with both
/// or neither is an invalid argument naming them.
#[test]
fn hand_over_takes_a_text_then_its_changes() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.ok("create_note", json!({"title": "Log"}))["note_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let whole = app.ok(
        "hand_over",
        json!({"noteId": note, "tabId": "markdown", "content": "# Log\n", "change": null, "baseVersion": 1}),
    );
    assert_eq!(whole["status"]["tab_id"], "markdown");
    let token = whole["token"].as_u64().unwrap();
    let change = |after: u64, at: usize, insert: &str| {
        json!({"noteId": note, "tabId": "markdown", "content": null, "baseVersion": 1,
               "change": {"after": after, "at": at, "removed": 0, "insert": insert}})
    };
    let next = app.ok("hand_over", change(token, 6, "first line\n"));
    let refused = app.err("hand_over", change(token, 0, "stale"));
    assert_eq!(refused["code"], "change_refused", "{refused}");
    app.ok(
        "hand_over",
        change(next["token"].as_u64().unwrap(), 0, "A "),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the save", |e| e["kind"] == "saved" && e["note_id"] == note);
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(tab["data"], "A # Log\nfirst line\n");

    for args in [
        json!({"noteId": note, "tabId": "markdown", "content": "x",
               "change": {"after": 0, "at": 0, "removed": 0, "insert": ""}}),
        json!({"noteId": note, "tabId": "markdown", "content": null, "change": null}),
    ] {
        let e = app.err("hand_over", args);
        assert_eq!(e["code"], "invalid_argument", "{e}");
        assert!(
            e["message"].as_str().unwrap().contains("content, change"),
            "{e}"
        );
    }
    app.stop();
}

/// Delete Note moves the Note to the trash (the list leaves it out, the trash lists it), the
/// Undo toast's undelete brings it back, and Empty trash erases it for good.
#[test]
fn a_deleted_note_goes_to_the_trash_comes_back_and_is_erased_by_empty_trash() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Doomed");
    let kept = app.create_note("Kept");
    let ids = |listed: Value| -> Vec<String> {
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_owned())
            .collect()
    };

    let trashed = app.ok("delete_note", json!({"noteId": note}));
    assert_eq!(trashed["id"], note.as_str());
    assert_eq!(trashed["version"], 2);
    assert!(trashed["deleted_at"].is_string(), "{trashed}");
    assert_eq!(ids(app.ok("list_notes", json!({}))), vec![kept.clone()]);
    let trash = app.ok("list_trash", json!({}));
    assert_eq!(ids(trash.clone()), vec![note.clone()]);
    assert_eq!(trash[0]["deleted_at"], trashed["deleted_at"]);
    let again = app.err("delete_note", json!({"noteId": note}));
    assert_eq!(again["code"], "note_in_trash", "{again}");

    let back = app.ok("undelete_note", json!({"noteId": note}));
    assert_eq!(back["version"], 3);
    assert_eq!(ids(app.ok("list_trash", json!({}))), Vec::<String>::new());
    assert_eq!(app.ok("list_notes", json!({})).as_array().unwrap().len(), 2);
    let history = app.ok("history", json!({"noteId": note}));
    let summaries: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["summary"].as_str().unwrap())
        .collect();
    assert_eq!(
        summaries,
        ["created", "moved to trash", "restored from trash"]
    );

    app.ok("delete_note", json!({"noteId": note}));
    assert_eq!(app.ok("empty_trash", json!({})), json!([note]));
    assert_eq!(ids(app.ok("list_trash", json!({}))), Vec::<String>::new());
    assert_eq!(ids(app.ok("list_notes", json!({}))), [kept]);
    let bad = app.err("delete_note", json!({"noteId": "not-an-id"}));
    assert_eq!(bad["code"], "invalid_argument", "{bad}");
    app.stop();
}

#[test]
fn an_unknown_tab_is_tab_gone_with_the_tabs_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Tabs");
    let error = app.err(
        "tab_view",
        json!({"noteId": note, "tabId": "sheet-9-mh8z1k2a"}),
    );
    assert_eq!(error["code"], "tab_gone");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("sheet-9-mh8z1k2a"),
        "{error}"
    );
    let tabs: Vec<&str> = error["tabs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(tabs, ["markdown", "files", "sources"]);

    let error = app.err(
        "edit_tab",
        json!({"noteId": note, "tabId": "slides-3-zz", "content": {"slides": []}}),
    );
    assert_eq!(error["code"], "tab_gone");
    let error = app.err(
        "apply_ops",
        json!({"noteId": note, "ops": [{"op": "rename_tab", "tab_id": "sheet-1-x", "label": "A"}]}),
    );
    assert_eq!(error["code"], "tab_gone");
    app.stop();
}

#[test]
fn errors_cross_as_code_and_message() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Errors");
    let dropped_dir = app.drop(vec![dir.path().to_owned()]);
    let cases = [
        (
            "open_note",
            json!({"noteId": "note-1"}),
            "invalid_argument",
            "note_id:",
        ),
        (
            "open_note",
            json!({"noteId": note, "showing": ["markdown", " "]}),
            "invalid_argument",
            "showing:",
        ),
        (
            "sheet_rows",
            json!({"noteId": note, "tabId": "markdown", "sheetId": "s1", "start": 0, "count": 10}),
            "not_a_sheet",
            "tab_id:",
        ),
        (
            "text_part",
            json!({"noteId": note, "tabId": "sources", "start": 0, "maxBytes": 10}),
            "not_a_text",
            "tab_id:",
        ),
        (
            "note_status",
            json!({"noteId": "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"}),
            "note_not_open",
            "not open",
        ),
        (
            "open_note",
            json!({"noteId": "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"}),
            "note_not_found",
            "",
        ),
        (
            "apply_ops",
            json!({"noteId": note, "ops": [{"op": "explode"}]}),
            "invalid_argument",
            "ops:",
        ),
        (
            "apply_ops",
            json!({"noteId": note, "ops": []}),
            "invalid_argument",
            "ops:",
        ),
        (
            "apply_ops",
            json!({"noteId": note, "ops": [{"op": "delete_tab", "tab_id": "markdown"}]}),
            "invalid_op",
            "",
        ),
        (
            "apply_ops",
            json!({"noteId": note, "ops": [{"op": "set_title", "title": "x"}], "policy": "maybe"}),
            "invalid_argument",
            "policy:",
        ),
        (
            "edit_tab",
            json!({"noteId": note, "tabId": "markdown", "content": {"not": "text"}}),
            "invalid_content",
            "content:",
        ),
        (
            "edit_tab",
            json!({"noteId": note, "tabId": "sources", "content": []}),
            "invalid_content",
            "content:",
        ),
        (
            "discard_draft",
            json!({"noteId": note, "tabId": "markdown", "confirm": false}),
            "would_discard_drafts",
            "markdown",
        ),
        (
            "resolve_conflict",
            json!({"noteId": note, "tabId": "markdown", "choice": {"choice": "keep_mine"}}),
            "no_conflict",
            "",
        ),
        (
            "resolve_conflict",
            json!({"noteId": note, "tabId": "markdown", "choice": {"choice": "whatever"}}),
            "invalid_argument",
            "choice:",
        ),
        (
            "preview_conflict_resolution",
            json!({"noteId": note, "tabId": "markdown", "picks": []}),
            "no_conflict",
            "",
        ),
        (
            "preview_conflict_resolution",
            json!({"noteId": note, "tabId": "markdown", "picks": [{"pick": "whatever"}]}),
            "invalid_argument",
            "picks:",
        ),
        (
            "restore",
            json!({"noteId": note, "version": -1}),
            "invalid_argument",
            "version:",
        ),
        (
            "version_at",
            json!({"noteId": note, "version": 99}),
            "version_not_found",
            "",
        ),
        (
            "create_agent_token",
            json!({"name": "  ", "scopes": ["notes:read"]}),
            "invalid_argument",
            "name:",
        ),
        (
            "create_agent_token",
            json!({"name": "claude", "scopes": ["notes:admin"]}),
            "invalid_argument",
            "scopes[0]:",
        ),
        (
            "create_agent_token",
            json!({"name": "claude", "scopes": []}),
            "invalid_argument",
            "scopes:",
        ),
        (
            "open_url",
            json!({"url": "file:///etc/passwd"}),
            "invalid_argument",
            "url:",
        ),
        (
            "set_remote_server",
            json!({"url": "ftp://example.org", "token": "qk_x"}),
            "invalid_argument",
            "url:",
        ),
        (
            "set_remote_server",
            json!({"url": "http://127.0.0.1:9", "token": " "}),
            "invalid_argument",
            "token:",
        ),
        (
            "attach_dropped",
            json!({"noteId": note, "dropId": dropped_dir}),
            "invalid_argument",
            "path:",
        ),
        (
            "attach_dropped",
            json!({"noteId": note, "dropId": dropped_dir}),
            "not_found",
            "drop_id:",
        ),
        (
            "attach_dropped",
            json!({"noteId": note, "dropId": "1"}),
            "invalid_argument",
            "drop_id:",
        ),
        (
            "attach_file",
            json!({"noteId": "note-1"}),
            "invalid_argument",
            "note_id:",
        ),
        (
            "save_file_copy",
            json!({"noteId": note, "fileId": "file-1-x"}),
            "not_found",
            "file_id:",
        ),
        (
            "open_file",
            json!({"noteId": note, "fileId": "file-1-x"}),
            "not_found",
            "file_id:",
        ),
    ];
    for (cmd, args, code, message) in cases {
        let error = app.err(cmd, args.clone());
        assert_eq!(
            error["code"], code,
            "{cmd}({args}) -> {error}: expected code {code}"
        );
        let text = error["message"].as_str().unwrap();
        assert!(
            text.contains(message),
            "{cmd}({args}): message {text:?} should contain {message:?}"
        );
        assert_eq!(
            error.as_object().unwrap().len(),
            2,
            "only code and message: {error}"
        );
    }
    // The refused writes wrote nothing.
    let view = app.ok("open_note", json!({"noteId": note}));
    assert_eq!(view["version"], 1);
    assert_eq!(view["title"], "Errors");
    app.stop();
}

/// `open_note` with `showing` leaves a large tab's data out (an outline instead), and
/// `sheet_rows` reads that sheet's rows in parts, as the window calls them.
#[test]
fn a_large_sheet_not_shown_is_read_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Large sheet");
    let created = app.ok(
        "apply_ops",
        json!({"noteId": note, "ops": [{"op": "create_tab", "tab_type": "sheet", "label": "Grid"}]}),
    );
    let sheet = created["result"]["outcomes"][0]["tab_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // 7,000 x 20 cells: past the 1 MiB (8 bytes a cell) a view carries for a tab not shown.
    let rows: Vec<Vec<u32>> = (0..7_000u32)
        .map(|r| (0..20).map(|c| r * 20 + c).collect())
        .collect();
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": sheet, "content": {"sheets": [{"id": "s1", "name": "Grid", "rows": rows}]}}),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the sheet's save", |e| {
        e["kind"] == "saved" && e["tab_id"] == sheet.as_str()
    });
    let view = app.ok(
        "open_note",
        json!({"noteId": note, "showing": ["markdown"]}),
    );
    let tab = |view: &Value, id: &str| {
        view["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(tab(&view, &sheet)["data"], Value::Null);
    assert_eq!(
        tab(&view, &sheet)["deferred"],
        json!({"sheets": [{"id": "s1", "name": "Grid", "rows": 7_000}]})
    );
    assert!(tab(&view, "markdown").get("deferred").is_none());
    let part = app.ok(
        "sheet_rows",
        json!({"noteId": note, "tabId": sheet, "sheetId": "s1", "start": 6_998, "count": 5}),
    );
    assert_eq!(part["total"], 7_000);
    assert_eq!(part["version"], view["version"]);
    assert_eq!(part["rows"], json!(rows[6_998..]));
    // Without `showing`, every tab's data, as before.
    let whole = app.ok("open_note", json!({"noteId": note}));
    assert_eq!(
        tab(&whole, &sheet)["data"]["sheets"][0]["rows"][6_999],
        json!(rows[6_999])
    );
    app.stop();
}

/// A long text comes `deferred` even when shown, and `text_part` reads it in parts, as the
/// window calls them.
#[test]
fn a_long_text_is_read_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Long text");
    let text = "Lorem ipsum dolor sit amet, \u{e9}t\u{e9}.\n".repeat(40_000);
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": text}),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the text's save", |e| {
        e["kind"] == "saved" && e["tab_id"] == "markdown"
    });
    let view = app.ok(
        "open_note",
        json!({"noteId": note, "showing": ["markdown"]}),
    );
    let markdown = &view["tabs"][0];
    assert_eq!(markdown["id"], "markdown");
    assert_eq!(markdown["data"], Value::Null);
    assert_eq!(markdown["deferred"], json!({"sheets": []}));
    let mut joined = String::new();
    let mut start = 0;
    loop {
        let part = app.ok(
            "text_part",
            json!({"noteId": note, "tabId": "markdown", "start": start, "maxBytes": 500_001}),
        );
        assert_eq!(part["version"], view["version"]);
        assert_eq!(part["total"], text.len());
        joined.push_str(part["text"].as_str().unwrap());
        start = part["next"].as_u64().unwrap() as usize;
        if start == text.len() {
            break;
        }
    }
    assert_eq!(joined, text);
    app.stop();
}

#[test]
fn structural_edits_address_tabs_by_id_and_versions_restore() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Deck and sheet");
    let created = app.ok(
        "apply_ops",
        json!({"noteId": note, "ops": [
            {"op": "create_tab", "tab_type": "sheet", "label": "Budget"},
            {"op": "create_tab", "tab_type": "slides", "label": "Budget"},
        ]}),
    );
    assert_eq!(created["status"], "committed");
    let outcomes = created["result"]["outcomes"].as_array().unwrap();
    let sheet = outcomes[0]["tab_id"].as_str().unwrap().to_owned();
    let slides = outcomes[1]["tab_id"].as_str().unwrap().to_owned();
    assert!(sheet.starts_with("sheet-") && slides.starts_with("slides-"));

    // Same label twice, then the deck moves first: edits still land by ID.
    app.ok(
        "apply_ops",
        json!({"noteId": note, "ops": [{"op": "move_tab", "tab_id": slides, "index": 0}]}),
    );
    let deck = json!({"theme": "ocean", "slides": [
        {"id": "s1", "title": "Why", "body": "", "notes": "", "layout": "title_only"}
    ]});
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": slides, "content": deck}),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the deck's save", |e| {
        e["kind"] == "saved" && e["tab_id"] == slides.as_str()
    });
    let view = app.ok("open_note", json!({"noteId": note}));
    let tabs = view["tabs"].as_array().unwrap();
    assert_eq!(tabs[0]["id"], slides.as_str());
    assert_eq!(tabs[0]["label"], "Budget");
    assert_eq!(tabs[0]["data"]["slides"][0]["title"], "Why");
    let sheet_tab = tabs.iter().find(|t| t["id"] == sheet.as_str()).unwrap();
    assert_eq!(sheet_tab["label"], "Budget");
    assert_eq!(sheet_tab["type"], "sheet");
    assert_ne!(sheet_tab["data"], tabs[0]["data"]);

    // Restore version 1 (before the new tabs): a new version equal to the old one.
    let version = view["version"].as_u64().unwrap();
    let restored = app.ok("restore", json!({"noteId": note, "version": 1}));
    assert_eq!(restored["status"], "committed");
    assert_eq!(restored["result"]["version"], version + 1);
    let old = app.ok("version_at", json!({"noteId": note, "version": 1}));
    assert_eq!(old["tabs"].as_array().unwrap().len(), 3);
    let error = app.err("tab_view", json!({"noteId": note, "tabId": sheet}));
    assert_eq!(
        error["code"], "tab_gone",
        "the sheet is gone after the restore"
    );
    let history = app.ok("history", json!({"noteId": note}));
    assert_eq!(
        history.as_array().unwrap().len() as u64,
        version + 1,
        "history kept"
    );

    let renamed = app.ok("rename_note", json!({"noteId": note, "title": "Renamed"}));
    assert_eq!(renamed["status"], "committed");
    app.ok("close_note", json!({"noteId": note}));
    let renamed = app.ok(
        "rename_note",
        json!({"noteId": note, "title": "From the list"}),
    );
    assert_eq!(
        renamed["status"], "committed",
        "a closed Note is renamed too"
    );
    let listed = app.ok("list_notes", json!({}));
    assert_eq!(listed[0]["title"], "From the list");
    app.stop();
}

/// "Undo this change": the command takes one version back and keeps the later change of
/// another line; a version whose line changed again is `revert_conflict`, naming the tab by
/// label, with nothing written.
#[test]
fn revert_takes_one_version_back_or_names_the_clashing_tab() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Undo");
    let save = |text: &str| {
        app.ok(
            "edit_tab",
            json!({"noteId": note, "tabId": "markdown", "content": text}),
        );
        app.ok("flush", json!({"noteId": note}));
        let saved = app.wait_event("the save", |e| {
            e["kind"] == "saved" && e["tab_id"] == "markdown"
        });
        saved["version"].as_u64().unwrap()
    };
    save("a\nb\nc");
    let changed_b = save("a\nB\nc");
    let changed_c = save("a\nB\nC");

    let undone = app.ok("revert", json!({"noteId": note, "version": changed_b}));
    assert_eq!(undone["status"], "committed");
    assert_eq!(undone["result"]["version"], changed_c + 1);
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(
        tab["data"], "a\nb\nC",
        "shown at once, the later change kept"
    );

    save("a\nb\nSee");
    let before = app.ok("history", json!({"noteId": note}));
    let error = app.err("revert", json!({"noteId": note, "version": changed_c}));
    assert_eq!(error["code"], "revert_conflict");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("\u{201c}Note\u{201d}"), "{message}");
    assert_eq!(
        error["tabs"],
        json!([{"id": "markdown", "type": "markdown", "label": "Note"}])
    );
    assert_eq!(
        app.ok("history", json!({"noteId": note})),
        before,
        "nothing written"
    );
    let error = app.err("revert", json!({"noteId": note, "version": 0}));
    assert_eq!(error["code"], "invalid_argument");
    app.stop();
}

#[test]
fn files_are_kept_by_sha256_and_recorded_as_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let app = Fixture::start(&data);
    let note = app.create_note("Files");
    let src = dir.path().join("notes.txt");
    std::fs::write(&src, "abc").unwrap();
    let drop_id = app.drop(vec![src]);
    let attached = app.ok("attach_dropped", json!({"noteId": note, "dropId": drop_id}));
    let [attached] = attached.as_array().unwrap().as_slice() else {
        panic!("one file attached: {attached}")
    };
    assert_eq!(attached["name"], "notes.txt");
    assert_eq!(attached["mime"], "text/plain");
    assert_eq!(attached["size"], 3);
    let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(attached["sha256"], sha);
    let file_id = attached["file_id"].as_str().unwrap();
    let files = app.ok("tab_view", json!({"noteId": note, "tabId": "files"}));
    assert_eq!(files["data"][0]["id"], file_id);
    assert_eq!(files["data"][0]["sha256"], sha);
    assert!(data.join("files").join(sha).is_file());

    // Saving a copy runs the system's save dialog: the e2e scenario files_through_dialogs
    // drives it in a real window.
    app.stop();
}

#[test]
fn agent_tokens_settings_and_relaunch() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let settings = app.ok("get_settings", json!({}));
    assert_eq!(settings["mode"], "embedded");
    let port = settings["embedded_port"].as_u64().unwrap();
    assert_eq!(settings["server_url"], format!("http://127.0.0.1:{port}/"));
    assert!(
        settings.get("embedded_token").is_none(),
        "tokens never cross"
    );

    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap())
            .unwrap();
    let person_token = stored["embedded_token"].as_str().unwrap().to_owned();
    assert!(person_token.starts_with("qk_"));

    let info = app.ok("agent_info", json!({}));
    let mcp_url = format!("http://127.0.0.1:{port}/mcp");
    assert_eq!(info["mcp_url"], mcp_url);
    assert_eq!(info["can_create_tokens"], true);
    assert_eq!(info["approved_notes"], json!([]));
    assert!(
        info["snippets"]["claude_code"]
            .as_str()
            .unwrap()
            .contains("<TOKEN>")
    );

    let made = app.ok(
        "create_agent_token",
        json!({"name": " claude ", "scopes": ["notes:write", "notes:read", "notes:read"]}),
    );
    assert_eq!(made["name"], "claude");
    assert_eq!(made["scopes"], json!(["notes:read", "notes:write"]));
    let token = made["token"].as_str().unwrap();
    assert!(token.starts_with("qk_") && token != person_token);
    let code = made["snippets"]["claude_code"].as_str().unwrap();
    assert!(code.contains(token) && code.contains(&mcp_url), "{code}");
    let desktop: Value =
        serde_json::from_str(made["snippets"]["claude_desktop"].as_str().unwrap()).unwrap();
    assert_eq!(desktop["mcpServers"]["quire"]["args"][0], "mcp-stdio");

    let note = app.create_note("For the agent");
    app.ok(
        "set_agent_access",
        json!({"noteId": note, "approved": true}),
    );
    let info = app.ok("agent_info", json!({}));
    assert_eq!(info["approved_notes"][0]["id"], note.as_str());
    app.stop();

    // Relaunch on the same data directory: same person, same token, same notes.
    let app = Fixture::start(dir.path());
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(stored["embedded_token"], person_token.as_str());
    let listed = app.ok("list_notes", json!({}));
    assert_eq!(listed[0]["id"], note.as_str());
    assert_eq!(listed[0]["agent_access"], true);
    app.stop();
}

#[test]
fn a_stopped_remote_keeps_drafts_which_save_once_back_on_the_embedded_server() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Offline");
    // A port nothing listens on: bound, then released.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);

    let settings = app.ok(
        "set_remote_server",
        json!({"url": url, "token": "qk_remote"}),
    );
    assert_eq!(settings["mode"], "remote");
    assert_eq!(
        settings["server_check"],
        json!({"status": "failed", "error": {"code": "offline", "message": settings["server_check"]["error"]["message"]}}),
        "a server that does not answer is switched to, and said to be unreachable"
    );
    assert_eq!(
        settings["embedded_port"],
        Value::Null,
        "the embedded server stopped"
    );
    let info = app.ok("agent_info", json!({}));
    assert_eq!(info["can_create_tokens"], false);
    assert!(
        info["remote_hint"]
            .as_str()
            .unwrap()
            .contains("quire-server token create")
    );
    let error = app.err(
        "create_agent_token",
        json!({"name": "claude", "scopes": ["notes:read"]}),
    );
    assert_eq!(error["code"], "remote_mode");
    assert_eq!(info["tokens"], json!([]));
    let error = app.err("revoke_agent_token", json!({"name": "claude"}));
    assert_eq!(error["code"], "remote_mode");
    // Export and import work on the embedded server's store: refused, before any dialog.
    for (cmd, args) in [
        ("export_note", json!({"noteId": note, "job": 1})),
        ("export_all_notes", json!({"job": 2})),
        ("import_notes", json!({"job": 3})),
    ] {
        let error = app.err(cmd, args);
        assert_eq!(error["code"], "remote_mode", "{cmd}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("quire-server export"),
            "{cmd}: {error}"
        );
    }

    // The Note was seen before: it opens from the local store, offline.
    let view = app.ok("open_note", json!({"noteId": note}));
    assert_eq!(view["version"], 1);
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "written offline"}),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("offline", |e| {
        e["kind"] == "status" && e["note_id"] == note && e["offline"] == true
    });
    let ledger = app.ok("drafts", json!({}));
    assert_eq!(ledger[0]["note_id"], note.as_str());
    assert_eq!(ledger[0]["tab_id"], "markdown");

    // Back to the embedded server: the draft is saved, once.
    let settings = app.ok("use_embedded_server", json!({}));
    assert_eq!(settings["mode"], "embedded");
    assert_eq!(
        settings["remote_url"],
        format!("{url}/"),
        "the remote is remembered"
    );
    app.ok("open_note", json!({"noteId": note}));
    let saved = app.wait_event("the draft's save", |e| {
        e["kind"] == "saved" && e["note_id"] == note
    });
    assert_eq!(saved["version"], 2);
    let history = app.ok("history", json!({"noteId": note}));
    assert_eq!(history.as_array().unwrap().len(), 2, "saved exactly once");
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(tab["data"], "written offline");
    assert_eq!(app.ok("drafts", json!({})), json!([]));
    app.stop();
}

/// A team server over HTTPS, its certificate from a CA made in the test: asked before the
/// switch. Not trusting the CA, or with a token it refuses, the app says which and stays where
/// it was; trusting it (`ca_file` in settings.json), the settings show whom it reached.
#[test]
fn a_remote_server_over_https_is_checked_before_the_switch() {
    use quire_testkit::tls::{TestCa, Validity};

    let mut ca = TestCa::new("Team CA").unwrap();
    let issued = ca.issue(&["localhost"], Validity::Current).unwrap();
    let server_dir = tempfile::tempdir().unwrap();
    let db = server_dir.path().join("team.db");
    let (running, token) = tauri::async_runtime::block_on(async {
        let store = quire_server::open_store(&db, quire_store_sqlite::Synchronous::Normal)
            .await
            .unwrap();
        let made = quire_server::tokens::create(
            store.as_ref(),
            "ada",
            &[quire_api::Scope::NotesRead, quire_api::Scope::NotesWrite],
            quire_model::AuthorKind::Person,
        )
        .await
        .unwrap();
        store.close().await.unwrap();
        let config = quire_server::ServeConfig {
            tls: Some(quire_server::TlsFiles {
                cert: issued.cert.clone(),
                key: issued.key.clone(),
            }),
            ..quire_server::ServeConfig::new(&db, "127.0.0.1:0".parse().unwrap())
        };
        (quire_server::serve(config).await.unwrap(), made.token)
    });
    let url = format!("https://localhost:{}", running.addr().port());

    // The system's store alone does not trust the team's CA.
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let error = app.err("set_remote_server", json!({"url": url, "token": token}));
    assert_eq!(error["code"], "certificate_untrusted", "{error}");
    let settings = app.ok("get_settings", json!({}));
    assert_eq!(settings["mode"], "embedded", "nothing changed");
    assert_eq!(settings["remote_url"], Value::Null, "nothing saved");
    app.stop();

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("settings.json"),
        json!({"ca_file": ca.ca_file()}).to_string(),
    )
    .unwrap();
    let app = Fixture::start(dir.path());
    let error = app.err(
        "set_remote_server",
        json!({"url": url, "token": "qk_not_the_token"}),
    );
    assert_eq!(error["code"], "unauthorized", "{error}");
    assert_eq!(app.ok("get_settings", json!({}))["mode"], "embedded");

    let settings = app.ok("set_remote_server", json!({"url": url, "token": token}));
    assert_eq!(settings["mode"], "remote");
    assert_eq!(settings["ca_file"], ca.ca_file().display().to_string());
    let check = &settings["server_check"];
    assert_eq!(check["status"], "reached", "{check}");
    assert_eq!(check["identity"]["url"], format!("{url}/"));
    assert_eq!(check["identity"]["certificate"]["subject"], "CN=localhost");
    assert_eq!(
        check["identity"]["certificate"]["issuer"],
        "CN=Team CA, O=Quire tests"
    );
    assert_eq!(app.ok("check_server", json!({}))["server_check"], *check);
    let note = app.create_note("On the team server");
    assert_eq!(app.ok("list_notes", json!({}))[0]["id"], note.as_str());

    // Back on the embedded server: checked too, plain HTTP on loopback, no certificate.
    let settings = app.ok("use_embedded_server", json!({}));
    assert_eq!(settings["server_check"]["status"], "reached");
    assert_eq!(
        settings["server_check"]["identity"]["certificate"],
        Value::Null
    );
    app.stop();
    tauri::async_runtime::block_on(running.shutdown()).unwrap();
}

/// Another writer's change the editor had not shown yet: an edit made on the older content
/// (`baseVersion`) becomes a conflict whose merge keeps both, never an overwrite.
#[test]
fn an_edit_typed_on_older_content_merges_or_is_a_conflict_never_an_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(&dir.path().join("app"));
    let note = app.create_note("Race");
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "alpha\nbeta\ngamma"}),
    );
    app.ok("flush", json!({"noteId": note}));
    let saved = app.wait_event("the first save", |e| {
        e["kind"] == "saved" && e["note_id"] == note
    });
    let base = saved["version"].as_u64().unwrap();

    // Another client (a second engine, the same person's token) changes the last line.
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("app").join("settings.json")).unwrap(),
    )
    .unwrap();
    let settings = app.ok("get_settings", json!({}));
    let other = quire_sync::Engine::start(
        quire_sync::EngineConfig {
            server: settings["server_url"].as_str().unwrap().parse().unwrap(),
            token: stored["embedded_token"].as_str().unwrap().to_owned(),
            db_path: dir.path().join("other.db"),
            timing: Default::default(),
            http: None,
            key_prefix: quire_sync::EngineConfig::fresh_key_prefix(),
        },
        std::sync::Arc::new(quire_sync::SystemClock),
    )
    .unwrap();
    let id: NoteId = note.parse().unwrap();
    tauri::async_runtime::block_on(async {
        other.open_note(&id).await.unwrap();
        other
            .edit_tab(
                &id,
                &TabId::new("markdown"),
                json!("alpha\nbeta\ngamma (checked)"),
            )
            .await
            .unwrap();
        other.flush(&id).await.unwrap();
        other
            .wait_until(&id, WAIT, "the other save", |s| {
                s.status.guard == Some(Version(base + 1))
            })
            .await
            .unwrap();
    });
    other.shutdown();
    app.wait_event("the other writer's change applied", |e| {
        e["kind"] == "remote_applied" && e["note_id"] == note
    });

    // The editor still showed version `base`: the person's edit is made on that.
    let status = app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "A: alpha\nbeta\ngamma",
               "baseVersion": base}),
    );
    assert_eq!(
        status["base_version"],
        base + 1,
        "merged onto the other writer's version"
    );
    assert_eq!(status["unseen"], true, "the editor is told to read it");
    // Another line than the other writer's: merged by the engine, saved, no conflict.
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the merge saved", |e| {
        e["kind"] == "saved" && e["tab_id"] == "markdown" && e["unseen"] == true
    });
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(tab["data"], "A: alpha\nbeta\ngamma (checked)");

    // The same line, typed in an editor that still showed version `base`: a conflict.
    let status = app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "A: alpha\nbeta\ngamma!",
               "baseVersion": base}),
    );
    assert_eq!(status["state"], "conflict", "{status}");
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the conflict", |e| {
        e["kind"] == "conflict_shown" && e["tab_id"] == "markdown"
    });
    let conflict = app.ok("conflict", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(
        conflict["theirs"]["data"],
        "A: alpha\nbeta\ngamma (checked)"
    );
    assert_eq!(conflict["mine"]["data"], "A: alpha\nbeta\ngamma!");
    // What the editor showed when the person typed: the merge's ancestor.
    assert_eq!(conflict["base"]["data"], "A: alpha\nbeta\ngamma");
    assert_eq!(conflict["theirs_version"], base + 2, "the merged save");
    // The review's preview of Merge comes from the engine; one pick per clash.
    let preview = app.ok(
        "preview_conflict_resolution",
        json!({"noteId": note, "tabId": "markdown", "picks": [{"pick": "mine"}]}),
    );
    assert_eq!(preview["undecided"], 0);
    assert_eq!(
        preview["lines"][0],
        json!({"text": "A: alpha", "from": "clean", "clash": null})
    );
    let error = app.err(
        "preview_conflict_resolution",
        json!({"noteId": note, "tabId": "markdown", "picks": []}),
    );
    assert_eq!(error["code"], "invalid_merge", "{error}");
    app.ok(
        "resolve_conflict",
        json!({"noteId": note, "tabId": "markdown",
               "choice": {"choice": "merge", "choices": [{"pick": "mine"}]}}),
    );
    app.wait_event("the merge saved", |e| {
        e["kind"] == "saved" && e["tab_id"] == "markdown"
    });
    let tab = app.ok("tab_view", json!({"noteId": note, "tabId": "markdown"}));
    assert_eq!(tab["data"], "A: alpha\nbeta\ngamma!");
    assert_eq!(
        tab["data"], preview["content"]["data"],
        "saved what it previewed"
    );
    app.stop();
}

/// The commands `ui/src/api.ts` calls: every `invoke("name"` / `invoke<T>("name"`.
fn commands_the_ui_calls() -> std::collections::BTreeSet<String> {
    let api = include_str!("../../ui/src/api.ts");
    let mut names = std::collections::BTreeSet::new();
    for (at, _) in api.match_indices("invoke") {
        let mut rest = &api[at + "invoke".len()..];
        if let Some(generic) = rest.strip_prefix('<') {
            rest = &generic[generic.find('>').unwrap() + 1..];
        }
        if let Some(call) = rest.strip_prefix("(\"") {
            names.insert(call[..call.find('"').unwrap()].to_owned());
        }
    }
    names
}

/// Least privilege: the main window's capability grants exactly the app commands its UI calls
/// and listening to events; the ACL that Tauri builds from it refuses everything else, plugin
/// commands included (the dialog and opener plugins' own commands would let a page pick or open
/// paths itself).
#[test]
fn the_window_may_call_only_what_its_capability_grants() {
    let capability: Value =
        serde_json::from_str(include_str!("../capabilities/main.json")).unwrap();
    assert_eq!(capability["windows"], json!(["main"]));
    let permissions: Vec<&str> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let (core, app_commands): (Vec<&str>, Vec<&str>) =
        permissions.iter().partition(|p| p.contains(':'));
    assert_eq!(
        core,
        ["core:event:allow-listen", "core:event:allow-unlisten"]
    );
    let granted: std::collections::BTreeSet<String> = app_commands
        .iter()
        .map(|p| p.strip_prefix("allow-").unwrap().replace('-', "_"))
        .collect();
    let used = commands_the_ui_calls();
    assert!(
        used.contains("attach_dropped") && used.len() > 20,
        "{used:?}"
    );
    assert_eq!(granted, used, "grant exactly what ui/src/api.ts calls");

    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start_with_real_acl(dir.path());
    let refused_by_acl = |e: &Value| e.as_str().is_some_and(|e| e.contains("not allowed"));
    let outside = [
        ("plugin:dialog|open", json!({"options": {}})),
        ("plugin:dialog|save", json!({"options": {}})),
        ("plugin:opener|open_path", json!({"path": "/etc/passwd"})),
        (
            "plugin:opener|open_url",
            json!({"url": "https://example.org"}),
        ),
        (
            "plugin:event|emit",
            json!({"event": "engine-event", "payload": {}}),
        ),
        (
            "plugin:window|set_title",
            json!({"label": "main", "value": "x"}),
        ),
        ("plugin:webview|print", json!({"label": "main"})),
        ("plugin:app|version", json!({})),
    ];
    for (cmd, args) in outside {
        match app.invoke(cmd, args) {
            Err(e) if refused_by_acl(&e) => {}
            other => panic!("{cmd} must be refused by the ACL, got {other:?}"),
        }
    }
    // Every granted command passes the ACL: it runs, or refuses its (missing) arguments.
    // close_window last: it closes the window.
    let mut used: Vec<String> = used.into_iter().collect();
    used.sort_by_key(|c| c == "close_window");
    for cmd in &used {
        if let Err(e) = app.invoke(cmd, json!({})) {
            assert!(!refused_by_acl(&e), "{cmd} is refused by the ACL: {e}");
        }
    }
    let listen = app.invoke(
        "plugin:event|listen",
        json!({"event": "engine-event", "target": {"kind": "Any"}, "handler": 7}),
    );
    assert!(listen.is_ok(), "{listen:?}");
    app.stop();
}

/// A call to the embedded server as another program (an agent, a script) would make it:
/// (status, JSON body).
fn call_server(
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    tauri::async_runtime::block_on(async {
        let mut req = reqwest::Client::new()
            .request(method, url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream");
        if let Some(body) = body {
            req = req.json(&body);
        }
        let res = req.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    })
}

/// `initialize` on `/mcp`: the status only (the MCP layer accepts or refuses the token).
fn mcp_status(mcp_url: &str, token: &str) -> u16 {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    call_server(
        reqwest::Method::POST,
        mcp_url.to_owned(),
        token,
        Some(initialize),
    )
    .0
}

fn person_token(data_dir: &Path) -> String {
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(data_dir.join("settings.json")).unwrap())
            .unwrap();
    stored["embedded_token"].as_str().unwrap().to_owned()
}

/// "Connect an agent" makes an agent's token: refused by the REST API (which is the person's),
/// accepted on MCP. The person's approvals are recorded, with the person's name and the time.
#[test]
fn the_agent_panel_mints_agent_tokens_and_approvals_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let settings = app.ok("get_settings", json!({}));
    let server = settings["server_url"].as_str().unwrap().to_owned();
    let person = settings["person_name"].as_str().unwrap().to_owned();
    let note = app.create_note("Shared with the agent");

    let made = app.ok(
        "create_agent_token",
        json!({"name": "claude", "scopes": ["notes:read", "notes:write"]}),
    );
    let token = made["token"].as_str().unwrap();
    let (status, problem) =
        call_server(reqwest::Method::GET, format!("{server}notes"), token, None);
    assert_eq!(
        (status, problem["error"].as_str()),
        (403, Some("agent_token"))
    );
    let (status, problem) = call_server(
        reqwest::Method::PUT,
        format!("{server}notes/{note}/agent-access"),
        token,
        Some(json!({"approved": true})),
    );
    assert_eq!(
        (status, problem["error"].as_str()),
        (403, Some("agent_token"))
    );
    assert_eq!(mcp_status(made["mcp_url"].as_str().unwrap(), token), 200);

    let access = app.ok("agent_access", json!({"noteId": note}));
    assert_eq!(access["agent_access"], false);
    assert_eq!(
        access["changes"],
        json!([]),
        "the agent's attempt recorded nothing"
    );
    let approved = app.ok(
        "set_agent_access",
        json!({"noteId": note, "approved": true}),
    );
    assert_eq!(approved["agent_access"], true);
    let changes = approved["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(
        (&changes[0]["approved"], changes[0]["by"].as_str()),
        (&json!(true), Some(person.as_str()))
    );
    assert!(changes[0]["at"].as_str().unwrap().ends_with('Z'));
    app.ok(
        "set_agent_access",
        json!({"noteId": note, "approved": false}),
    );
    let access = app.ok("agent_access", json!({"noteId": note}));
    let approvals: Vec<&Value> = access["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["approved"])
        .collect();
    assert_eq!(approvals, [&json!(true), &json!(false)]);
    app.stop();
}

/// A data directory from before tokens had a kind: on the next start, the tokens its agent
/// panel made become agent tokens (refused on REST, accepted on MCP); the app's own token stays
/// the person's.
#[test]
fn tokens_the_agent_panel_made_before_kinds_become_agent_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    app.create_note("Before the upgrade");
    app.stop();

    // The file as an older build left it: no token has a kind, and the panel had made one.
    let legacy = format!("qk_{}", "ab".repeat(32));
    let db = rusqlite::Connection::open(dir.path().join("server.db")).unwrap();
    db.execute("UPDATE tokens SET kind = NULL", []).unwrap();
    db.execute(
        "INSERT INTO tokens (name, hash, scopes, created_at)
         VALUES ('claude', ?1, '[\"notes:read\",\"notes:write\"]', '2026-01-01T00:00:00.000Z')",
        [quire_server::tokens::hash(&legacy)],
    )
    .unwrap();
    drop(db);

    let app = Fixture::start(dir.path());
    let settings = app.ok("get_settings", json!({}));
    let server = settings["server_url"].as_str().unwrap().to_owned();
    let (status, problem) = call_server(
        reqwest::Method::GET,
        format!("{server}notes"),
        &legacy,
        None,
    );
    assert_eq!(
        (status, problem["error"].as_str()),
        (403, Some("agent_token"))
    );
    assert_eq!(mcp_status(&format!("{server}mcp"), &legacy), 200);
    let mine = person_token(dir.path());
    let (status, listed) = call_server(reqwest::Method::GET, format!("{server}notes"), &mine, None);
    assert_eq!(status, 200, "{listed}");
    assert_eq!(app.ok("list_notes", json!({})).as_array().unwrap().len(), 1);
    app.stop();
}

/// The agent panel lists the agent tokens (never a secret, never the person's own token) with
/// their scopes and last use, and revokes one by name: the embedded server refuses it at once,
/// while the person's token of the same name, if any, keeps working.
#[test]
fn the_agent_panel_lists_agent_tokens_and_revokes_them() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let settings = app.ok("get_settings", json!({}));
    let server = settings["server_url"].as_str().unwrap().to_owned();
    let person = settings["person_name"].as_str().unwrap().to_owned();
    assert_eq!(app.ok("agent_info", json!({}))["tokens"], json!([]));

    let made = app.ok(
        "create_agent_token",
        json!({"name": "claude", "scopes": ["notes:read"]}),
    );
    let token = made["token"].as_str().unwrap().to_owned();
    // An agent token named like the person: revoking it must spare the person's own token.
    let namesake = app.ok(
        "create_agent_token",
        json!({"name": person, "scopes": ["notes:read", "notes:write"]}),
    );
    let mcp_url = made["mcp_url"].as_str().unwrap().to_owned();
    assert_eq!(mcp_status(&mcp_url, &token), 200);

    let info = app.ok("agent_info", json!({}));
    let tokens = info["tokens"].as_array().unwrap();
    let listed: Vec<(&str, &Value, &str)> = tokens
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap(),
                &t["scopes"],
                t["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("claude", &json!(["notes:read"]), "active"),
            (
                person.as_str(),
                &json!(["notes:read", "notes:write"]),
                "active"
            ),
        ]
    );
    assert!(tokens[0]["last_used_at"].is_string(), "{}", tokens[0]);
    assert!(tokens[1]["last_used_at"].is_null(), "{}", tokens[1]);
    let text = info["tokens"].to_string();
    assert!(!text.contains("qk_") && !text.contains(&token), "{text}");
    assert!(!text.contains(namesake["token"].as_str().unwrap()));

    let after = app.ok("revoke_agent_token", json!({"name": "claude"}));
    assert_eq!(after[0]["state"], "revoked");
    assert!(after[0]["revoked_at"].is_string());
    assert_eq!(after[1]["state"], "active");
    assert_eq!(mcp_status(&mcp_url, &token), 401);

    // The person's name: only the agent token of that name goes; the app keeps its server.
    let after = app.ok("revoke_agent_token", json!({"name": person}));
    assert_eq!(after[1]["state"], "revoked");
    let (status, _) = call_server(
        reqwest::Method::GET,
        format!("{server}notes"),
        &person_token(dir.path()),
        None,
    );
    assert_eq!(status, 200);
    app.ok("list_notes", json!({}));

    let error = app.err("revoke_agent_token", json!({"name": "nobody"}));
    assert_eq!(error["code"], "not_found");
    assert!(
        error["message"].as_str().unwrap().contains("\"nobody\""),
        "{error}"
    );
    app.stop();
}

/// The person's token revoked on the app's own database (`quire-server token revoke` on it):
/// the next start makes a new one instead of talking to its server with a refused token.
#[test]
fn a_revoked_person_token_is_replaced_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Kept");
    let person = app.ok("get_settings", json!({}))["person_name"]
        .as_str()
        .unwrap()
        .to_owned();
    app.stop();
    let old = person_token(dir.path());

    tauri::async_runtime::block_on(async {
        let store = quire_server::open_store(
            &dir.path().join("server.db"),
            quire_store_sqlite::Synchronous::Full,
        )
        .await
        .unwrap();
        let now = quire_api::Clock::now(&quire_api::SystemClock);
        quire_server::tokens::revoke(store.as_ref(), &person, None, now)
            .await
            .unwrap();
        store.close().await.unwrap();
    });

    let app = Fixture::start(dir.path());
    let server = app.ok("get_settings", json!({}))["server_url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(person_token(dir.path()), old);
    let (status, _) = call_server(reqwest::Method::GET, format!("{server}notes"), &old, None);
    assert_eq!(status, 401);
    let listed = app.ok("list_notes", json!({}));
    assert_eq!(listed[0]["id"], note.as_str());
    app.stop();
}

/// The search field's command: a word saved a moment ago is found on the app's own server, in
/// its tab; a query without a word is the server's refusal, passed on by its code.
#[test]
fn search_notes_finds_what_was_just_saved() {
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let view = app.ok("create_note", json!({"title": "Birds"}));
    let note = view["note_id"].as_str().unwrap().to_owned();
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "a kingfisher by the pond"}),
    );
    app.ok("flush", json!({"noteId": note}));
    app.wait_event("the save", |e| {
        e["kind"] == "saved" && e["note_id"] == note.as_str() && e["tab_id"] == "markdown"
    });
    let hits = app.ok("search_notes", json!({"q": "KINGFISH", "limit": 20}));
    assert_eq!(hits.as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits[0]["note_id"], note.as_str());
    assert_eq!(hits[0]["tab_id"], "markdown");
    assert_eq!(hits[0]["snippet"], "a kingfisher by the pond");
    let error = app.err("search_notes", json!({"q": " \"\" ", "limit": 20}));
    assert_eq!(error["code"], "invalid_field", "{error}");
    app.stop();
}

/// Export Note… and Import… past their folder dialog (which the mock runtime cannot show; the
/// e2e scenario answers the real one): the export holds the open Note's edit not yet sent, the
/// import of that folder makes one new Note, and progress counts to the end.
#[test]
fn an_exported_note_holds_its_unsent_edit_and_imports_back_as_a_new_note() {
    use tauri::Manager;
    let dir = tempfile::tempdir().unwrap();
    let app = Fixture::start(dir.path());
    let note = app.create_note("Round trip");
    app.ok(
        "edit_tab",
        json!({"noteId": note, "tabId": "markdown", "content": "# Trip\n\nPack light.\n"}),
    );
    let out = dir.path().join("exported");
    let backend = app.app.state::<BackendReady>();
    let (exported, imported, progress) = tauri::async_runtime::block_on(async {
        let backend = backend.wait().await.unwrap();
        let id: NoteId = note.parse().unwrap();
        let mut progress = Vec::new();
        let exported = backend
            .export_notes(&[id], &out, |p| progress.push((p.done, p.total)))
            .await
            .unwrap();
        let imported = backend.import_folder(&out, |_| {}).await.unwrap();
        (exported, imported, progress)
    });
    assert_eq!(progress, [(0, 1), (1, 1)]);
    assert_eq!(exported.kind, crate::backend::TransferKind::Export);
    assert_eq!(exported.notes.len(), 1);
    assert_eq!(exported.notes[0].title, "Round trip");
    let index = std::fs::read_to_string(out.join("Round trip").join("index.md")).unwrap();
    assert!(index.contains("Pack light."), "{index}");

    assert_eq!(imported.kind, crate::backend::TransferKind::Import);
    assert_eq!(imported.notes.len(), 1, "{imported:?}");
    assert_eq!(imported.notes[0].path, "Round trip");
    assert_eq!(imported.skipped, []);
    let listed = app.ok("list_notes", json!({}));
    let titles: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Round trip", "Round trip"]);
    let made = &imported.notes[0].note_id;
    app.ok("open_note", json!({"noteId": made}));
    let tab = app.ok("tab_view", json!({"noteId": made, "tabId": "markdown"}));
    assert_eq!(tab["data"], "# Trip\n\nPack light.\n");
    app.stop();
}

#[test]
fn an_export_is_named_by_its_last_path_component_and_sized_within_bounds() {
    assert_eq!(file_name("Q3 plan.pdf", "pdf"), "Q3 plan.pdf");
    assert_eq!(file_name("../../etc/deck.pptx", "pptx"), "deck.pptx");
    assert_eq!(file_name("C:\\x\\deck.pptx", "pptx"), "deck.pptx");
    assert_eq!(file_name("  ", "pdf"), "Untitled.pdf");
    assert_eq!(file_name(".bashrc", "pdf"), "Untitled.pdf");
    assert_eq!(page_length("widthMm", &json!(254)).unwrap(), 254.0);
    for bad in [json!(0), json!(5000), json!("254"), Value::Null] {
        let e = page_length("widthMm", &bad).unwrap_err();
        assert_eq!(e.code, "invalid_argument");
        assert!(e.message.starts_with("widthMm:"), "{}", e.message);
    }
}

#[test]
fn a_printed_page_refuses_each_side_and_the_margin_by_name() {
    let page = page_of(&json!(297), &json!(210), &json!(12.5)).unwrap();
    assert_eq!(
        (page.width_mm, page.height_mm, page.margin_mm),
        (297.0, 210.0, 12.5)
    );
    for (w, h, m, field) in [
        (json!(5), json!(210), json!(10), "widthMm:"),
        (json!(297), json!("210"), json!(10), "heightMm:"),
        (json!(297), json!(210), json!(51), "marginMm:"),
        (json!(297), json!(210), Value::Null, "marginMm:"),
    ] {
        let e = page_of(&w, &h, &m).unwrap_err();
        assert_eq!(e.code, "invalid_argument");
        assert!(e.message.starts_with(field), "{}", e.message);
    }
}
