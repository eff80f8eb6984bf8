//! Export then import gives the same Note: tabs, labels, order and content (cells as text),
//! for random Notes whose text is made of the pieces the formats must escape.

use std::collections::BTreeMap;

use proptest::prelude::*;
use quire_export::{ImportedTab, MANIFEST, export_note, read_export, sheet};
use quire_model::{
    Deck, FileMeta, Layout, Note, NoteId, Row, Sheet, SheetTab, Slide, Source, Tab, TabData, TabId,
    Theme, Version,
};
use serde_json::{Value, json};

/// Text built from the pieces that are special to one of the formats, and ordinary words.
fn tricky_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("Note:".to_owned()),
        Just("Note: ".to_owned()),
        Just("# ".to_owned()),
        Just("\\".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("<".to_owned()),
        Just(">".to_owned()),
        Just(",".to_owned()),
        Just("\"".to_owned()),
        Just(" ".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("é✓🙂".to_owned()),
        "[a-z]{1,6}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|p| p.concat())
}

fn cell() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        Just(json!(5e-324)),
        Just(json!(-0.0)),
        Just(json!(9007199254740993u64)),
        tricky_text().prop_map(Value::String),
    ]
}

fn sheet_tab() -> impl Strategy<Value = TabData> {
    let rows = prop::collection::vec(prop::collection::vec(cell(), 0..5), 0..5);
    prop::collection::vec((tricky_text(), rows), 1..3).prop_map(|sheets| {
        TabData::Sheet(SheetTab {
            sheets: sheets
                .into_iter()
                .enumerate()
                .map(|(i, (name, rows))| Sheet {
                    id: format!("s{}", i + 1),
                    name,
                    rows: rows.into_iter().map(Row::from).collect(),
                })
                .collect(),
        })
    })
}

fn deck_tab() -> impl Strategy<Value = TabData> {
    let layout = prop_oneof![
        Just(Layout::TitleAndBody),
        Just(Layout::TitleOnly),
        Just(Layout::Section),
        Just(Layout::TwoColumn),
        Just(Layout::Quote),
    ];
    let slide = (tricky_text(), tricky_text(), tricky_text(), layout);
    (
        prop::sample::select(Theme::ALL.to_vec()),
        prop::collection::vec(slide, 0..5),
    )
        .prop_map(|(theme, slides)| {
            TabData::Slides(Deck {
                theme,
                slides: slides
                    .into_iter()
                    .enumerate()
                    .map(|(i, (title, body, notes, layout))| Slide {
                        id: format!("slide-{i}-x"),
                        title,
                        body,
                        notes,
                        layout,
                    })
                    .collect(),
            })
        })
}

fn note() -> impl Strategy<Value = Note> {
    let extra = prop::collection::vec((tricky_text(), prop_oneof![sheet_tab(), deck_tab()]), 0..4);
    let sources = prop::collection::vec((tricky_text(), tricky_text()), 0..4);
    let files = prop::collection::vec((tricky_text(), 0u64..1 << 40), 0..3);
    (
        tricky_text(),
        tricky_text(),
        extra,
        sources,
        files,
        Just(()).prop_perturb(|_, mut rng| rng.random::<u64>()),
    )
        .prop_map(|(title, text, extra, sources, files, shuffle)| {
            let id = NoteId::from_uuid(uuid::Uuid::from_u128(
                0x0193_6f0e_7c1a_7b2e_9f00_2a5c_1d3e_4f50,
            ));
            let mut note = Note::new(id, title);
            note.version = Version(7);
            for tab in &mut note.tabs {
                match &mut tab.data {
                    TabData::Markdown(t) => *t = text.clone().into(),
                    TabData::Sources(list) => {
                        *list = sources
                            .iter()
                            .enumerate()
                            .map(|(i, (title, url))| Source {
                                id: format!("src-{i}"),
                                title: title.clone(),
                                url: format!("https://example.com/{url}"),
                                normalized_url: String::new(),
                                added_by: "me".into(),
                                added_at: "2026-01-01T00:00:00Z".into(),
                            })
                            .collect()
                    }
                    TabData::Files(list) => {
                        *list = files
                            .iter()
                            .enumerate()
                            .map(|(i, (name, size))| FileMeta {
                                id: format!("file-{i}"),
                                name: name.clone(),
                                mime: "image/png".into(),
                                size: *size,
                                sha256: "ab".repeat(32),
                                added_by: "me".into(),
                                added_at: "2026-01-01T00:00:00Z".into(),
                            })
                            .collect()
                    }
                    _ => {}
                }
            }
            for (i, (label, data)) in extra.into_iter().enumerate() {
                note.tabs.push(Tab {
                    id: TabId::new(format!("{}-{}-x", data.kind(), i + 1)),
                    label,
                    data,
                });
            }
            // Any order of the strip.
            let n = note.tabs.len();
            let mut s = shuffle;
            for i in (1..n).rev() {
                note.tabs.swap(i, (s % (i as u64 + 1)) as usize);
                s /= i as u64 + 1;
            }
            note
        })
}

/// What an import of `note` must give: every tab, its label and content as the files hold
/// them (cells as text; a source as its title and URL; an attachment as its metadata).
fn as_imported(note: &Note) -> Vec<ImportedTab> {
    note.tabs
        .iter()
        .map(|t| ImportedTab {
            label: t.label.clone(),
            data: match &t.data {
                TabData::Sheet(s) => TabData::Sheet(SheetTab {
                    sheets: s
                        .sheets
                        .iter()
                        .map(|s| Sheet {
                            rows: s
                                .rows
                                .iter()
                                .map(|r| Row::from(sheet::as_read_back(r)))
                                .collect(),
                            ..s.clone()
                        })
                        .collect(),
                }),
                TabData::Sources(list) => TabData::Sources(
                    list.iter()
                        .map(|s| Source {
                            id: String::new(),
                            normalized_url: String::new(),
                            added_by: String::new(),
                            added_at: String::new(),
                            ..s.clone()
                        })
                        .collect(),
                ),
                TabData::Files(list) => TabData::Files(
                    list.iter()
                        // The exported ID is kept (the text's image links name it).
                        .map(|f| FileMeta {
                            added_by: String::new(),
                            added_at: String::new(),
                            ..f.clone()
                        })
                        .collect(),
                ),
                other => other.clone(),
            },
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn export_then_import_gives_the_same_note(note in note()) {
        let folder = export_note(&note).expect("exports");
        let files: BTreeMap<String, Vec<u8>> = folder.files.iter().cloned().collect();
        prop_assert_eq!(files.len(), folder.files.len(), "two files under one name");
        prop_assert!(files.contains_key(MANIFEST));
        let back = read_export(&files).expect("imports");
        prop_assert_eq!(&back.title, &note.title);
        prop_assert_eq!(back.tabs, as_imported(&note));
    }
}

#[test]
fn the_folder_holds_what_a_person_expects() {
    let id = NoteId::from_uuid(uuid::Uuid::from_u128(
        0x0193_6f0e_7c1a_7b2e_9f00_2a5c_1d3e_4f50,
    ));
    let mut note = Note::new(id, "Trip: \"Lisbon\"".into());
    note.version = Version(3);
    note.tabs[0].data = TabData::Markdown("# Plan\n\nFly out.\n".into());
    for (i, label) in ["Budget", "Budget"].iter().enumerate() {
        note.tabs.push(Tab {
            id: TabId::new(format!("sheet-{i}-x")),
            label: (*label).into(),
            data: TabData::Sheet(SheetTab {
                sheets: vec![Sheet {
                    id: "s1".into(),
                    name: "Sheet 1".into(),
                    rows: vec![
                        vec![json!("item"), json!("cost")].into(),
                        vec![json!("a, b"), json!(12.5)].into(),
                    ],
                }],
            }),
        });
    }
    let folder = export_note(&note).expect("exports");
    let paths: Vec<&str> = folder.files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "index.md",
            "sources.md",
            "Budget.csv",
            "Budget (2).csv",
            MANIFEST
        ]
    );
    let index = String::from_utf8(folder.files[0].1.clone()).expect("utf-8");
    assert_eq!(
        index,
        "---\nid: \"01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50\"\ntitle: \"Trip: \\\"Lisbon\\\"\"\n\
         version: 3\n---\n# Plan\n\nFly out.\n"
    );
    assert_eq!(folder.files[2].1, b"item,cost\r\n\"a, b\",12.5\r\n");
}
