//! The pure save machine as case tables: each case is a script of events, each with the
//! effects it must produce (in order) and the tab's state after it. No network, no clock.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use quire_api::WriteResult;
use quire_model::{
    Note, NoteId, Op, Sheet, SheetTab, Tab, TabData, TabId, Text, Timestamp, Version,
};
use quire_sync::Content;
use quire_sync::machine::{
    BaseAt, Config, Draft, Effect, Event, Failure, NoteSync, Notice, OnConflict, Outgoing,
    PendingSave, Persist, Resolution, TabState, Timer, WriteBody, step,
};

const NOTE: &str = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
const SHEET: &str = "sheet-1-mh8z1k2a";

fn note_id() -> NoteId {
    NOTE.parse().unwrap()
}

fn md() -> TabId {
    TabId::new("markdown")
}

fn sheet() -> TabId {
    TabId::new(SHEET)
}

/// The Note at `version` with this Markdown text and one cell in the sheet.
fn note(version: u64, text: &str, cell: &str) -> Note {
    let mut n = Note::new(note_id(), "Plan".to_owned());
    n.version = Version(version);
    n.tabs[0].data = TabData::Markdown(text.into());
    n.tabs.push(Tab {
        id: sheet(),
        label: "Numbers".to_owned(),
        data: TabData::Sheet(SheetTab {
            sheets: vec![Sheet {
                id: "s1".to_owned(),
                name: "Sheet 1".to_owned(),
                rows: vec![vec![serde_json::json!(cell)].into()],
            }],
        }),
    });
    n
}

fn without_sheet(mut n: Note) -> Note {
    n.tabs.retain(|t| t.id != sheet());
    n
}

fn text(s: &str) -> Content {
    Content::new(TabData::Markdown(s.into()))
}

fn cell(s: &str) -> Content {
    Content::new(TabData::Sheet(SheetTab {
        sheets: vec![Sheet {
            id: "s1".to_owned(),
            name: "Sheet 1".to_owned(),
            rows: vec![vec![serde_json::json!(s)].into()],
        }],
    }))
}

fn config() -> Config {
    Config {
        debounce: Duration::from_millis(400),
        backoff_min: Duration::from_millis(100),
        backoff_max: Duration::from_secs(2),
    }
}

fn fresh(server: Option<Note>, drafts: Vec<Draft>) -> NoteSync {
    NoteSync::new(
        note_id(),
        config(),
        server,
        drafts,
        Vec::new(),
        "k".to_owned(),
    )
}

fn edit(tab: TabId, content: Content) -> Event {
    Event::Edited {
        tab_id: tab,
        content,
        now: Timestamp(1_000),
    }
}

fn debounce(tab: TabId, generation: u64) -> Event {
    Event::TimerFired {
        timer: Timer::Debounce(tab),
        generation,
    }
}

fn retry(generation: u64) -> Event {
    Event::TimerFired {
        timer: Timer::Retry,
        generation,
    }
}

fn fetched(n: Note) -> Event {
    Event::Fetched(Box::new(n))
}

fn saved(version: u64, tab: &str, replayed: bool) -> Event {
    Event::SaveSucceeded(Box::new(WriteResult {
        note_id: note_id(),
        version: Version(version),
        changed_tab_ids: vec![TabId::new(tab)],
        outcomes: Vec::new(),
        replayed,
        request_differs: false,
    }))
}

fn conflict(current: u64, tabs: &[&str]) -> Event {
    Event::SaveFailed(Failure::Conflict {
        current_version: Version(current),
        changed_tab_ids: tabs.iter().map(|t| TabId::new(*t)).collect(),
    })
}

fn offline() -> Event {
    Event::SaveFailed(Failure::Offline("connection refused".to_owned()))
}

fn resolve(r: Resolution) -> Event {
    Event::Resolve {
        tab_id: md(),
        resolution: r,
        theirs_version: Version(4),
        now: Timestamp(2_000),
    }
}

/// A compact, readable form of an effect.
fn show(e: &Effect) -> String {
    match e {
        Effect::Persist(Persist::Base(n)) => format!("base v{}", n.version),
        Effect::Persist(Persist::Draft(d)) => match &d.pending {
            Some(p) => format!(
                "draft {} pending {}@{}",
                d.tab_id, p.key, p.expected_version
            ),
            None => format!("draft {}", d.tab_id),
        },
        Effect::Persist(Persist::DropDraft(t)) => format!("drop draft {t}"),
        Effect::Persist(Persist::Archive { draft, reason, .. }) => {
            format!("archive {} {}", draft.tab_id, reason.as_str())
        }
        Effect::Persist(Persist::Outgoing(o)) => match &o.key {
            Some(k) => format!("outgoing {} {k}", o.id),
            None => format!("outgoing {}", o.id),
        },
        Effect::Persist(Persist::DropOutgoing(id)) => format!("drop outgoing {id}"),
        Effect::Send(s) => {
            let what = match &s.body {
                WriteBody::Ops { changes } => changes
                    .iter()
                    .map(|op| match op {
                        Op::ReplaceText { tab_id, text } => format!("{tab_id}={text:?}"),
                        Op::ReplaceTabData { tab_id, data } => format!("{tab_id}={data}"),
                        other => other.name().to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                WriteBody::Restore { version } => format!("restore {version}"),
                WriteBody::Revert { version } => format!("revert {version}"),
            };
            format!("send {}@{} {what}", s.key, s.expected_version)
        }
        Effect::Fetch => "fetch".to_owned(),
        Effect::FetchVersion(v) => format!("fetch v{v}"),
        Effect::Reconnect => "reconnect".to_owned(),
        Effect::StartTimer {
            timer, generation, ..
        } => match timer {
            Timer::Debounce(t) => format!("timer debounce {t}#{generation}"),
            Timer::Retry => format!("timer retry#{generation}"),
            Timer::LocalStore => format!("timer local#{generation}"),
            Timer::Reconnect => format!("timer reconnect#{generation}"),
        },
        Effect::Notify(n) => match n {
            Notice::RemoteApplied { tab_ids, version } => format!(
                "remote {}@{version}",
                tab_ids
                    .iter()
                    .map(TabId::as_str)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Notice::ConflictShown { tab_id } => format!("conflict {tab_id}"),
            Notice::Rebased { tab_id, version } => format!("rebased {tab_id}@{version}"),
            Notice::TabSaved {
                tab_id,
                version,
                replayed,
                ..
            } => format!(
                "saved {tab_id}@{version}{}",
                if *replayed { " (replay)" } else { "" }
            ),
            Notice::OutgoingDone { id, result } => format!("done {id}@{}", result.version),
            Notice::OutgoingFailed { id, .. } => format!("failed {id}"),
        },
    }
    .replace(&format!("draft {SHEET}"), "draft sheet")
    .replace(SHEET, "sheet")
    .replace("markdown=", "md=")
    .replace("draft markdown", "draft md")
    .replace("debounce markdown", "debounce md")
}

/// One scripted step: the event, the effects it must produce, and the state of the tab under
/// watch afterwards.
struct S(Event, &'static [&'static str], TabState);

fn run(name: &str, mut s: NoteSync, watch: &TabId, script: Vec<S>) -> NoteSync {
    for (i, S(event, want, state)) in script.into_iter().enumerate() {
        let (next, fx) = step(s, event);
        s = next;
        let got: Vec<String> = fx.iter().map(show).collect();
        assert_eq!(got, *want, "{name}: step {i}: effects");
        assert_eq!(
            s.tab_state(watch),
            state,
            "{name}: step {i}: state of {watch}"
        );
    }
    s
}

fn remote(version: u64) -> Event {
    Event::Remote {
        version: Version(version),
    }
}

/// Effects built at run time, for the tables (which hold `'static` lines).
fn want(lines: Vec<String>) -> &'static [&'static str] {
    Box::leak(
        lines
            .into_iter()
            .map(|l| &*Box::leak(l.into_boxed_str()))
            .collect(),
    )
}

/// The person types `t` in the Markdown tab (no draft in conflict): a draft and a debounce.
fn typed(t: &str, generation: u64) -> S {
    S(
        edit(md(), text(t)),
        want(vec![
            "draft md".to_owned(),
            format!("timer debounce md#{generation}"),
        ]),
        TabState::Dirty,
    )
}

/// The debounce fires: the draft with its key on disk, then the save of `t` on `version`.
fn sent(generation: u64, key: u64, version: u64, t: &str) -> S {
    S(
        debounce(md(), generation),
        want(vec![
            format!("draft md pending k-{key}@{version}"),
            format!("send k-{key}@{version} md={t:?}"),
        ]),
        TabState::Saving,
    )
}

/// The save of the Markdown tab committed at `version`, nothing typed since: the draft goes.
fn committed(version: u64) -> S {
    S(
        saved(version, "markdown", false),
        want(vec![
            format!("base v{version}"),
            format!("saved markdown@{version}"),
            "drop draft md".to_owned(),
        ]),
        TabState::Saved,
    )
}

/// Starts a Note at v3 ("hello", cell "a") and returns it settled.
fn opened() -> NoteSync {
    run(
        "open",
        fresh(None, Vec::new()),
        &md(),
        vec![
            S(Event::Start, &["fetch"], TabState::Clean),
            S(
                fetched(note(3, "hello", "a")),
                &["base v3"],
                TabState::Clean,
            ),
        ],
    )
}

use TabState::*;

/// `opened()` with the Markdown tab edited to "mine" and its save sent (key k-1 on v3).
fn saving_mine() -> NoteSync {
    run(
        "saving",
        opened(),
        &md(),
        vec![typed("mine", 1), sent(1, 1, 3, "mine")],
    )
}

#[test]
fn edit_debounce_save() {
    let s = run(
        "edit, debounce, save",
        opened(),
        &md(),
        vec![
            typed("hello!", 1),
            typed("hello!!", 2),
            // The first timer was superseded by the second keystroke.
            S(debounce(md(), 1), &[], Dirty),
            S(
                debounce(md(), 2),
                // The draft and its key are written before the request leaves.
                &["draft md pending k-1@3", "send k-1@3 md=\"hello!!\""],
                Saving,
            ),
            committed(4),
        ],
    );
    assert_eq!(
        s.guard(),
        Some(Version(4)),
        "the guard moves with own saves"
    );
    assert!(s.is_settled());
}

/// The opened Note after `typed` was typed in its Markdown tab, saved as version 4 and
/// acknowledged; and the content typed.
fn saved_once(typed: &str) -> (Content, NoteSync) {
    let mine = text(typed);
    let s = run(
        "save",
        opened(),
        &md(),
        vec![
            S(
                edit(md(), mine.clone()),
                &["draft md", "timer debounce md#1"],
                Dirty,
            ),
            sent(1, 1, 3, typed),
            committed(4),
        ],
    );
    (mine, s)
}

/// The next edit after an acknowledged save starts its draft on the very content saved (no copy
/// of it out of the Note the engine holds), while the server is still at the version that save
/// made; once another version is read, on the server's content.
#[test]
fn the_next_draft_stands_on_the_content_just_saved_while_it_is_the_servers() {
    let (mine, s) = saved_once("mine");
    let s = run("type again", s, &md(), vec![typed("mine!", 2)]);
    let draft = &s.drafts[&md()];
    assert!(
        std::sync::Arc::ptr_eq(&draft.base.0, &mine.0),
        "the saved content itself"
    );
    assert_eq!(
        (draft.base_version, &draft.mine),
        (Version(4), &text("mine!"))
    );

    // Saved again, then another writer's version is read: the next draft's base is that.
    let s = run(
        "save, another version, type",
        s,
        &md(),
        vec![
            sent(2, 2, 4, "mine!"),
            committed(5),
            S(
                fetched(note(6, "theirs", "a")),
                &["base v6", "remote markdown@6"],
                Clean,
            ),
            typed("theirs?", 3),
        ],
    );
    let draft = &s.drafts[&md()];
    assert_eq!(
        (draft.base_version, &draft.base),
        (Version(6), &text("theirs"))
    );
}

#[test]
fn the_note_held_after_a_save_shares_the_text_saved() {
    // A 10 MiB text would otherwise be copied into the Note on every acknowledged keystroke,
    // and then compared byte by byte to find that the local store already knows it.
    let (mine, s) = saved_once("mine");
    let held = s.server.as_ref().expect("the Note held");
    assert_eq!(held.version, Version(4));
    let (TabData::Markdown(held), TabData::Markdown(saved)) =
        (&held.tab(&md()).expect("markdown").data, &*mine.0)
    else {
        panic!("markdown tabs");
    };
    assert!(
        Text::ptr_eq(held, saved),
        "the saved text itself, not a copy"
    );
}

#[test]
fn typing_back_to_the_base_sends_nothing() {
    run(
        "undo to base",
        opened(),
        &md(),
        vec![
            typed("hello!", 1),
            typed("hello", 2),
            S(debounce(md(), 2), &["drop draft md"], Clean),
        ],
    );
}

#[test]
fn refused_save_on_another_tab_change_is_reapplied_with_a_new_key() {
    let s = run(
        "refused, no overlap",
        saving_mine(),
        &md(),
        vec![
            // The agent wrote the sheet meanwhile: 409.
            S(conflict(4, &[SHEET]), &["draft md", "fetch"], Saving),
            S(
                fetched(note(4, "hello", "agent")),
                &[
                    "base v4",
                    "remote sheet@4",
                    "rebased markdown@4",
                    "draft md",
                    "draft md pending k-2@4",
                    "send k-2@4 md=\"mine\"",
                ],
                Saving,
            ),
            committed(5),
        ],
    );
    assert_eq!(s.stats.refused, 1);
    assert_eq!(s.stats.auto_rebased, 1);
    assert_eq!(
        s.stats.conflicts_shown, 0,
        "no false conflict for the person"
    );
}

#[test]
fn refused_save_on_the_same_tab_goes_to_the_person() {
    let in_conflict = || {
        run(
            "refused, overlap",
            opened(),
            &md(),
            vec![
                typed("hello\nmine", 1),
                sent(1, 1, 3, "hello\nmine"),
                S(conflict(4, &["markdown"]), &["draft md", "fetch"], Saving),
                S(
                    fetched(note(4, "hello\ntheirs", "a")),
                    &["base v4", "conflict markdown", "draft md"],
                    Conflict,
                ),
                // Typing goes on in the draft; nothing is sent while the person decides.
                S(edit(md(), text("hello\nmine!")), &["draft md"], Conflict),
            ],
        )
    };
    let s = in_conflict();
    assert_eq!(s.stats.conflicts_shown, 1);
    let d = &s.drafts[&md()];
    assert_eq!(d.base, text("hello"), "the ancestor is kept for the merge");
    assert_eq!(
        d.theirs.as_ref().unwrap().content,
        Some(text("hello\ntheirs"))
    );

    run(
        "a decision made on older content is ignored",
        in_conflict(),
        &md(),
        vec![
            S(remote(5), &["fetch"], Conflict),
            S(
                fetched(note(5, "hello\ntheirs\nmore", "a")),
                &["base v5", "draft md"],
                Conflict,
            ),
            S(resolve(Resolution::KeepMine), &[], Conflict),
        ],
    );
    run(
        "keep mine",
        in_conflict(),
        &md(),
        vec![S(
            resolve(Resolution::KeepMine),
            &[
                "draft md",
                "draft md pending k-2@4",
                "send k-2@4 md=\"hello\\nmine!\"",
            ],
            Saving,
        )],
    );
    run(
        "take theirs",
        in_conflict(),
        &md(),
        vec![S(
            resolve(Resolution::TakeTheirs),
            &["archive markdown took_theirs", "drop draft md"],
            Clean,
        )],
    );
    run(
        "merge",
        in_conflict(),
        &md(),
        vec![S(
            resolve(Resolution::Merged(text("hello\nmine!\ntheirs"))),
            &[
                "draft md",
                "draft md pending k-2@4",
                "send k-2@4 md=\"hello\\nmine!\\ntheirs\"",
            ],
            Saving,
        )],
    );
}

#[test]
fn offline_retries_the_same_write_and_a_replay_counts_once() {
    let s = run(
        "offline",
        opened(),
        &md(),
        vec![
            typed("one", 1),
            sent(1, 1, 3, "one"),
            S(
                offline(),
                &["timer retry#1", "draft md pending k-1@3"],
                Offline,
            ),
            // Keep typing: the draft grows, the pending save stays as it was sent.
            S(
                edit(md(), text("one two")),
                &["draft md pending k-1@3", "timer debounce md#2"],
                Offline,
            ),
            S(debounce(md(), 2), &[], Offline),
            S(retry(1), &["send k-1@3 md=\"one\""], Offline),
            S(
                offline(),
                &["timer retry#2", "draft md pending k-1@3"],
                Offline,
            ),
            S(retry(2), &["send k-1@3 md=\"one\""], Offline),
            // It had committed the first time: the server replays the first result.
            S(
                saved(4, "markdown", true),
                &[
                    // Back online: the offline mark goes.
                    "draft md pending k-1@3",
                    "base v4",
                    "saved markdown@4 (replay)",
                    "draft md",
                    "draft md pending k-2@4",
                    "send k-2@4 md=\"one two\"",
                ],
                Saving,
            ),
            committed(5),
        ],
    );
    assert_eq!(s.stats.replays, 1);
    assert_eq!(s.stats.offline_failures, 2);
    assert_eq!(s.guard(), Some(Version(5)));
}

#[test]
fn remote_writes_apply_to_clean_tabs_and_stay_apart_from_dirty_ones() {
    run(
        "remote to clean",
        opened(),
        &md(),
        vec![
            S(remote(3), &[], Clean),
            S(remote(4), &["fetch"], Clean),
            S(
                fetched(note(4, "agent wrote", "a")),
                &["base v4", "remote markdown@4"],
                Clean,
            ),
        ],
    );
    let s = run(
        "remote to another tab while dirty",
        opened(),
        &md(),
        vec![
            typed("mine", 1),
            S(remote(4), &["fetch"], Dirty),
            // The sheet changed, not my tab: the draft moves to v4 silently.
            S(
                fetched(note(4, "hello", "b")),
                &["base v4", "remote sheet@4", "draft md"],
                Dirty,
            ),
            sent(1, 1, 4, "mine"),
        ],
    );
    assert_eq!(
        s.guard(),
        Some(Version(4)),
        "the guard moves with remote writes"
    );
    let s = run(
        "remote to the dirty tab",
        opened(),
        &md(),
        vec![
            typed("mine", 1),
            S(remote(4), &["fetch"], Dirty),
            S(
                fetched(note(4, "theirs", "a")),
                &["base v4", "conflict markdown", "draft md"],
                Conflict,
            ),
            // The debounce fires but a tab in conflict is not saved.
            S(debounce(md(), 1), &[], Conflict),
        ],
    );
    assert_eq!(
        s.shown(&md()),
        Some(text("mine")),
        "the person keeps seeing their text"
    );
    assert_eq!(s.guard(), Some(Version(4)));
}

#[test]
fn a_crash_mid_save_resends_the_same_key_after_restart() {
    // What the local store held when the process died: guard v3, a draft with a pending save.
    let draft = Draft {
        note_id: note_id(),
        tab_id: md(),
        base_version: Version(3),
        base: text("hello"),
        mine: text("hello world"),
        pending: Some(PendingSave {
            key: "old-7".to_owned(),
            expected_version: Version(3),
            content: text("hello world"),
        }),
        theirs: None,
        last_error: None,
        state: Saving,
        updated_at: Timestamp(500),
        base_missing: false,
        held: None,
    };
    let s = run(
        "restart, committed before the crash",
        fresh(Some(note(3, "hello", "a")), vec![draft.clone()]),
        &md(),
        vec![
            S(Event::Start, &["fetch"], Saving),
            // The server has it already (v4); the outcome is judged by the replay, not guessed.
            S(
                fetched(note(4, "hello world", "a")),
                &["base v4", "send old-7@3 md=\"hello world\""],
                Saving,
            ),
            S(
                saved(4, "markdown", true),
                &["saved markdown@4 (replay)", "drop draft md"],
                Saved,
            ),
        ],
    );
    assert_eq!(s.stats.replays, 1);
    run(
        "restart, not committed before the crash",
        fresh(Some(note(3, "hello", "a")), vec![draft]),
        &md(),
        vec![
            S(Event::Start, &["fetch"], Saving),
            S(
                fetched(note(3, "hello", "a")),
                &["send old-7@3 md=\"hello world\""],
                Saving,
            ),
            committed(4),
        ],
    );
}

#[test]
fn a_tab_deleted_on_the_server_keeps_the_draft_until_the_person_decides() {
    let s = run(
        "tab gone",
        opened(),
        &sheet(),
        vec![
            S(
                edit(sheet(), cell("mine")),
                &["draft sheet", "timer debounce sheet#1"],
                Dirty,
            ),
            S(remote(4), &["fetch"], Dirty),
            S(
                fetched(without_sheet(note(4, "hello", "a"))),
                &["base v4", "conflict sheet", "draft sheet"],
                Conflict,
            ),
            // Keep mine cannot write to a tab that is gone: nothing happens.
            S(
                Event::Resolve {
                    tab_id: sheet(),
                    resolution: Resolution::KeepMine,
                    theirs_version: Version(4),
                    now: Timestamp(3),
                },
                &[],
                Conflict,
            ),
        ],
    );
    assert!(
        s.drafts[&sheet()]
            .theirs
            .as_ref()
            .unwrap()
            .content
            .is_none()
    );
    run(
        "take theirs archives",
        s,
        &sheet(),
        vec![S(
            Event::Resolve {
                tab_id: sheet(),
                resolution: Resolution::TakeTheirs,
                theirs_version: Version(4),
                now: Timestamp(3),
            },
            &["archive sheet took_theirs", "drop draft sheet"],
            Clean,
        )],
    );
}

#[test]
fn refusals_that_retrying_cannot_fix_wait_for_the_person() {
    run(
        "rejected",
        opened(),
        &md(),
        vec![
            typed("x", 1),
            sent(1, 1, 3, "x"),
            S(
                Event::SaveFailed(Failure::Rejected {
                    status: 403,
                    code: "missing_scope".to_owned(),
                    message: "notes:write".to_owned(),
                }),
                &["draft md"],
                Failed,
            ),
            // Editing again retries.
            typed("xy", 2),
            sent(2, 2, 3, "xy"),
        ],
    );
}

#[test]
fn the_same_change_on_both_sides_is_not_a_conflict() {
    let s = run(
        "same change",
        opened(),
        &md(),
        vec![
            typed("same", 1),
            sent(1, 1, 3, "same"),
            S(conflict(4, &["markdown"]), &["draft md", "fetch"], Saving),
            S(
                fetched(note(4, "same", "a")),
                &["base v4", "drop draft md"],
                Clean,
            ),
        ],
    );
    assert_eq!(s.stats.conflicts_shown, 0);
}

#[test]
fn typing_during_a_save_is_saved_next_on_the_new_version() {
    run(
        "typing during save",
        opened(),
        &md(),
        vec![
            typed("a", 1),
            sent(1, 1, 3, "a"),
            S(
                edit(md(), text("ab")),
                &["draft md pending k-1@3", "timer debounce md#2"],
                Saving,
            ),
            S(
                saved(4, "markdown", false),
                &["base v4", "saved markdown@4", "draft md"],
                Dirty,
            ),
            sent(2, 2, 4, "ab"),
        ],
    );
}

#[test]
fn structural_writes_are_guarded_and_reapplied_or_reported() {
    let rename = Outgoing {
        id: "w1".to_owned(),
        body: WriteBody::Ops {
            changes: vec![Op::RenameTab {
                tab_id: sheet(),
                label: "Budget".to_owned(),
            }],
        },
        key: None,
        expected_version: None,
        on_conflict: OnConflict::Reapply,
    };
    run(
        "rename, refused, re-applied",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(rename),
                &["outgoing w1", "outgoing w1 k-1", "send k-1@3 rename_tab"],
                Clean,
            ),
            S(conflict(4, &["markdown"]), &["outgoing w1", "fetch"], Clean),
            S(
                fetched(note(4, "agent", "a")),
                &[
                    "base v4",
                    "remote markdown@4",
                    "outgoing w1 k-2",
                    "send k-2@4 rename_tab",
                ],
                Clean,
            ),
            S(
                saved(5, SHEET, false),
                &["drop outgoing w1", "done w1@5", "fetch"],
                Clean,
            ),
        ],
    );
    let restore = Outgoing {
        id: "w2".to_owned(),
        body: WriteBody::Restore {
            version: Version(2),
        },
        key: None,
        expected_version: None,
        on_conflict: OnConflict::Report,
    };
    run(
        "restore, refused, reported",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(restore),
                &["outgoing w2", "outgoing w2 k-1", "send k-1@3 restore 2"],
                Clean,
            ),
            S(
                conflict(4, &["markdown"]),
                &["drop outgoing w2", "failed w2", "fetch"],
                Clean,
            ),
        ],
    );
}

fn revert(id: &str) -> Outgoing {
    Outgoing {
        id: id.to_owned(),
        body: WriteBody::Revert {
            version: Version(2),
        },
        key: None,
        expected_version: None,
        on_conflict: OnConflict::Reapply,
    }
}

/// "Undo this change": what it takes back does not depend on the version it was asked on, so
/// a stale revert is sent again on the new version (the server merges it there); a clash with
/// later writes is reported, nothing re-sent.
#[test]
fn a_stale_revert_is_sent_again_and_a_clash_is_reported() {
    run(
        "revert, refused as stale, sent again",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(revert("w1")),
                &["outgoing w1", "outgoing w1 k-1", "send k-1@3 revert 2"],
                Clean,
            ),
            S(conflict(4, &["markdown"]), &["outgoing w1", "fetch"], Clean),
            S(
                fetched(note(4, "agent", "a")),
                &[
                    "base v4",
                    "remote markdown@4",
                    "outgoing w1 k-2",
                    "send k-2@4 revert 2",
                ],
                Clean,
            ),
            S(
                saved(5, "markdown", false),
                &["drop outgoing w1", "done w1@5", "fetch"],
                Clean,
            ),
        ],
    );
    run(
        "revert, clashing",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(revert("w2")),
                &["outgoing w2", "outgoing w2 k-1", "send k-1@3 revert 2"],
                Clean,
            ),
            S(
                Event::SaveFailed(Failure::RevertConflict {
                    tab_ids: vec![md()],
                    message: "version 2: later writes changed what it changed".to_owned(),
                }),
                &["drop outgoing w2", "failed w2"],
                Clean,
            ),
        ],
    );
}

/// A revert never overwrites the person's draft: it goes out before the draft's save, and the
/// read back of a tab it changed under the draft is a conflict, the draft kept.
#[test]
fn a_revert_under_a_draft_makes_a_conflict_not_an_overwrite() {
    run(
        "draft, then revert",
        opened(),
        &md(),
        vec![
            typed("mine", 1),
            S(
                Event::Enqueue(revert("w1")),
                &["outgoing w1", "outgoing w1 k-1", "send k-1@3 revert 2"],
                Dirty,
            ),
            S(
                saved(4, "markdown", false),
                &["drop outgoing w1", "done w1@4", "fetch"],
                Dirty,
            ),
            S(
                fetched(note(4, "reverted", "a")),
                &["base v4", "conflict markdown", "draft md"],
                Conflict,
            ),
            // The debounce that was waiting sends nothing over the conflict.
            S(debounce(md(), 1), &[], Conflict),
        ],
    );
}

/// A restore (any structural write) the person made is read back as their own change: no
/// "edited by" notice for the tabs it changed. A read that also brings another writer's version
/// tells of it as before.
#[test]
fn the_read_back_of_our_own_restore_is_no_remote_edit() {
    let restore = |id: &str| Outgoing {
        id: id.to_owned(),
        body: WriteBody::Restore {
            version: Version(2),
        },
        key: None,
        expected_version: None,
        on_conflict: OnConflict::Report,
    };
    let s = run(
        "restore, read back",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(restore("w1")),
                &["outgoing w1", "outgoing w1 k-1", "send k-1@3 restore 2"],
                Clean,
            ),
            S(
                saved(4, "markdown", false),
                &["drop outgoing w1", "done w1@4", "fetch"],
                Clean,
            ),
            S(fetched(note(4, "old", "a")), &["base v4"], Clean),
        ],
    );
    // Later writes by someone else are still told.
    run(
        "another writer after",
        s,
        &md(),
        vec![
            S(remote(5), &["fetch"], Clean),
            S(
                fetched(note(5, "agent", "a")),
                &["base v5", "remote markdown@5"],
                Clean,
            ),
        ],
    );
    run(
        "restore, and another writer before the read",
        opened(),
        &md(),
        vec![
            S(
                Event::Enqueue(restore("w2")),
                &["outgoing w2", "outgoing w2 k-1", "send k-1@3 restore 2"],
                Clean,
            ),
            S(
                saved(4, "markdown", false),
                &["drop outgoing w2", "done w2@4", "fetch"],
                Clean,
            ),
            S(
                fetched(note(5, "agent", "b")),
                &["base v5", "remote markdown,sheet@5"],
                Clean,
            ),
        ],
    );
}

#[test]
fn backoff_doubles_up_to_the_cap() {
    let c = config();
    let delays: Vec<u64> = (1..=8).map(|n| c.backoff(n).as_millis() as u64).collect();
    assert_eq!(delays, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
}

fn edit_on(tab: TabId, content: Content, base_version: u64, base: BaseAt) -> Event {
    Event::EditedOn {
        tab_id: tab,
        content,
        now: Timestamp(2_000),
        base_version: Version(base_version),
        base,
    }
}

/// Saved at v4, then the UI hands over a keystroke made on v3 (it was typed while the save was
/// on the wire): the app's own save is no conflict.
#[test]
fn an_edit_on_a_base_older_than_our_own_save_is_not_a_conflict() {
    let s = run(
        "own save overtaken by typing",
        opened(),
        &md(),
        vec![
            typed("hello!", 1),
            sent(1, 1, 3, "hello!"),
            committed(4),
            S(
                edit_on(md(), text("hello!!"), 3, BaseAt::Known(text("hello"))),
                &["draft md", "timer debounce md#2"],
                Dirty,
            ),
        ],
    );
    assert_eq!(s.drafts[&md()].base_version, Version(4));
    assert_eq!(s.stats.conflicts_shown, 0);
}

/// The same keystroke on v3 after another writer changed the tab at v4: a conflict.
#[test]
fn an_edit_on_a_base_older_than_a_remote_write_is_a_conflict() {
    let s = run(
        "remote write overtaken by typing",
        opened(),
        &md(),
        vec![
            S(
                fetched(note(4, "hello, theirs", "a")),
                &["base v4", "remote markdown@4"],
                Clean,
            ),
            S(
                edit_on(md(), text("hello!"), 3, BaseAt::Known(text("hello"))),
                &["draft md", "conflict markdown", "draft md"],
                Conflict,
            ),
        ],
    );
    assert_eq!(s.stats.conflicts_shown, 1);
}

/// `opened()`, then another writer's change of the Markdown tab at v4, then the server gone
/// (the fetch of v5 fails): offline, with v4 held.
fn offline_after_theirs() -> NoteSync {
    run(
        "theirs, then offline",
        opened(),
        &md(),
        vec![
            S(
                fetched(note(4, "hello, theirs", "a")),
                &["base v4", "remote markdown@4"],
                Clean,
            ),
            S(remote(5), &["fetch"], Clean),
            S(
                Event::FetchFailed(Failure::Offline("connection refused".to_owned())),
                &["timer retry#1"],
                Clean,
            ),
        ],
    )
}

/// The editor still shows v3 when the person types, offline. The local store holds v3: a
/// conflict at once, with no server to ask.
#[test]
fn an_offline_edit_on_a_stale_base_known_locally_is_a_conflict() {
    let s = run(
        "stale editor, offline",
        offline_after_theirs(),
        &md(),
        vec![
            S(
                edit_on(md(), text("hello!"), 3, BaseAt::Known(text("hello"))),
                &["draft md", "conflict markdown", "draft md"],
                Conflict,
            ),
            S(Event::Flush, &[], Conflict),
            S(retry(1), &["fetch"], Conflict),
            S(fetched(note(4, "hello, theirs", "a")), &[], Conflict),
        ],
    );
    assert_eq!(s.stats.saves_sent, 0, "theirs is never overwritten");
    let d = &s.drafts[&md()];
    assert_eq!(d.base, text("hello"));
    assert_eq!(
        d.theirs.as_ref().unwrap().content,
        Some(text("hello, theirs"))
    );
}

/// The same, but this app holds no copy of v3: the draft waits, unsaved, until the server gives
/// v3; then it is judged as above.
#[test]
fn an_offline_edit_on_an_unknown_base_waits_for_it_and_never_overwrites() {
    let s = run(
        "unknown base, offline",
        offline_after_theirs(),
        &md(),
        vec![
            S(
                edit_on(md(), text("hello!"), 3, BaseAt::Unknown),
                &["draft md"],
                Offline,
            ),
            // Neither the debounce nor a flush sends a draft whose base is not known.
            S(Event::Flush, &[], Offline),
            S(retry(1), &["fetch"], Offline),
            S(
                fetched(note(4, "hello, theirs", "a")),
                &["fetch v3"],
                Saving,
            ),
            S(
                Event::VersionFetched(Box::new(note(3, "hello", "a"))),
                &["draft md", "conflict markdown", "draft md"],
                Conflict,
            ),
        ],
    );
    assert_eq!(s.stats.saves_sent, 0, "theirs is never overwritten");
    assert_eq!(s.drafts[&md()].base, text("hello"));
}

#[test]
fn an_unknown_base_is_asked_for_and_judged() {
    let sheet_changed = || {
        run(
            "another tab changed",
            opened(),
            &md(),
            vec![S(
                fetched(note(4, "hello", "b")),
                &["base v4", "remote sheet@4"],
                Clean,
            )],
        )
    };
    run(
        "the tab did not change since: saved on the new version",
        sheet_changed(),
        &md(),
        vec![
            S(
                edit_on(md(), text("hello!"), 3, BaseAt::Unknown),
                &["draft md", "fetch v3"],
                Saving,
            ),
            S(
                Event::VersionFetched(Box::new(note(3, "hello", "a"))),
                &[
                    "draft md",
                    "draft md",
                    "draft md pending k-1@4",
                    "send k-1@4 md=\"hello!\"",
                ],
                Saving,
            ),
        ],
    );
    run(
        "the server will not give it: the person decides",
        sheet_changed(),
        &md(),
        vec![
            S(
                edit_on(md(), text("hello!"), 3, BaseAt::Unknown),
                &["draft md", "fetch v3"],
                Saving,
            ),
            S(
                Event::VersionFetchFailed {
                    version: Version(3),
                    failure: Failure::Rejected {
                        status: 404,
                        code: "version_not_found".to_owned(),
                        message: "no version 3".to_owned(),
                    },
                },
                &["conflict markdown", "draft md"],
                Conflict,
            ),
        ],
    );
    run(
        "known and unchanged since: an ordinary edit",
        sheet_changed(),
        &md(),
        vec![S(
            edit_on(md(), text("hello!"), 3, BaseAt::Known(text("hello"))),
            &["draft md", "timer debounce md#1"],
            Dirty,
        )],
    );
}

#[test]
fn the_announcement_of_our_own_save_fetches_nothing() {
    // The server announces version 4 before its answer to our save arrives: 4 is ours.
    let s = run(
        "own write announced first",
        saving_mine(),
        &md(),
        vec![S(remote(4), &[], Saving), committed(4)],
    );
    assert!(s.is_settled(), "no fetch owed");
    // Version 5, announced meanwhile, is someone else's: read once the save is answered.
    run(
        "another write announced during the save",
        saving_mine(),
        &md(),
        vec![
            S(remote(4), &[], Saving),
            S(remote(5), &[], Saving),
            S(
                saved(4, "markdown", false),
                &["base v4", "saved markdown@4", "drop draft md", "fetch"],
                Saved,
            ),
        ],
    );
}

/// The local store refuses a step's writes, so the driver performs none of its effects and says
/// so: the machine writes its state again after a while, and only then sends (the same key).
#[test]
fn a_refused_local_write_is_written_again_before_anything_is_sent() {
    let local_retry = Event::TimerFired {
        timer: Timer::LocalStore,
        generation: 1,
    };
    let (s, dropped) = step(opened(), edit(md(), text("mine")));
    run(
        "the edit's draft and debounce were not written",
        s,
        &md(),
        vec![
            S(
                Event::LocalStoreFailed { dropped },
                &["timer local#1"],
                Dirty,
            ),
            S(Event::Flush, &[], Dirty),
            S(
                local_retry.clone(),
                &[
                    "base v3",
                    "draft md",
                    "draft md pending k-1@3",
                    "send k-1@3 md=\"mine\"",
                ],
                Saving,
            ),
        ],
    );
    let (s, dropped) = step(
        step(opened(), edit(md(), text("mine"))).0,
        debounce(md(), 1),
    );
    let s = run(
        "the save's pending key was not written, and the save did not leave",
        s,
        &md(),
        vec![
            S(
                Event::LocalStoreFailed { dropped },
                &["timer local#1"],
                Saving,
            ),
            S(
                local_retry,
                &[
                    "base v3",
                    "draft md pending k-1@3",
                    "send k-1@3 md=\"mine\"",
                ],
                Saving,
            ),
            committed(4),
        ],
    );
    assert_eq!(s.stats.saves_sent, 1, "one save left, once");
}

/// The event stream's reconnection is the machine's: each failure in a row waits longer, a
/// connection resets the backoff.
#[test]
fn the_event_stream_reconnects_when_the_machine_says() {
    let reconnect = |generation| Event::TimerFired {
        timer: Timer::Reconnect,
        generation,
    };
    let s = run(
        "down, down, up",
        opened(),
        &md(),
        vec![
            S(Event::StreamDown, &["timer reconnect#1", "fetch"], Clean),
            S(fetched(note(3, "hello", "a")), &[], Clean),
            S(reconnect(1), &["reconnect"], Clean),
            S(Event::StreamDown, &["timer reconnect#2", "fetch"], Clean),
            S(fetched(note(3, "hello", "a")), &[], Clean),
            S(reconnect(2), &["reconnect"], Clean),
            S(Event::StreamUp, &["fetch"], Clean),
            S(fetched(note(3, "hello", "a")), &[], Clean),
        ],
    );
    let delay = |s: NoteSync| match &step(s, Event::StreamDown).1[..] {
        [Effect::StartTimer { after, .. }, ..] => *after,
        other => panic!("{other:?}"),
    };
    let c = config();
    assert_eq!(delay(s.clone()), c.backoff(1), "reset by the connection");
    let (twice, _) = step(s, Event::StreamDown);
    assert_eq!(delay(twice), c.backoff(2));
}

/// The person's text at v3 ("hello" and their new line, saving) and another writer's change of
/// the first line at v4: the save is refused, the draft takes the other change (different
/// lines) and goes out on v4. No conflict.
fn merged_and_saving() -> NoteSync {
    run(
        "refused, other lines of the same tab",
        opened(),
        &md(),
        vec![
            typed("hello\nmine", 1),
            sent(1, 1, 3, "hello\nmine"),
            S(conflict(4, &["markdown"]), &["draft md", "fetch"], Saving),
            S(
                fetched(note(4, "HELLO", "a")),
                &[
                    "base v4",
                    "draft md",
                    "rebased markdown@4",
                    "remote markdown@4",
                    "draft md pending k-2@4",
                    "send k-2@4 md=\"HELLO\\nmine\"",
                ],
                Saving,
            ),
        ],
    )
}

#[test]
fn a_change_of_other_lines_in_the_same_tab_is_merged_not_a_conflict() {
    let s = run(
        "merged, saved",
        merged_and_saving(),
        &md(),
        vec![committed(5)],
    );
    assert_eq!(s.stats.conflicts_shown, 0, "no conflict for the person");
    assert_eq!(s.stats.auto_rebased, 1);
    assert!(s.is_unseen(&md()), "the editor has not shown HELLO yet");
    assert_eq!(
        s.server.as_ref().unwrap().tab(&md()).unwrap().data,
        TabData::Markdown("HELLO\nmine".into())
    );
}

/// The editor still shows v3's text when the person types on: their edit is merged onto the
/// merged text, never taken as is (that would undo the other writer's HELLO).
#[test]
fn typing_on_before_the_editor_shows_the_merge_keeps_the_other_change() {
    let s = run(
        "typing on the old text",
        merged_and_saving(),
        &md(),
        vec![
            committed(5),
            S(
                edit_on(md(), text("hello\nmine!"), 3, BaseAt::Known(text("hello"))),
                &["draft md", "timer debounce md#2"],
                Dirty,
            ),
            S(
                debounce(md(), 2),
                &["draft md pending k-3@5", "send k-3@5 md=\"HELLO\\nmine!\""],
                Saving,
            ),
        ],
    );
    assert_eq!(s.stats.conflicts_shown, 0);
    // Once the editor shows the merged text (its edits are on v5), they are taken as they are.
    let s = run(
        "the editor took it",
        s,
        &md(),
        vec![
            S(
                saved(6, "markdown", false),
                &["base v6", "saved markdown@6", "drop draft md"],
                Saved,
            ),
            S(
                edit_on(md(), text("HELLO\nmine!!"), 6, BaseAt::Absent),
                &["draft md", "timer debounce md#3"],
                Dirty,
            ),
        ],
    );
    assert!(!s.is_unseen(&md()));
}

/// Typed before the editor showed the merge, on the very line the other writer changed: the
/// person decides, with what their editor showed as the ancestor.
#[test]
fn typing_on_the_line_the_merge_brought_is_a_conflict() {
    let s = run(
        "the same line",
        merged_and_saving(),
        &md(),
        vec![
            committed(5),
            S(
                edit_on(md(), text("hullo\nmine"), 3, BaseAt::Known(text("hello"))),
                &["draft md", "conflict markdown", "draft md"],
                Conflict,
            ),
        ],
    );
    let d = &s.drafts[&md()];
    assert_eq!(d.base, text("hello\nmine"));
    assert_eq!(d.mine, text("hullo\nmine"));
    let theirs = d.theirs.as_ref().unwrap();
    assert_eq!(
        (theirs.version, theirs.content.clone()),
        (Version(5), Some(text("HELLO\nmine")))
    );
    assert_eq!(s.stats.saves_sent, 2, "nothing overwrote HELLO");
}

/// The same while the merged text is still on the wire: the edit is held (and shown) until the
/// merged text is on the server, then judged there.
#[test]
fn typing_on_that_line_while_the_merge_is_saving_is_held_then_a_conflict() {
    let s = run(
        "held",
        merged_and_saving(),
        &md(),
        vec![
            S(
                edit_on(md(), text("hullo\nmine"), 3, BaseAt::Known(text("hello"))),
                &["draft md pending k-2@4"],
                Saving,
            ),
            S(
                edit(md(), text("hullo!\nmine")),
                &["draft md pending k-2@4"],
                Saving,
            ),
        ],
    );
    assert_eq!(
        s.shown(&md()),
        Some(text("hullo!\nmine")),
        "the editor keeps showing what was typed"
    );
    let s = run(
        "judged",
        s,
        &md(),
        vec![S(
            saved(5, "markdown", false),
            &[
                "base v5",
                "saved markdown@5",
                "draft md",
                "draft md",
                "conflict markdown",
                "draft md",
            ],
            Conflict,
        )],
    );
    let d = &s.drafts[&md()];
    assert_eq!(d.base, text("hello\nmine"));
    assert_eq!(d.mine, text("hullo!\nmine"));
    assert_eq!(
        d.theirs.as_ref().unwrap().content,
        Some(text("HELLO\nmine"))
    );
    assert_eq!(s.stats.saves_sent, 2, "the held edit was never sent");
}

/// A Sheet by cells: the person adds a row while another writer changes the first cell; a
/// remote change of a cell the person also changed is a conflict.
#[test]
fn a_sheet_merges_by_cell_and_the_same_cell_is_a_conflict() {
    let rows = |cells: &[&str]| {
        Content::new(TabData::Sheet(SheetTab {
            sheets: vec![Sheet {
                id: "s1".to_owned(),
                name: "Sheet 1".to_owned(),
                rows: cells
                    .iter()
                    .map(|c| vec![serde_json::json!(c)].into())
                    .collect(),
            }],
        }))
    };
    let s = run(
        "other cell",
        opened(),
        &sheet(),
        vec![
            S(
                edit(sheet(), rows(&["a", "mine"])),
                &["draft sheet", "timer debounce sheet#1"],
                Dirty,
            ),
            S(remote(4), &["fetch"], Dirty),
            S(
                fetched(note(4, "hello", "agent")),
                &[
                    "base v4",
                    "draft sheet",
                    "rebased sheet@4",
                    "remote sheet@4",
                    "draft sheet pending k-1@4",
                    "send k-1@4 sheet={\"sheets\":[{\"id\":\"s1\",\"name\":\"Sheet 1\",\"rows\":[[\"agent\"],[\"mine\"]]}]}",
                ],
                Saving,
            ),
        ],
    );
    assert_eq!(s.stats.conflicts_shown, 0);
    run(
        "the same cell",
        opened(),
        &sheet(),
        vec![
            S(
                edit(sheet(), rows(&["mine"])),
                &["draft sheet", "timer debounce sheet#1"],
                Dirty,
            ),
            S(remote(4), &["fetch"], Dirty),
            S(
                fetched(note(4, "hello", "agent")),
                &["base v4", "conflict sheet", "draft sheet"],
                Conflict,
            ),
        ],
    );
}
