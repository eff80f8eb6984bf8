//! The app's log, where a person can find it: one file a day in the log directory (`quire.<date>.log`,
//! the newest [`KEEP_FILES`] kept, `quire.log` links to today's), and stderr as before. A panic
//! writes its report (message, place, thread, backtrace) there before the process ends.
//!
//! Writes go straight to the file, not through a background thread: the app logs little, and a
//! panic that aborts the process (one crossing GTK's C code does) must not take lines still
//! queued with it. Like the server's log, it never holds a Note's content
//! ([`quire_server::logging::without_content`]).

use std::backtrace::Backtrace;
use std::io;
use std::panic::PanicHookInfo;
use std::path::{Path, PathBuf};

use tracing_appender::rolling::{InitError, RollingFileAppender, Rotation};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{EnvFilter, FilterExt};
use tracing_subscriber::fmt::writer::MakeWriterExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::{SubscriberInitExt, TryInitError};

/// Log files are `quire.<yyyy-mm-dd>.log`.
pub const FILE_PREFIX: &str = "quire";
pub const FILE_SUFFIX: &str = "log";
/// The link to the current file.
pub const LATEST: &str = "quire.log";
/// How many daily files are kept (a week).
pub const KEEP_FILES: usize = 7;

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot create the log directory {dir}: {source}")]
    Dir { dir: PathBuf, source: io::Error },
    #[error("cannot open a log file in {dir}: {source}")]
    File { dir: PathBuf, source: InitError },
    #[error("a logger is already installed: {0}")]
    Installed(#[from] TryInitError),
}

/// The daily files in `dir` (created, readable by its owner only). Opens today's file at once.
pub fn file_appender(dir: &Path) -> Result<RollingFileAppender, LogError> {
    create_private_dir(dir).map_err(|source| LogError::Dir {
        dir: dir.to_owned(),
        source,
    })?;
    RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix(FILE_PREFIX)
        .filename_suffix(FILE_SUFFIX)
        .max_log_files(KEEP_FILES)
        .latest_symlink(LATEST)
        .build(dir)
        .map_err(|source| LogError::File {
            dir: dir.to_owned(),
            source,
        })
}

/// Installs the process's logger (`RUST_LOG`, else `default`, e.g. `"warn,quire_app=info"`) to
/// stderr and to the files in `dir`, and the panic hook ([`log_panics`]). Call once, before the
/// app runs. If the files cannot be opened the logger still goes to stderr, and the error says
/// why.
pub fn install(dir: &Path, default: &str) -> Result<(), LogError> {
    let wanted = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let filter = wanted.and(quire_server::logging::without_content());
    let (files, error) = match file_appender(dir) {
        Ok(files) => (Some(files), None),
        Err(error) => (None, Some(error)),
    };
    // No colours: the same line goes to the file.
    let layer = tracing_subscriber::fmt::layer().with_ansi(false);
    let layer = match files {
        Some(files) => layer
            .with_writer(io::stderr.and(files))
            .with_filter(filter)
            .boxed(),
        None => layer.with_writer(io::stderr).with_filter(filter).boxed(),
    };
    tracing_subscriber::registry().with(layer).try_init()?;
    log_panics();
    error.map_or(Ok(()), Err)
}

/// Replaces the panic hook: the report goes to the log (so to the file, and to stderr), then the
/// panic goes on as before (unwinding, or the abort that ends the process).
pub fn log_panics() {
    std::panic::set_hook(Box::new(|info| {
        let report = report(info, &Backtrace::force_capture());
        tracing::error!(target: "quire_app::panic", "{report}");
    }));
}

/// `thread 'NAME' panicked at FILE:LINE:COL: MESSAGE`, then the backtrace.
fn report(info: &PanicHookInfo<'_>, backtrace: &Backtrace) -> String {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("<unnamed>");
    let message = info
        .payload()
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic without a message)");
    let place = info
        .location()
        .map_or_else(|| "an unknown place".to_owned(), ToString::to_string);
    format!("thread '{name}' panicked at {place}: {message}\nbacktrace:\n{backtrace}")
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Write;

    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn lines_go_to_todays_file_linked_as_quire_log() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("logs");
        let mut files = file_appender(&dir).unwrap();
        files.write_all(b"a line\n").unwrap();

        let names = names(&dir);
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.contains(&LATEST.to_owned()), "{names:?}");
        let today = names.iter().find(|n| *n != LATEST).unwrap();
        assert!(
            today.starts_with("quire.") && today.ends_with(".log") && today.len() == 20,
            "{today}"
        );
        assert_eq!(
            std::fs::read_link(dir.join(LATEST)).unwrap().file_name(),
            Some(std::ffi::OsStr::new(today))
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(LATEST)).unwrap(),
            "a line\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
    }

    #[test]
    fn the_newest_seven_files_are_kept() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("logs");
        std::fs::create_dir(&dir).unwrap();
        for day in 1..=9 {
            std::fs::write(dir.join(format!("quire.2020-01-0{day}.log")), "old").unwrap();
        }
        std::fs::write(dir.join("notes.txt"), "not a log").unwrap();

        let _files = file_appender(&dir).unwrap();

        let names = names(&dir);
        let logs: Vec<&String> = names
            .iter()
            .filter(|n| n.starts_with("quire.") && n.len() == 20)
            .collect();
        assert_eq!(logs.len(), KEEP_FILES, "{names:?}");
        assert!(
            !names.contains(&"quire.2020-01-03.log".to_owned()),
            "the oldest go: {names:?}"
        );
        assert!(names.contains(&"quire.2020-01-04.log".to_owned()));
        assert!(
            names.contains(&"notes.txt".to_owned()),
            "only logs are pruned"
        );
    }

    #[test]
    fn a_directory_that_cannot_be_made_is_an_error_naming_it() {
        let root = tempfile::tempdir().unwrap();
        let blocker = root.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let error = file_appender(&blocker.join("logs")).unwrap_err();
        assert!(matches!(error, LogError::Dir { .. }), "{error}");
        assert!(error.to_string().contains("file/logs"), "{error}");
    }
}
