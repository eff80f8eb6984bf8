//! Experiment 7: how an agent should hold on to a tab. A Note has K Slides decks; the agent
//! lists the tabs, picks a target deck and keeps a handle to it (its position, its type, its
//! label or its ID); between agent turns the person moves, renames and adds tabs; the agent
//! lists again and resolves its handle. Every change and every write goes through the
//! product's store, so the version check's part is measured, not assumed: the agent's
//! write with the version it read before the person's changes is refused, and the writes
//! after its fresh listing pass the check wherever the handle points.

use std::time::Instant;

use anyhow::{Context, bail};
use quire_api::WriteResult;
use quire_model::{AuthorKind, NewTabKind, Note, NoteId, Op, TabId, TabKind, Version};
use quire_store::{Change, Store, StoreError, WriteRequest};
use quire_store_sqlite::Synchronous;
use rand::Rng;

use crate::harness::{self, LabRng, LabStore, rng};
use crate::report::{Section, Table, int, pct};

#[derive(Debug, Clone)]
pub struct Params {
    pub trials: usize,
    pub decks: Vec<usize>,
    pub seed: u64,
}

impl Params {
    /// The article's: K = 2 and 5, 10,000 trials per K, seed 7.
    pub fn article() -> Self {
        Params {
            trials: 10_000,
            decks: vec![2, 5],
            seed: 7,
        }
    }
}

/// The five labels a person gives decks (the first K are the starting labels).
const LABELS: [&str; 5] = ["Pitch", "Draft", "Review", "Final", "Appendix"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleKind {
    Position,
    Type,
    Label,
    Id,
}

impl HandleKind {
    pub const ALL: [HandleKind; 4] = [
        HandleKind::Position,
        HandleKind::Type,
        HandleKind::Label,
        HandleKind::Id,
    ];

    fn name(self) -> &'static str {
        match self {
            HandleKind::Position => "position",
            HandleKind::Type => "type",
            HandleKind::Label => "label",
            HandleKind::Id => "ID",
        }
    }
}

/// What the agent kept about its target.
#[derive(Debug, Clone)]
struct Handles {
    position: usize,
    label: String,
    id: TabId,
}

/// The tab a handle points at in `note`, if any.
fn resolve(note: &Note, handles: &Handles, kind: HandleKind) -> Option<TabId> {
    let tab = match kind {
        HandleKind::Position => note.tabs.get(handles.position),
        // "the slides tab": the first one in the strip.
        HandleKind::Type => note.tabs.iter().find(|t| t.kind() == TabKind::Slides),
        HandleKind::Label => note.tabs.iter().find(|t| t.label == handles.label),
        HandleKind::Id => note.tab(&handles.id),
    };
    tab.map(|t| t.id.clone())
}

/// Per handle: how often it found the target, another tab, or nothing; and what the store
/// did with the write aimed at it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub right: usize,
    /// Another Slides deck.
    pub wrong_deck: usize,
    /// Another tab that is not a deck (only a position can land there).
    pub wrong_tab: usize,
    pub not_found: usize,
    /// Writes to a wrong deck, and how many of them the store accepted (passed the check).
    pub wrong_writes: usize,
    pub wrong_writes_accepted: usize,
    /// Writes to a non-deck tab, refused by the operation's own validation.
    pub refused_not_a_deck: usize,
}

#[derive(Debug, Clone, Default)]
pub struct KResult {
    pub tallies: [Tally; 4],
    /// Trials where the person changed something (a no-op, such as a rename to the same label,
    /// makes no version), and how many times the agent's write with the version read before
    /// those changes was refused.
    pub trials_with_changes: usize,
    pub stale_refused: usize,
}

struct Lab<'a> {
    store: &'a dyn Store,
    note: NoteId,
}

impl Lab<'_> {
    async fn note(&self) -> anyhow::Result<Note> {
        Ok(self.store.get_note(&self.note).await?.note)
    }

    async fn write(
        &self,
        author: &str,
        expected: Version,
        ops: Vec<Op>,
    ) -> Result<WriteResult, StoreError> {
        self.store
            .write(WriteRequest {
                note_id: self.note.clone(),
                expected_version: expected,
                idempotency_key: None,
                author: author.to_owned(),
                author_kind: AuthorKind::Person,
                change: Change::Ops(ops),
                now: harness::now(),
            })
            .await
    }

    /// One of the person's changes: move 40%, rename a deck 35%, add a deck 25%.
    /// Returns the Note's version after it (unchanged when the change was a no-op, such as a
    /// rename to the label the deck already has).
    async fn person_change(&self, rng: &mut LabRng) -> anyhow::Result<Version> {
        let note = self.note().await?;
        let roll: f64 = rng.random();
        let op = if roll < 0.40 {
            let from = rng.random_range(0..note.tabs.len());
            let mut to = rng.random_range(0..note.tabs.len() - 1);
            if to >= from {
                to += 1; // a move goes somewhere else
            }
            Op::MoveTab {
                tab_id: note.tabs[from].id.clone(),
                index: to,
            }
        } else if roll < 0.75 {
            let decks: Vec<&TabId> = note
                .tabs
                .iter()
                .filter(|t| t.kind() == TabKind::Slides)
                .map(|t| &t.id)
                .collect();
            Op::RenameTab {
                tab_id: decks[rng.random_range(0..decks.len())].clone(),
                label: LABELS[rng.random_range(0..LABELS.len())].to_owned(),
            }
        } else {
            Op::CreateTab {
                tab_type: NewTabKind::Slides,
                label: None,
                slides: None,
            }
        };
        let written = self
            .write("person", note.version, vec![op])
            .await
            .context("the person's change")?;
        Ok(written.version)
    }
}

fn slide(kind: HandleKind, tab_id: TabId) -> Op {
    Op::SlideAdd {
        tab_id,
        title: format!("written through the {} handle", kind.name()),
        body: String::new(),
        notes: String::new(),
    }
}

/// Every trial for one K, on one Note restored to its K-deck starting state before each.
pub async fn run_k(p: &Params, k: usize) -> anyhow::Result<KResult> {
    let lab_store = LabStore::open(Synchronous::Normal)?;
    let store = lab_store.dyn_store();
    let note = harness::create_note(&*store, &mut rng(p.seed, 0), "handles").await?;
    let lab = Lab {
        store: &*store,
        note,
    };
    let start = lab.note().await?;
    let decks: Vec<Op> = LABELS[..k]
        .iter()
        .map(|label| Op::CreateTab {
            tab_type: NewTabKind::Slides,
            label: Some((*label).to_owned()),
            slides: None,
        })
        .collect();
    let base = lab.write("person", start.version, decks).await?.version;
    let mut rng = rng(p.seed, k as u64);
    let mut result = KResult::default();
    for trial in 0..p.trials {
        if trial > 0 {
            let current = lab.note().await?.version;
            lab.store
                .write(WriteRequest {
                    note_id: lab.note.clone(),
                    expected_version: current,
                    idempotency_key: None,
                    author: "lab".to_owned(),
                    author_kind: AuthorKind::Person,
                    change: Change::Restore { version: base },
                    now: harness::now(),
                })
                .await
                .context("restoring the starting strip")?;
        }
        // The agent lists the tabs and picks its target deck.
        let listed = lab.note().await?;
        let decks: Vec<usize> = (0..listed.tabs.len())
            .filter(|i| listed.tabs[*i].kind() == TabKind::Slides)
            .collect();
        let position = decks[rng.random_range(0..decks.len())];
        let target = &listed.tabs[position];
        let handles = Handles {
            position,
            label: target.label.clone(),
            id: target.id.clone(),
        };
        // The person makes 0-2 changes.
        let changes = rng.random_range(0..=2);
        let mut person_version = listed.version;
        for _ in 0..changes {
            person_version = lab.person_change(&mut rng).await?;
        }
        if person_version != listed.version {
            result.trials_with_changes += 1;
            match lab
                .write(
                    "claude",
                    listed.version,
                    vec![slide(HandleKind::Id, handles.id.clone())],
                )
                .await
            {
                Err(StoreError::Conflict(_)) => result.stale_refused += 1,
                Ok(_) => bail!("a write on a version older than the person's changes passed"),
                Err(e) => return Err(e.into()),
            }
        }
        // The agent lists again and resolves each handle; one write through each.
        let fresh = lab.note().await?;
        let mut version = fresh.version;
        for (i, kind) in HandleKind::ALL.into_iter().enumerate() {
            let tally = &mut result.tallies[i];
            let Some(tab_id) = resolve(&fresh, &handles, kind) else {
                tally.not_found += 1;
                continue;
            };
            let is_deck = fresh.tab(&tab_id).map(|t| t.kind()) == Some(TabKind::Slides);
            let right = tab_id == handles.id;
            if right {
                tally.right += 1;
            } else if is_deck {
                tally.wrong_deck += 1;
                tally.wrong_writes += 1;
            } else {
                tally.wrong_tab += 1;
            }
            match lab
                .write("claude", version, vec![slide(kind, tab_id)])
                .await
            {
                Ok(written) => {
                    version = written.version;
                    if !right && is_deck {
                        tally.wrong_writes_accepted += 1;
                    }
                }
                Err(StoreError::Invalid(_)) if !is_deck => tally.refused_not_a_deck += 1,
                Err(e) => return Err(e).context("the agent's write after a fresh listing"),
            }
        }
    }
    store.close().await?;
    Ok(result)
}

/// The article's right / wrong deck / not found.
fn article(k: usize, kind: HandleKind) -> [&'static str; 3] {
    match (k, kind) {
        (2, HandleKind::Position) => ["83.7%", "16.3%", "0.0%"],
        (2, HandleKind::Type) => ["50.7%", "49.3%", "0.0%"],
        (2, HandleKind::Label) => ["85.6%", "2.1%", "12.3%"],
        (5, HandleKind::Position) => ["82.7%", "17.3%", "0.0%"],
        (5, HandleKind::Type) => ["19.7%", "80.3%", "0.0%"],
        (5, HandleKind::Label) => ["92.1%", "3.0%", "5.0%"],
        (_, HandleKind::Id) => ["100%", "0", "0"],
        _ => ["—", "—", "—"],
    }
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("7. Tab handles: position, type, label, ID");
    section.setup(format!(
        "{} trials per K, seed {}; K Slides decks labelled from {:?}; between agent turns the \
         person makes 0-2 changes (move any tab 40%, rename a deck to one of the five labels 35%, \
         add a deck 25%), each a real write; in-process on the product's `SqliteStore`, the Note \
         restored to its starting strip (a real restore) before each trial",
        int(p.trials as i64),
        p.seed,
        LABELS
    ));
    section.setup(
        "type resolves to the first Slides tab in the strip, label to the first tab with that \
         label; after the fresh listing the agent writes one slide through each handle"
            .to_owned(),
    );
    let mut table = Table::new(&[
        "K decks",
        "handle",
        "right",
        "wrong deck",
        "wrong tab (not a deck)",
        "not found",
        "wrong-deck writes that passed the version check",
        "article: right",
        "article: wrong deck",
        "article: not found",
    ]);
    // The K values run at once, each on its own store.
    let runs: Vec<_> = p
        .decks
        .iter()
        .map(|&k| {
            let p = p.clone();
            (k, tokio::spawn(async move { run_k(&p, k).await }))
        })
        .collect();
    for (k, run) in runs {
        let r = run.await.context("a handles task")??;
        let n = p.trials as f64;
        for (i, kind) in HandleKind::ALL.into_iter().enumerate() {
            let t = &r.tallies[i];
            let [a_right, a_wrong, a_nf] = article(k, kind);
            table.row(vec![
                k.to_string(),
                kind.name().into(),
                pct(t.right as f64, n),
                pct(t.wrong_deck as f64, n),
                if t.wrong_tab == 0 {
                    "0".into()
                } else {
                    format!(
                        "{} (refused: {} of {})",
                        pct(t.wrong_tab as f64, n),
                        t.refused_not_a_deck,
                        t.wrong_tab
                    )
                },
                pct(t.not_found as f64, n),
                format!("{} of {}", t.wrong_writes_accepted, t.wrong_writes),
                a_right.into(),
                a_wrong.into(),
                a_nf.into(),
            ]);
        }
        section.note(format!(
            "K = {k}: the person changed the strip in {} trials; the agent's write with the \
             version it read before those changes was refused in {} of them",
            int(r.trials_with_changes as i64),
            int(r.stale_refused as i64)
        ));
    }
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_id_always_finds_the_deck() {
        let p = Params {
            trials: 150,
            decks: vec![3],
            seed: 7,
        };
        let r = run_k(&p, 3).await.expect("trials");
        let id = &r.tallies[3];
        assert_eq!(id.right, p.trials, "the ID handle is always right: {id:?}");
        let ty = &r.tallies[1];
        assert!(ty.wrong_deck > 0, "the type handle hits the first deck");
        let wrong: usize = r.tallies.iter().map(|t| t.wrong_writes).sum();
        let passed: usize = r.tallies.iter().map(|t| t.wrong_writes_accepted).sum();
        assert!(wrong > 0);
        assert_eq!(
            wrong, passed,
            "every wrong-deck write passed the version check"
        );
        assert_eq!(r.trials_with_changes, r.stale_refused);
    }
}
