//! The writes, each run by the writer inside its transaction (under a savepoint of its own).
//! A function here either succeeds or returns an error; on error the writer rolls back to the
//! savepoint, so a refused write leaves nothing behind, not even its idempotency key.

use quire_model::{Applied, ApplyCtx, Note, NoteId, OpError, OpErrorCode, TabId, Version, limits};
use rusqlite::{Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::cache::NoteCache;
use super::read::{self, NoteRow, strip_of};
use crate::{
    Change, Conflict, NewNote, NoteMeta, Result, Scope, StoreError, StoredNote, TokenRecord,
    WriteRequest, WriteResult,
};

/// What a resent request is compared with: its expected version and its change, hashed.
fn fingerprint(req: &WriteRequest) -> Result<String> {
    let mut hasher = Sha256::new();
    hasher.update(req.expected_version.0.to_string().as_bytes());
    hasher.update(b"\n");
    hasher.update(serde_json::to_vec(&req.change)?);
    Ok(hex::encode(hasher.finalize()))
}

/// The guarded write: idempotency key, then version, then apply, bump, history, key + result.
pub(super) fn write(
    conn: &Connection,
    cache: &mut NoteCache,
    req: &WriteRequest,
) -> Result<WriteResult> {
    let id = &req.note_id;
    let fingerprint = match &req.idempotency_key {
        Some(key) => {
            let fingerprint = fingerprint(req)?;
            if let Some(replay) = replay(conn, id, key, &fingerprint)? {
                return Ok(replay);
            }
            Some(fingerprint)
        }
        None => None,
    };

    let row = read::note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    if req.expected_version != row.version {
        return Err(StoreError::Conflict(Conflict {
            current_version: row.version,
            changed_tab_ids: read::tabs_changed_since(conn, id, req.expected_version)?,
        }));
    }

    let loaded;
    let current = match cache.get(id, row.version) {
        Some(note) => note,
        None => {
            loaded = read::assemble_current(conn, id, &row)?;
            &loaded
        }
    };
    let applied = match &req.change {
        Change::Ops(ops) => quire_model::apply(
            current,
            ops,
            &ApplyCtx {
                now: req.now,
                author: &req.author,
            },
        )?,
        Change::Restore { version } => {
            let old =
                read::note_at(conn, id, *version)?.ok_or_else(|| StoreError::VersionNotFound {
                    note_id: id.clone(),
                    version: *version,
                })?;
            quire_model::restore(current, &old)
        }
    };

    let result = if applied.is_noop() {
        WriteResult {
            note_id: id.clone(),
            version: row.version,
            changed_tab_ids: Vec::new(),
            outcomes: applied.outcomes,
            replayed: false,
            request_differs: false,
        }
    } else {
        let version = row.version.next();
        commit_version(conn, current, &applied, version, req)?;
        let mut note = applied.note;
        note.version = version;
        cache.put(note);
        WriteResult {
            note_id: id.clone(),
            version,
            changed_tab_ids: applied.changed_tab_ids,
            outcomes: applied.outcomes,
            replayed: false,
            request_differs: false,
        }
    };

    if let (Some(key), Some(fingerprint)) = (&req.idempotency_key, fingerprint) {
        let mut stmt = conn.prepare_cached(
            "INSERT INTO idempotency (note_id, key, fingerprint, result) VALUES (?1, ?2, ?3, ?4)",
        )?;
        stmt.execute(rusqlite::params![
            id.as_str(),
            key,
            fingerprint,
            serde_json::to_string(&result)?
        ])?;
    }
    Ok(result)
}

/// The stored result for this key on this Note, flagged as a replay.
fn replay(
    conn: &Connection,
    id: &NoteId,
    key: &str,
    fingerprint: &str,
) -> Result<Option<WriteResult>> {
    let mut stmt = conn.prepare_cached(
        "SELECT fingerprint, result FROM idempotency WHERE note_id = ?1 AND key = ?2",
    )?;
    let hit = stmt
        .query_row([id.as_str(), key], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    let Some((stored_fingerprint, result)) = hit else {
        return Ok(None);
    };
    let mut result: WriteResult = serde_json::from_str(&result)?;
    result.replayed = true;
    result.request_differs = stored_fingerprint != fingerprint;
    Ok(Some(result))
}

/// Writes `applied` as `version`: the history entry (small parts of the Note plus the contents
/// of the tabs whose data changed, nothing else) and the new current row.
fn commit_version(
    conn: &Connection,
    before: &Note,
    applied: &Applied,
    version: Version,
    req: &WriteRequest,
) -> Result<()> {
    let after = &applied.note;
    let strip = serde_json::to_string(&strip_of(after))?;
    let at = req.now.to_rfc3339();
    insert_version(
        conn,
        &VersionRow {
            note_id: &after.id,
            version,
            author: &req.author,
            created_at: &at,
            summary: &applied.summary,
            changed_tab_ids: &applied.changed_tab_ids,
            title: &after.title,
            seq: after.seq,
            strip: &strip,
        },
    )?;
    for tab_id in &applied.changed_tab_ids {
        let Some(tab) = after.tab(tab_id) else {
            continue; // deleted: the strip no longer lists it
        };
        if before.tab(tab_id).is_some_and(|old| old.data == tab.data) {
            continue; // renamed or moved: the strip records it
        }
        insert_tab_data(conn, &after.id, tab_id, version, &tab.data)?;
    }
    let mut stmt = conn.prepare_cached(
        "UPDATE notes SET title = ?2, version = ?3, seq = ?4, strip = ?5, updated_at = ?6
         WHERE id = ?1",
    )?;
    stmt.execute(rusqlite::params![
        after.id.as_str(),
        after.title,
        version.0,
        after.seq,
        strip,
        at
    ])?;
    Ok(())
}

struct VersionRow<'a> {
    note_id: &'a NoteId,
    version: Version,
    author: &'a str,
    created_at: &'a str,
    summary: &'a str,
    changed_tab_ids: &'a [TabId],
    title: &'a str,
    seq: u64,
    strip: &'a str,
}

fn insert_version(conn: &Connection, row: &VersionRow<'_>) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO versions
           (note_id, version, author, created_at, summary, changed_tab_ids, title, seq, strip)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    stmt.execute(rusqlite::params![
        row.note_id.as_str(),
        row.version.0,
        row.author,
        row.created_at,
        row.summary,
        serde_json::to_string(row.changed_tab_ids)?,
        row.title,
        row.seq,
        row.strip
    ])?;
    Ok(())
}

fn insert_tab_data(
    conn: &Connection,
    note_id: &NoteId,
    tab_id: &TabId,
    version: Version,
    data: &quire_model::TabData,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO tab_versions (note_id, tab_id, version, data) VALUES (?1, ?2, ?3, ?4)",
    )?;
    stmt.execute(rusqlite::params![
        note_id.as_str(),
        tab_id.as_str(),
        version.0,
        serde_json::to_string(&data.to_value())?
    ])?;
    Ok(())
}

/// Creates a Note at version 1 with the fixed tabs; a repeated key (per author) replays.
pub(super) fn create_note(conn: &Connection, new: &NewNote) -> Result<(StoredNote, bool)> {
    if let Some(key) = &new.idempotency_key {
        let mut stmt = conn
            .prepare_cached("SELECT note_id FROM note_creations WHERE author = ?1 AND key = ?2")?;
        let first: Option<String> = stmt
            .query_row([new.author.as_str(), key.as_str()], |r| r.get(0))
            .optional()?;
        if let Some(first) = first {
            let id: NoteId = first
                .parse()
                .map_err(|e: quire_model::NoteIdError| StoreError::Backend(e.to_string()))?;
            return Ok((created_note(conn, &id)?, true));
        }
    }

    let title = new.title.trim();
    if title.chars().count() > limits::TITLE_CHARS {
        return Err(StoreError::Invalid(OpError {
            code: OpErrorCode::InvalidOp,
            index: 0,
            field: "title".to_owned(),
            reason: format!("longer than {} characters", limits::TITLE_CHARS),
        }));
    }
    let note = Note::new(new.id.clone(), title.to_owned());
    let strip = serde_json::to_string(&strip_of(&note))?;
    let at = new.now.to_rfc3339();
    let mut stmt = conn.prepare_cached(
        "INSERT INTO notes (id, title, version, seq, strip, agent_access, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6)",
    )?;
    stmt.execute(rusqlite::params![
        note.id.as_str(),
        note.title,
        note.version.0,
        note.seq,
        strip,
        at
    ])?;
    let tab_ids = note.tab_ids();
    insert_version(
        conn,
        &VersionRow {
            note_id: &note.id,
            version: note.version,
            author: &new.author,
            created_at: &at,
            summary: "created",
            changed_tab_ids: &tab_ids,
            title: &note.title,
            seq: note.seq,
            strip: &strip,
        },
    )?;
    for tab in &note.tabs {
        insert_tab_data(conn, &note.id, &tab.id, note.version, &tab.data)?;
    }
    if let Some(key) = &new.idempotency_key {
        let mut stmt = conn.prepare_cached(
            "INSERT INTO note_creations (author, key, note_id) VALUES (?1, ?2, ?3)",
        )?;
        stmt.execute([new.author.as_str(), key.as_str(), note.id.as_str()])?;
    }
    let meta = NoteMeta {
        agent_access: false,
        created_at: at.clone(),
        updated_at: at,
    };
    Ok((StoredNote { note, meta }, false))
}

/// A created Note as its creation returned it (version 1), with its metadata as it is now.
fn created_note(conn: &Connection, id: &NoteId) -> Result<StoredNote> {
    let row = read::note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    let note = read::note_at(conn, id, Version(1))?.ok_or_else(|| StoreError::VersionNotFound {
        note_id: id.clone(),
        version: Version(1),
    })?;
    Ok(StoredNote {
        note,
        meta: row.meta,
    })
}

pub(super) fn set_agent_access(conn: &Connection, id: &NoteId, approved: bool) -> Result<NoteMeta> {
    let mut stmt = conn.prepare_cached("UPDATE notes SET agent_access = ?2 WHERE id = ?1")?;
    if stmt.execute(rusqlite::params![id.as_str(), approved])? == 0 {
        return Err(StoreError::NoteNotFound(id.clone()));
    }
    let row: NoteRow =
        read::note_row(conn, id)?.ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    Ok(row.meta)
}

/// Stores a token by its hash. Its `created_at` is metadata, read from SQLite's clock.
pub(super) fn create_token(
    conn: &Connection,
    name: &str,
    scopes: &[Scope],
    token_hash: &str,
) -> Result<TokenRecord> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO tokens (name, hash, scopes, created_at)
         VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
         RETURNING id, created_at",
    )?;
    let (id, created_at) = stmt.query_row(
        rusqlite::params![name, token_hash, serde_json::to_string(scopes)?],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
    )?;
    Ok(TokenRecord {
        id,
        name: name.to_owned(),
        scopes: scopes.to_vec(),
        created_at,
    })
}
