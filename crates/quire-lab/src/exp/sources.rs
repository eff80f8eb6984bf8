//! Experiment 9: what an `add_note_source` key should name. Research sessions cite the same
//! pages again in later turns, under different spellings, and lose some answers. A fresh key
//! per citation covers only the resends; a hash of the raw URL catches exact repeats; a hash
//! of the normalised URL and the Note names the intent ("this page in this Note").
//!
//! Quire also deduplicates on the server (the URL normalised in the model's `add_source`),
//! whatever the key. So the key strategies are measured on the real store as "what the keys
//! alone would have stored" (every accepted write that was not a replay adds a row on a server
//! without that rule), and Quire's actual Sources tabs are counted beside them.

use std::collections::HashSet;
use std::time::Instant;

use quire_model::{NoteId, Op, TabData, TabId, normalize_url};
use quire_store::Store;
use quire_store_sqlite::Synchronous;
use rand::Rng;
use rand::seq::index::sample;
use sha2::{Digest, Sha256};

use crate::client::{Client, Direct, Reply};
use crate::harness::{self, LabStore, rng};
use crate::report::{Section, Table, int};

#[derive(Debug, Clone)]
pub struct Params {
    pub sessions: usize,
    pub turns: usize,
    pub pages: usize,
    pub cited_per_turn: usize,
    pub drop: f64,
    pub seed: u64,
}

impl Params {
    /// The article's: 300 sessions, 3 turns, 6 of 8 pages per turn, 7 spellings, 20% lost.
    pub fn article() -> Self {
        Params {
            sessions: 300,
            turns: 3,
            pages: 8,
            cited_per_turn: 6,
            drop: 0.2,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A random key per citation, reused only when resending it.
    FreshPerCitation,
    /// SHA-256 of the URL as written.
    RawUrl,
    /// SHA-256 of the Note ID and the normalised URL.
    NormalizedUrlInNote,
}

impl KeyKind {
    pub const ALL: [KeyKind; 3] = [
        KeyKind::FreshPerCitation,
        KeyKind::RawUrl,
        KeyKind::NormalizedUrlInNote,
    ];
}

/// The seven spellings of one page.
pub fn spelling(host_path: &str, which: usize) -> String {
    match which {
        0 => format!("https://{host_path}"),
        1 => format!("https://{host_path}/"),
        2 => format!("https://www.{host_path}"),
        3 => format!("https://{host_path}?utm_source=newsletter"),
        4 => format!("https://{host_path}#findings"),
        5 => format!("http://{host_path}"),
        _ => host_path.to_owned(),
    }
}

const SPELLINGS: usize = 7;

fn sha(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowResult {
    pub citations: usize,
    pub calls: usize,
    /// Accepted writes that were not replays: the rows a keys-only server would hold.
    pub stored_by_keys: usize,
    /// Distinct pages cited, summed over sessions.
    pub distinct_pages: usize,
    /// Resends after a lost answer, and how many of them were answered as replays.
    pub resends: usize,
    pub resends_replayed: usize,
    /// What Quire's Sources tabs hold at the end, and how many of those share a page.
    pub quire_stored: usize,
    pub quire_duplicates: usize,
}

impl RowResult {
    pub fn duplicates_by_keys(&self) -> usize {
        self.stored_by_keys - self.distinct_pages
    }
}

/// One research session on its own Note.
async fn session(
    client: &dyn Client,
    note: &NoteId,
    p: &Params,
    index: usize,
    kind: KeyKind,
    result: &mut RowResult,
) -> anyhow::Result<()> {
    // The same pages, spellings and lost answers for every key kind.
    let seed = p.seed * 1_000_003 + index as u64;
    let mut choices = rng(seed, 1);
    let mut network = rng(seed, 2);
    let mut keys = rng(seed, 3);
    let pages: Vec<String> = (0..p.pages)
        .map(|n| format!("research-{index}.example.org/reports/page-{n}"))
        .collect();
    let mut cited = HashSet::new();
    for _turn in 0..p.turns {
        let (mut version, _) = client.list_tabs(note).await?;
        for n in sample(&mut choices, p.pages, p.cited_per_turn) {
            let url = spelling(&pages[n], choices.random_range(0..SPELLINGS));
            cited.insert(n);
            result.citations += 1;
            let key = match kind {
                KeyKind::FreshPerCitation => harness::key(&mut keys),
                KeyKind::RawUrl => sha(&[&url]),
                KeyKind::NormalizedUrlInNote => sha(&[note.as_str(), &normalize_url(&url)?]),
            };
            let op = Op::AddSource {
                title: format!("Report, page {n}"),
                url: url.clone(),
            };
            let mut resending = false;
            loop {
                result.calls += 1;
                match client
                    .write(note, version, Some(key.clone()), vec![op.clone()])
                    .await?
                {
                    Reply::Accepted(a) => {
                        if resending {
                            result.resends += 1;
                            if a.replayed {
                                result.resends_replayed += 1;
                            }
                        }
                        if !a.replayed {
                            result.stored_by_keys += 1;
                        }
                        if network.random_bool(p.drop) {
                            resending = true; // lost: resend the same call, same key
                            continue;
                        }
                        version = a.version;
                        break;
                    }
                    // A replayed answer carries the version of its first write; the next
                    // citation may then be stale. Same intent: re-read, same key.
                    Reply::Conflict { .. } => {
                        version = client.list_tabs(note).await?.0;
                    }
                }
            }
        }
    }
    result.distinct_pages += cited.len();
    Ok(())
}

pub async fn row(p: &Params, kind: KeyKind) -> anyhow::Result<RowResult> {
    let lab = LabStore::open(Synchronous::Normal)?;
    let store = lab.dyn_store();
    let client = Direct::new(store.clone(), "claude");
    let mut result = RowResult::default();
    for index in 0..p.sessions {
        let note =
            harness::create_note(&*store, &mut rng(p.seed, 10_000 + index as u64), "research")
                .await?;
        session(&client, &note, p, index, kind, &mut result).await?;
        let (stored, duplicates) = sources_in(&*store, &note).await?;
        result.quire_stored += stored;
        result.quire_duplicates += duplicates;
    }
    store.close().await?;
    Ok(result)
}

/// Sources in the Note's Sources tab, and how many share a normalised URL with an earlier one.
async fn sources_in(store: &dyn Store, note: &NoteId) -> anyhow::Result<(usize, usize)> {
    let stored = store.get_note(note).await?;
    let Some(TabData::Sources(sources)) = stored
        .note
        .tab(&TabId::new(TabId::SOURCES))
        .map(|t| &t.data)
    else {
        anyhow::bail!("the Note has no Sources tab");
    };
    let distinct: HashSet<&str> = sources.iter().map(|s| s.normalized_url.as_str()).collect();
    Ok((sources.len(), sources.len() - distinct.len()))
}

pub async fn run(p: &Params) -> anyhow::Result<Section> {
    let started = Instant::now();
    let mut section = Section::new("9. Source keys");
    section.setup(format!(
        "{} research sessions (one Note each), {} turns, {} of {} pages cited per turn, each \
         citation one of {} spellings (as is, trailing slash, www., ?utm_source=, #fragment, \
         http://, no scheme), {:.0}% of answers lost and resent with the same key; seed {}; \
         in-process on the product's `SqliteStore`",
        p.sessions,
        p.turns,
        p.cited_per_turn,
        p.pages,
        SPELLINGS,
        p.drop * 100.0,
        p.seed
    ));
    let mut table = Table::new(&[
        "key",
        "sources stored (keys alone)",
        "duplicates",
        "per session",
        "Quire's Sources tabs: stored / duplicates",
        "resends replayed",
        "article: stored",
        "article: duplicates",
        "article: per session",
    ]);
    let sessions = p.sessions as f64;
    let mut fresh = None;
    for kind in KeyKind::ALL {
        let r = row(p, kind).await?;
        let (name, article) = match kind {
            KeyKind::FreshPerCitation => (
                "fresh random key per citation, reused on resend",
                ["5,400", "3,038", "10.13"],
            ),
            KeyKind::RawUrl => ("SHA-256 of the raw URL", ["4,814", "2,452", "8.17"]),
            KeyKind::NormalizedUrlInNote => (
                "SHA-256 of Note ID + normalised URL",
                ["2,362", "0", "0.00"],
            ),
        };
        table.row(vec![
            name.into(),
            int(r.stored_by_keys as i64),
            int(r.duplicates_by_keys() as i64),
            format!("{:.2}", r.duplicates_by_keys() as f64 / sessions),
            format!("{} / {}", int(r.quire_stored as i64), r.quire_duplicates),
            format!("{} of {}", r.resends_replayed, r.resends),
            article[0].into(),
            article[1].into(),
            article[2].into(),
        ]);
        if kind == KeyKind::FreshPerCitation {
            fresh = Some(r);
        }
    }
    if let Some(r) = fresh {
        table.row(vec![
            "Quire: random keys + server-side normalised dedup".into(),
            int(r.quire_stored as i64),
            int(r.quire_duplicates as i64),
            format!("{:.2}", r.quire_duplicates as f64 / sessions),
            format!("{} / {}", int(r.quire_stored as i64), r.quire_duplicates),
            format!("{} of {}", r.resends_replayed, r.resends),
            "—".into(),
            "—".into(),
            "—".into(),
        ]);
        section.note(format!(
            "{} citations, {} distinct pages cited: the normalised key and Quire's server-side rule \
             both store exactly one source per page",
            int(r.citations as i64),
            int(r.distinct_pages as i64)
        ));
    }
    Ok(section.finish(table, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seven_spellings_normalise_to_one_page() {
        let all: HashSet<String> = (0..SPELLINGS)
            .map(|k| normalize_url(&spelling("example.org/a/b", k)).expect("web URL"))
            .collect();
        assert_eq!(all.len(), 1, "{all:?}");
        let raw: HashSet<String> = (0..SPELLINGS)
            .map(|k| spelling("example.org/a/b", k))
            .collect();
        assert_eq!(raw.len(), SPELLINGS);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn normalised_keys_and_quire_store_no_duplicates() {
        let p = Params {
            sessions: 6,
            ..Params::article()
        };
        let fresh = row(&p, KeyKind::FreshPerCitation).await.expect("fresh");
        let raw = row(&p, KeyKind::RawUrl).await.expect("raw");
        let normalised = row(&p, KeyKind::NormalizedUrlInNote)
            .await
            .expect("normalised");
        assert_eq!(
            fresh.stored_by_keys, fresh.citations,
            "fresh keys store every citation"
        );
        assert!(
            raw.duplicates_by_keys() > 0 && raw.duplicates_by_keys() < fresh.duplicates_by_keys()
        );
        assert_eq!(normalised.duplicates_by_keys(), 0);
        assert_eq!(
            fresh.resends, fresh.resends_replayed,
            "a resend is always a replay"
        );
        for r in [&fresh, &raw, &normalised] {
            assert_eq!(r.quire_duplicates, 0);
            assert_eq!(r.quire_stored, r.distinct_pages);
        }
    }
}
