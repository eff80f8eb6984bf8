//! Properties of `apply` over random batches: refusals change nothing, generated IDs are unique
//! and never reused, and the strip always keeps exactly one of each fixed tab.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use quire_model::{ApplyCtx, Note, NoteId, Op, TabData, TabId, Timestamp, apply};
use serde_json::json;

fn note() -> Note {
    Note::new(
        "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50"
            .parse::<NoteId>()
            .unwrap(),
        "P".into(),
    )
}

/// An operation drawn against the tabs that exist (or not: handles are sometimes wrong on
/// purpose, as a model's would be).
fn op_strategy(tabs: Vec<String>) -> impl Strategy<Value = Op> {
    let pick = proptest::sample::select(
        tabs.into_iter()
            .chain(["slides", "sheet", "Deck", "0"].map(String::from))
            .collect::<Vec<_>>(),
    );
    (0u8..9, pick, 0usize..6, "[a-z ]{0,12}").prop_map(|(kind, tab, n, text)| {
        let v = match kind {
            0 => json!({"op": "create_tab", "tab_type": "slides", "slides": [{"title": text}]}),
            1 => json!({"op": "create_tab", "tab_type": "sheet", "label": text}),
            2 => json!({"op": "replace_text", "tab_id": tab, "text": text}),
            3 => json!({"op": "rename_tab", "tab_id": tab, "label": text}),
            4 => json!({"op": "move_tab", "tab_id": tab, "index": n}),
            5 => json!({"op": "delete_tab", "tab_id": tab}),
            6 => json!({"op": "slide_add", "tab_id": tab, "title": text}),
            7 => json!({"op": "sheet_set_range", "tab_id": tab, "start_row": n, "start_col": n, "values": [[text, n]]}),
            _ => json!({"op": "add_source", "title": "t", "url": format!("https://example.org/{n}")}),
        };
        serde_json::from_value(v).unwrap()
    })
}

fn all_generated_ids(n: &Note) -> Vec<String> {
    let mut ids: Vec<String> = n.tabs.iter().map(|t| t.id.to_string()).collect();
    for t in &n.tabs {
        match &t.data {
            TabData::Slides(d) => ids.extend(d.slides.iter().map(|s| s.id.clone())),
            TabData::Sources(s) => ids.extend(s.iter().map(|s| s.id.clone())),
            _ => {}
        }
    }
    ids
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn batches_are_atomic_and_ids_unique(steps in 1usize..25, t0 in 0i64..1_000, seed in any::<[u8; 32]>()) {
        let mut current = note();
        let mut ever_seen: HashSet<String> = HashSet::new();
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig::default(),
            proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed),
        );
        for step in 0..steps {
            let tabs: Vec<String> = current.tabs.iter().map(|t| t.id.to_string()).collect();
            let batch = proptest::collection::vec(op_strategy(tabs), 1..4)
                .new_tree(&mut runner).unwrap().current();
            let ctx = ApplyCtx { now: Timestamp(t0 + step as i64), author: "p" };
            let before = current.clone();
            match apply(&current, &batch, &ctx) {
                Ok(applied) => {
                    prop_assert!(applied.note.seq >= before.seq, "the counter never goes back");
                    current = applied.note;
                }
                Err(_) => prop_assert_eq!(&current, &before),
            }
            for fixed in [TabId::MARKDOWN, TabId::FILES, TabId::SOURCES] {
                prop_assert_eq!(current.tabs.iter().filter(|t| t.id.as_str() == fixed).count(), 1);
            }
            let ids = all_generated_ids(&current);
            let unique: HashSet<_> = ids.iter().cloned().collect();
            prop_assert_eq!(unique.len(), ids.len(), "duplicate id in {:?}", ids);
            // An ID that disappeared (deleted tab) is never handed out again.
            for id in &ids {
                if !["markdown", "files", "sources"].contains(&id.as_str()) && !before_contains(&before, id) {
                    prop_assert!(ever_seen.insert(id.clone()), "reused {}", id);
                }
            }
        }
    }
}

fn before_contains(n: &Note, id: &str) -> bool {
    all_generated_ids(n).iter().any(|x| x == id)
}
