//! The search section of the conformance suite: the index follows every acknowledged write at
//! once and no refused one, finds each kind of content, and ranks; no query text fails.

use std::sync::Arc;

use quire_api::SearchHit;
use quire_model::{NewTabKind, NoteId, Op, OpErrorCode, SlideInput, TabId, TabKind, Timestamp};

use super::{create, created_tab, new_tab, request, text, write};
use crate::search::{SearchQuery, SearchScope};
use crate::{Change, Store, StoreError};

async fn find(store: &dyn Store, q: &str) -> Vec<SearchHit> {
    find_in(store, q, SearchScope::AllNotes).await
}

async fn find_in(store: &dyn Store, q: &str, scope: SearchScope) -> Vec<SearchHit> {
    let query = SearchQuery::parse(q).unwrap_or_else(|e| panic!("{q:?}: {e}"));
    store
        .search(&query, 20, scope)
        .await
        .unwrap_or_else(|e| panic!("search {q:?}: {e}"))
}

/// `(note, tab)` of each hit, in order.
fn places(hits: &[SearchHit]) -> Vec<(NoteId, TabId)> {
    hits.iter()
        .map(|h| (h.note_id.clone(), h.tab_id.clone()))
        .collect()
}

fn md() -> TabId {
    TabId::new(TabId::MARKDOWN)
}

/// A search right after an acknowledged write finds it (and no longer finds what it replaced);
/// a refused write (invalid or stale) changes nothing the index finds.
pub async fn search_follows_acknowledged_writes_only(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Plan").await;
    write(store, request(&id, 1, None, vec![text("the walrus sings")])).await;
    let hits = find(store, "walrus").await;
    assert_eq!(places(&hits), vec![(id.clone(), md())]);
    assert_eq!(hits[0].version, quire_model::Version(2));
    assert_eq!(hits[0].title, "Plan");
    assert_eq!(hits[0].tab_type, TabKind::Markdown);
    assert_eq!(hits[0].snippet, "the walrus sings");

    let refused = vec![
        text("the narwhal sings"),
        Op::SlideAdd {
            tab_id: TabId::new("nope"),
            title: "t".to_owned(),
            body: String::new(),
            notes: String::new(),
        },
    ];
    match store.write(request(&id, 2, None, refused)).await {
        Err(StoreError::Invalid(e)) => assert_eq!(e.code, OpErrorCode::TabNotFound),
        other => panic!("expected an invalid op, got {other:?}"),
    }
    let stale = store
        .write(request(&id, 1, None, vec![text("the narwhal sings")]))
        .await;
    assert!(matches!(stale, Err(StoreError::Conflict(_))), "{stale:?}");
    assert!(find(store, "narwhal").await.is_empty());
    assert_eq!(
        places(&find(store, "walrus").await),
        vec![(id.clone(), md())]
    );

    write(
        store,
        request(&id, 2, None, vec![text("the narwhal sings")]),
    )
    .await;
    assert!(find(store, "walrus").await.is_empty());
    assert_eq!(
        places(&find(store, "narwhal").await),
        vec![(id.clone(), md())]
    );

    // A restore brings the old words back.
    write(
        store,
        crate::WriteRequest {
            change: Change::Restore {
                version: quire_model::Version(2),
            },
            ..request(&id, 3, None, vec![])
        },
    )
    .await;
    assert_eq!(places(&find(store, "walrus").await), vec![(id, md())]);
    assert!(find(store, "narwhal").await.is_empty());
}

/// Titles, Markdown, sheet cells, slide titles, bodies and notes, source titles and URLs and
/// file names are all found, each in its own tab; a title alone finds the Markdown tab.
pub async fn search_finds_every_kind_of_content(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Zeppelin logbook").await;
    let sheet = created_tab(
        &write(
            store,
            request(&id, 1, None, vec![new_tab(NewTabKind::Sheet)]),
        )
        .await,
    );
    let slides = created_tab(
        &write(
            store,
            request(&id, 2, None, vec![new_tab(NewTabKind::Slides)]),
        )
        .await,
    );
    write(
        store,
        request(
            &id,
            3,
            None,
            vec![
                text("mooring mast"),
                Op::SheetSetRange {
                    tab_id: sheet.clone(),
                    sheet_id: None,
                    start_row: 2,
                    start_col: 1,
                    values: vec![vec![serde_json::json!("hydrogen"), serde_json::json!(4217)]],
                },
                Op::SlidesAddOutline {
                    tab_id: slides.clone(),
                    slides: vec![SlideInput {
                        title: "Gondola".to_owned(),
                        body: "propeller".to_owned(),
                        notes: "ballast".to_owned(),
                    }],
                },
                Op::AddSource {
                    title: "Airship history".to_owned(),
                    url: "https://example.org/hindenburg".to_owned(),
                },
                Op::AddFile {
                    name: "blueprint-rigid.pdf".to_owned(),
                    mime: "application/pdf".to_owned(),
                    size: 10,
                    sha256: "0".repeat(64),
                },
            ],
        ),
    )
    .await;
    let cases = [
        ("zeppelin", md()),
        ("logbook", md()),
        ("mooring", md()),
        ("hydrogen", sheet.clone()),
        ("4217", sheet.clone()),
        ("gondola", slides.clone()),
        ("propeller", slides.clone()),
        ("ballast", slides.clone()),
        ("airship", TabId::new(TabId::SOURCES)),
        ("hindenburg", TabId::new(TabId::SOURCES)),
        ("blueprint", TabId::new(TabId::FILES)),
        // The title counts as part of each tab.
        ("zeppelin hydrogen", sheet.clone()),
    ];
    for (q, tab) in cases {
        assert_eq!(
            places(&find(store, q).await),
            vec![(id.clone(), tab)],
            "{q:?}"
        );
    }
    let hit = &find(store, "hydrogen").await[0];
    assert_eq!(hit.tab_type, TabKind::Sheet);
    assert_eq!(hit.tab_label, "Sheet");
    assert_eq!(find(store, "zeppelin").await[0].snippet, "Zeppelin logbook");

    // A renamed title and tab are what hits show; the old title finds nothing.
    write(
        store,
        request(
            &id,
            4,
            None,
            vec![
                Op::SetTitle {
                    title: "Blimp diary".to_owned(),
                },
                Op::RenameTab {
                    tab_id: sheet.clone(),
                    label: "Gas".to_owned(),
                },
            ],
        ),
    )
    .await;
    assert!(find(store, "zeppelin").await.is_empty());
    let hit = &find(store, "blimp hydrogen").await[0];
    assert_eq!(
        (hit.title.as_str(), hit.tab_label.as_str()),
        ("Blimp diary", "Gas")
    );

    // A deleted tab is not found any more.
    write(
        store,
        request(&id, 5, None, vec![Op::DeleteTab { tab_id: slides }]),
    )
    .await;
    assert!(find(store, "gondola").await.is_empty());
}

/// Case, accents, the last word as a prefix, phrases, and every word required.
pub async fn search_matches_words_as_people_type_them(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let a = create(store, "A").await;
    write(
        store,
        request(
            &a,
            1,
            None,
            vec![text("Crème brûlée for the Café\n\nquarterly report draft")],
        ),
    )
    .await;
    let b = create(store, "B").await;
    write(
        store,
        request(&b, 1, None, vec![text("the report is quarterly")]),
    )
    .await;
    let both = |mut v: Vec<(NoteId, TabId)>| {
        v.sort();
        v
    };
    let cases: &[(&str, &[&NoteId])] = &[
        ("creme", &[&a]),
        ("CRÈME BRULEE", &[&a]),
        ("cafe", &[&a]),
        ("caf", &[&a]),
        ("quart", &[&a, &b]),
        ("quarterly report", &[&a, &b]),
        ("\"quarterly report\"", &[&a]),
        ("\"report quarterly\"", &[]),
        ("report missingword", &[]),
        ("\"quarterly report\" draft", &[&a]),
        ("rep", &[&a, &b]),
        ("\"rep\"", &[]),
    ];
    for (q, want) in cases {
        let mut want: Vec<(NoteId, TabId)> = want.iter().map(|id| ((*id).clone(), md())).collect();
        want.sort();
        assert_eq!(both(places(&find(store, q).await)), want, "{q:?}");
    }
}

/// No query text makes a search fail: quotes, operators, column filters, stars, emoji, 10 KB.
pub async fn search_survives_hostile_queries(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Hostile").await;
    write(
        store,
        request(&id, 1, None, vec![text("near or not and title body")]),
    )
    .await;
    let long = "x\" NEAR( OR * ".repeat(800);
    let cases = [
        "\"",
        "\"\"\"",
        "a\"b",
        "NEAR(a b)",
        "near OR",
        "NOT near",
        "title:near",
        "body : near",
        "-near",
        "near*",
        "*near",
        "^near",
        "{title body}: near",
        "near + -",
        "🎉 near 🎉",
        "'; DROP TABLE notes; --",
        "near\\",
        "(near",
        "near)",
        "AND",
        "OR",
        "NOT",
        long.as_str(),
        "near:*",
        "'near' & !",
        "near <-> or",
        "a | b",
        "\0near",
    ];
    for q in cases {
        let Ok(query) = SearchQuery::parse(q) else {
            continue;
        };
        let got = store.search(&query, 20, SearchScope::AllNotes).await;
        assert!(got.is_ok(), "{q:?}: {got:?}");
    }
    assert_eq!(
        places(&find(store, "NEAR(or NOT").await),
        vec![(id.clone(), md())]
    );
    assert_eq!(places(&find(store, "title:body").await), vec![(id, md())]);
}

/// Better matches come first: more occurrences in a short text beat one in a long one, and a
/// Note gives one hit per matching tab.
pub async fn search_ranks_and_limits(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let weak = create(store, "Weak").await;
    let filler = "filler words ".repeat(200);
    write(
        store,
        request(&weak, 1, None, vec![text(&format!("kumquat {filler}"))]),
    )
    .await;
    let strong = create(store, "Strong").await;
    write(
        store,
        request(&strong, 1, None, vec![text("kumquat kumquat kumquat")]),
    )
    .await;
    let titled = create(store, "Kumquat").await;
    let hits = find(store, "kumquat").await;
    let order: Vec<&NoteId> = hits.iter().map(|h| &h.note_id).collect();
    assert_eq!(order.len(), 3, "{hits:?}");
    assert_eq!(order.last(), Some(&&weak), "{hits:?}");
    assert!(order.contains(&&titled) && order.contains(&&strong));
    let query = SearchQuery::parse("kumquat").expect("words");
    let one = store
        .search(&query, 1, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].note_id, hits[0].note_id);
}

/// An agent's search finds only the Notes the person approved for agents.
pub async fn agent_search_finds_approved_notes_only(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let private = create(store, "Private okapi").await;
    let shared = create(store, "Shared okapi").await;
    store
        .set_agent_access(&shared, true, "person", Timestamp(1))
        .await
        .expect("approve");
    let agent = find_in(store, "okapi", SearchScope::AgentApproved).await;
    assert_eq!(places(&agent), vec![(shared.clone(), md())]);
    let person = find_in(store, "okapi", SearchScope::AllNotes).await;
    assert_eq!(person.len(), 2);
    store
        .set_agent_access(&shared, false, "person", Timestamp(2))
        .await
        .expect("withdraw");
    assert!(
        find_in(store, "okapi", SearchScope::AgentApproved)
            .await
            .is_empty()
    );
    assert!(person.iter().any(|h| h.note_id == private));
}

/// A small edit of a long Markdown text is found at once, and the words it removed are gone,
/// while the rest of the text is still found.
pub async fn search_follows_edits_of_a_long_text(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = create(store, "Long").await;
    let long: String = (0..5_000)
        .map(|i| format!("paragraph {i} about things w{i}x\n"))
        .collect();
    write(store, request(&id, 1, None, vec![text(&long)])).await;
    let edited = long.replacen("w2500x", "aardvark", 1);
    write(store, request(&id, 2, None, vec![text(&edited)])).await;
    assert_eq!(
        places(&find(store, "aardvark").await),
        vec![(id.clone(), md())]
    );
    assert!(find(store, "w2500x").await.is_empty());
    for word in ["w0x", "w2499x", "w2501x", "w4999x"] {
        assert_eq!(
            places(&find(store, word).await),
            vec![(id.clone(), md())],
            "{word}"
        );
    }
    let hit = &find(store, "aardvark").await[0];
    assert!(
        hit.snippet.contains("paragraph 2500 about things aardvark"),
        "{}",
        hit.snippet
    );
}

/// Better-ranked Notes an agent may not see do not crowd out the one it may.
pub async fn agent_search_looks_past_notes_it_may_not_see(store: Arc<dyn Store>) {
    let store = store.as_ref();
    // Words in most chunks weigh nothing (bm25's IDF): most Notes are about something else.
    for n in 0..60 {
        create(store, &format!("Giraffe {n}")).await;
    }
    for n in 0..40 {
        let id = create(store, &format!("Private {n}")).await;
        write(
            store,
            request(&id, 1, None, vec![text("okapi okapi okapi")]),
        )
        .await;
    }
    let shared = create(store, "Shared").await;
    write(
        store,
        request(&shared, 1, None, vec![text("an okapi, once")]),
    )
    .await;
    store
        .set_agent_access(&shared, true, "person", Timestamp(1))
        .await
        .expect("approve");
    let query = SearchQuery::parse("okapi").expect("words");
    let agent = store
        .search(&query, 1, SearchScope::AgentApproved)
        .await
        .expect("search");
    assert_eq!(places(&agent), vec![(shared.clone(), md())]);
    let person = store
        .search(&query, 1, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_ne!(person[0].note_id, shared, "the private ones rank first");
}

/// A link to a Note (`[title](quire:note/ID)`) is found by the quoted target, as the server's
/// backlinks ask for it: in any chunk of a long text, and not from the ID's groups alone or from
/// a link to another Note.
pub async fn a_note_link_is_found_by_its_target(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let target = create(store, "Target").await;
    let other = create(store, "Other").await;
    let linking = create(store, "Linking").await;
    let far = create(store, "Far").await;
    let bare = create(store, "Bare").await;
    let to_other = create(store, "To other").await;
    let link = |id: &NoteId| format!("[Old title](quire:note/{id})");
    write(
        store,
        request(
            &linking,
            1,
            None,
            vec![text(&format!("See {} now.", link(&target)))],
        ),
    )
    .await;
    let long: String = (0..400)
        .map(|i| format!("line {i} of filler text\n"))
        .collect();
    write(
        store,
        request(
            &far,
            1,
            None,
            vec![text(&format!("{long}{}\n", link(&target)))],
        ),
    )
    .await;
    let digits = target.as_str().replace('-', " ");
    write(
        store,
        request(&bare, 1, None, vec![text(&format!("the id {digits}"))]),
    )
    .await;
    write(
        store,
        request(&to_other, 1, None, vec![text(&link(&other))]),
    )
    .await;
    let query = format!("\"quire:note/{target}\"");
    let mut found: Vec<NoteId> = find(store, &query)
        .await
        .into_iter()
        .map(|h| h.note_id)
        .collect();
    found.sort();
    let mut want = vec![linking.clone(), far.clone()];
    want.sort();
    assert_eq!(found, want);
    // The link removed: no longer found.
    write(store, request(&linking, 2, None, vec![text("no link")])).await;
    let found: Vec<NoteId> = find(store, &query)
        .await
        .into_iter()
        .map(|h| h.note_id)
        .collect();
    assert_eq!(found, vec![far]);
}

/// Every word of a query need not be in one chunk of a long tab: a tab holding each of them
/// somewhere matches (ranked after tabs that hold them together), but words shared out between
/// two tabs of a Note do not, nor a tab whose only match is the Note's title; an agent still
/// sees approved Notes only.
pub async fn words_spread_over_a_long_tab_are_found(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let line = |i: usize| match i {
        10 => "the aardvark digs\n".to_owned(),
        4_000 => "a zebra grazes\n".to_owned(),
        _ => format!("paragraph {i} about things w{i}x\n"),
    };
    let long: String = (0..5_000).map(line).collect();
    let spread = create(store, "Long").await;
    write(store, request(&spread, 1, None, vec![text(&long)])).await;
    let together = create(store, "Short").await;
    write(
        store,
        request(&together, 1, None, vec![text("an aardvark met a zebra")]),
    )
    .await;
    // One word in the Markdown, the other in a sheet: no tab holds both.
    let apart = create(store, "Apart").await;
    let sheet = created_tab(
        &write(
            store,
            request(&apart, 1, None, vec![new_tab(NewTabKind::Sheet)]),
        )
        .await,
    );
    write(
        store,
        request(
            &apart,
            2,
            None,
            vec![
                text("aardvark"),
                Op::SheetSetRange {
                    tab_id: sheet.clone(),
                    sheet_id: None,
                    start_row: 0,
                    start_col: 0,
                    values: vec![vec![serde_json::json!("zebra")]],
                },
            ],
        ),
    )
    .await;
    // Both words in the title: its Markdown tab is found, its other tab is not.
    let titled = create(store, "Aardvark and zebra").await;
    let titled_sheet = created_tab(
        &write(
            store,
            request(&titled, 1, None, vec![new_tab(NewTabKind::Sheet)]),
        )
        .await,
    );
    let long_sheet: Vec<Vec<serde_json::Value>> = (0..3_000)
        .map(|r| vec![serde_json::json!(format!("row {r} of something"))])
        .collect();
    write(
        store,
        request(
            &titled,
            2,
            None,
            vec![Op::SheetSetRange {
                tab_id: titled_sheet.clone(),
                sheet_id: None,
                start_row: 0,
                start_col: 0,
                values: long_sheet,
            }],
        ),
    )
    .await;

    for q in [
        "aardvark zebra",
        "zebra aardvark",
        "aardvark zebr",
        "ZÉBRA aardv",
    ] {
        let hits = find(store, q).await;
        let mut found = places(&hits);
        // The two that hold the words together (in one chunk, or the title) come first.
        assert_eq!(found.len(), 3, "{q:?}: {hits:?}");
        assert_eq!(found.pop(), Some((spread.clone(), md())), "{q:?}: {hits:?}");
        found.sort();
        let mut first = vec![(together.clone(), md()), (titled.clone(), md())];
        first.sort();
        assert_eq!(found, first, "{q:?}");
    }
    let hit = find(store, "zebra aardvark")
        .await
        .into_iter()
        .find(|h| h.note_id == spread)
        .expect("the long Note");
    assert!(
        hit.snippet.contains("zebra") || hit.snippet.contains("aardvark"),
        "{}",
        hit.snippet
    );
    // Every word is required still, and a phrase is a phrase.
    assert!(
        !places(&find(store, "aardvark zebra okapi").await)
            .iter()
            .any(|(id, _)| *id == spread)
    );
    assert!(
        !places(&find(store, "\"aardvark zebra\"").await)
            .iter()
            .any(|(id, _)| *id == spread)
    );
    // A limit of one: the best alone; the spread tab fills a larger limit's last place.
    let query = SearchQuery::parse("aardvark zebra").expect("words");
    let one = store
        .search(&query, 1, SearchScope::AllNotes)
        .await
        .expect("search");
    assert_eq!(one.len(), 1);
    assert_ne!(one[0].note_id, spread);

    // An agent sees the long Note only once the person approved it.
    assert!(
        !find_in(store, "aardvark zebra", SearchScope::AgentApproved)
            .await
            .iter()
            .any(|h| h.note_id == spread)
    );
    store
        .set_agent_access(&spread, true, "person", Timestamp(1))
        .await
        .expect("approve");
    assert_eq!(
        places(&find_in(store, "aardvark zebra", SearchScope::AgentApproved).await),
        vec![(spread.clone(), md())]
    );
}
