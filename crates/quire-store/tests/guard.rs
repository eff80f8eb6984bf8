//! The guarded write's planner, without a database: each row gives what a backend would find
//! (the key's first write, the Note's version, the version a restore names) and what the plan
//! must be. The backends' own suites (`conformance_tests!`) check that they commit it.
#![allow(clippy::unwrap_used)]

use std::cell::Cell;

use quire_model::{AuthorKind, Note, NoteId, Op, TabData, TabId, Timestamp, Version};
use quire_store::guard::{
    Admission, Fingerprint, FirstWrite, GuardedWrite, Outcome, Reach, check_key, replayed,
};
use quire_store::{Change, StoreError, WriteRequest};
use sha2::{Digest, Sha256};

fn note_id() -> NoteId {
    "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse().unwrap()
}

fn text(t: &str) -> Change {
    Change::Ops(vec![Op::ReplaceText {
        tab_id: TabId::new(TabId::MARKDOWN),
        text: t.to_owned(),
    }])
}

fn request(expected: u64, key: Option<&str>, change: Change) -> WriteRequest {
    WriteRequest {
        note_id: note_id(),
        expected_version: Version(expected),
        idempotency_key: key.map(str::to_owned),
        author: "Ana".to_owned(),
        author_kind: AuthorKind::Person,
        change,
        now: Timestamp(1_796_019_881_123),
    }
}

/// The Note at `version`, its Markdown `text`.
fn note(version: u64, text: &str) -> Note {
    let mut note = Note::new(note_id(), "Plans".to_owned());
    note.version = Version(version);
    note.tabs[0].data = TabData::Markdown(text.into());
    note
}

/// What a backend finds while it gathers.
struct Found {
    /// The key's first write: the request that made it (its fingerprint) and its version.
    first: Option<(Option<WriteRequest>, u64)>,
    /// The Note as it is now.
    current: Note,
    /// The Notes a restore may name.
    versions: Vec<Note>,
}

/// Runs the plan against what was found, as a backend would, and says what it decided (and
/// whether it read the version).
fn plan(req: &WriteRequest, found: Found) -> String {
    let write = match GuardedWrite::new(req, Reach::AnyNote) {
        Ok(write) => write,
        Err(e) => return format!("refused: {e}"),
    };
    let first = match (write.claim(), found.first) {
        (Some(_), Some((made_by, version))) => Some(FirstWrite {
            fingerprint: made_by.map(|r| Fingerprint::of(&r).unwrap()),
            result: version,
        }),
        _ => None,
    };
    let read_version = Cell::new(false);
    let admission = write
        .admit(first, || {
            read_version.set(true);
            Ok::<_, StoreError>(found.current.version)
        })
        .unwrap();
    let read = if read_version.get() {
        ""
    } else {
        " (version not read)"
    };
    match admission {
        Admission::Replay {
            first,
            request_differs,
        } => {
            let differs = if request_differs {
                ", request differs"
            } else {
                ""
            };
            return format!("replay of version {first}{differs}{read}");
        }
        Admission::Stale { current_version } => return format!("stale: at {current_version}"),
        Admission::Apply => {}
    }
    let restored = write
        .restores()
        .and_then(|v| found.versions.iter().find(|n| n.version == v));
    let applied = match write.apply(&found.current, restored) {
        Ok(applied) => applied,
        Err(StoreError::Invalid(e)) => return format!("refused: {}", e.code.as_str()),
        Err(e) => return format!("refused: {e}"),
    };
    let key = |claim: Option<quire_store::guard::Claim<'_>>| match claim {
        Some(c) => format!(", key {}", c.key),
        None => String::new(),
    };
    match write.settle(found.current.version, &applied) {
        Outcome::Unchanged { result, claim } => {
            format!(
                "unchanged at {}{} with its result",
                result.version,
                key(claim)
            )
        }
        Outcome::NewVersion { result, claim } => format!(
            "version {} changing {:?}{}",
            result.version,
            result
                .changed_tab_ids
                .iter()
                .map(TabId::as_str)
                .collect::<Vec<_>>(),
            key(claim)
        ),
    }
}

#[test]
fn the_key_decides_before_the_version_then_the_change_then_what_to_commit() {
    let at = |v, t| Found {
        first: None,
        current: note(v, t),
        versions: vec![note(1, ""), note(2, "old")],
    };
    let keyed = |first: Option<WriteRequest>, v, t| Found {
        first: Some((first, 2)),
        ..at(v, t)
    };
    let same = request(2, Some("k"), text("new"));
    let cases: Vec<(&str, WriteRequest, Found, &str)> = vec![
        (
            "no key, at the expected version",
            request(3, None, text("new")),
            at(3, "old"),
            "version 4 changing [\"markdown\"]",
        ),
        (
            "a new key goes with the new version",
            request(3, Some("k"), text("new")),
            at(3, "old"),
            "version 4 changing [\"markdown\"], key k",
        ),
        (
            "a used key replays, however far the Note moved on",
            same.clone(),
            keyed(Some(same.clone()), 9, "later"),
            "replay of version 2 (version not read)",
        ),
        (
            "a used key replays even at the expected version",
            same.clone(),
            keyed(Some(same.clone()), 2, "new"),
            "replay of version 2 (version not read)",
        ),
        (
            "the same key with another change replays, flagged",
            request(2, Some("k"), text("other")),
            keyed(Some(same.clone()), 9, "later"),
            "replay of version 2, request differs (version not read)",
        ),
        (
            "the same key with another expected version replays, flagged",
            request(5, Some("k"), text("new")),
            keyed(Some(same.clone()), 9, "later"),
            "replay of version 2, request differs (version not read)",
        ),
        (
            "an unreadable stored fingerprint counts as another request",
            same.clone(),
            keyed(None, 9, "later"),
            "replay of version 2, request differs (version not read)",
        ),
        (
            "no key, stale",
            request(3, None, text("new")),
            at(5, "later"),
            "stale: at 5",
        ),
        (
            "an unused key, stale",
            request(3, Some("k"), text("new")),
            at(5, "later"),
            "stale: at 5",
        ),
        (
            "a newer expected version than the Note's is stale too",
            request(7, None, text("new")),
            at(5, "later"),
            "stale: at 5",
        ),
        (
            "a change that changes nothing makes no version; its key keeps the result",
            request(3, Some("k"), text("same")),
            at(3, "same"),
            "unchanged at 3, key k with its result",
        ),
        (
            "a change that changes nothing, without a key",
            request(3, None, text("same")),
            at(3, "same"),
            "unchanged at 3 with its result",
        ),
        (
            "an invalid change is refused: nothing to commit, not even the key",
            request(3, Some("k"), Change::Ops(Vec::new())),
            at(3, "old"),
            "refused: invalid_op",
        ),
        (
            "a restore brings an earlier version back as a new one",
            request(
                3,
                Some("k"),
                Change::Restore {
                    version: Version(1),
                },
            ),
            at(3, "old"),
            "version 4 changing [\"markdown\"], key k",
        ),
        (
            "restoring what is there changes nothing",
            request(
                3,
                None,
                Change::Restore {
                    version: Version(2),
                },
            ),
            at(3, "old"),
            "unchanged at 3 with its result",
        ),
        (
            "a restore of a version that does not exist is refused",
            request(
                3,
                Some("k"),
                Change::Restore {
                    version: Version(8),
                },
            ),
            at(3, "old"),
            "refused: note 01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50 has no version 8",
        ),
        (
            "an empty key is refused before anything is read",
            request(3, Some(""), text("new")),
            at(3, "old"),
            "refused: idempotency_key: must not be empty",
        ),
    ];
    let mut failures = Vec::new();
    for (name, req, found, want) in cases {
        let got = plan(&req, found);
        if got != want {
            failures.push(format!("{name}:\n  want {want}\n  got  {got}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_result_of_a_replay_is_the_first_one_flagged() {
    let first = quire_api::WriteResult {
        note_id: note_id(),
        version: Version(2),
        changed_tab_ids: vec![TabId::new(TabId::MARKDOWN)],
        outcomes: Vec::new(),
        replayed: false,
        request_differs: false,
    };
    let again = replayed(first.clone(), true);
    assert_eq!(
        again,
        quire_api::WriteResult {
            replayed: true,
            request_differs: true,
            ..first
        }
    );
}

#[test]
fn keys_are_1_to_255_characters() {
    assert!(check_key(None).is_ok());
    assert!(check_key(Some("k")).is_ok());
    assert!(check_key(Some(&"é".repeat(255))).is_ok());
    for bad in [String::new(), "k".repeat(256)] {
        assert!(
            matches!(check_key(Some(&bad)), Err(StoreError::BadKey(_))),
            "{} characters",
            bad.chars().count()
        );
    }
}

/// Stored fingerprints (SQLite's bytes, PostgreSQL's hex) must keep matching resends of the
/// same request: the format is SHA-256 of the expected version, a newline and the change's JSON.
#[test]
fn a_fingerprint_covers_the_expected_version_and_the_change_only() {
    let req = request(3, Some("k"), text("hi"));
    let want: [u8; 32] = Sha256::digest(
        br#"3
{"ops":[{"op":"replace_text","tab_id":"markdown","text":"hi"}]}"#,
    )
    .into();
    let fingerprint = Fingerprint::of(&req).unwrap();
    assert_eq!(fingerprint.as_bytes(), &want);

    let other_author = WriteRequest {
        author: "claude".to_owned(),
        author_kind: AuthorKind::Agent,
        idempotency_key: Some("another".to_owned()),
        now: Timestamp(0),
        ..req.clone()
    };
    assert_eq!(Fingerprint::of(&other_author).unwrap(), fingerprint);
    for differs in [
        request(4, Some("k"), text("hi")),
        request(3, Some("k"), text("ho")),
    ] {
        assert_ne!(Fingerprint::of(&differs).unwrap(), fingerprint);
    }

    assert_eq!(
        Fingerprint::from_hex(&fingerprint.to_hex()),
        Some(fingerprint)
    );
    assert_eq!(Fingerprint::from_bytes(&want), Some(fingerprint));
    assert_eq!(Fingerprint::from_bytes(&want[..31]), None);
    assert_eq!(Fingerprint::from_hex("not hex"), None);
}

/// The person's door reaches every Note; the agent's only a Note approved for agents and out of
/// the trash, and any other is missing to it.
#[test]
fn the_agents_door_reaches_approved_notes_out_of_the_trash_only() {
    let id = note_id();
    for (agent_access, trashed) in [(false, false), (true, false), (false, true), (true, true)] {
        assert!(Reach::AnyNote.check(&id, agent_access, trashed).is_ok());
        let agent = Reach::AgentVisible.check(&id, agent_access, trashed);
        if agent_access && !trashed {
            assert!(agent.is_ok());
        } else {
            assert!(
                matches!(&agent, Err(StoreError::NoteNotFound(m)) if m == &id),
                "approved {agent_access}, trashed {trashed}: {agent:?}"
            );
        }
    }
}
