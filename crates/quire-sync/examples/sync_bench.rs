//! What a keystroke costs the engine, and what a merge costs the person.
//!
//! `cargo run --release -p quire-sync --example sync_bench`
//!
//! 1. Persisting a draft (one `BEGIN IMMEDIATE` transaction, `synchronous=FULL`) of a 10 KB
//!    Markdown tab, 2,000 times: what every keystroke pays before anything is sent.
//! 2. One pure `step` for an edit of that tab.
//! 3. A diff3 merge of a 5,000-line text with 50 edits on each side.

use std::time::{Duration, Instant};

use quire_model::{Note, NoteId, TabData, TabId, Timestamp, Version};
use quire_sync::Content;
use quire_sync::LocalStore;
use quire_sync::machine::{Config, Draft, Event, NoteSync, Persist, TabState, step};
use quire_sync::merge::merge_text;
use quire_testkit::bench::Samples;

fn report(name: &str, samples: Vec<Duration>) {
    let stats = Samples::from(samples).stats();
    println!(
        "{name}: median {:?}, p99 {:?} ({} runs)",
        stats.median, stats.p99, stats.count
    );
}

fn main() -> anyhow::Result<()> {
    let note_id: NoteId = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse()?;
    let text: String = (0..200)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect();

    // 1. Draft writes.
    let dir = tempfile::tempdir()?;
    let mut store = LocalStore::open(&dir.path().join("sync.db"))?;
    let mut samples = Vec::new();
    for i in 0..2_000 {
        let mut mine = text.clone();
        mine.push_str(&"x".repeat(i % 50));
        let d = Draft {
            note_id: note_id.clone(),
            tab_id: TabId::new("markdown"),
            base_version: Version(3),
            base: Content::new(TabData::Markdown(text.clone().into())),
            mine: Content::new(TabData::Markdown(mine.into())),
            pending: None,
            theirs: None,
            last_error: None,
            state: TabState::Dirty,
            updated_at: Timestamp(i as i64),
            base_missing: false,
            held: None,
        };
        let op = Persist::Draft(Box::new(d));
        let t = Instant::now();
        store.apply(&note_id, &[&op])?;
        samples.push(t.elapsed());
    }
    report("persist a 10 KB draft (FULL)", samples);

    // 2. The pure step for one keystroke.
    let mut server = Note::new(note_id.clone(), "Bench".to_owned());
    server.version = Version(3);
    server.tabs[0].data = TabData::Markdown(text.clone().into());
    let mut s = NoteSync::new(
        note_id.clone(),
        Config::default(),
        Some(server.clone()),
        Vec::new(),
        Vec::new(),
        "b".to_owned(),
    );
    (s, _) = step(s, Event::Fetched(Box::new(server)));
    let mut samples = Vec::new();
    for i in 0..2_000 {
        let mut mine = text.clone();
        mine.push_str(&"y".repeat(1 + i % 50));
        let t = Instant::now();
        let (next, fx) = step(
            s,
            Event::Edited {
                tab_id: TabId::new("markdown"),
                content: Content::new(TabData::Markdown(mine.into())),
                now: Timestamp(i as i64),
            },
        );
        samples.push(t.elapsed());
        s = next;
        assert!(!fx.is_empty());
    }
    report("step(edit) on a 10 KB tab", samples);

    // 3. diff3 on a long text.
    let base: Vec<String> = (0..5_000).map(|i| format!("paragraph {i}")).collect();
    let mut mine = base.clone();
    let mut theirs = base.clone();
    for k in 0..50 {
        mine[k * 100] = format!("mine {k}");
        theirs[k * 100 + 50] = format!("theirs {k}");
    }
    let (b, m, t) = (base.join("\n"), mine.join("\n"), theirs.join("\n"));
    let mut samples = Vec::new();
    for _ in 0..20 {
        let t0 = Instant::now();
        let merged = merge_text(&b, &m, &t);
        samples.push(t0.elapsed());
        assert_eq!(merged.clash_count(), 0);
    }
    report("diff3 merge, 5,000 lines, 50 + 50 edits", samples);
    Ok(())
}
