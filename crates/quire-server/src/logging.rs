//! Logging to stderr, for the binary and the app that embeds the server. A log never holds a
//! Note's content, whatever `RUST_LOG` asks for: rmcp logs every JSON-RPC message it receives or
//! sends whole (a tool call's arguments, a read's answer) at debug and trace level, so its
//! events are kept at info and above. Ours log IDs, versions and codes, never content.

use std::io::IsTerminal;

use tracing_subscriber::filter::{EnvFilter, FilterExt, LevelFilter, Targets};
use tracing_subscriber::layer::{Filter, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

/// Installs the process's logger: `RUST_LOG` (else `default`, e.g. `"info"`), to stderr,
/// without message contents. Call once, first thing.
pub fn log_to_stderr(default: &str) {
    let wanted = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(wanted.and(without_content()));
    tracing_subscriber::registry().with(layer).init();
}

/// Lets every event through but rmcp's below info (those that carry whole messages).
pub fn without_content() -> impl Filter<Registry> + Clone {
    Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_target("rmcp", LevelFilter::INFO)
}
