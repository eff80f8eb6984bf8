//! `edit_text` on a 1 MiB Markdown text: one line quoted and changed, in a text whose lines
//! repeat one pattern (a log, a table) and in prose, median of `--runs` edits each (default
//! 200). What it measures is `apply`: the Note copied, the quote found and checked unique, the
//! text changed.
//!
//! `cargo run --release -p quire-model --example bench_find [-- --runs N]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use quire_model::{ApplyCtx, Note, NoteId, Op, TabId, TextEdit, Timestamp, apply};

const MIB: usize = 1 << 20;

fn main() {
    let runs: usize = std::env::args()
        .skip_while(|a| a != "--runs")
        .nth(1)
        .map_or(200, |n| n.parse().expect("--runs N"));
    let ctx = ApplyCtx {
        now: Timestamp(1_761_800_000_000),
        author: "bench",
    };
    let patterned = |n: usize| format!("Line {n:06}: the quick brown fox jumps over the lazy dog.");
    let prose = |n: usize| {
        let words = [
            "notes", "agent", "version", "written", "draft", "merge", "sheet",
        ];
        format!(
            "Paragraph {n} on the {} and the {}, {} again by the person.",
            words[n % 7],
            words[(n / 7) % 7],
            words[(n / 49) % 7]
        )
    };
    println!("edit_text of one line in a 1 MiB text, {runs} edits, median");
    for (what, line) in [
        (
            "lines of one pattern",
            &patterned as &dyn Fn(usize) -> String,
        ),
        ("prose", &prose),
    ] {
        let mut lines = Vec::new();
        let mut len = 0;
        while len < MIB {
            let l = line(lines.len());
            len += l.len() + 1;
            lines.push(l);
        }
        let id: NoteId = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse().unwrap();
        let tab_id = TabId::new(TabId::MARKDOWN);
        let fill = vec![Op::ReplaceText {
            tab_id: tab_id.clone(),
            text: lines.join("\n"),
        }];
        let note: Note = apply(&Note::new(id, "Bench".into()), &fill, &ctx)
            .unwrap()
            .note;
        let mut times: Vec<Duration> = (0..runs)
            .map(|i| {
                let n = (i * 7919) % lines.len();
                let ops = vec![Op::EditText {
                    tab_id: tab_id.clone(),
                    edits: vec![TextEdit {
                        old_text: lines[n].clone(),
                        new_text: format!("changed {i}"),
                    }],
                }];
                let t = Instant::now();
                let applied = apply(&note, &ops, &ctx).unwrap();
                let elapsed = t.elapsed();
                drop(applied);
                elapsed
            })
            .collect();
        times.sort();
        println!("{what}: {:.0} us", times[runs / 2].as_secs_f64() * 1e6);
    }
}
