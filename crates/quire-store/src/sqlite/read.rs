//! Queries shared by the read pool and the writer (which reads inside its transaction).

use quire_model::{Note, NoteId, NoteSummary, Tab, TabData, TabId, TabKind, Version};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::{NoteMeta, Result, Scope, StoreError, StoredNote, TokenRecord, VersionInfo};

/// One tab of the strip: what a version records besides the contents of the tabs it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct StripEntry {
    pub id: TabId,
    pub kind: TabKind,
    pub label: String,
}

pub(super) fn strip_of(note: &Note) -> Vec<StripEntry> {
    note.tabs
        .iter()
        .map(|t| StripEntry {
            id: t.id.clone(),
            kind: t.kind(),
            label: t.label.clone(),
        })
        .collect()
}

/// The `notes` row: everything current except tab contents.
pub(super) struct NoteRow {
    pub title: String,
    pub version: Version,
    pub seq: u64,
    pub strip: Vec<StripEntry>,
    pub meta: NoteMeta,
}

pub(super) fn note_row(conn: &Connection, id: &NoteId) -> Result<Option<NoteRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT title, version, seq, strip, agent_access, created_at, updated_at
         FROM notes WHERE id = ?1",
    )?;
    let row = stmt
        .query_row([id.as_str()], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, u64>(1)?,
                r.get::<_, u64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, bool>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
            ))
        })
        .optional()?;
    let Some((title, version, seq, strip, agent_access, created_at, updated_at)) = row else {
        return Ok(None);
    };
    Ok(Some(NoteRow {
        title,
        version: Version(version),
        seq,
        strip: serde_json::from_str(&strip)?,
        meta: NoteMeta {
            agent_access,
            created_at,
            updated_at,
        },
    }))
}

/// The content of one tab as it was at `version`: its newest stored data at or before it.
fn tab_data_at(
    conn: &Connection,
    note: &NoteId,
    entry: &StripEntry,
    version: Version,
) -> Result<TabData> {
    let mut stmt = conn.prepare_cached(
        "SELECT data FROM tab_versions
         WHERE note_id = ?1 AND tab_id = ?2 AND version <= ?3
         ORDER BY version DESC LIMIT 1",
    )?;
    let data: Option<String> = stmt
        .query_row(
            rusqlite::params![note.as_str(), entry.id.as_str(), version.0],
            |r| r.get(0),
        )
        .optional()?;
    let data = data.ok_or_else(|| {
        StoreError::Backend(format!(
            "note {note}: no stored content for tab {} at version {version}",
            entry.id
        ))
    })?;
    Ok(TabData::from_value(
        entry.kind,
        serde_json::from_str(&data)?,
    )?)
}

/// Assembles a Note from its small parts and, per tab, the content current at `version`.
fn assemble(
    conn: &Connection,
    id: &NoteId,
    version: Version,
    title: String,
    seq: u64,
    strip: Vec<StripEntry>,
) -> Result<Note> {
    let mut tabs = Vec::with_capacity(strip.len());
    for entry in strip {
        let data = tab_data_at(conn, id, &entry, version)?;
        tabs.push(Tab {
            id: entry.id,
            label: entry.label,
            data,
        });
    }
    Ok(Note {
        id: id.clone(),
        title,
        version,
        tabs,
        seq,
    })
}

/// The current Note described by its `notes` row.
pub(super) fn assemble_current(conn: &Connection, id: &NoteId, row: &NoteRow) -> Result<Note> {
    assemble(
        conn,
        id,
        row.version,
        row.title.clone(),
        row.seq,
        row.strip.clone(),
    )
}

pub(super) fn current_note(conn: &Connection, id: &NoteId) -> Result<StoredNote> {
    let row = note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    let note = assemble_current(conn, id, &row)?;
    Ok(StoredNote {
        note,
        meta: row.meta,
    })
}

/// The Note as it was at `version`, or `None` if the Note never had that version.
pub(super) fn note_at(conn: &Connection, id: &NoteId, version: Version) -> Result<Option<Note>> {
    let mut stmt = conn.prepare_cached(
        "SELECT title, seq, strip FROM versions WHERE note_id = ?1 AND version = ?2",
    )?;
    let row = stmt
        .query_row(rusqlite::params![id.as_str(), version.0], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, u64>(1)?,
                r.get::<_, String>(2)?,
            ))
        })
        .optional()?;
    let Some((title, seq, strip)) = row else {
        return Ok(None);
    };
    let strip = serde_json::from_str(&strip)?;
    assemble(conn, id, version, title, seq, strip).map(Some)
}

pub(super) fn history(conn: &Connection, id: &NoteId) -> Result<Vec<VersionInfo>> {
    let mut stmt = conn.prepare_cached(
        "SELECT version, author, created_at, summary, changed_tab_ids
         FROM versions WHERE note_id = ?1 ORDER BY version",
    )?;
    let rows = stmt.query_map([id.as_str()], |r| {
        Ok((
            r.get::<_, u64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (version, author, created_at, summary, changed) = row?;
        out.push(VersionInfo {
            version: Version(version),
            author,
            created_at,
            summary,
            changed_tab_ids: serde_json::from_str(&changed)?,
        });
    }
    if out.is_empty() && note_row(conn, id)?.is_none() {
        return Err(StoreError::NoteNotFound(id.clone()));
    }
    Ok(out)
}

/// The distinct tabs changed by the versions after `since`, in the order first changed.
pub(super) fn tabs_changed_since(
    conn: &Connection,
    id: &NoteId,
    since: Version,
) -> Result<Vec<TabId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT changed_tab_ids FROM versions
         WHERE note_id = ?1 AND version > ?2 ORDER BY version",
    )?;
    let rows = stmt.query_map(rusqlite::params![id.as_str(), since.0], |r| {
        r.get::<_, String>(0)
    })?;
    let mut out: Vec<TabId> = Vec::new();
    for row in rows {
        let ids: Vec<TabId> = serde_json::from_str(&row?)?;
        for id in ids {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    Ok(out)
}

pub(super) fn list_notes(conn: &Connection) -> Result<Vec<NoteSummary>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, title, version, updated_at, agent_access FROM notes
         ORDER BY updated_at DESC, id DESC",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, u64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, bool>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, title, version, updated_at, agent_access) = row?;
        out.push(NoteSummary {
            id: id
                .parse()
                .map_err(|e: quire_model::NoteIdError| StoreError::Backend(e.to_string()))?,
            title,
            version: Version(version),
            updated_at,
            agent_access,
        });
    }
    Ok(out)
}

pub(super) fn find_token(conn: &Connection, hash: &str) -> Result<Option<TokenRecord>> {
    let mut stmt =
        conn.prepare_cached("SELECT id, name, scopes, created_at FROM tokens WHERE hash = ?1")?;
    let row = stmt
        .query_row([hash], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })
        .optional()?;
    let Some((id, name, scopes, created_at)) = row else {
        return Ok(None);
    };
    let scopes: Vec<Scope> = serde_json::from_str(&scopes)?;
    Ok(Some(TokenRecord {
        id,
        name,
        scopes,
        created_at,
    }))
}
