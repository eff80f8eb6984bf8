//! The trash in this database: `notes.deleted_at` (see `0004_trash.sql` and
//! `quire_store::trash`). Moves in and out are guarded writes (`guarded::write`).

use deadpool_postgres::Object;
use quire_model::{NoteId, NoteSummary, Timestamp};
use quire_store::StoreError;

use crate::Fail;
use crate::read;

/// The trashed Notes, most recently trashed first.
pub(crate) async fn list_trash(db: &Object) -> Result<Vec<NoteSummary>, Fail> {
    read::list_where(db, true).await
}

/// Erases every trashed Note moved there before `$1` (all when NULL) with its versions, tab
/// contents, keys and records, in one statement. A Note brought out of the trash meanwhile is
/// not erased: the `DELETE` checks `deleted_at` again on the row it locks.
const EMPTY: &str = "
WITH doomed AS (
    DELETE FROM notes
    WHERE deleted_at IS NOT NULL AND ($1::bigint IS NULL OR deleted_at < $1::bigint)
    RETURNING id
), history AS (
    DELETE FROM versions WHERE note_id IN (SELECT id FROM doomed)
), contents AS (
    DELETE FROM tab_versions WHERE note_id IN (SELECT id FROM doomed)
), keys AS (
    DELETE FROM idempotency WHERE note_id IN (SELECT id FROM doomed)
), creations AS (
    DELETE FROM note_creations WHERE note_id IN (SELECT id FROM doomed)
), access AS (
    DELETE FROM agent_access_changes WHERE note_id IN (SELECT id FROM doomed)
), search_titles AS (
    DELETE FROM search_titles WHERE note_id IN (SELECT id FROM doomed)
), search_tabs AS (
    DELETE FROM search_tabs WHERE note_id IN (SELECT id FROM doomed)
), search_chunks AS (
    DELETE FROM search_chunks WHERE note_id IN (SELECT id FROM doomed)
)
SELECT id FROM doomed ORDER BY id";

pub(crate) async fn empty_trash(
    db: &Object,
    before: Option<Timestamp>,
) -> Result<Vec<NoteId>, Fail> {
    let stmt = db.prepare_cached(EMPTY).await?;
    let rows = db.query(&stmt, &[&before.map(Timestamp::millis)]).await?;
    rows.iter()
        .map(|r| {
            let id: String = r.try_get(0)?;
            id.parse()
                .map_err(|e: quire_model::NoteIdError| StoreError::Backend(e.to_string()).into())
        })
        .collect()
}
