//! What a keystroke costs the engine from the editor's hand-over to the server's acknowledgement,
//! on a 2 KB and a 10 MiB Markdown Note: the app's path without the window and its IPC (the e2e
//! perf scenario measures that path whole, `keystroke_to_ack`).
//!
//! `cargo build --release -p quire-server && cargo run --release -p quire-sync --example keystroke_bench [-- --edits 40]`
//!
//! Against the real `quire-server` on port 0 (`$QUIRE_SERVER_BIN`, else the one built beside this
//! example), over real HTTP, the engine on its own local store (`synchronous=FULL`). Each edit is
//! one character typed at the end of the text, handed over as what changed (`hand_over`, as the
//! editor does), then saved at once (`flush`), then waited for until the engine calls the tab
//! saved. Prints p50 and p99 of the whole and of its three parts, per size, and the slowest
//! edits (their index, the whole and the three parts).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use quire_model::TabId;
use quire_sync::engine::{HandOver, TextChange};
use quire_sync::machine::Config;
use quire_sync::{Engine, EngineConfig, SystemClock};
use quire_testkit::bench::{Samples, arg};
use quire_testkit::{Options, ServerProcess};
use serde_json::json;

/// The engine allocates as in the app (src-tauri/src/main.rs): jemalloc. With glibc's
/// allocator, the first few 10 MiB texts were fresh mappings and each splice into one took 5-6
/// ms, not 1.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const WAIT: Duration = Duration::from_secs(60);

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

async fn run(engine: &Engine, bytes: usize, edits: usize) -> anyhow::Result<()> {
    let md = TabId::new("markdown");
    let note = engine.create_note(&format!("{bytes} bytes")).await?.note_id;
    let line = "the quick brown fox jumps over the lazy dog, naïve café 😀\n";
    let mut text = line.repeat(bytes / line.len());
    text.push_str(&"x".repeat(bytes - text.len()));
    let mut token = engine
        .hand_over(&note, &md, HandOver::Whole(json!(text)), None)
        .await?
        .token;
    engine.flush(&note).await?;
    engine
        .wait_until(&note, WAIT, "the first save", |s| s.status.settled)
        .await?;
    let utf16 = text.encode_utf16().count();
    let (mut whole, mut hand, mut flush, mut saved) = (
        Samples::with_capacity(edits),
        Samples::with_capacity(edits),
        Samples::with_capacity(edits),
        Samples::with_capacity(edits),
    );
    // Each edit's whole time and parts, for the slowest edits' line.
    let mut each = Vec::with_capacity(edits);
    for i in 0..edits {
        let typed = if i % 10 == 9 { "\n" } else { "x" };
        let t0 = Instant::now();
        let change = TextChange {
            after: token,
            at: utf16 + i,
            removed: 0,
            insert: typed.to_owned(),
        };
        token = engine
            .hand_over(&note, &md, HandOver::Change(change), None)
            .await
            .with_context(|| format!("edit {i}"))?
            .token;
        let t1 = Instant::now();
        engine.flush(&note).await?;
        let t2 = Instant::now();
        engine
            .wait_until(&note, WAIT, "saved", |s| s.status.settled)
            .await?;
        let t3 = Instant::now();
        hand.push(t1 - t0);
        flush.push(t2 - t1);
        saved.push(t3 - t2);
        whole.push(t3 - t0);
        each.push((t3 - t0, i, t1 - t0, t2 - t1, t3 - t2));
    }
    each.sort_by_key(|e| std::cmp::Reverse(e.0));
    let slowest: Vec<String> = each
        .iter()
        .take(4)
        .map(|(w, i, h, f, s)| format!("#{i} {} ({}/{}/{})", ms(*w), ms(*h), ms(*f), ms(*s)))
        .collect();
    let (w, h, f, s) = (whole.stats(), hand.stats(), flush.stats(), saved.stats());
    println!(
        "{bytes} bytes, {edits} edits: keystroke to ack p50 {} / p99 {} ms; \
         p50 parts: hand_over {} / flush {} / saved {} ms (p99 {} / {} / {})",
        ms(w.median),
        ms(w.p99),
        ms(h.median),
        ms(f.median),
        ms(s.median),
        ms(h.p99),
        ms(f.p99),
        ms(s.p99),
    );
    println!("  slowest edits: {}", slowest.join(", "));
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let edits = arg("--edits", 40);
    let mut options = Options::locate()?;
    options.token_name = "person".to_owned();
    let server = ServerProcess::spawn_with(options)?;
    let dir = tempfile::tempdir()?;
    let engine = Engine::start(
        EngineConfig {
            server: server.url().parse()?,
            token: server.token.clone(),
            db_path: dir.path().join("sync.db"),
            timing: Config::default(),
            http: None,
            key_prefix: EngineConfig::fresh_key_prefix(),
        },
        Arc::new(SystemClock),
    )?;
    for bytes in [2_048, 10 * 1024 * 1024] {
        run(&engine, bytes, edits).await?;
    }
    Ok(())
}
