//! Queries shared by the read pool and the writer (which reads inside its transaction).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use quire_model::{
    AuthorKind, Note, NoteId, NoteSummary, Tab, TabData, TabId, TabKind, Text, Timestamp, Version,
};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::cache::{Keys, PendingKey};
use super::rebuilt::Rebuilt;
use super::sheet_text::TabText;
use super::splice::{self, Misfit, Splice};
use super::stored_key;
use crate::fail::Result;
use quire_api::{AccessChange, NoteMeta, Scope, StoredNote, VersionInfo, WriteResult};
use quire_store::{StoreError, TokenRecord};

/// The `versions` key of a Note's version: `nid << 32 | version`.
pub(super) fn key(nid: i64, version: Version) -> Option<i64> {
    u32::try_from(version.0)
        .ok()
        .map(|v| (nid << 32) | i64::from(v))
}

/// The first and last possible `versions` keys of a Note.
pub(super) fn span(nid: i64) -> (i64, i64) {
    (nid << 32, (nid << 32) | i64::from(u32::MAX))
}

fn version_of(key: i64) -> Version {
    Version((key & i64::from(u32::MAX)) as u64)
}

pub(super) fn bad_id(e: quire_model::NoteIdError) -> StoreError {
    StoreError::Backend(format!("stored note id: {e}"))
}

/// One tab of the strip, as a version records it: what it is, and which version's row holds
/// its content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct StripEntry {
    pub id: TabId,
    pub kind: TabKind,
    pub label: String,
    pub data_at: Version,
}

/// A version's strip as its row stores it (the `strip` column, JSON). Most writes change the
/// content of a tab, not the strip's tabs, kinds or labels (its layout): such a version stores
/// only where each tab's content is and the version whose row spells the layout out, so a row
/// stays small whatever the number of tabs and the length of their labels. Since schema 3;
/// older rows are all `Full`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub(super) enum StoredStrip {
    /// `[{id, kind, label, data_at}, ...]`.
    Full(Vec<StripEntry>),
    /// `{"layout": V, "data_at": [...]}`: the tabs, kinds and labels of version V's row (a
    /// `Full` one), in order, with their contents at `data_at`.
    Same {
        layout: Version,
        data_at: Vec<Version>,
    },
}

impl StoredStrip {
    fn parse(json: &str) -> Result<Self> {
        // Each form alone: faster than serde's untagged buffering, and a clearer error.
        Ok(if json.trim_start().starts_with('[') {
            StoredStrip::Full(serde_json::from_str(json)?)
        } else {
            let same: SameLayout = serde_json::from_str(json)?;
            StoredStrip::Same {
                layout: same.layout,
                data_at: same.data_at,
            }
        })
    }
}

#[derive(Deserialize)]
struct SameLayout {
    layout: Version,
    data_at: Vec<Version>,
}

/// A version's history entry as its row stores it: who wrote it, what the history says of it,
/// which tabs it changed and the outcomes of its ops (JSON, as stored). Since schema 12 a row
/// whose entry equals that of an older row (a person typing: every save "edited the text")
/// names that row in `entry_at` instead of spelling the entry out again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct StoredEntry {
    pub author: String,
    /// `None` in rows written before versions recorded it (schema 6).
    pub author_kind: Option<String>,
    pub summary: String,
    pub changed_tab_ids: String,
    /// `None` for a creation, and in rows written before schema 2.
    pub outcomes: Option<String>,
}

/// A row that spells its history entry out, as the writer wrote it: what a younger row that
/// names it (`entry_at`) takes from it. Such a row has its title, and its strip too when the
/// strip is that row's with the tabs the entry changed at the younger version (it then stores
/// '' as its title and strip).
#[derive(Debug, Clone)]
pub(super) struct Anchor {
    pub at: Version,
    pub entry: StoredEntry,
    pub title: String,
    /// Its time: a younger row of the same date stores only its time of day.
    pub created_at: String,
    pub layout_at: Version,
    pub data_at: Vec<Version>,
}

/// The entry spelled out in version `at`'s row, which a younger row names in `entry_at`.
fn spelled_entry(conn: &Connection, nid: i64, at: Version) -> Result<StoredEntry> {
    Ok(spelled_row(conn, nid, at)?.0)
}

/// The entry spelled out in version `at`'s row, and the row's time.
fn spelled_row(conn: &Connection, nid: i64, at: Version) -> Result<(StoredEntry, String)> {
    let missing = || {
        StoreError::Backend(format!(
            "note #{nid}: a version's history entry is that of version {at}, which spells none out"
        ))
    };
    let key = key(nid, at).ok_or_else(missing)?;
    let mut stmt = conn.prepare_cached(
        "SELECT author, author_kind, summary, changed_tab_ids, outcomes, entry_at, created_at
         FROM versions WHERE key = ?1",
    )?;
    let row = stmt
        .query_row([key], |r| {
            Ok((
                StoredEntry {
                    author: r.get(0)?,
                    author_kind: r.get(1)?,
                    summary: r.get(2)?,
                    changed_tab_ids: r.get(3)?,
                    outcomes: r.get(4)?,
                },
                r.get::<_, Option<i64>>(5)?,
                r.get::<_, String>(6)?,
            ))
        })
        .optional()?;
    match row {
        Some((entry, None, created_at)) => Ok((entry, created_at)),
        _ => Err(missing().into()),
    }
}

/// The time a row stores (`own`), whole: a row like an older one (`like`, that row's time)
/// may store only the time of day when its date is that row's (schema 12).
pub(super) fn time_of(own: String, like: Option<&str>) -> String {
    match like {
        Some(like) if own.as_bytes().get(4) != Some(&b'-') => {
            format!("{}{own}", like.get(..DATE_LEN).unwrap_or(like))
        }
        _ => own,
    }
}

/// The bytes of a stored time's date, its `T` included: `2026-12-07T`.
pub(super) const DATE_LEN: usize = 11;

/// The version an `entry_at` column names.
fn entry_version(nid: i64, at: i64) -> Result<Version> {
    Ok(Version(u64::try_from(at).map_err(|_| {
        StoreError::Backend(format!("note #{nid}: an entry at version {at}"))
    })?))
}

/// The entries named by the rows a query steps through, each read once.
#[derive(Default)]
struct SpelledEntries(HashMap<i64, (StoredEntry, String)>);

impl SpelledEntries {
    /// The entry of a row whose `entry_at` column reads `entry_at`: its own (`own`) or that
    /// of the row it names, with that row's time.
    fn of<'e>(
        &'e mut self,
        conn: &Connection,
        nid: i64,
        own: &'e StoredEntry,
        entry_at: Option<i64>,
    ) -> Result<(&'e StoredEntry, Option<&'e str>)> {
        let Some(at) = entry_at else {
            return Ok((own, None));
        };
        let (entry, time) = match self.0.entry(at) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(slot) => slot.insert(spelled_row(conn, nid, entry_version(nid, at)?)?),
        };
        Ok((entry, Some(time)))
    }
}

/// A Note at one version with, per tab (in strip order), the version whose row holds its data
/// and how many splices that content is on top of a whole content (0: stored whole), and the
/// version whose row spells out its layout.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub nid: i64,
    pub note: Note,
    pub data_at: Vec<Version>,
    pub depth: Vec<u32>,
    pub layout_at: Version,
    /// The JSON text of big contents other than Markdown, as the writer last wrote them (see
    /// `sheet_text`); empty for a Note read from the file.
    pub texts: HashMap<TabId, Arc<TabText>>,
    /// The hash (`splice::hash`) of long Markdown texts, where the writer took it when it
    /// wrote them; empty for a Note read from the file.
    pub hashes: HashMap<TabId, u64>,
    /// The whole text at the foot of long Markdown tabs' chains of splices, where the writer
    /// wrote or read it; empty for a Note read from the file.
    pub roots: HashMap<TabId, Root>,
    /// The text of the newest splice a rebase stacked on a long Markdown tab's root (see
    /// `splice::rebase_point`), where the writer made it: the next rebase stands on it.
    pub tops: HashMap<TabId, Root>,
    /// The newest row that spells its history entry out: the next version's row names it if
    /// its entry and title are the same. The writer's; `None` for a Note read from the file.
    pub entry: Option<Anchor>,
}

/// The whole Markdown text a tab's chain of splices stands on: the text of the tab at version
/// `at` (which never changes: history is not rewritten), and its `splice::hash`. The writer
/// keeps it for the next rebase of a full chain ([`markdown_chain`]), so that it neither reads
/// nor parses the whole text's row (10 MiB of JSON, every [`splice::MAX_CHAIN`] saves of a
/// 10 MiB Note).
#[derive(Debug, Clone)]
pub(super) struct Root {
    pub at: Version,
    pub text: Text,
    pub hash: u64,
}

impl Located {
    /// Where the data of tab `id` is stored and its chain's depth, if the Note has that tab.
    pub(super) fn stored(&self, id: &TabId) -> Option<(Version, u32)> {
        self.note
            .tabs
            .iter()
            .position(|t| &t.id == id)
            .map(|i| (self.data_at[i], self.depth[i]))
    }
}

/// The `notes` row: the numeric id and the metadata that is not per version.
pub(super) struct NoteRow {
    pub nid: i64,
    pub agent_access: bool,
    pub created_at: String,
    /// When the Note was moved to the trash (milliseconds), if it is in it.
    pub deleted_at: Option<i64>,
}

impl NoteRow {
    fn deleted_at(&self) -> Option<String> {
        self.deleted_at.map(|ms| Timestamp(ms).to_rfc3339())
    }
}

pub(super) fn note_row(conn: &Connection, id: &NoteId) -> Result<Option<NoteRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT nid, agent_access, created_at, deleted_at FROM notes WHERE id = ?1",
    )?;
    Ok(stmt
        .query_row([id.as_str()], |r| {
            Ok(NoteRow {
                nid: r.get(0)?,
                agent_access: r.get(1)?,
                created_at: r.get(2)?,
                deleted_at: r.get(3)?,
            })
        })
        .optional()?)
}

pub(super) fn nid(conn: &Connection, id: &NoteId) -> Result<i64> {
    let nid = note_row(conn, id)?.map(|row| row.nid);
    Ok(nid.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?)
}

/// The Note's newest version number.
pub(super) fn current_version(conn: &Connection, nid: i64) -> Result<Version> {
    let (first, last) = span(nid);
    let mut stmt =
        conn.prepare_cached("SELECT max(key) FROM versions WHERE key BETWEEN ?1 AND ?2")?;
    let key: Option<i64> = stmt.query_row([first, last], |r| r.get(0))?;
    Ok(key
        .map(version_of)
        .ok_or_else(|| StoreError::Backend(format!("note #{nid} has no version")))?)
}

/// A `versions` row without the tab contents.
struct Head {
    version: Version,
    title: String,
    seq: u64,
    strip: Vec<StripEntry>,
    /// The version whose row spells out the strip's layout (this one, or an older one).
    layout_at: Version,
    created_at: String,
}

fn head_at(conn: &Connection, nid: i64, version: Version) -> Result<Option<Head>> {
    let Some(key) = key(nid, version) else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT title, seq, strip, created_at, entry_at FROM versions WHERE key = ?1",
    )?;
    let row = stmt
        .query_row([key], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, u64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<i64>>(4)?,
            ))
        })
        .optional()?;
    let Some((title, seq, strip, created_at, entry_at)) = row else {
        return Ok(None);
    };
    // A row like an older one (schema 12) has that row's title, and its strip when it spells
    // none: that row's, with the tabs its entry changed at this version.
    if let Some(at) = entry_at {
        let at = entry_version(nid, at)?;
        let like = head_at(conn, nid, at)?
            .filter(|_| at < version)
            .ok_or_else(|| missing_data(nid, at))?;
        let (strip, layout_at) = match strip.as_str() {
            "" => {
                let changed: Vec<TabId> =
                    serde_json::from_str(&spelled_entry(conn, nid, at)?.changed_tab_ids)?;
                let strip = (like.strip.into_iter())
                    .map(|entry| match changed.contains(&entry.id) {
                        true => StripEntry {
                            data_at: version,
                            ..entry
                        },
                        false => entry,
                    })
                    .collect();
                (strip, like.layout_at)
            }
            stored => strip_of(conn, nid, version, stored)?,
        };
        return Ok(Some(Head {
            version,
            title: like.title,
            seq,
            strip,
            layout_at,
            created_at: time_of(created_at, Some(&like.created_at)),
        }));
    }
    let (strip, layout_at) = strip_of(conn, nid, version, &strip)?;
    Ok(Some(Head {
        version,
        title,
        seq,
        strip,
        layout_at,
        created_at,
    }))
}

/// The strip a row of `version` stores (`stored`, its `strip` column), spelled out, and the
/// version whose row spells its layout out.
fn strip_of(
    conn: &Connection,
    nid: i64,
    version: Version,
    stored: &str,
) -> Result<(Vec<StripEntry>, Version)> {
    Ok(match StoredStrip::parse(stored)? {
        StoredStrip::Full(strip) => (strip, version),
        StoredStrip::Same { layout, data_at } => {
            let strip = layout_of(conn, nid, layout)?;
            if strip.len() != data_at.len() {
                return Err(StoreError::Backend(format!(
                    "note #{nid}: version {version} places {} tabs on the {} of version {layout}",
                    data_at.len(),
                    strip.len()
                ))
                .into());
            }
            let strip = strip
                .into_iter()
                .zip(data_at)
                .map(|(entry, data_at)| StripEntry { data_at, ..entry })
                .collect();
            (strip, layout)
        }
    })
}

/// The strip spelled out in version `layout`'s row.
fn layout_of(conn: &Connection, nid: i64, layout: Version) -> Result<Vec<StripEntry>> {
    let key = key(nid, layout).ok_or_else(|| missing_data(nid, layout))?;
    let mut stmt = conn.prepare_cached("SELECT strip FROM versions WHERE key = ?1")?;
    let strip: Option<String> = stmt.query_row([key], |r| r.get(0)).optional()?;
    match StoredStrip::parse(&strip.ok_or_else(|| missing_data(nid, layout))?)? {
        StoredStrip::Full(strip) => Ok(strip),
        StoredStrip::Same { .. } => Err(StoreError::Backend(format!(
            "note #{nid}: version {layout} names a layout but does not spell one out"
        ))
        .into()),
    }
}

/// The tab contents a version's row holds: whole (`data`, by tab ID) or as splices of an
/// older version's content (`deltas`, since schema 5).
struct Written {
    data: serde_json::Map<String, serde_json::Value>,
    deltas: HashMap<String, Splice>,
}

fn written_at(conn: &Connection, nid: i64, version: Version) -> Result<Written> {
    let key = key(nid, version).ok_or_else(|| missing_data(nid, version))?;
    let mut stmt = conn.prepare_cached("SELECT data, deltas FROM versions WHERE key = ?1")?;
    let row: Option<(String, Option<String>)> = stmt
        .query_row([key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let (data, deltas) = row.ok_or_else(|| missing_data(nid, version))?;
    Ok(Written {
        data: serde_json::from_str(&data)?,
        deltas: match deltas {
            Some(deltas) => splice::stored(&deltas, version)?,
            None => HashMap::new(),
        },
    })
}

/// The rows read while assembling a Note, each read once.
type Rows = HashMap<Version, Written>;

fn row<'r>(
    conn: &Connection,
    nid: i64,
    rows: &'r mut Rows,
    at: Version,
) -> Result<&'r mut Written> {
    Ok(match rows.entry(at) {
        Entry::Occupied(row) => row.into_mut(),
        Entry::Vacant(slot) => slot.insert(written_at(conn, nid, at)?),
    })
}

/// What is stored of a tab's content at a version: the content whole, or a chain of splices
/// (newest first) on the text of the whole content at `root`.
enum Walked {
    Whole(serde_json::Value),
    Chain {
        root: Version,
        text: Foot,
        splices: Vec<Splice>,
        /// The splices under `text` (0: the walk reached a whole text; more: it stopped at a
        /// text the readers kept).
        under: u32,
    },
}

/// The text a walk down a chain of splices stands on.
enum Foot {
    /// Read from the row that holds it whole.
    Read(String),
    /// Kept by the readers or the writer.
    Kept(Text),
}

/// The text of the tab at a version, and its depth, if the readers keep it (see `rebuilt`).
type KeptText<'k> = &'k dyn Fn(Version) -> Option<(Text, u32)>;

/// Follows the splices of tab `tab` down from version `at` to the whole content under them, or
/// to a text under `at` that `kept` has.
fn walk(
    conn: &Connection,
    nid: i64,
    rows: &mut Rows,
    tab: &TabId,
    kind: TabKind,
    at: Version,
    kept: KeptText<'_>,
) -> Result<Walked> {
    let corrupt = |why: String| StoreError::Backend(format!("note #{nid}, tab {tab}: {why}"));
    let mut splices: Vec<Splice> = Vec::new();
    let mut cursor = at;
    let text = loop {
        let written = row(conn, nid, rows, cursor)?;
        if splices.is_empty() {
            if let Some(value) = written.data.remove(tab.as_str()) {
                return Ok(Walked::Whole(value));
            }
        } else if let Some(value) = written.data.get(tab.as_str()) {
            break match (kind, value) {
                (TabKind::Markdown, serde_json::Value::String(text)) => Foot::Read(text.clone()),
                (TabKind::Markdown, _) => {
                    return Err(corrupt(format!("version {cursor} holds no text")).into());
                }
                // The JSON text the writer spliced: the content as the store writes it.
                _ => Foot::Read(serde_json::to_string(
                    &TabData::from_value(kind, value.clone())?.content(),
                )?),
            };
        }
        // A tab's chain passes through a row once: its splice is taken, not copied.
        let splice = written
            .deltas
            .remove(tab.as_str())
            .ok_or_else(|| corrupt(format!("version {cursor} holds no content")))?;
        // Each splice stands on an older version: the walk ends.
        if splice.base >= cursor {
            return Err(corrupt(format!(
                "version {cursor} splices the newer version {}",
                splice.base
            ))
            .into());
        }
        cursor = splice.base;
        splices.push(splice);
        if let Some((text, under)) = kept(cursor) {
            return Ok(Walked::Chain {
                root: cursor,
                text: Foot::Kept(text),
                splices,
                under,
            });
        }
    };
    Ok(Walked::Chain {
        root: cursor,
        text,
        splices,
        under: 0,
    })
}

/// The splices (oldest first) under the Markdown text of tab `tab` at version `at`, and the
/// whole text they stand on; `None` if that text is stored whole. The walk stops at `known`, if
/// the chain stands on it, else reads the whole text's row.
pub(super) fn markdown_chain(
    conn: &Connection,
    nid: i64,
    tab: &TabId,
    at: Version,
    known: Option<&Root>,
) -> Result<Option<(Root, Vec<Splice>)>> {
    let mut rows = Rows::new();
    let kept = |v: Version| {
        known
            .filter(|root| root.at == v)
            .map(|root| (root.text.clone(), 0))
    };
    Ok(
        match walk(conn, nid, &mut rows, tab, TabKind::Markdown, at, &kept)? {
            Walked::Whole(_) => None,
            Walked::Chain {
                root,
                text,
                mut splices,
                ..
            } => {
                splices.reverse();
                let root = match text {
                    // Only `known` is kept here: its hash is the kept text's.
                    Foot::Kept(text) => Root {
                        at: root,
                        hash: known.map_or_else(|| text.digest(), |known| known.hash),
                        text,
                    },
                    Foot::Read(text) => {
                        let text = Text::new(text);
                        Root {
                            at: root,
                            hash: text.digest(),
                            text,
                        }
                    }
                };
                Some((root, splices))
            }
        },
    )
}

/// The content of tab `tab` (of kind `kind`) stored at version `at`, and the number of
/// splices it was rebuilt through: the row's own content, else its splice applied to the
/// content under it (a Markdown tab's text, another kind's JSON text; see `splice`).
fn content_at(
    conn: &Connection,
    nid: i64,
    rows: &mut Rows,
    tab: &TabId,
    kind: TabKind,
    at: Version,
    kept: KeptText<'_>,
) -> Result<(serde_json::Value, u32)> {
    let corrupt = |why: String| StoreError::Backend(format!("note #{nid}, tab {tab}: {why}"));
    let (base, splices, under) = match walk(conn, nid, rows, tab, kind, at, kept)? {
        Walked::Whole(value) => return Ok((value, 0)),
        Walked::Chain {
            text,
            splices,
            under,
            ..
        } => (text, splices, under),
    };
    let depth = under + splices.len() as u32;
    let mut text = match base {
        Foot::Read(text) => text,
        Foot::Kept(text) => text.into_string(),
    };
    let mut chunks = None;
    for (i, splice) in splices.iter().enumerate().rev() {
        // The version whose row holds this splice: the one it rebuilds.
        let made = if i == 0 { at } else { splices[i - 1].base };
        splice::apply_chained(&mut text, splice, &mut chunks).map_err(|misfit| {
            corrupt(match misfit {
                Misfit::OtherText => format!(
                    "version {made} cannot be rebuilt: its splice was made on other bytes than \
                     version {} holds",
                    splice.base
                ),
                Misfit::OutOfRange => format!(
                    "version {made} cannot be rebuilt: its splice does not fit version {}",
                    splice.base
                ),
            })
        })?;
    }
    let value = match kind {
        TabKind::Markdown => serde_json::Value::String(text),
        _ => serde_json::from_str(&text)?,
    };
    Ok((value, depth))
}

fn missing_data(nid: i64, version: Version) -> StoreError {
    StoreError::Backend(format!("note #{nid}: no stored row for version {version}"))
}

/// What [`assemble`] does with a tab whose content cannot be rebuilt.
enum Unreadable {
    /// Fails: the Note is not read.
    Fail,
    /// Reads an empty content of the tab's kind in its place (and logs it).
    Empty,
}

/// Builds the Note of `head`, reading each version row that holds tab content once; a long
/// Markdown text that `rebuilt` keeps is taken from it, and one rebuilt from splices is kept.
fn assemble(
    conn: &Connection,
    nid: i64,
    id: &NoteId,
    head: Head,
    unreadable: Unreadable,
    rebuilt: Option<&Rebuilt>,
) -> Result<Located> {
    let mut rows = Rows::new();
    let layout_at = head.layout_at;
    let mut tabs = Vec::with_capacity(head.strip.len());
    let mut data_at = Vec::with_capacity(head.strip.len());
    let mut depth = Vec::with_capacity(head.strip.len());
    for entry in head.strip {
        let kept = (rebuilt.filter(|_| entry.kind == TabKind::Markdown))
            .and_then(|r| r.get(id, &entry.id, entry.data_at));
        if let Some((text, chain)) = kept {
            tabs.push(Tab {
                id: entry.id,
                label: entry.label,
                data: TabData::Markdown(text),
            });
            data_at.push(entry.data_at);
            depth.push(chain);
            continue;
        }
        // The walk down a Markdown chain stops at a text under it that the readers keep (the
        // version before, read a moment ago): one splice applied, not the whole chain.
        let markdown = entry.kind == TabKind::Markdown;
        let kept = |at: Version| rebuilt.filter(|_| markdown)?.get(id, &entry.id, at);
        let read = content_at(
            conn,
            nid,
            &mut rows,
            &entry.id,
            entry.kind,
            entry.data_at,
            &kept,
        );
        let (value, chain) = match (read, &unreadable) {
            (Ok(found), _) => found,
            (Err(e), Unreadable::Fail) => return Err(e),
            (Err(e), Unreadable::Empty) => {
                tracing::warn!(note = %id, tab = %entry.id, error = %e, "a tab cannot be rebuilt");
                (empty_content(entry.kind), 0)
            }
        };
        let data = TabData::from_value(entry.kind, value)?;
        if let (Some(rebuilt), TabData::Markdown(text)) = (rebuilt, &data) {
            rebuilt.put(id, &entry.id, entry.data_at, text, chain);
        }
        tabs.push(Tab {
            id: entry.id,
            label: entry.label,
            data,
        });
        data_at.push(entry.data_at);
        depth.push(chain);
    }
    Ok(Located {
        nid,
        note: Note {
            id: id.clone(),
            title: head.title,
            version: head.version,
            tabs,
            seq: head.seq,
        },
        data_at,
        depth,
        layout_at,
        texts: HashMap::new(),
        hashes: HashMap::new(),
        roots: HashMap::new(),
        tops: HashMap::new(),
        entry: None,
    })
}

/// The JSON of an empty content of `kind`.
fn empty_content(kind: TabKind) -> serde_json::Value {
    match kind {
        TabKind::Markdown => serde_json::Value::String(String::new()),
        TabKind::Sheet => serde_json::json!({ "sheets": [] }),
        TabKind::Slides => serde_json::json!({}),
        TabKind::Sources | TabKind::Files => serde_json::json!([]),
    }
}

/// The Note `nid` as it was at `version`, or `None` if it never had that version (its long
/// texts taken from, and kept in, `rebuilt` if given).
pub(super) fn located_at(
    conn: &Connection,
    nid: i64,
    id: &NoteId,
    version: Version,
    rebuilt: Option<&Rebuilt>,
) -> Result<Option<Located>> {
    match head_at(conn, nid, version)? {
        Some(head) => assemble(conn, nid, id, head, Unreadable::Fail, rebuilt).map(Some),
        None => Ok(None),
    }
}

/// The Note at `version` as a restore replaces it: a restore writes none of the contents it
/// replaces, it only compares with them, so a tab whose content cannot be rebuilt is read as
/// empty (and counts as changed). A Note whose newest version cannot be rebuilt can so still
/// be restored to one that can (each such tab is logged).
pub(super) fn located_for_restore(
    conn: &Connection,
    nid: i64,
    id: &NoteId,
    version: Version,
) -> Result<Option<Located>> {
    match head_at(conn, nid, version)? {
        Some(head) => assemble(conn, nid, id, head, Unreadable::Empty, None).map(Some),
        None => Ok(None),
    }
}

/// The Note at its newest version, with its metadata (its long texts taken from, and kept in,
/// `rebuilt` if given).
pub(super) fn current_note(
    conn: &Connection,
    id: &NoteId,
    rebuilt: Option<&Rebuilt>,
) -> Result<StoredNote> {
    let row = note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    let version = current_version(conn, row.nid)?;
    let head = head_at(conn, row.nid, version)?.ok_or_else(|| missing_data(row.nid, version))?;
    let updated_at = head.created_at.clone();
    let located = assemble(conn, row.nid, id, head, Unreadable::Fail, rebuilt)?;
    Ok(StoredNote {
        note: located.note,
        meta: NoteMeta {
            deleted_at: row.deleted_at(),
            agent_access: row.agent_access,
            created_at: row.created_at,
            updated_at,
        },
    })
}

/// The metadata of a Note: `updated_at` is the time of its newest version.
pub(super) fn meta(conn: &Connection, id: &NoteId) -> Result<NoteMeta> {
    let row = note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    let version = current_version(conn, row.nid)?;
    let head = head_at(conn, row.nid, version)?.ok_or_else(|| missing_data(row.nid, version))?;
    Ok(NoteMeta {
        deleted_at: row.deleted_at(),
        agent_access: row.agent_access,
        created_at: row.created_at,
        updated_at: head.created_at,
    })
}

/// The Note as it was at `version`: `NoteNotFound` or `VersionNotFound` when there is none.
pub(super) fn note_at(
    conn: &Connection,
    id: &NoteId,
    version: Version,
    rebuilt: Option<&Rebuilt>,
) -> Result<Note> {
    let nid = nid(conn, id)?;
    let located = located_at(conn, nid, id, version, rebuilt)?;
    Ok(located
        .map(|l| l.note)
        .ok_or_else(|| StoreError::VersionNotFound {
            note_id: id.clone(),
            version,
        })?)
}

pub(super) fn history(conn: &Connection, id: &NoteId) -> Result<Vec<VersionInfo>> {
    history_page(conn, id, None, usize::MAX)
}

/// The newest `limit` versions older than `before` (of all when `None`), oldest first: read
/// newest first from the version key's index, so a page costs its rows, not the history.
/// A Note's versions from newest to oldest within a span of keys. No `LIMIT ?`: SQLite plans
/// a statement with a bound limit again at every run; the page takes its rows as it steps.
pub(super) const HISTORY_PAGE: &str =
    "SELECT key, author, created_at, summary, changed_tab_ids, author_kind, entry_at
     FROM versions WHERE key BETWEEN ?1 AND ?2 ORDER BY key DESC";

pub(super) fn history_page(
    conn: &Connection,
    id: &NoteId,
    before: Option<Version>,
    limit: usize,
) -> Result<Vec<VersionInfo>> {
    let nid = nid(conn, id)?;
    let (first, last) = span(nid);
    let last = match before {
        // Version 0 and below: nothing is older.
        Some(Version(0)) => return Ok(Vec::new()),
        Some(Version(v)) => last.min(first | i64::from(u32::try_from(v - 1).unwrap_or(u32::MAX))),
        None => last,
    };
    let mut stmt = conn.prepare_cached(HISTORY_PAGE)?;
    let rows = stmt.query_map([first, last], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(2)?,
            StoredEntry {
                author: r.get(1)?,
                author_kind: r.get(5)?,
                summary: r.get(3)?,
                changed_tab_ids: r.get(4)?,
                outcomes: None,
            },
            r.get::<_, Option<i64>>(6)?,
        ))
    })?;
    let mut out = Vec::new();
    let mut agent_names = None;
    let mut spelled = SpelledEntries::default();
    for row in rows.take(limit) {
        let (key, created_at, own, entry_at) = row?;
        let (entry, like_time) = spelled.of(conn, nid, &own, entry_at)?;
        let created_at = time_of(created_at, like_time);
        let author_kind = match &entry.author_kind {
            Some(kind) => parse_kind(kind)?,
            None => {
                let agents = match &agent_names {
                    Some(names) => names,
                    None => agent_names.insert(agent_only_names(conn)?),
                };
                AuthorKind::of_legacy_version(&entry.author, agents)
            }
        };
        out.push(VersionInfo {
            version: version_of(key),
            author: entry.author.clone(),
            author_kind,
            created_at,
            summary: entry.summary.clone(),
            changed_tab_ids: serde_json::from_str(&entry.changed_tab_ids)?,
        });
    }
    out.reverse();
    Ok(out)
}

fn parse_kind(kind: &str) -> Result<AuthorKind> {
    Ok(AuthorKind::parse(kind)
        .ok_or_else(|| StoreError::Backend(format!("stored author kind {kind:?}")))?)
}

/// The names of agent tokens that no person token also has: the authors of versions stored
/// before versions recorded their author's kind that count as agents.
fn agent_only_names(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT name FROM tokens WHERE kind = 'agent'
         EXCEPT SELECT name FROM tokens WHERE kind IS NOT 'agent'",
    )?;
    let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(names.collect::<rusqlite::Result<_>>()?)
}

/// Every recorded change of the Note's agent access, oldest first.
pub(super) fn agent_access_changes(conn: &Connection, id: &NoteId) -> Result<Vec<AccessChange>> {
    let nid = nid(conn, id)?;
    let mut stmt = conn.prepare_cached(
        "SELECT approved, changed_by, changed_at FROM agent_access_changes
         WHERE nid = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([nid], |r| {
        Ok(AccessChange {
            approved: r.get(0)?,
            by: r.get(1)?,
            at: r.get(2)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The Note's keys not in `write_keys` yet: those its versions after `notes.keys_through` hold.
pub(super) fn pending_keys(conn: &Connection, nid: i64) -> Result<Keys> {
    let mut stmt = conn.prepare_cached("SELECT keys_through FROM notes WHERE nid = ?1")?;
    let through = Version(stmt.query_row([nid], |r| r.get(0))?);
    let (_, last) = span(nid);
    let Some(after) = key(nid, through) else {
        return Err(StoreError::Backend(format!(
            "note #{nid}: keys indexed through version {through}, past the last one"
        ))
        .into());
    };
    let mut stmt = conn.prepare_cached(
        "SELECT key, idem_key, idem_fingerprint FROM versions
         WHERE key > ?1 AND key <= ?2 AND idem_key IS NOT NULL",
    )?;
    let rows = stmt.query_map([after, last], |r| {
        let pending = PendingKey {
            version: version_of(r.get(0)?),
            fingerprint: r.get(2)?,
        };
        Ok((r.get::<_, String>(1)?, pending))
    })?;
    let mut pending = HashMap::new();
    for row in rows {
        let (stored, at) = row?;
        let key = stored_key::key_of(stored).ok_or_else(|| {
            StoreError::Backend(format!("note #{nid}: version {} stores no key", at.version))
        })?;
        pending.insert(key, at);
    }
    Ok(Keys { pending })
}

/// The result of the write that made `version` of the Note, from its history row.
pub(super) fn write_result(
    conn: &Connection,
    nid: i64,
    id: &NoteId,
    version: Version,
) -> Result<WriteResult> {
    let row = match key(nid, version) {
        Some(key) => {
            let mut stmt = conn.prepare_cached(
                "SELECT changed_tab_ids, outcomes, entry_at FROM versions WHERE key = ?1",
            )?;
            stmt.query_row([key], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                ))
            })
            .optional()?
        }
        None => None,
    };
    let row = match row {
        Some((_, _, Some(at))) => {
            let entry = spelled_entry(conn, nid, entry_version(nid, at)?)?;
            Some((entry.changed_tab_ids, entry.outcomes))
        }
        Some((changed, outcomes, None)) => Some((changed, outcomes)),
        None => None,
    };
    let Some((changed, Some(outcomes))) = row else {
        return Err(StoreError::Backend(format!(
            "note {id}: version {version} holds no write result"
        ))
        .into());
    };
    Ok(WriteResult {
        note_id: id.clone(),
        version,
        changed_tab_ids: serde_json::from_str(&changed)?,
        outcomes: serde_json::from_str(&outcomes)?,
        replayed: false,
        request_differs: false,
    })
}

/// The distinct tabs changed by the versions after `since`, in the order first changed.
pub(super) fn tabs_changed_since(
    conn: &Connection,
    nid: i64,
    since: Version,
) -> Result<Vec<TabId>> {
    let (first, last) = span(nid);
    let after = key(nid, since).map_or(last, |k| k.max(first));
    let mut stmt = conn.prepare_cached(
        "SELECT changed_tab_ids, entry_at FROM versions WHERE key > ?1 AND key <= ?2 ORDER BY key",
    )?;
    let rows = stmt.query_map([after, last], |r| {
        Ok((
            StoredEntry {
                changed_tab_ids: r.get(0)?,
                ..StoredEntry::default()
            },
            r.get::<_, Option<i64>>(1)?,
        ))
    })?;
    let mut out: Vec<TabId> = Vec::new();
    let mut spelled = SpelledEntries::default();
    for row in rows {
        let (own, entry_at) = row?;
        let (entry, _) = spelled.of(conn, nid, &own, entry_at)?;
        let ids: Vec<TabId> = serde_json::from_str(&entry.changed_tab_ids)?;
        for id in ids {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    Ok(out)
}

pub(super) fn list_notes(conn: &Connection) -> Result<Vec<NoteSummary>> {
    list_where(conn, false)
}

/// The Notes out of the trash, most recently updated first, or (`trash`) those in it, most
/// recently trashed first. A newest row like an older one has that row's title, and the date
/// of that row's time when it stores only a time of day (schema 12; see [`time_of`]).
pub(super) fn list_where(conn: &Connection, trash: bool) -> Result<Vec<NoteSummary>> {
    let mut stmt = conn.prepare_cached(if trash {
        "SELECT n.id, coalesce(a.title, v.title), v.key,
             CASE WHEN a.key IS NULL OR substr(v.created_at, 5, 1) = '-' THEN v.created_at
                 ELSE substr(a.created_at, 1, 11) || v.created_at END,
             n.agent_access, n.deleted_at
         FROM notes AS n
         JOIN versions AS v ON v.key = (
             SELECT max(key) FROM versions
             WHERE key BETWEEN n.nid << 32 AND (n.nid << 32) | 4294967295
         )
         LEFT JOIN versions AS a ON a.key = (v.key >> 32 << 32) | v.entry_at
         WHERE n.deleted_at IS NOT NULL
         ORDER BY n.deleted_at DESC, n.id DESC"
    } else {
        "SELECT n.id, coalesce(a.title, v.title), v.key,
             CASE WHEN a.key IS NULL OR substr(v.created_at, 5, 1) = '-' THEN v.created_at
                 ELSE substr(a.created_at, 1, 11) || v.created_at END AS updated_at,
             n.agent_access, n.deleted_at
         FROM notes AS n
         JOIN versions AS v ON v.key = (
             SELECT max(key) FROM versions
             WHERE key BETWEEN n.nid << 32 AND (n.nid << 32) | 4294967295
         )
         LEFT JOIN versions AS a ON a.key = (v.key >> 32 << 32) | v.entry_at
         WHERE n.deleted_at IS NULL
         ORDER BY updated_at DESC, n.id DESC"
    })?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, bool>(4)?,
            r.get::<_, Option<i64>>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, title, key, updated_at, agent_access, deleted_at) = row?;
        out.push(NoteSummary {
            id: id.parse().map_err(bad_id)?,
            title,
            version: version_of(key),
            updated_at,
            agent_access,
            deleted_at: deleted_at.map(|ms| Timestamp(ms).to_rfc3339()),
        });
    }
    Ok(out)
}

pub(super) fn created_note_id(
    conn: &Connection,
    author: &str,
    key: &str,
) -> Result<Option<NoteId>> {
    let mut stmt =
        conn.prepare_cached("SELECT note_id FROM note_creations WHERE author = ?1 AND key = ?2")?;
    let id: Option<String> = stmt.query_row([author, key], |r| r.get(0)).optional()?;
    Ok(id.map(|id| id.parse().map_err(bad_id)).transpose()?)
}

/// The columns a [`TokenRecord`] is read from, in [`token_row`]'s order.
macro_rules! token_columns {
    () => {
        "id, name, scopes, created_at, kind, expires_at, revoked_at, last_used_at"
    };
}

pub(super) fn find_token(conn: &Connection, hash: &str) -> Result<Option<TokenRecord>> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT ",
        token_columns!(),
        " FROM tokens WHERE hash = ?1"
    ))?;
    let row = stmt.query_row([hash], token_row).optional()?;
    row.map(token_record).transpose()
}

/// Every token, oldest first.
pub(super) fn list_tokens(conn: &Connection) -> Result<Vec<TokenRecord>> {
    let mut stmt = conn.prepare_cached(concat!(
        "SELECT ",
        token_columns!(),
        " FROM tokens ORDER BY id"
    ))?;
    let rows = stmt.query_map([], token_row)?;
    rows.map(|row| token_record(row?)).collect()
}

/// A token's row as SQLite holds it.
struct TokenRow {
    id: i64,
    name: String,
    scopes: String,
    created_at: String,
    kind: Option<String>,
    expires_at: Option<i64>,
    revoked_at: Option<i64>,
    last_used_at: Option<i64>,
}

fn token_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TokenRow> {
    Ok(TokenRow {
        id: r.get(0)?,
        name: r.get(1)?,
        scopes: r.get(2)?,
        created_at: r.get(3)?,
        kind: r.get(4)?,
        expires_at: r.get(5)?,
        revoked_at: r.get(6)?,
        last_used_at: r.get(7)?,
    })
}

fn token_record(row: TokenRow) -> Result<TokenRecord> {
    let scopes: Vec<Scope> = serde_json::from_str(&row.scopes)?;
    Ok(TokenRecord {
        id: row.id,
        name: row.name,
        scopes,
        // Made before tokens had a kind: the person's, until settled.
        kind: row
            .kind
            .as_deref()
            .map_or(Ok(AuthorKind::Person), parse_kind)?,
        created_at: row.created_at,
        expires_at: row.expires_at.map(Timestamp),
        revoked_at: row.revoked_at.map(Timestamp),
        last_used_at: row.last_used_at.map(Timestamp),
    })
}
