//! The writes, each run by the writer inside its transaction (under a savepoint of its own).
//! A function here either succeeds or returns an error; on error the writer rolls back to the
//! savepoint, so a refused write leaves nothing behind, not even its idempotency key.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use quire_model::{
    AuthorKind, Note, NoteId, OpError, OpErrorCode, OpOutcome, TabData, TabId, Timestamp, Version,
    limits,
};
use rusqlite::{Connection, OptionalExtension};

use super::cache::{Keys, KeysChange, Lag, NoteCache, PendingKey};
use super::read::{self, Anchor, Located, Root, StoredEntry, StoredStrip, StripEntry};
use super::search;
use super::sheet_text::{SheetText, TabText};
use super::splice::{self, NewSplice};
use super::stored_key;
use super::trash;
use crate::fail::Result;
use quire_api::{Conflict, NoteMeta, StoredNote, WriteResult};
use quire_store::guard::{
    Admission, Claim, Fingerprint, Fingerprinted, FirstWrite, GuardedWrite, Outcome, Reach,
    replayed,
};
use quire_store::{HashedToken, NewNote, StoreError, TokenRecord};

/// Keys a Note's versions may hold before the writer moves them into `write_keys`: the write
/// that finds this many (its own included) moves them, one commit of many keys instead of a
/// key leaf in every commit. Also the most rows a writer reads to learn a Note's waiting keys.
const KEYS_PENDING_MAX: usize = 32;

/// The guarded write, as [`GuardedWrite`] plans it, read from and committed to this file.
///
/// The key is stored in the new version's own row (no second b-tree page in the commit); every
/// `KEYS_PENDING_MAX` keyed versions of a Note, the write moves the Note's waiting keys into
/// `write_keys` (see `0004_keys_with_versions.sql`). A key is found among the waiting ones (the
/// writer holds them with its copy of the Note) or in `write_keys`.
pub(super) fn write(
    conn: &Connection,
    cache: &mut NoteCache,
    prepared: &Fingerprinted,
) -> Result<WriteResult> {
    let plan = GuardedWrite::of(prepared);
    let req = prepared.request();
    let id = &req.note_id;
    // The writer's copy is the newest version unless another connection wrote since (the
    // writer checks that once per batch, see `NoteCache::check_data_version`).
    let cached = cache.current(id);
    let mut read_keys = None;
    let (nid, keys) = match cached {
        Some(entry) => (entry.located.nid, &entry.keys),
        None => {
            let nid = read::nid(conn, id)?;
            (nid, &*read_keys.insert(read::pending_keys(conn, nid)?))
        }
    };
    if plan.reach() != Reach::AnyNote {
        let (agent_access, trashed) = trash::reach_of(conn, nid)?;
        plan.check_reach(agent_access, trashed)?;
    }
    let first = match plan.claim() {
        Some(claim) => find_key(conn, nid, keys, claim)?,
        None => None,
    };
    let admission = plan.admit(first, || match cached {
        Some(entry) => Ok(entry.located.note.version),
        None => read::current_version(conn, nid),
    })?;
    let version = match admission {
        Admission::Replay {
            first,
            request_differs,
        } => {
            let result = match first.result {
                Some(result) => serde_json::from_str(&result)?,
                None => read::write_result(conn, nid, id, first.version)?,
            };
            return Ok(replayed(result, request_differs));
        }
        Admission::Stale { current_version } => {
            plan.check_trash(trash::deleted_at(conn, nid)?.is_some())?;
            return Err(StoreError::Conflict(Conflict {
                current_version,
                changed_tab_ids: read::tabs_changed_since(conn, nid, req.expected_version)?,
            })
            .into());
        }
        Admission::Apply => {
            plan.check_trash(trash::deleted_at(conn, nid)?.is_some())?;
            req.expected_version
        }
    };

    let mut loaded = None;
    let current = match cached {
        Some(entry) => &entry.located,
        None => {
            let read = match plan.restores() {
                None => read::located_at(conn, nid, id, version, None)?,
                Some(_) => read::located_for_restore(conn, nid, id, version)?,
            };
            loaded.insert(read.ok_or_else(|| {
                StoreError::Backend(format!("note {id}: version {version} is not stored"))
            })?)
        }
    };
    let restored_from = match plan.restores() {
        Some(old) => read::located_at(conn, nid, id, old, None)?,
        None => None,
    };
    let applied = plan.apply(&current.note, restored_from.as_ref().map(|old| &old.note))?;

    let (result, claim) = match plan.settle(version, &applied) {
        Outcome::Unchanged { result, claim } => {
            // No version holds the key: its row in `write_keys` keeps the result itself, at
            // the version the Note stayed at.
            if let Some(claim) = claim {
                let stored = serde_json::to_string(&result)?;
                let fingerprint = claim.fingerprint.as_bytes();
                insert_key(conn, nid, claim.key, fingerprint, version, Some(&stored))?;
            }
            return Ok(result);
        }
        Outcome::NewVersion { result, claim } => (result, claim),
    };
    let next = result.version;
    let created_at = req.now.to_rfc3339();
    let entry_fields = NewVersion {
        author: &req.author,
        author_kind: req.author_kind,
        created_at: &created_at,
        summary: &applied.summary,
        changed_tab_ids: &applied.changed_tab_ids,
        outcomes: Some(&applied.outcomes),
        key: claim,
        text_ends_kept: Some(&applied.text_ends_kept),
    };
    let located = append_version(
        conn,
        current,
        restored_from.as_ref(),
        applied.note,
        next,
        &entry_fields,
    )?;
    if let Some(mark) = plan.trash_mark() {
        trash::set_deleted_at(conn, current.nid, mark)?;
    }
    let changed = match plan.restores() {
        None => Some(&applied.changed_tab_ids[..]),
        Some(_) => None,
    };
    // The index catches up later (`search::catch_up`), from the Note as it is now.
    let listed = !cache.is_behind(nid) && search::fall_behind(conn, nid, version)?;
    let change = match claim {
        None => KeysChange::None,
        Some(claim) if keys.pending.len() + 1 < KEYS_PENDING_MAX => KeysChange::Pending(
            claim.key.to_owned(),
            PendingKey {
                version: next,
                fingerprint: claim.fingerprint.as_bytes()[..FINGERPRINT_KEPT].to_vec(),
            },
        ),
        Some(claim) => {
            index_keys(conn, nid, keys, claim, next)?;
            KeysChange::Indexed
        }
    };
    let lag = match listed {
        true => Lag::Listed {
            at: version,
            changed,
        },
        false => Lag::Already(changed),
    };
    let loaded = read_keys.zip(loaded);
    cache.wrote(loaded, located, change, lag);
    Ok(result)
}

/// Where the first write with a key left its result: stored as it was (a no-op, or a key
/// stored before schema 2), else rebuilt from the history row of `version`.
struct StoredResult {
    version: Version,
    result: Option<String>,
}

/// The bytes of a request's fingerprint a version's row keeps (schema 12): the first half of its
/// SHA-256. Whether a resent request is the first one sent again is then told by 128 bits.
const FINGERPRINT_KEPT: usize = 16;

/// The first write's fingerprint from its stored bytes: whole (32 bytes, in `write_keys` and in
/// rows written before schema 12), or the first [`FINGERPRINT_KEPT`] bytes, which stand for the
/// claim's own when they are its first bytes (else for none, which differs from it).
fn stored_fingerprint(stored: &[u8], claim: Claim<'_>) -> Option<Fingerprint> {
    match Fingerprint::from_bytes(stored) {
        Some(whole) => Some(whole),
        None if stored.len() == FINGERPRINT_KEPT
            && claim.fingerprint.as_bytes().starts_with(stored) =>
        {
            Some(*claim.fingerprint)
        }
        None => None,
    }
}

/// The first write with the claim's key on this Note, if there was one.
fn find_key(
    conn: &Connection,
    nid: i64,
    keys: &Keys,
    claim: Claim<'_>,
) -> Result<Option<FirstWrite<StoredResult>>> {
    let key = claim.key;
    if let Some(pending) = keys.pending.get(key) {
        return Ok(Some(FirstWrite {
            fingerprint: stored_fingerprint(&pending.fingerprint, claim),
            result: StoredResult {
                version: pending.version,
                result: None,
            },
        }));
    }
    // Indexed with its version (schema 12): the rows of its hash, the one whose version holds it.
    let mut stmt = conn.prepare_cached(
        "SELECT v.idem_fingerprint, k.version FROM version_keys AS k
         JOIN versions AS v ON v.key = (k.nid << 32) | k.version
         WHERE k.nid = ?1 AND k.hash = ?2 AND v.idem_key = ?3",
    )?;
    let indexed = stmt
        .query_row(
            rusqlite::params![nid, key_hash(key), stored_key::stored(key)],
            |r| {
                Ok(FirstWrite {
                    fingerprint: stored_fingerprint(&r.get::<_, Vec<u8>>(0)?, claim),
                    result: StoredResult {
                        version: Version(r.get(1)?),
                        result: None,
                    },
                })
            },
        )
        .optional()?;
    if indexed.is_some() {
        return Ok(indexed);
    }
    // Indexed before schema 12, or a no-op's.
    let mut stmt = conn.prepare_cached(
        "SELECT fingerprint, version, result FROM write_keys WHERE nid = ?1 AND key = ?2",
    )?;
    Ok(stmt
        .query_row(rusqlite::params![nid, key], |r| {
            Ok(FirstWrite {
                fingerprint: Fingerprint::from_bytes(&r.get::<_, Vec<u8>>(0)?),
                result: StoredResult {
                    version: Version(r.get(1)?),
                    result: r.get(2)?,
                },
            })
        })
        .optional()?)
}

/// A key as `version_keys` indexes it: the top 31 bits of its XXH3 (four bytes in the row; a
/// lookup reads the rows of its hash and takes the one whose version holds the very key).
fn key_hash(key: &str) -> i64 {
    i64::from(u32::try_from(quire_store::search::text_hash(key) >> 33).unwrap_or(u32::MAX))
}

/// Indexes the Note's waiting keys, and the write's own (`claim`, made at `version`), in
/// `version_keys`: the Note's keys are indexed through `version` now. Each stays in its version's
/// row, which the index points at.
fn index_keys(
    conn: &Connection,
    nid: i64,
    keys: &Keys,
    claim: Claim<'_>,
    version: Version,
) -> Result<()> {
    let mut stmt =
        conn.prepare_cached("INSERT INTO version_keys (nid, hash, version) VALUES (?1, ?2, ?3)")?;
    for (waiting, at) in &keys.pending {
        stmt.execute(rusqlite::params![nid, key_hash(waiting), at.version.0])?;
    }
    stmt.execute(rusqlite::params![nid, key_hash(claim.key), version.0])?;
    let mut through = conn.prepare_cached("UPDATE notes SET keys_through = ?2 WHERE nid = ?1")?;
    through.execute(rusqlite::params![nid, version.0])?;
    Ok(())
}

/// A key's row in `write_keys`: the write with this request fingerprint made (or, a no-op,
/// left the Note at) `version`; `result` only where no history row can give it back.
fn insert_key(
    conn: &Connection,
    nid: i64,
    key: &str,
    fingerprint: &[u8],
    version: Version,
    result: Option<&str>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO write_keys (nid, key, fingerprint, version, result)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    stmt.execute(rusqlite::params![nid, key, fingerprint, version.0, result])?;
    Ok(())
}

/// The history entry's own fields.
struct NewVersion<'a> {
    author: &'a str,
    author_kind: AuthorKind,
    created_at: &'a str,
    summary: &'a str,
    changed_tab_ids: &'a [TabId],
    /// The write's outcomes (none for a creation).
    outcomes: Option<&'a [OpOutcome]>,
    /// The write's idempotency key and request fingerprint.
    key: Option<Claim<'a>>,
    /// The bytes at the start and end of Markdown texts the batch left as they were
    /// (`Applied::text_ends_kept`).
    text_ends_kept: Option<&'a HashMap<TabId, (usize, usize)>>,
}

impl NewVersion<'_> {
    /// The entry as a row spells it out.
    fn spelled(&self) -> Result<StoredEntry> {
        Ok(StoredEntry {
            author: self.author.to_owned(),
            author_kind: Some(self.author_kind.as_str().to_owned()),
            summary: self.summary.to_owned(),
            changed_tab_ids: serde_json::to_string(self.changed_tab_ids)?,
            outcomes: self.outcomes.map(serde_json::to_string).transpose()?,
        })
    }
}

/// Appends `note` as version `next` of the Note: the small parts, and the contents of only the
/// tabs whose data differs from `current` (a long content edited a little as a splice of the
/// content before it). A restore writes no contents at all: its tabs point at the rows that
/// already hold them.
fn append_version(
    conn: &Connection,
    current: &Located,
    restored_from: Option<&Located>,
    mut note: Note,
    next: Version,
    entry: &NewVersion<'_>,
) -> Result<Located> {
    note.version = next;
    let mut data_at = Vec::with_capacity(note.tabs.len());
    let mut depth = Vec::with_capacity(note.tabs.len());
    for tab in &note.tabs {
        let kept = match restored_from {
            Some(old) => old.stored(&tab.id),
            None if entry.changed_tab_ids.contains(&tab.id) => current
                .note
                .tab(&tab.id)
                .filter(|before| before.data.identical(&tab.data))
                .and_then(|_| current.stored(&tab.id)),
            None => current.stored(&tab.id),
        };
        let (at, chain) = kept.unwrap_or((next, 0));
        data_at.push(at);
        depth.push(chain);
    }
    // A layout unchanged since `current` is not spelled out again.
    let same_layout = note.tabs.len() == current.note.tabs.len()
        && note
            .tabs
            .iter()
            .zip(&current.note.tabs)
            .all(|(a, b)| a.id == b.id && a.label == b.label && a.kind() == b.kind());
    let mut located = Located {
        nid: current.nid,
        note,
        data_at,
        depth,
        layout_at: if same_layout { current.layout_at } else { next },
        texts: HashMap::new(),
        hashes: HashMap::new(),
        roots: HashMap::new(),
        tops: HashMap::new(),
        entry: None,
    };
    // An entry and title the same as the newest ones spelled out are not spelled out again,
    // nor a strip that row's with the tabs the entry changed here.
    let spelled = entry.spelled()?;
    let like = (current.entry.as_ref())
        .filter(|anchor| anchor.entry == spelled && anchor.title == located.note.title);
    let (anchor, alike_row) = match like {
        Some(anchor) => {
            let strip_alike = anchor.layout_at == located.layout_at
                && anchor.data_at.len() == located.data_at.len()
                && (located.note.tabs.iter())
                    .zip(&anchor.data_at)
                    .map(|(tab, &at)| match entry.changed_tab_ids.contains(&tab.id) {
                        true => next,
                        false => at,
                    })
                    .eq(located.data_at.iter().copied());
            let date = entry.created_at.get(..read::DATE_LEN);
            let same_date = date.is_some() && anchor.created_at.get(..read::DATE_LEN) == date;
            (anchor.clone(), Some((strip_alike, same_date)))
        }
        None => (anchor_of(&located, spelled, entry.created_at), None),
    };
    let Found {
        splices,
        written,
        mut roots,
        stacked,
    } = splices(
        conn,
        current,
        &located.note,
        &located.data_at,
        &mut located.depth,
        entry.text_ends_kept,
    )?;
    let elide = match alike_row {
        Some((strip, date)) => Elide::Like {
            at: anchor.at,
            strip,
            date,
        },
        None => Elide::Spelled(&anchor.entry),
    };
    insert_version(conn, &located, &splices, &written, entry, elide)?;
    located.entry = Some(anchor);
    drop(splices);
    // The sheet texts still true: those of contents this version kept, and those it wrote.
    for (tab, at) in located.note.tabs.iter().zip(&located.data_at) {
        let kept = current.stored(&tab.id).is_some_and(|(was, _)| was == *at);
        if let Some(text) = current.texts.get(&tab.id).filter(|_| kept) {
            located.texts.insert(tab.id.clone(), text.clone());
        }
    }
    for (tab, written) in located.note.tabs.iter().zip(written) {
        if let Some(text) = written.filter(|t| splice::may_splice(t.text().len(), 0)) {
            located.texts.insert(tab.id.clone(), text);
        }
    }
    // The hashes of long Markdown texts: kept with their content, taken once for a new one
    // (the next write's splice is made on it, and search finds its chunks by it).
    for (tab, at) in located.note.tabs.iter().zip(&located.data_at) {
        let TabData::Markdown(text) = &tab.data else {
            continue;
        };
        let kept = current.stored(&tab.id).is_some_and(|(was, _)| was == *at);
        let hash = match current.hashes.get(&tab.id) {
            Some(&hash) if kept => Some(hash),
            _ if *at == next && splice::may_splice(text.len(), 0) => Some(text.digest()),
            _ => None,
        };
        if let Some(hash) = hash {
            located.hashes.insert(tab.id.clone(), hash);
        }
    }
    // The roots of long Markdown texts' chains: a text written whole is its own (copied once,
    // for the rebase of its chain when it is full); one spliced or kept stands on the root it
    // stood on, or on the one its rebase read. A restore's contents stand on other chains.
    for (i, tab) in located.note.tabs.iter().enumerate() {
        let TabData::Markdown(text) = &tab.data else {
            continue;
        };
        if text.len() < ROOT_MIN {
            continue;
        }
        let (at, depth) = (located.data_at[i], located.depth[i]);
        let root = if at == next && depth == 0 {
            located.hashes.get(&tab.id).map(|&hash| Root {
                at,
                text: text.clone(),
                hash,
            })
        } else if let Some(root) = roots.remove(&tab.id) {
            Some(root)
        } else if restored_from.is_none() {
            current.roots.get(&tab.id).cloned()
        } else {
            None
        };
        if let Some(root) = root {
            located.roots.insert(tab.id.clone(), root);
        }
        // The top of the stack of rebased splices: this text if its rebase stacked it, else the
        // one before while the chain still stands on it (not after a rebase on the root).
        let top = if stacked.contains(&tab.id) {
            located.hashes.get(&tab.id).map(|&hash| Root {
                at: next,
                text: text.clone(),
                hash,
            })
        } else if restored_from.is_none() && depth > 1 {
            current.tops.get(&tab.id).cloned()
        } else {
            None
        };
        if let Some(top) = top {
            located.tops.insert(tab.id.clone(), top);
        }
    }
    Ok(located)
}

/// Markdown texts shorter than this are not kept as a chain's root: reading their row again
/// costs little.
const ROOT_MIN: usize = 64 * 1024;

/// A spliced tab's splice, where one is worth storing, per tab of the Note (in strip order).
type Splices<'a> = Vec<Option<NewSplice<'a>>>;

/// A tab's new content as JSON text, where finding its splice wrote it: a content stored whole
/// is then written from it, not serialised again, and the writer keeps it for the next write.
type Written = Option<Arc<TabText>>;

/// What [`splices`] found for a new version's tabs.
struct Found<'a> {
    splices: Splices<'a>,
    /// The JSON texts of the new contents of big Sheet tabs.
    written: Vec<Written>,
    /// The roots of the full chains it rebased.
    roots: HashMap<TabId, Root>,
    /// The tabs whose full chain it rebased on a stack of splices (depth over 1).
    stacked: Vec<TabId>,
}

/// For each tab of `note` whose content is new at its version: the splice of the content
/// before it (in `current`) that stores it, where one is worth it. Sets the spliced tabs'
/// `depth`.
fn splices<'a>(
    conn: &Connection,
    current: &Located,
    note: &'a Note,
    data_at: &[Version],
    depth: &mut [u32],
    ends_kept: Option<&HashMap<TabId, (usize, usize)>>,
) -> Result<Found<'a>> {
    let mut splices = Vec::with_capacity(note.tabs.len());
    let mut written = Vec::with_capacity(note.tabs.len());
    let mut roots = HashMap::new();
    let mut stacked = Vec::new();
    for (i, tab) in note.tabs.iter().enumerate() {
        let kept = ends_kept
            .and_then(|k| k.get(&tab.id))
            .copied()
            .unwrap_or((0, 0));
        let (spliced, text) = match (current.note.tab(&tab.id), current.stored(&tab.id)) {
            (Some(before), Some((base, chain)))
                if data_at[i] == note.version && chain >= splice::MAX_CHAIN =>
            {
                match (&before.data, &tab.data) {
                    (TabData::Markdown(old), TabData::Markdown(new)) => {
                        let (rebased, root) = rebase(conn, current, &tab.id, base, old, new, kept)?;
                        if let Some(root) = root {
                            roots.insert(tab.id.clone(), root);
                        }
                        if rebased.as_ref().is_some_and(|(_, depth)| *depth > 1) {
                            stacked.push(tab.id.clone());
                        }
                        (rebased, None)
                    }
                    _ => (None, None),
                }
            }
            (Some(before), Some((base, chain))) if data_at[i] == note.version => {
                let text = current.texts.get(&tab.id).map(Arc::as_ref);
                let hash = current.hashes.get(&tab.id).copied();
                let (spliced, text) =
                    splice_of(base, &before.data, &tab.data, chain, text, hash, kept)?;
                (spliced.map(|s| (s, chain + 1)), text)
            }
            _ => (None, None),
        };
        if let Some((_, chain)) = spliced {
            depth[i] = chain;
        }
        splices.push(spliced.map(|(s, _)| s));
        written.push(text);
    }
    Ok(Found {
        splices,
        written,
        roots,
        stacked,
    })
}

/// A rebased chain's splice and its depth.
type Rebased = (NewSplice<'static>, u32);

/// A full chain's next Markdown text `new` as one splice, where that is worth storing: the
/// chain's splices above its rebase point (`splice::rebase_point`: the splices earlier rebases
/// stacked on the chain's root, or the root itself) and the change from `old` (the text at
/// `at`, the chain's top) composed, see [`splice::rebased`]. `None`: store it whole. Also the
/// splice's depth, and the root: the one `current` keeps, else read from its row; it comes back
/// with the splice, for the writer to keep.
fn rebase(
    conn: &Connection,
    current: &Located,
    tab: &TabId,
    at: Version,
    old: &str,
    new: &str,
    kept: (usize, usize),
) -> Result<(Option<Rebased>, Option<Root>)> {
    let known = current.roots.get(tab);
    let Some((root, mut chain)) = read::markdown_chain(conn, current.nid, tab, at, known)? else {
        return Ok((None, None));
    };
    let (keep, cut, put) = splice::diff_kept(old, new, kept);
    chain.push(splice::Splice {
        base: at,
        keep,
        cut,
        put: put.to_owned(),
        base_hash: None,
        old_hash: None,
        more: Vec::new(),
    });
    let point = splice::rebase_point(&chain);
    let (above, depth) = (
        &chain[point..],
        u32::try_from(point).unwrap_or(u32::MAX) + 1,
    );
    let top = current.tops.get(tab).filter(|top| top.at == above[0].base);
    let spliced = match (point, top) {
        (0, _) => splice::rebased(root.at, &root.text, root.hash, above, new),
        (_, Some(top)) => splice::rebased(top.at, &top.text, top.hash, above, new),
        _ => match splice::replayed(&root.text, &chain[..point]) {
            Some(base) => {
                // The splice above the stack was made on that very text, and keeps its hash.
                let hash = quire_store::search::known_or_hash(&base, above[0].base_hash);
                splice::rebased(above[0].base, &base, hash, above, new)
            }
            None => None,
        },
    };
    Ok((spliced.map(|s| (s, depth)), Some(root)))
}

/// The splice of `before` (stored at `base`, `chain` splices deep) that gives `after`, if one
/// is worth storing: a Markdown text as text (`before_hash`: its hash, if the writer kept it),
/// another content as its JSON text (`before_text`, if the writer kept it, else written now),
/// which comes back with the splice. A Sheet tab is spliced row by row.
fn splice_of<'a>(
    base: Version,
    before: &TabData,
    after: &'a TabData,
    chain: u32,
    before_text: Option<&TabText>,
    before_hash: Option<u64>,
    kept: (usize, usize),
) -> Result<(Option<NewSplice<'a>>, Written)> {
    match (before, after) {
        (TabData::Markdown(old), TabData::Markdown(new)) => {
            // A text the batch spliced from this one knows its splice: neither is read whole
            // (the new one may be pieces of the old one).
            let splice = match new.splice_from(old) {
                Some((keep, cut, put)) => {
                    splice::known(base, old, new.len(), (keep, cut, put), chain, before_hash)
                }
                None => splice::worth(base, old, new, chain, before_hash, kept),
            };
            return Ok((splice, None));
        }
        (TabData::Sheet(old), TabData::Sheet(new)) => {
            let made: SheetText;
            let was = match before_text {
                Some(TabText::Sheet(text)) => text,
                _ => {
                    made = SheetText::of(old)?;
                    &made
                }
            };
            let (next, hunks) = was.next(old, new)?;
            let splice = match hunks {
                Some(hunks) => splice::of_hunks(base, &was.text, next.text.len(), hunks, chain),
                None => splice::worth(base, &was.text, &next.text, chain, None, (0, 0)).map(owned),
            };
            return Ok((splice, Some(Arc::new(TabText::Sheet(next)))));
        }
        _ if before.kind() != after.kind() => return Ok((None, None)),
        _ => {}
    }
    let new = serde_json::to_string(&after.content())?;
    if !splice::may_splice(new.len(), chain) {
        return Ok((None, Some(Arc::new(TabText::Json(new)))));
    }
    let made: String;
    let old = match before_text {
        Some(TabText::Json(text)) => text,
        _ => {
            made = serde_json::to_string(&before.content())?;
            &made
        }
    };
    let splice = splice::worth(base, old, &new, chain, None, (0, 0)).map(owned);
    Ok((splice, Some(Arc::new(TabText::Json(new)))))
}

/// A splice that borrows nothing.
fn owned(s: NewSplice<'_>) -> NewSplice<'static> {
    NewSplice {
        put: Cow::Owned(s.put.into_owned()),
        more: (s.more.into_iter())
            .map(|h| splice::Hunk {
                at: h.at,
                cut: h.cut,
                put: Cow::Owned(h.put.into_owned()),
            })
            .collect(),
        ..s
    }
}

/// The `data` column: the contents a version's row holds whole, those of the tabs whose data
/// is at that version and not spliced (`splices`: empty, or one entry per tab), by tab ID, as
/// the JSON object `serde_json` writes; a content whose text finding its splice wrote
/// (`written`) is not serialised again.
fn contents(
    located: &Located,
    splices: &[Option<NewSplice<'_>>],
    written: &[Written],
) -> Result<String> {
    let note = &located.note;
    let mut out = String::from("{");
    for (i, (tab, at)) in note.tabs.iter().zip(&located.data_at).enumerate() {
        let spliced = splices.get(i).is_some_and(Option::is_some);
        if *at != note.version || spliced {
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(tab.id.as_str())?);
        out.push(':');
        match written.get(i).and_then(|w| w.as_deref()).map(TabText::text) {
            Some(text) => out.push_str(text),
            None => out.push_str(&serde_json::to_string(&tab.data.content())?),
        }
    }
    out.push('}');
    Ok(out)
}

/// The `deltas` column: the splices by tab ID, `None` (NULL) if there are none.
fn deltas(located: &Located, splices: &[Option<NewSplice<'_>>]) -> Result<Option<String>> {
    if splices.iter().all(Option::is_none) {
        return Ok(None);
    }
    /// A splice with its base, left out when it is the version before the row's own.
    #[derive(serde::Serialize)]
    struct Row<'s, 'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        base: Option<Version>,
        #[serde(flatten)]
        splice: &'s NewSplice<'a>,
    }
    let before = Version(located.note.version.0.saturating_sub(1));
    let map: BTreeMap<&str, Row<'_, '_>> = located
        .note
        .tabs
        .iter()
        .zip(splices)
        .filter_map(|(tab, s)| {
            s.as_ref().map(|splice| {
                let base = (splice.base != before).then_some(splice.base);
                (tab.id.as_str(), Row { base, splice })
            })
        })
        .collect();
    Ok(Some(serde_json::to_string(&map)?))
}

/// The row that spells out `located`'s entry (made at its version), as the next rows take it.
fn anchor_of(located: &Located, entry: StoredEntry, created_at: &str) -> Anchor {
    Anchor {
        at: located.note.version,
        entry,
        title: located.note.title.clone(),
        created_at: created_at.to_owned(),
        layout_at: located.layout_at,
        data_at: located.data_at.clone(),
    }
}

/// What a new row spells out, or leaves to an older one (see [`Anchor`]).
#[derive(Debug, Clone, Copy)]
enum Elide<'e> {
    /// It spells out this entry.
    Spelled(&'e StoredEntry),
    /// Its entry and title are version `at`'s; its strip too, if `strip`; the date of its
    /// time too, if `date`.
    Like {
        at: Version,
        strip: bool,
        date: bool,
    },
}

/// `located`'s strip as its row spells it out: whole, or where its tabs' contents are on the
/// layout of an older row.
fn stored_strip(located: &Located) -> StoredStrip {
    let note = &located.note;
    if located.layout_at == note.version {
        StoredStrip::Full(
            note.tabs
                .iter()
                .zip(&located.data_at)
                .map(|(t, at)| StripEntry {
                    id: t.id.clone(),
                    kind: t.kind(),
                    label: t.label.clone(),
                    data_at: *at,
                })
                .collect(),
        )
    } else {
        StoredStrip::Same {
            layout: located.layout_at,
            data_at: located.data_at.clone(),
        }
    }
}

/// Writes `located`'s row: its entry, title and strip spelled out, or what `elide` says left
/// to an older row.
fn insert_version(
    conn: &Connection,
    located: &Located,
    splices: &[Option<NewSplice<'_>>],
    written: &[Written],
    entry: &NewVersion<'_>,
    elide: Elide<'_>,
) -> Result<()> {
    let (own, entry_at, strip_elided, date_elided) = match elide {
        Elide::Spelled(own) => (Some(own), None, false, false),
        Elide::Like { at, strip, date } => (None, Some(at), strip, date),
    };
    let created_at = match date_elided {
        true => entry
            .created_at
            .get(read::DATE_LEN..)
            .unwrap_or(entry.created_at),
        false => entry.created_at,
    };
    let note = &located.note;
    let key = read::key(located.nid, note.version)
        .ok_or_else(|| StoreError::Backend(format!("note {}: out of version numbers", note.id)))?;
    let strip = match strip_elided {
        true => String::new(),
        false => serde_json::to_string(&stored_strip(located))?,
    };
    let mut stmt = conn.prepare_cached(
        "INSERT INTO versions
           (key, author, created_at, summary, changed_tab_ids, title, seq, strip, data, outcomes,
            idem_key, idem_fingerprint, deltas, author_kind, entry_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?;
    stmt.execute(rusqlite::params![
        key,
        own.map_or("", |e| &e.author),
        created_at,
        own.map_or("", |e| &e.summary),
        own.map_or("", |e| &e.changed_tab_ids),
        if entry_at.is_some() {
            ""
        } else {
            note.title.as_str()
        },
        note.seq,
        strip,
        contents(located, splices, written)?,
        own.and_then(|e| e.outcomes.as_deref()),
        entry.key.map(|c| stored_key::stored(c.key)),
        entry
            .key
            .map(|c| &c.fingerprint.as_bytes()[..FINGERPRINT_KEPT]),
        deltas(located, splices)?,
        own.and_then(|e| e.author_kind.as_deref()),
        entry_at.map(|v| v.0),
    ])?;
    Ok(())
}

/// Creates a Note at version 1 with the fixed tabs; a repeated key (per author) replays.
pub(super) fn create_note(
    conn: &Connection,
    cache: &mut NoteCache,
    new: &NewNote,
) -> Result<(StoredNote, bool)> {
    if let Some(key) = &new.idempotency_key
        && let Some(first) = read::created_note_id(conn, &new.author, key)?
    {
        let note = read::note_at(conn, &first, Version(1), None)?;
        let meta = read::meta(conn, &first)?;
        return Ok((StoredNote { note, meta }, true));
    }

    let title = new.title.trim();
    if title.chars().count() > limits::TITLE_CHARS {
        return Err(StoreError::Invalid(OpError {
            code: OpErrorCode::InvalidOp,
            index: 0,
            field: "title".to_owned(),
            reason: format!("longer than {} characters", limits::TITLE_CHARS),
            edit: None,
        })
        .into());
    }
    let note = Note::new(new.id.clone(), title.to_owned());
    let at = new.now.to_rfc3339();
    let mut stmt = conn.prepare_cached(
        "INSERT INTO notes (id, agent_access, created_at) VALUES (?1, 0, ?2) RETURNING nid",
    )?;
    let nid: i64 = stmt.query_row([note.id.as_str(), at.as_str()], |r| r.get(0))?;
    let mut located = Located {
        nid,
        data_at: vec![note.version; note.tabs.len()],
        depth: vec![0; note.tabs.len()],
        layout_at: note.version,
        note,
        texts: HashMap::new(),
        hashes: HashMap::new(),
        roots: HashMap::new(),
        tops: HashMap::new(),
        entry: None,
    };
    let tab_ids = located.note.tab_ids();
    let entry = NewVersion {
        author: &new.author,
        author_kind: new.author_kind,
        created_at: &at,
        summary: "created",
        changed_tab_ids: &tab_ids,
        outcomes: None,
        key: None,
        text_ends_kept: None,
    };
    let anchor = anchor_of(&located, entry.spelled()?, &at);
    insert_version(
        conn,
        &located,
        &[],
        &[],
        &entry,
        Elide::Spelled(&anchor.entry),
    )?;
    located.entry = Some(anchor);
    search::index_new(conn, nid, &located.note)?;
    if let Some(key) = &new.idempotency_key {
        let mut stmt = conn.prepare_cached(
            "INSERT INTO note_creations (author, key, note_id) VALUES (?1, ?2, ?3)",
        )?;
        stmt.execute([new.author.as_str(), key.as_str(), located.note.id.as_str()])?;
    }
    let stored = StoredNote {
        note: located.note.clone(),
        meta: NoteMeta {
            deleted_at: None,
            agent_access: false,
            created_at: at.clone(),
            updated_at: at,
        },
    };
    cache.wrote(None, located, KeysChange::None, Lag::Indexed);
    Ok((stored, false))
}

/// Sets the Note's agent access and, if that changes it, records who changed it and when.
pub(super) fn set_agent_access(
    conn: &Connection,
    id: &NoteId,
    approved: bool,
    by: &str,
    now: Timestamp,
) -> Result<NoteMeta> {
    let mut stmt = conn.prepare_cached(
        "UPDATE notes SET agent_access = ?2 WHERE id = ?1 AND agent_access IS NOT ?2
         RETURNING nid",
    )?;
    let changed: Option<i64> = stmt
        .query_row(rusqlite::params![id.as_str(), approved], |r| r.get(0))
        .optional()?;
    if let Some(nid) = changed {
        let mut stmt = conn.prepare_cached(
            "INSERT INTO agent_access_changes (nid, approved, changed_by, changed_at)
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        stmt.execute(rusqlite::params![nid, approved, by, now.to_rfc3339()])?;
    }
    read::meta(conn, id)
}

/// Stores a token by its hash. Its `created_at` is metadata, read from SQLite's clock.
pub(super) fn create_token(conn: &Connection, token: &HashedToken) -> Result<TokenRecord> {
    let HashedToken {
        name,
        scopes,
        kind,
        hash,
        expires_at,
    } = token;
    let (kind, expires_at) = (*kind, *expires_at);
    let mut stmt = conn.prepare_cached(
        "INSERT INTO tokens (name, hash, scopes, kind, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?5)
         RETURNING id, created_at",
    )?;
    let (id, created_at) = stmt.query_row(
        rusqlite::params![
            name,
            hash,
            serde_json::to_string(scopes)?,
            kind.as_str(),
            expires_at.map(Timestamp::millis),
        ],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
    )?;
    Ok(TokenRecord {
        id,
        name: name.clone(),
        scopes: scopes.clone(),
        kind,
        created_at,
        expires_at,
        revoked_at: None,
        last_used_at: None,
    })
}

/// See [`quire_store::Store::revoke_tokens`].
pub(super) fn revoke_tokens(
    conn: &Connection,
    name: &str,
    kind: Option<AuthorKind>,
    now: Timestamp,
) -> Result<usize> {
    let kind = kind.map(AuthorKind::as_str);
    let revoked = conn
        .prepare_cached(
            "UPDATE tokens SET revoked_at = ?3
             WHERE name = ?1 AND (?2 IS NULL OR kind = ?2) AND revoked_at IS NULL",
        )?
        .execute(rusqlite::params![name, kind, now.millis()])?;
    if revoked == 0 {
        let known: bool = conn
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM tokens WHERE name = ?1 AND (?2 IS NULL OR kind = ?2))",
            )?
            .query_row(rusqlite::params![name, kind], |r| r.get(0))?;
        if !known {
            return Err(StoreError::TokenNotFound(name.to_owned()).into());
        }
    }
    Ok(revoked)
}

/// See [`quire_store::Store::record_token_use`].
pub(super) fn record_token_use(conn: &Connection, id: i64, at: Timestamp) -> Result<()> {
    conn.prepare_cached(
        "UPDATE tokens SET last_used_at = ?2
         WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2)",
    )?
    .execute(rusqlite::params![id, at.millis()])?;
    Ok(())
}

/// See [`crate::Store::settle_token_kinds`].
pub(super) fn settle_token_kinds(conn: &Connection, person_hash: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "UPDATE tokens SET kind = CASE WHEN hash = ?1 THEN 'person' ELSE 'agent' END
         WHERE kind IS NULL
         RETURNING name, kind",
    )?;
    let rows = stmt.query_map([person_hash], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut agents = Vec::new();
    for row in rows {
        let (name, kind) = row?;
        if kind == AuthorKind::Agent.as_str() {
            agents.push(name);
        }
    }
    agents.sort();
    Ok(agents)
}
