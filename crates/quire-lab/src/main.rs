//! `quire-lab`: reproduces every measured table of the two reference articles on Quire's own
//! store, server and MCP tools, and prints each as Markdown with the articles' figures beside
//! Quire's. `cargo run --release -p quire-lab -- all` runs everything; one experiment at a time
//! with its name (`race`, `cost`, ...). Every random choice comes from a seeded ChaCha8 stream,
//! so a run repeats exactly wherever the outcome does not depend on real time (the races and
//! timings do: they sleep and they measure).
//!
//! The lab's controls (last-writer-wins, millisecond versions, version-then-key, tab-scoped
//! versions) are wrappers in `controls.rs` around the product's own store: they exist here
//! only, never in the product.
#![forbid(unsafe_code)]

/// jemalloc, as the server allocates (BENCHMARKS.md, "A small write
/// against its physical limit", session 24).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

mod bench;
mod client;
mod controls;
mod exp;
mod harness;
mod limit;
mod report;

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, ValueEnum};

use crate::report::Section;

#[derive(Parser)]
#[command(
    name = "quire-lab",
    about = "Reproduces the reference articles' tables on Quire's real store, server and MCP tools."
)]
struct Cli {
    /// What to run.
    #[arg(value_enum)]
    what: What,
    /// Also write the Markdown to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum What {
    /// Every experiment (1-12), then the benchmarks.
    All,
    /// Every experiment (1-12), no benchmarks.
    Experiments,
    /// 1. Two editors racing on one tab: lines lost with and without the check.
    Race,
    /// 2. Cost of the check per write, and the fsync / bare-UPDATE floors.
    Cost,
    /// 3. Note-wide vs tab-scoped versions, and the app engine's rebase.
    Scope,
    /// 4. Millisecond-timestamp versions vs Quire's counter.
    Timestamps,
    /// 5. Creating tabs with and without an idempotency key.
    Create,
    /// 6. The eight payloads and the live MCP validator's verdicts.
    Schema,
    /// 7. Tab handles: position, type, label, ID.
    Handles,
    /// 8. Key-then-version vs version-then-key.
    Order,
    /// 9. Source keys, and Quire's server-side normalised dedup.
    Sources,
    /// 10. One outline call vs one call per slide.
    Outline,
    /// 11. Listing 120 attachments at limit 50.
    Paging,
    /// 12. One tab, different lines: the agent's precise edits against whole-text edits.
    Lines,
    /// Benchmarks beyond the articles (in-process and over HTTP).
    Bench,
    /// A small write against its physical limit: GET /healthz + 4 KiB fdatasync beside the
    /// guarded PATCH, alternated (needs wrk).
    Limit,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?;
    let started = Instant::now();
    let mut out = match &cli.out {
        Some(path) => Some(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        ),
        None => None,
    };
    let mut emit = |section: Section| -> anyhow::Result<()> {
        let text = section.to_markdown();
        println!("{text}");
        if let Some(file) = out.as_mut() {
            writeln!(file, "{text}").context("cannot write the output file")?;
        }
        Ok(())
    };
    runtime.block_on(async {
        let all = matches!(cli.what, What::All | What::Experiments);
        let wants = |w: What| all || cli.what == w;
        if wants(What::Race) {
            emit(exp::race::run(&exp::race::Params::article()).await?)?;
        }
        if wants(What::Cost) {
            emit(exp::cost::run(&exp::cost::Params::article()).await?)?;
        }
        if wants(What::Scope) {
            emit(exp::scope::run(&exp::scope::Params::article()).await?)?;
        }
        if wants(What::Timestamps) {
            emit(exp::timestamps::run(&exp::timestamps::Params::article()).await?)?;
        }
        if wants(What::Create) {
            emit(exp::creates::run(&exp::creates::Params::article()).await?)?;
        }
        if wants(What::Schema) {
            emit(exp::schema::run().await?)?;
        }
        if wants(What::Handles) {
            emit(exp::handles::run(&exp::handles::Params::article()).await?)?;
        }
        if wants(What::Order) {
            emit(exp::order::run(&exp::order::Params::article()).await?)?;
        }
        if wants(What::Sources) {
            emit(exp::sources::run(&exp::sources::Params::article()).await?)?;
        }
        if wants(What::Outline) {
            emit(exp::outline::run(&exp::outline::Params::article()).await?)?;
        }
        if wants(What::Paging) {
            emit(exp::paging::run(&exp::paging::Params::article()).await?)?;
        }
        if wants(What::Lines) {
            emit(exp::lines::run(&exp::lines::Params::article()).await?)?;
        }
        if matches!(cli.what, What::All | What::Bench) {
            emit(bench::run(&bench::Params::full()).await?)?;
        }
        if cli.what == What::Limit {
            emit(limit::run(&limit::Params::full()).await?)?;
        }
        anyhow::Ok(())
    })?;
    eprintln!(
        "quire-lab: done in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
