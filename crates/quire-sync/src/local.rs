//! The engine's local store: one SQLite file in the app's data directory.
//!
//! Per Note: the base (the last server state seen) and the save guard (its version); per dirty
//! tab: the draft (base version and content, the person's content, the pending save's key, the
//! last sync error); the archive of drafts the person discarded (kept for good); the outbox of
//! structural writes not yet acknowledged; the tabs' contents at the last [`SEEN_KEPT`] versions
//! it was given as a base, so an edit made on an older version is judged without the network.
//!
//! `synchronous=FULL`: a draft the engine has written survives a crash of the app *and* of the
//! machine. Every batch of effects from one step is one `BEGIN IMMEDIATE` transaction, so the
//! guard, the base and the drafts never disagree after a crash.

use std::path::Path;

use quire_model::{Note, NoteId, TabId, Timestamp, Version};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::content::{ContentOf, DataOf, is_editable};
use crate::machine::{ArchiveReason, BaseAt, Draft, Outgoing, Persist, TabState};

mod texts;
use texts::Prepared;
pub(crate) use texts::{share as share_text, share_equal as share_equal_text};

/// How many of the newest versions seen keep their tabs' contents.
pub const SEEN_KEPT: i64 = 64;

#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("local store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("local store: corrupt {what}: {reason}")]
    Corrupt { what: &'static str, reason: String },
}

type Result<T, E = LocalError> = std::result::Result<T, E>;

/// Append-only: a shipped migration is never edited, only followed by a new one.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE notes (
    note_id    TEXT PRIMARY KEY,
    guard      INTEGER NOT NULL,
    base_json  TEXT NOT NULL,
    title      TEXT NOT NULL
);
CREATE TABLE drafts (
    note_id      TEXT NOT NULL,
    tab_id       TEXT NOT NULL,
    state        TEXT NOT NULL,
    base_version INTEGER NOT NULL,
    pending_key  TEXT,
    updated_at   INTEGER NOT NULL,
    draft_json   TEXT NOT NULL,
    PRIMARY KEY (note_id, tab_id)
);
CREATE TABLE archive (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id     TEXT NOT NULL,
    tab_id      TEXT NOT NULL,
    reason      TEXT NOT NULL,
    archived_at INTEGER NOT NULL,
    draft_json  TEXT NOT NULL
);
CREATE INDEX archive_note ON archive (note_id, id);
CREATE TABLE outbox (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id   TEXT NOT NULL,
    id        TEXT NOT NULL UNIQUE,
    item_json TEXT NOT NULL
);
"#,
    r#"
CREATE TABLE seen_versions (
    note_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (note_id, version)
);
CREATE TABLE seen_tabs (
    note_id      TEXT NOT NULL,
    tab_id       TEXT NOT NULL,
    version      INTEGER NOT NULL,
    content_json TEXT,
    PRIMARY KEY (note_id, tab_id, version)
);
"#,
    // The drafts ledger's line without the contents: a draft's last sync error and the tabs'
    // labels of each base, so listing drafts reads no text (a draft of a 10 MiB tab holds its
    // text two or three times).
    r#"
ALTER TABLE drafts ADD COLUMN last_error_json TEXT;
UPDATE drafts SET last_error_json = json_extract(draft_json, '$.last_error');
ALTER TABLE notes ADD COLUMN labels_json TEXT NOT NULL DEFAULT '{}';
UPDATE notes SET labels_json = (
    SELECT json_group_object(json_extract(t.value, '$.id'), json_extract(t.value, '$.label'))
    FROM json_each(notes.base_json, '$.tabs') AS t
);
"#,
    TEXTS_SCHEMA,
];

/// Migration 4: long strings kept once each (see `texts.rs`). Rows written before keep theirs
/// inline and are read as they are.
const TEXTS_SCHEMA: &str = r#"
CREATE TABLE texts (
    key     TEXT PRIMARY KEY,
    body    TEXT NOT NULL,
    base    TEXT,
    at      INTEGER,
    removed INTEGER,
    depth   INTEGER NOT NULL
);
CREATE TABLE text_refs (
    owner   TEXT NOT NULL,
    pointer TEXT NOT NULL,
    key     TEXT NOT NULL,
    PRIMARY KEY (owner, pointer)
);
CREATE INDEX text_refs_key ON text_refs (key);
"#;

/// A Note written as its `Serialize` writes it (the same members, in the same order), with each
/// tab's data as [`DataOf`] writes it: the text of a save just acknowledged is not copied and
/// hashed again as the new base.
struct NoteOut<'a>(&'a Note);

impl Serialize for NoteOut<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let note = self.0;
        let mut out = serializer.serialize_struct("Note", 5)?;
        out.serialize_field("id", &note.id)?;
        out.serialize_field("title", &note.title)?;
        out.serialize_field("version", &note.version)?;
        out.serialize_field("tabs", &TabsOut(&note.tabs))?;
        out.serialize_field("seq", &note.seq)?;
        out.end()
    }
}

struct TabsOut<'a>(&'a [quire_model::Tab]);

impl Serialize for TabsOut<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(TabOut))
    }
}

/// A tab written as its `Serialize` writes it, with its data as [`DataOf`] writes it.
struct TabOut<'a>(&'a quire_model::Tab);

impl Serialize for TabOut<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let tab = self.0;
        let mut out = serializer.serialize_struct("RawTab", 4)?;
        out.serialize_field("id", &tab.id)?;
        out.serialize_field("type", &tab.data.kind())?;
        out.serialize_field("label", &tab.label)?;
        out.serialize_field("data", &DataOf(&tab.data))?;
        out.end()
    }
}

/// Who holds texts (see `texts.rs`): a Note's base, a draft, a tab seen at a version. A Note's
/// ID has no `:`, so each names one row.
fn base_owner(note_id: &NoteId) -> String {
    format!("base:{note_id}")
}

fn draft_owner(note_id: &NoteId, tab_id: &str) -> String {
    format!("draft:{note_id}:{tab_id}")
}

fn seen_owner(note_id: &NoteId, version: i64, tab_id: &str) -> String {
    format!("seen:{note_id}:{version}:{tab_id}")
}

/// What the local store holds for one Note.
#[derive(Debug, Clone, Default)]
pub struct LocalNote {
    pub base: Option<Note>,
    pub drafts: Vec<Draft>,
    pub outbox: Vec<Outgoing>,
}

/// One line of the drafts ledger: an unsynced draft, whatever Note it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LedgerEntry {
    pub note_id: NoteId,
    pub note_title: String,
    pub tab_id: TabId,
    /// The tab's label as last seen (the tab may be gone on the server).
    pub tab_label: Option<String>,
    pub state: TabState,
    pub base_version: Version,
    pub has_pending_save: bool,
    pub last_error: Option<crate::machine::SyncError>,
    pub updated_at: Timestamp,
}

/// A draft the person discarded, kept for good.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ArchivedDraft {
    pub id: i64,
    pub reason: ArchiveReason,
    pub archived_at: Timestamp,
    pub draft: Draft,
}

pub struct LocalStore {
    conn: Connection,
    /// What the next long text is made from (see `texts.rs`).
    recent: texts::Recent,
}

fn corrupt(what: &'static str) -> impl FnOnce(serde_json::Error) -> LocalError {
    move |e| LocalError::Corrupt {
        what,
        reason: e.to_string(),
    }
}

fn to_json<T: Serialize>(what: &'static str, v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(corrupt(what))
}

impl LocalStore {
    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        let mut store = LocalStore {
            conn,
            recent: texts::Recent::default(),
        };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        let current: usize = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?
            .try_into()
            .unwrap_or(0);
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(current) {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Everything kept for `note_id`.
    pub fn load(&self, note_id: &NoteId) -> Result<LocalNote> {
        let base: Option<String> = self
            .conn
            .prepare_cached("SELECT base_json FROM notes WHERE note_id = ?1")?
            .query_row([note_id.as_str()], |r| r.get(0))
            .optional()?;
        let base = base
            .map(|j| texts::read::<Note>(&self.conn, "base", &base_owner(note_id), &j))
            .transpose()?;
        let mut drafts = Vec::new();
        {
            let mut stmt = self.conn.prepare_cached(
                "SELECT tab_id, draft_json FROM drafts WHERE note_id = ?1 ORDER BY tab_id",
            )?;
            let rows = stmt.query_map([note_id.as_str()], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?;
            for row in rows {
                let (tab_id, json) = row?;
                let owner = draft_owner(note_id, &tab_id);
                drafts.push(texts::read::<Draft>(&self.conn, "draft", &owner, &json)?);
            }
        }
        let mut outbox = Vec::new();
        {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT item_json FROM outbox WHERE note_id = ?1 ORDER BY seq")?;
            let rows = stmt.query_map([note_id.as_str()], |r| r.get::<_, String>(0))?;
            for row in rows {
                outbox.push(serde_json::from_str::<Outgoing>(&row?).map_err(corrupt("outbox"))?);
            }
        }
        Ok(LocalNote {
            base,
            drafts,
            outbox,
        })
    }

    /// The save guard of `note_id`, if the app was ever connected to it.
    pub fn guard(&self, note_id: &NoteId) -> Result<Option<Version>> {
        Ok(self
            .conn
            .prepare_cached("SELECT guard FROM notes WHERE note_id = ?1")?
            .query_row([note_id.as_str()], |r| r.get::<_, i64>(0))
            .optional()?
            .map(|v| Version(v.max(0) as u64)))
    }

    /// Applies one step's effects on the local state in one transaction.
    pub fn apply(&mut self, note_id: &NoteId, ops: &[&Persist]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // The texts owners stopped holding: deleted at the end unless another holds them.
        let mut released = Vec::new();
        for op in ops {
            match op {
                Persist::Base(note) => {
                    let labels: std::collections::BTreeMap<&str, &str> = note
                        .tabs
                        .iter()
                        .map(|t| (t.id.as_str(), t.label.as_str()))
                        .collect();
                    let base = Prepared::new("base", &NoteOut(note), &mut self.recent)?;
                    let base = texts::write(
                        &tx,
                        &base_owner(note_id),
                        base,
                        &mut released,
                        &mut self.recent,
                    )?;
                    tx.prepare_cached(
                        "INSERT INTO notes (note_id, guard, base_json, title, labels_json)
                         VALUES (?1, ?2, ?3, ?4, ?5)
                         ON CONFLICT (note_id) DO UPDATE SET guard = excluded.guard,
                             base_json = excluded.base_json, title = excluded.title,
                             labels_json = excluded.labels_json",
                    )?
                    .execute(params![
                        note_id.as_str(),
                        note.version.0 as i64,
                        base,
                        note.title,
                        to_json("base", &labels)?
                    ])?;
                    remember(&tx, note_id, note, &mut released, &mut self.recent)?;
                }
                Persist::Draft(d) => {
                    let owner = draft_owner(note_id, d.tab_id.as_str());
                    let json = texts::write(
                        &tx,
                        &owner,
                        Prepared::new("draft", d.as_ref(), &mut self.recent)?,
                        &mut released,
                        &mut self.recent,
                    )?;
                    tx.prepare_cached(
                        "INSERT INTO drafts (note_id, tab_id, state, base_version, pending_key, updated_at,
                             draft_json, last_error_json)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                         ON CONFLICT (note_id, tab_id) DO UPDATE SET state = excluded.state,
                             base_version = excluded.base_version, pending_key = excluded.pending_key,
                             updated_at = excluded.updated_at, draft_json = excluded.draft_json,
                             last_error_json = excluded.last_error_json",
                    )?
                    .execute(params![
                        note_id.as_str(),
                        d.tab_id.as_str(),
                        to_json("draft", &d.state)?,
                        d.base_version.0 as i64,
                        d.pending.as_ref().map(|p| p.key.as_str()),
                        d.updated_at.0,
                        json,
                        d.last_error
                            .as_ref()
                            .map(|e| to_json("draft", e))
                            .transpose()?
                    ])?;
                }
                Persist::DropDraft(tab_id) => {
                    tx.prepare_cached("DELETE FROM drafts WHERE note_id = ?1 AND tab_id = ?2")?
                        .execute(params![note_id.as_str(), tab_id.as_str()])?;
                    texts::release(&tx, &draft_owner(note_id, tab_id.as_str()), &mut released)?;
                }
                Persist::Archive { draft, reason, at } => {
                    tx.prepare_cached(
                        "INSERT INTO archive (note_id, tab_id, reason, archived_at, draft_json)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                    )?
                    .execute(params![
                        note_id.as_str(),
                        draft.tab_id.as_str(),
                        reason.as_str(),
                        at.0,
                        to_json("draft", draft)?
                    ])?;
                }
                Persist::Outgoing(o) => {
                    tx.prepare_cached(
                        "INSERT INTO outbox (note_id, id, item_json) VALUES (?1, ?2, ?3)
                         ON CONFLICT (id) DO UPDATE SET item_json = excluded.item_json",
                    )?
                    .execute(params![
                        note_id.as_str(),
                        o.id,
                        to_json("outbox", o)?
                    ])?;
                }
                Persist::DropOutgoing(id) => {
                    tx.prepare_cached("DELETE FROM outbox WHERE id = ?1")?
                        .execute([id])?;
                }
            }
        }
        texts::collect(&tx, released)?;
        tx.commit()?;
        Ok(())
    }

    /// A tab's content at `version`, if that version was given as a base.
    pub fn tab_at(&self, note_id: &NoteId, tab_id: &TabId, version: Version) -> Result<BaseAt> {
        let seen = self
            .conn
            .prepare_cached("SELECT 1 FROM seen_versions WHERE note_id = ?1 AND version = ?2")?
            .query_row(params![note_id.as_str(), version.0 as i64], |_| Ok(()))
            .optional()?;
        if seen.is_none() {
            return Ok(BaseAt::Unknown);
        }
        let content: Option<(i64, Option<String>)> = self
            .conn
            .prepare_cached(
                "SELECT version, content_json FROM seen_tabs WHERE note_id = ?1 AND tab_id = ?2
                 AND version <= ?3 ORDER BY version DESC LIMIT 1",
            )?
            .query_row(
                params![note_id.as_str(), tab_id.as_str(), version.0 as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        match content {
            Some((at, Some(json))) => {
                let owner = seen_owner(note_id, at, tab_id.as_str());
                Ok(BaseAt::Known(texts::read(
                    &self.conn, "seen tab", &owner, &json,
                )?))
            }
            _ => Ok(BaseAt::Absent),
        }
    }

    /// Every unsynced draft across all Notes, most recently edited first. Reads the drafts'
    /// and bases' small columns only, never a content.
    pub fn ledger(&self) -> Result<Vec<LedgerEntry>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT d.note_id, d.tab_id, d.state, d.base_version, d.pending_key IS NOT NULL,
                 d.last_error_json, d.updated_at, COALESCE(n.title, ''), n.labels_json
             FROM drafts d LEFT JOIN notes n ON n.note_id = d.note_id
             ORDER BY d.updated_at DESC, d.note_id, d.tab_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                (r.get::<_, String>(0)?, r.get::<_, String>(1)?),
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, bool>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, Option<String>>(8)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let ((note_id, tab_id), state, base_version, pending, error, updated_at, title, labels) =
                row?;
            let note_id: NoteId = note_id.parse().map_err(|e| LocalError::Corrupt {
                what: "draft",
                reason: format!("note ID {note_id:?}: {e}"),
            })?;
            let tab_label = labels
                .map(|j| serde_json::from_str::<std::collections::HashMap<String, String>>(&j))
                .transpose()
                .map_err(corrupt("base"))?
                .and_then(|mut labels| labels.remove(&tab_id));
            out.push(LedgerEntry {
                note_id,
                note_title: title,
                tab_id: TabId::new(tab_id),
                tab_label,
                state: serde_json::from_str(&state).map_err(corrupt("draft"))?,
                base_version: Version(base_version.max(0) as u64),
                has_pending_save: pending,
                last_error: error
                    .map(|j| serde_json::from_str(&j))
                    .transpose()
                    .map_err(corrupt("draft"))?,
                updated_at: Timestamp(updated_at),
            });
        }
        Ok(out)
    }

    /// The drafts archived for `note_id`, oldest first.
    pub fn archived(&self, note_id: &NoteId) -> Result<Vec<ArchivedDraft>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, reason, archived_at, draft_json FROM archive WHERE note_id = ?1 ORDER BY id",
        )?;
        let rows = stmt.query_map([note_id.as_str()], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, reason, at, json) = row?;
            let reason = match reason.as_str() {
                "took_theirs" => ArchiveReason::TookTheirs,
                "discarded" => ArchiveReason::Discarded,
                other => {
                    return Err(LocalError::Corrupt {
                        what: "archive",
                        reason: format!("unknown reason {other:?}"),
                    });
                }
            };
            out.push(ArchivedDraft {
                id,
                reason,
                archived_at: Timestamp(at),
                draft: serde_json::from_str(&json).map_err(corrupt("archive"))?,
            });
        }
        Ok(out)
    }
}

/// Records the editable tabs of `note` as seen at its version (a row only for a tab whose
/// content changed since the version before), and forgets all but the newest [`SEEN_KEPT`]
/// versions. A tab's text is compared by its key, not read back (see `texts.rs`).
fn remember(
    tx: &rusqlite::Transaction<'_>,
    note_id: &NoteId,
    note: &Note,
    released: &mut Vec<String>,
    recent: &mut texts::Recent,
) -> Result<()> {
    let id = note_id.as_str();
    let version = note.version.0 as i64;
    let newest: Option<i64> = tx
        .prepare_cached("SELECT MAX(version) FROM seen_versions WHERE note_id = ?1")?
        .query_row([id], |r| r.get(0))?;
    if newest.is_some_and(|v| v >= version) {
        return Ok(());
    }
    // Each tab's newest row: its version and JSON.
    let mut last: std::collections::HashMap<String, (i64, Option<String>)> =
        std::collections::HashMap::new();
    {
        let mut stmt = tx.prepare_cached(
            "SELECT tab_id, version, content_json FROM seen_tabs s WHERE note_id = ?1 AND version =
             (SELECT MAX(version) FROM seen_tabs t WHERE t.note_id = s.note_id AND t.tab_id = s.tab_id)",
        )?;
        let rows = stmt.query_map([id], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
        for row in rows {
            let (tab, content) = row?;
            last.insert(tab, content);
        }
    }
    for tab in note.tabs.iter().filter(|t| is_editable(t.kind())) {
        let content = Prepared::new("seen tab", &ContentOf(&tab.data), recent)?;
        let same = match last.remove(tab.id.as_str()) {
            Some((at, Some(json))) => {
                json == content.json
                    && texts::refs(tx, &seen_owner(note_id, at, tab.id.as_str()))? == content.refs()
            }
            _ => false,
        };
        if !same {
            let owner = seen_owner(note_id, version, tab.id.as_str());
            let json = texts::write(tx, &owner, content, released, recent)?;
            tx.prepare_cached(
                "INSERT INTO seen_tabs (note_id, tab_id, version, content_json) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, tab.id.as_str(), version, json])?;
        }
    }
    for (tab, (_, content)) in last {
        if content.is_some() {
            tx.prepare_cached(
                "INSERT INTO seen_tabs (note_id, tab_id, version, content_json) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, tab, version, Option::<String>::None])?;
        }
    }
    tx.prepare_cached("INSERT INTO seen_versions (note_id, version) VALUES (?1, ?2)")?
        .execute(params![id, version])?;
    let oldest: Option<i64> = tx
        .prepare_cached(
            "SELECT MIN(version) FROM (SELECT version FROM seen_versions WHERE note_id = ?1
             ORDER BY version DESC LIMIT ?2)",
        )?
        .query_row(params![id, SEEN_KEPT], |r| r.get(0))?;
    if let Some(oldest) = oldest {
        tx.prepare_cached("DELETE FROM seen_versions WHERE note_id = ?1 AND version < ?2")?
            .execute(params![id, oldest])?;
        // A tab keeps its newest row at or before the oldest version: its content there.
        let mut forgotten = Vec::new();
        {
            let mut stmt = tx.prepare_cached(
                "DELETE FROM seen_tabs AS s WHERE note_id = ?1 AND version <
                 (SELECT MAX(version) FROM seen_tabs t WHERE t.note_id = s.note_id
                  AND t.tab_id = s.tab_id AND t.version <= ?2)
                 RETURNING tab_id, version",
            )?;
            let rows = stmt.query_map(params![id, oldest], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })?;
            for row in rows {
                forgotten.push(row?);
            }
        }
        for (tab, at) in forgotten {
            texts::release(tx, &seen_owner(note_id, at, &tab), released)?;
        }
    }
    Ok(())
}
