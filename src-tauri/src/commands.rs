//! Tauri commands: adapters only. Each parses its arguments, calls one function, and maps the
//! result; failures become [`CommandError`].
//!
//! Commands live here, not at the crate root: `#[tauri::command]` emits a macro named after the
//! function, which clashes with `generate_handler!` at the root (E0255).

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tauri::{AppHandle, Runtime, State};

use crate::error::{CommandError, ErrorCode};

/// The app's name and version, as shown in the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
}

#[tauri::command]
pub fn app_info<R: Runtime>(app: AppHandle<R>) -> AppInfo {
    let package = app.package_info();
    AppInfo {
        name: package.name.clone(),
        version: package.version.to_string(),
    }
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
/// navigation started (`performance.timeOrigin`) and when its first frame was on screen, both
/// also as milliseconds after `main` started (native start-up, then the page's own).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FirstPaint {
    pub painted_at_unix_ms: f64,
    pub since_launch_ms: f64,
    pub navigation_since_launch_ms: f64,
}

/// The UI calls this once, after its first frame. The app logs one line on stderr, which
/// `scripts/app-bench.sh` reads:
/// `quire-app: first paint at unix_ms=<ms> (<ms> ms after main); navigation started at unix_ms=<ms>`.
#[tauri::command]
pub fn report_first_paint(
    launch: State<'_, Launch>,
    navigation_started_at_unix_ms: f64,
    painted_at_unix_ms: f64,
) -> Result<FirstPaint, CommandError> {
    let paint = first_paint(*launch, navigation_started_at_unix_ms, painted_at_unix_ms)?;
    eprintln!(
        "quire-app: first paint at unix_ms={:.0} ({:.0} ms after main); \
         navigation started at unix_ms={navigation_started_at_unix_ms:.0}",
        paint.painted_at_unix_ms, paint.since_launch_ms
    );
    Ok(paint)
}

fn first_paint(
    launch: Launch,
    navigation_started_at_unix_ms: f64,
    painted_at_unix_ms: f64,
) -> Result<FirstPaint, CommandError> {
    for (name, value) in [
        (
            "navigation_started_at_unix_ms",
            navigation_started_at_unix_ms,
        ),
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
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};
    use tauri::ipc::{CallbackFn, InvokeBody};
    use tauri::test::{MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets};
    use tauri::webview::InvokeRequest;
    use tauri::{WebviewWindow, WebviewWindowBuilder};

    use super::*;

    const LAUNCH_MS: u64 = 1_700_000_000_000;

    fn window() -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
        let launch = Launch::at(UNIX_EPOCH + Duration::from_millis(LAUNCH_MS));
        let app = crate::app(mock_builder(), launch)
            .build(mock_context(noop_assets()))
            .expect("build the app on the mock runtime");
        let window = WebviewWindowBuilder::new(&app, "main", Default::default())
            .build()
            .expect("open a mock window");
        (app, window)
    }

    fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
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
        get_ipc_response(window, request)
            .map(|body| body.deserialize::<Value>().expect("a JSON response"))
    }

    #[test]
    fn app_info_names_the_package() {
        let (_app, window) = window();
        let info = invoke(&window, "app_info", json!({})).expect("app_info succeeds");
        // mock_context() describes a package named "test" at version 0.1.0.
        assert_eq!(info, json!({"name": "test", "version": "0.1.0"}));
    }

    #[test]
    fn first_paint_is_measured_from_launch() {
        let (_app, window) = window();
        let launch = LAUNCH_MS as f64;
        let args =
            json!({"navigationStartedAtUnixMs": launch + 100.0, "paintedAtUnixMs": launch + 250.0});
        let paint =
            invoke(&window, "report_first_paint", args).expect("report_first_paint succeeds");
        assert_eq!(
            paint,
            json!({
                "painted_at_unix_ms": launch + 250.0,
                "since_launch_ms": 250.0,
                "navigation_since_launch_ms": 100.0,
            })
        );
    }

    #[test]
    fn a_bad_paint_time_is_an_invalid_argument() {
        let (_app, window) = window();
        let args = json!({"navigationStartedAtUnixMs": 1.0, "paintedAtUnixMs": -1.0});
        let error =
            invoke(&window, "report_first_paint", args).expect_err("a negative time is refused");
        assert_eq!(error["code"], json!("invalid_argument"));
    }
}
