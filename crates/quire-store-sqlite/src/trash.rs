//! The trash in this file: `notes.deleted_at` (see `0009_trash.sql` and `quire_store::trash`).

use quire_model::{NoteId, NoteSummary, Timestamp};
use rusqlite::{Connection, OptionalExtension};

use super::cache::NoteCache;
use super::read;
use crate::fail::Result;

/// When the Note `nid` was moved to the trash, if it is in it.
pub(super) fn deleted_at(conn: &Connection, nid: i64) -> Result<Option<Timestamp>> {
    let mut stmt = conn.prepare_cached("SELECT deleted_at FROM notes WHERE nid = ?1")?;
    let at: Option<Option<i64>> = stmt.query_row([nid], |r| r.get(0)).optional()?;
    Ok(at.flatten().map(Timestamp))
}

/// Whether the Note `nid` is approved for agents, and whether it is in the trash: what a write's
/// reach is checked against ([`quire_store::guard::Reach`]).
pub(super) fn reach_of(conn: &Connection, nid: i64) -> Result<(bool, bool)> {
    let mut stmt = conn
        .prepare_cached("SELECT agent_access, deleted_at IS NOT NULL FROM notes WHERE nid = ?1")?;
    Ok(stmt.query_row([nid], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// Moves the Note `nid` into the trash (`Some(at)`) or out of it (`None`).
pub(super) fn set_deleted_at(conn: &Connection, nid: i64, at: Option<Timestamp>) -> Result<()> {
    let mut stmt = conn.prepare_cached("UPDATE notes SET deleted_at = ?2 WHERE nid = ?1")?;
    stmt.execute(rusqlite::params![nid, at.map(Timestamp::millis)])?;
    Ok(())
}

/// The trashed Notes, most recently trashed first.
pub(super) fn list_trash(conn: &Connection) -> Result<Vec<NoteSummary>> {
    read::list_where(conn, true)
}

/// Erases every trashed Note moved to the trash before `before` (all when `None`): its row, its
/// versions, its keys and its records. The writer's copies are dropped (a later Note may reuse
/// a `nid`).
pub(super) fn empty_trash(
    conn: &Connection,
    cache: &mut NoteCache,
    before: Option<Timestamp>,
) -> Result<Vec<NoteId>> {
    let mut stmt = conn.prepare_cached(
        "SELECT nid, id FROM notes
         WHERE deleted_at IS NOT NULL AND (?1 IS NULL OR deleted_at < ?1)
         ORDER BY deleted_at, nid",
    )?;
    let doomed = stmt
        .query_map([before.map(Timestamp::millis)], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut erased = Vec::with_capacity(doomed.len());
    for (nid, id) in doomed {
        let (first, last) = read::span(nid);
        conn.prepare_cached("DELETE FROM versions WHERE key BETWEEN ?1 AND ?2")?
            .execute([first, last])?;
        conn.prepare_cached("DELETE FROM write_keys WHERE nid = ?1")?
            .execute([nid])?;
        conn.prepare_cached("DELETE FROM version_keys WHERE nid = ?1")?
            .execute([nid])?;
        conn.prepare_cached("DELETE FROM agent_access_changes WHERE nid = ?1")?
            .execute([nid])?;
        conn.prepare_cached("DELETE FROM note_creations WHERE note_id = ?1")?
            .execute([id.as_str()])?;
        // Its search index (the FTS rows follow by trigger), and its listing as lagging.
        conn.prepare_cached("DELETE FROM search_chunks WHERE nid = ?1")?
            .execute([nid])?;
        conn.prepare_cached("DELETE FROM search_pending WHERE nid = ?1")?
            .execute([nid])?;
        conn.prepare_cached("DELETE FROM notes WHERE nid = ?1")?
            .execute([nid])?;
        erased.push(id.parse().map_err(read::bad_id)?);
    }
    if !erased.is_empty() {
        cache.clear();
    }
    Ok(erased)
}
