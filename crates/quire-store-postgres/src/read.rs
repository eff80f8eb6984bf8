//! Queries. Each read is one statement, so it sees one snapshot even at READ COMMITTED.

use deadpool_postgres::Object;
use quire_api::{AccessChange, NoteMeta, Scope, VersionInfo};
use quire_model::{
    AuthorKind, Note, NoteId, NoteSummary, Tab, TabData, TabId, TabKind, Timestamp, Version,
};
use quire_store::{StoreError, TokenRecord};
use serde::{Deserialize, Serialize};
use tokio_postgres::Row;

use crate::Fail;

/// One tab of the strip: what a version records besides the contents of the tabs it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StripEntry {
    pub id: TabId,
    pub kind: TabKind,
    pub label: String,
}

pub(crate) fn strip_of(note: &Note) -> Vec<StripEntry> {
    note.tabs
        .iter()
        .map(|t| StripEntry {
            id: t.id.clone(),
            kind: t.kind(),
            label: t.label.clone(),
        })
        .collect()
}

pub(crate) fn to_i64(v: u64) -> Result<i64, Fail> {
    Ok(i64::try_from(v)?)
}

fn to_u64(v: i64) -> Result<u64, Fail> {
    Ok(u64::try_from(v)?)
}

/// The contents of the tabs listed in `$tab_ids` as they were at `$version` (for each, its
/// newest stored data at or before it), in strip order. A fragment for the queries below.
macro_rules! tab_contents {
    ($note:literal, $tab_ids:literal, $version:literal) => {
        concat!(
            "ARRAY(SELECT (SELECT tv.data FROM tab_versions tv
                           WHERE tv.note_id = ",
            $note,
            " AND tv.tab_id = t.tab_id AND tv.version <= ",
            $version,
            " ORDER BY tv.version DESC LIMIT 1)
                   FROM unnest(",
            $tab_ids,
            ") WITH ORDINALITY AS t(tab_id, ord) ORDER BY t.ord)"
        )
    };
}

/// The current Note, its metadata, and the stored result of the key `$2` (NULL: none).
const CURRENT: &str = concat!(
    "SELECT n.version, n.title, n.seq, n.strip, n.agent_access, n.created_at, n.updated_at, ",
    tab_contents!("n.id", "n.tab_ids", "n.version"),
    ", i.fingerprint, i.result, n.deleted_at
     FROM notes n LEFT JOIN idempotency i ON i.note_id = n.id AND i.key = $2
     WHERE n.id = $1"
);

/// A Note as one statement read it, and what its idempotency key holds, if one was asked for.
pub(crate) struct Current {
    pub note: Note,
    pub meta: NoteMeta,
    /// The key's stored (fingerprint, result): the write it names was accepted already.
    pub stored: Option<(String, String)>,
}

/// The current state of the Note and, with `key`, the stored result of that key on it.
pub(crate) async fn current(
    db: &Object,
    id: &NoteId,
    key: Option<&str>,
) -> Result<Option<Current>, Fail> {
    let stmt = db.prepare_cached(CURRENT).await?;
    let Some(row) = db.query_opt(&stmt, &[&id.as_str(), &key]).await? else {
        return Ok(None);
    };
    let version = Version(to_u64(row.try_get(0)?)?);
    let strip: String = row.try_get(3)?;
    let note = assemble(
        id,
        version,
        row.try_get(1)?,
        to_u64(row.try_get(2)?)?,
        serde_json::from_str(&strip)?,
        row.try_get(7)?,
    )?;
    let fingerprint: Option<String> = row.try_get(8)?;
    let result: Option<String> = row.try_get(9)?;
    Ok(Some(Current {
        note,
        meta: NoteMeta {
            agent_access: row.try_get(4)?,
            created_at: row.try_get(5)?,
            updated_at: row.try_get(6)?,
            deleted_at: rfc3339(row.try_get(10)?),
        },
        stored: fingerprint.zip(result),
    }))
}

/// The current Note, read inside a transaction (the migration that indexes the Notes).
pub(crate) async fn current_in(
    tx: &tokio_postgres::Transaction<'_>,
    id: &NoteId,
) -> Result<Note, Fail> {
    let row = tx
        .query_opt(CURRENT, &[&id.as_str(), &None::<&str>])
        .await?
        .ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
    let strip: String = row.try_get(3)?;
    assemble(
        id,
        Version(to_u64(row.try_get(0)?)?),
        row.try_get(1)?,
        to_u64(row.try_get(2)?)?,
        serde_json::from_str(&strip)?,
        row.try_get(7)?,
    )
}

/// Puts a Note together from its small parts and its tabs' contents (in strip order).
fn assemble(
    id: &NoteId,
    version: Version,
    title: String,
    seq: u64,
    strip: Vec<StripEntry>,
    contents: Vec<Option<String>>,
) -> Result<Note, Fail> {
    if strip.len() != contents.len() {
        return Err(StoreError::Backend(format!(
            "note {id} at version {version}: {} tabs but {} contents",
            strip.len(),
            contents.len()
        ))
        .into());
    }
    let mut tabs = Vec::with_capacity(strip.len());
    for (entry, data) in strip.into_iter().zip(contents) {
        let data = data.ok_or_else(|| {
            StoreError::Backend(format!(
                "note {id}: no stored content for tab {} at version {version}",
                entry.id
            ))
        })?;
        tabs.push(Tab {
            data: TabData::from_value(entry.kind, serde_json::from_str(&data)?)?,
            id: entry.id,
            label: entry.label,
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

const NOTE_AT: &str = concat!(
    "SELECT v.title, v.seq, v.strip, ",
    tab_contents!("v.note_id", "v.tab_ids", "v.version"),
    " FROM versions v WHERE v.note_id = $1 AND v.version = $2"
);

/// The Note as it was at `version`, or `None` if the Note never had that version.
pub(crate) async fn note_at(
    db: &Object,
    id: &NoteId,
    version: Version,
) -> Result<Option<Note>, Fail> {
    let stmt = db.prepare_cached(NOTE_AT).await?;
    let Some(row) = db
        .query_opt(&stmt, &[&id.as_str(), &to_i64(version.0)?])
        .await?
    else {
        return Ok(None);
    };
    let strip: String = row.try_get(2)?;
    assemble(
        id,
        version,
        row.try_get(0)?,
        to_u64(row.try_get(1)?)?,
        serde_json::from_str(&strip)?,
        row.try_get(3)?,
    )
    .map(Some)
}

/// What the store knows about the Note beyond its content: one row of `notes`, no tab content.
pub(crate) async fn note_meta(db: &Object, id: &NoteId) -> Result<Option<NoteMeta>, Fail> {
    let stmt = db
        .prepare_cached(
            "SELECT agent_access, created_at, updated_at, deleted_at FROM notes WHERE id = $1",
        )
        .await?;
    db.query_opt(&stmt, &[&id.as_str()])
        .await?
        .as_ref()
        .map(meta_of)
        .transpose()
}

pub(crate) async fn note_exists(db: &Object, id: &NoteId) -> Result<bool, Fail> {
    let stmt = db
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM notes WHERE id = $1)")
        .await?;
    Ok(db.query_one(&stmt, &[&id.as_str()]).await?.try_get(0)?)
}

pub(crate) async fn history(db: &Object, id: &NoteId) -> Result<Vec<VersionInfo>, Fail> {
    history_page(db, id, None, usize::MAX).await
}

/// The newest `limit` versions older than `before` (of all when `None`), oldest first, read
/// newest first from the primary key (note_id, version): a page costs its rows.
pub(crate) async fn history_page(
    db: &Object,
    id: &NoteId,
    before: Option<Version>,
    limit: usize,
) -> Result<Vec<VersionInfo>, Fail> {
    let stmt = db
        .prepare_cached(
            "SELECT version, author, created_at, summary, changed_tab_ids, author_kind
             FROM versions WHERE note_id = $1 AND version < $2 ORDER BY version DESC LIMIT $3",
        )
        .await?;
    let before = before.map_or(i64::MAX, |v| i64::try_from(v.0).unwrap_or(i64::MAX));
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = db.query(&stmt, &[&id.as_str(), &before, &limit]).await?;
    if rows.is_empty() && !note_exists(db, id).await? {
        return Err(StoreError::NoteNotFound(id.clone()).into());
    }
    let mut agent_names = None;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let changed: Vec<String> = r.try_get(4)?;
        let author: String = r.try_get(1)?;
        let author_kind = match r.try_get::<_, Option<String>>(5)? {
            Some(kind) => parse_kind(&kind)?,
            None => {
                let agents = match &agent_names {
                    Some(names) => names,
                    None => agent_names.insert(agent_only_names(db).await?),
                };
                AuthorKind::of_legacy_version(&author, agents)
            }
        };
        out.push(VersionInfo {
            version: Version(to_u64(r.try_get(0)?)?),
            author,
            author_kind,
            created_at: r.try_get(2)?,
            summary: r.try_get(3)?,
            changed_tab_ids: changed.into_iter().map(TabId::new).collect(),
        });
    }
    out.reverse();
    Ok(out)
}

fn parse_kind(kind: &str) -> Result<AuthorKind, Fail> {
    AuthorKind::parse(kind)
        .ok_or_else(|| StoreError::Backend(format!("stored author kind {kind:?}")).into())
}

/// The names of agent tokens that no person token also has: the authors of versions stored
/// before versions recorded their author's kind that count as agents.
async fn agent_only_names(db: &Object) -> Result<Vec<String>, Fail> {
    let stmt = db
        .prepare_cached(
            "SELECT name FROM tokens WHERE kind = 'agent'
             EXCEPT SELECT name FROM tokens WHERE kind IS DISTINCT FROM 'agent'",
        )
        .await?;
    db.query(&stmt, &[])
        .await?
        .iter()
        .map(|r| Ok(r.try_get(0)?))
        .collect()
}

/// Every recorded change of the Note's agent access, oldest first.
pub(crate) async fn agent_access_changes(
    db: &Object,
    id: &NoteId,
) -> Result<Vec<AccessChange>, Fail> {
    if !note_exists(db, id).await? {
        return Err(StoreError::NoteNotFound(id.clone()).into());
    }
    let stmt = db
        .prepare_cached(
            "SELECT approved, changed_by, changed_at FROM agent_access_changes
             WHERE note_id = $1 ORDER BY id",
        )
        .await?;
    db.query(&stmt, &[&id.as_str()])
        .await?
        .iter()
        .map(|r| {
            Ok(AccessChange {
                approved: r.try_get(0)?,
                by: r.try_get(1)?,
                at: r.try_get(2)?,
            })
        })
        .collect()
}

/// The distinct tabs changed by the versions after `since` up to `until`, in the order first
/// changed.
pub(crate) async fn tabs_changed_between(
    db: &Object,
    id: &NoteId,
    since: Version,
    until: Version,
) -> Result<Vec<TabId>, Fail> {
    let stmt = db
        .prepare_cached(
            "SELECT changed_tab_ids FROM versions
             WHERE note_id = $1 AND version > $2 AND version <= $3 ORDER BY version",
        )
        .await?;
    let rows = db
        .query(&stmt, &[&id.as_str(), &to_i64(since.0)?, &to_i64(until.0)?])
        .await?;
    let mut out: Vec<TabId> = Vec::new();
    for row in rows {
        let ids: Vec<String> = row.try_get(0)?;
        for tab in ids {
            if !out.iter().any(|t| t.as_str() == tab) {
                out.push(TabId::new(tab));
            }
        }
    }
    Ok(out)
}

pub(crate) async fn list_notes(db: &Object) -> Result<Vec<NoteSummary>, Fail> {
    list_where(db, false).await
}

/// A time in the trash as the API spells it.
pub(crate) fn rfc3339(millis: Option<i64>) -> Option<String> {
    millis.map(|ms| Timestamp(ms).to_rfc3339())
}

/// The Notes out of the trash, most recently updated first, or (`trash`) those in it, most
/// recently trashed first.
pub(crate) async fn list_where(db: &Object, trash: bool) -> Result<Vec<NoteSummary>, Fail> {
    let stmt = db
        .prepare_cached(if trash {
            "SELECT id, title, version, updated_at, agent_access, deleted_at FROM notes
             WHERE deleted_at IS NOT NULL
             ORDER BY deleted_at DESC, id DESC"
        } else {
            "SELECT id, title, version, updated_at, agent_access, deleted_at FROM notes
             WHERE deleted_at IS NULL
             ORDER BY updated_at DESC, id DESC"
        })
        .await?;
    db.query(&stmt, &[])
        .await?
        .iter()
        .map(|r| {
            let id: String = r.try_get(0)?;
            Ok(NoteSummary {
                id: id
                    .parse()
                    .map_err(|e: quire_model::NoteIdError| StoreError::Backend(e.to_string()))?,
                title: r.try_get(1)?,
                version: Version(to_u64(r.try_get(2)?)?),
                updated_at: r.try_get(3)?,
                agent_access: r.try_get(4)?,
                deleted_at: rfc3339(r.try_get(5)?),
            })
        })
        .collect()
}

pub(crate) fn meta_of(row: &Row) -> Result<NoteMeta, Fail> {
    Ok(NoteMeta {
        agent_access: row.try_get("agent_access")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        deleted_at: rfc3339(row.try_get("deleted_at")?),
    })
}

/// The columns a [`TokenRecord`] is read from, in [`token_record`]'s order.
macro_rules! token_columns {
    () => {
        "id, name, scopes, created_at, kind, expires_at, revoked_at, last_used_at"
    };
}

pub(crate) async fn find_token(db: &Object, hash: &str) -> Result<Option<TokenRecord>, Fail> {
    let stmt = db
        .prepare_cached(concat!(
            "SELECT ",
            token_columns!(),
            " FROM tokens WHERE hash = $1"
        ))
        .await?;
    db.query_opt(&stmt, &[&hash])
        .await?
        .map(|row| token_record(&row))
        .transpose()
}

/// Every token, oldest first.
pub(crate) async fn list_tokens(db: &Object) -> Result<Vec<TokenRecord>, Fail> {
    let stmt = db
        .prepare_cached(concat!(
            "SELECT ",
            token_columns!(),
            " FROM tokens ORDER BY id"
        ))
        .await?;
    db.query(&stmt, &[])
        .await?
        .iter()
        .map(token_record)
        .collect()
}

fn token_record(row: &Row) -> Result<TokenRecord, Fail> {
    let scopes: String = row.try_get(2)?;
    let scopes: Vec<Scope> = serde_json::from_str(&scopes)?;
    let kind: Option<String> = row.try_get(4)?;
    let at = |i: usize| -> Result<Option<Timestamp>, Fail> {
        Ok(row.try_get::<_, Option<i64>>(i)?.map(Timestamp))
    };
    Ok(TokenRecord {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        scopes,
        // Made before tokens had a kind: the person's, until settled.
        kind: kind.as_deref().map_or(Ok(AuthorKind::Person), parse_kind)?,
        created_at: row.try_get(3)?,
        expires_at: at(5)?,
        revoked_at: at(6)?,
        last_used_at: at(7)?,
    })
}
