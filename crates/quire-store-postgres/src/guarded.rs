//! The writes. Each commits in one statement (atomic on its own, so no explicit transaction and
//! no lock held across a round trip); a lost race is detected by the statement and settled by
//! reading again.

use std::sync::{Arc, LazyLock};

use deadpool_postgres::Object;
use quire_api::{Conflict, NoteMeta, StoredNote, WriteResult};
use quire_model::{
    Applied, AuthorKind, Note, NoteId, OpError, OpErrorCode, Timestamp, Version, limits,
};
use quire_store::guard::{
    Admission, Claim, Fingerprint, FirstWrite, GuardedWrite, Outcome, Reach, replayed,
};
use quire_store::{Change, HashedToken, NewNote, StoreError, TokenRecord, WriteRequest};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

use crate::Fail;
use crate::read::{self, strip_of, to_i64};
use crate::recent::Recent;
use crate::search::{self, Index, Statement};

/// Whether `e` is a duplicate in the table whose primary key is `constraint`.
fn is_duplicate(e: &Fail, constraint: &str) -> bool {
    match e {
        Fail::Db(e) => e.as_db_error().is_some_and(|db| {
            db.code() == &SqlState::UNIQUE_VIOLATION && db.constraint() == Some(constraint)
        }),
        _ => false,
    }
}

/// How often a write reads again after losing a race. One is enough: after a lost race the key
/// is stored (a replay) or the version has moved past the expected one (a conflict), and
/// neither ever goes back.
const ATTEMPTS: usize = 3;

/// The guarded write, as [`GuardedWrite`] plans it: the key, the version, the change; then
/// the compare-and-swap with the history entry, the changed contents and the key + result, in
/// one statement.
///
/// When `recent` holds the Note at the expected version, the read is skipped: one round trip.
/// That shortcut presumes the key unused and the version current, which the statement checks
/// (its key's primary key, its `WHERE version`), and only ever answers with a committed change;
/// anything else (a lost race, a stored key, an invalid or no-op change) goes the long way,
/// which reads the key first.
pub(crate) async fn write(
    db: &Object,
    recent: &Recent,
    req: &WriteRequest,
    reach: Reach,
) -> Result<WriteResult, Fail> {
    let plan = GuardedWrite::new(req, reach)?;

    if let Some(note) = recent.get(&req.note_id, req.expected_version)
        && plan.restores().is_none()
        && let Ok(Admission::Apply) = plan.admit::<(), Fail>(None, || Ok(note.version))
        && let Ok(applied) = plan.apply(&note, None)
        && let Outcome::NewVersion { result, claim } = plan.settle(note.version, &applied)
    {
        match commit(db, &note, &applied, &plan, stored(claim, &result)?.as_ref()).await {
            Ok(true) => {
                recent.put(Arc::new(committed(applied.note, result.version)));
                return Ok(result);
            }
            Ok(false) => {}
            Err(e) if is_duplicate(&e, "idempotency_pkey") => {}
            Err(e) => return Err(e),
        }
    }

    let id = &req.note_id;
    for _ in 0..ATTEMPTS {
        let current = read::current(db, id, plan.claim().map(|c| c.key))
            .await?
            .ok_or_else(|| StoreError::NoteNotFound(id.clone()))?;
        plan.check_reach(current.meta.agent_access, current.meta.deleted_at.is_some())?;
        let first = current.stored.map(|(fingerprint, result)| FirstWrite {
            fingerprint: Fingerprint::from_hex(&fingerprint),
            result,
        });
        let note = Arc::new(current.note);
        match plan.admit(first, || Ok::<_, Fail>(note.version))? {
            Admission::Replay {
                first,
                request_differs,
            } => return Ok(replayed(serde_json::from_str(&first)?, request_differs)),
            Admission::Stale { current_version } => {
                recent.put(Arc::clone(&note));
                plan.check_trash(current.meta.deleted_at.is_some())?;
                return Err(StoreError::Conflict(Conflict {
                    current_version,
                    changed_tab_ids: read::tabs_changed_between(
                        db,
                        id,
                        req.expected_version,
                        current_version,
                    )
                    .await?,
                })
                .into());
            }
            Admission::Apply => {
                recent.put(Arc::clone(&note));
                plan.check_trash(current.meta.deleted_at.is_some())?;
            }
        }

        let restored = match plan.restores() {
            Some(version) => read::note_at(db, id, version).await?,
            None => None,
        };
        let applied = plan.apply(&note, restored.as_ref())?;
        let verdict = match plan.settle(note.version, &applied) {
            Outcome::Unchanged { result, claim } => {
                store_noop(db, id, stored(claim, &result)?.as_ref())
                    .await
                    .map(|stored| stored.then_some(result))
            }
            Outcome::NewVersion { result, claim } => {
                commit(db, &note, &applied, &plan, stored(claim, &result)?.as_ref())
                    .await
                    .map(|committed| committed.then_some(result))
            }
        };
        match verdict {
            Ok(Some(result)) => {
                if !applied.is_noop() {
                    recent.put(Arc::new(committed(applied.note, result.version)));
                }
                return Ok(result);
            }
            // Another writer moved the version since the read: read again.
            Ok(None) => continue,
            // Another write with this key committed since the read: read again (a replay).
            Err(e) if is_duplicate(&e, "idempotency_pkey") => continue,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Backend(format!(
        "note {id}: the write kept losing races ({ATTEMPTS} attempts)"
    ))
    .into())
}

/// The applied Note as committed: at its new version.
fn committed(mut note: Note, version: Version) -> Note {
    note.version = version;
    note
}

/// An idempotency key as this store keeps it: with its fingerprint in hexadecimal and the
/// result it will replay.
struct StoredClaim<'a> {
    key: &'a str,
    fingerprint: String,
    result: String,
}

fn stored<'a>(
    claim: Option<Claim<'a>>,
    result: &WriteResult,
) -> Result<Option<StoredClaim<'a>>, Fail> {
    claim
        .map(|claim| {
            Ok(StoredClaim {
                key: claim.key,
                fingerprint: claim.fingerprint.to_hex(),
                result: serde_json::to_string(result)?,
            })
        })
        .transpose()
}

/// A write that changed nothing keeps its key (a resend replays it) but makes no version.
async fn store_noop(
    db: &Object,
    id: &NoteId,
    claim: Option<&StoredClaim<'_>>,
) -> Result<bool, Fail> {
    let Some(claim) = claim else {
        return Ok(true);
    };
    let stmt = db
        .prepare_cached(
            "INSERT INTO idempotency (note_id, key, fingerprint, result) VALUES ($1, $2, $3, $4)",
        )
        .await?;
    db.execute(
        &stmt,
        &[&id.as_str(), &claim.key, &claim.fingerprint, &claim.result],
    )
    .await?;
    Ok(true)
}

/// The compare-and-swap and everything that goes with it, as one statement: the data-modifying
/// CTEs run only if the `UPDATE` matched (they select from its output), and a duplicate key
/// fails the statement whole.
const COMMIT: &str = "
WITH bumped AS (
    UPDATE notes
    SET version = version + 1, title = $3, seq = $4, strip = $5, tab_ids = $6, updated_at = $7,
        deleted_at = CASE WHEN $18 THEN $17::bigint ELSE deleted_at END
    WHERE id = $1 AND version = $2 AND (deleted_at IS NOT NULL) = $19 AND (agent_access OR NOT $20)
    RETURNING version
), history AS (
    INSERT INTO versions
        (note_id, version, author, created_at, summary, changed_tab_ids, title, seq, strip,
         tab_ids, author_kind)
    SELECT $1, version, $8, $7, $9, $10, $3, $4, $5, $6, $16 FROM bumped
), contents AS (
    INSERT INTO tab_versions (note_id, tab_id, version, data)
    SELECT $1, t.tab_id, b.version, t.data
    FROM bumped b, unnest($11::text[], $12::text[]) AS t(tab_id, data)
), claim AS (
    INSERT INTO idempotency (note_id, key, fingerprint, result)
    SELECT $1, $13, $14, $15 FROM bumped WHERE $13::text IS NOT NULL
)";

/// [`COMMIT`] with the search index's CTEs (parameters from `$21`), then its answer.
static COMMIT_INDEXED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{COMMIT}{} SELECT version FROM bumped",
        search::ctes(21, Statement::Commit)
    )
});

/// Writes `applied` as the version after `before`'s, if the Note is still at `before`'s
/// version and in the trash exactly when the change needs it there (only an undelete takes a
/// trashed Note) and, for the agent's door, approved for agents ([`Reach`]), moving it into or
/// out of the trash as the change says. The history entry holds the small parts of the Note
/// plus the contents of the tabs whose data changed, nothing else. False: the version moved on
/// (or the Note left the write's reach), nothing was written.
async fn commit(
    db: &Object,
    before: &Note,
    applied: &Applied,
    plan: &GuardedWrite<'_>,
    claim: Option<&StoredClaim<'_>>,
) -> Result<bool, Fail> {
    let req = plan.request();
    let after = &applied.note;
    let strip = serde_json::to_string(&strip_of(after))?;
    let tab_ids: Vec<&str> = after.tabs.iter().map(|t| t.id.as_str()).collect();
    let changed: Vec<&str> = applied.changed_tab_ids.iter().map(|t| t.as_str()).collect();
    let mut content_ids = Vec::new();
    let mut contents = Vec::new();
    for tab_id in &applied.changed_tab_ids {
        let Some(tab) = after.tab(tab_id) else {
            continue; // deleted: the strip no longer lists it
        };
        if before
            .tab(tab_id)
            .is_some_and(|old| old.data.identical(&tab.data))
        {
            continue; // renamed or moved: the strip records it
        }
        content_ids.push(tab_id.as_str());
        contents.push(serde_json::to_string(&tab.data.to_value())?);
    }
    let at = req.now.to_rfc3339();
    let changed_hint = match req.change {
        Change::Ops(_) | Change::Trash | Change::Undelete | Change::Revert { .. } => {
            Some(&applied.changed_tab_ids[..])
        }
        Change::Restore { .. } => None,
    };
    let index = Index::of(Some(before), after, changed_hint);
    let stmt = db.prepare_cached(&COMMIT_INDEXED).await?;
    let id = after.id.as_str();
    let expected = to_i64(before.version.0)?;
    let seq = to_i64(after.seq)?;
    let key = claim.map(|c| c.key);
    let fingerprint = claim.map(|c| c.fingerprint.as_str());
    let result = claim.map(|c| c.result.as_str());
    let author_kind = req.author_kind.as_str();
    let trash_mark = quire_store::trash::mark(&req.change, req.now);
    let deleted_at = trash_mark.flatten().map(Timestamp::millis);
    let moves_trash = trash_mark.is_some();
    let undeletes = matches!(req.change, Change::Undelete);
    let agents_only = plan.reach() == Reach::AgentVisible;
    let params: [&(dyn ToSql + Sync); 20] = [
        &id,
        &expected,
        &after.title,
        &seq,
        &strip,
        &tab_ids,
        &at,
        &req.author,
        &applied.summary,
        &changed,
        &content_ids,
        &contents,
        &key,
        &fingerprint,
        &result,
        &author_kind,
        &deleted_at,
        &moves_trash,
        &undeletes,
        &agents_only,
    ];
    let mut all: Vec<&(dyn ToSql + Sync)> = params.to_vec();
    all.extend(index.params());
    let rows = db.query(&stmt, &all).await?;
    Ok(!rows.is_empty())
}

/// A new Note, its first version, its tabs' contents and its creation key, as one statement.
const CREATE: &str = "
WITH note AS (
    INSERT INTO notes (id, title, version, seq, strip, tab_ids, agent_access, created_at,
                       updated_at)
    VALUES ($1, $2, 1, $3, $4, $5, false, $6, $6)
    RETURNING id
), history AS (
    INSERT INTO versions
        (note_id, version, author, created_at, summary, changed_tab_ids, title, seq, strip,
         tab_ids, author_kind)
    SELECT id, 1, $7, $6, 'created', $5, $2, $3, $4, $5, $10 FROM note
), contents AS (
    INSERT INTO tab_versions (note_id, tab_id, version, data)
    SELECT n.id, t.tab_id, 1, t.data FROM note n, unnest($5::text[], $8::text[]) AS t(tab_id, data)
), claim AS (
    INSERT INTO note_creations (author, key, note_id)
    SELECT $7, $9, id FROM note WHERE $9::text IS NOT NULL
)";

/// [`CREATE`] with the search index's CTEs (parameters from `$11`), then its answer.
static CREATE_INDEXED: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{CREATE}{} SELECT id FROM note",
        search::ctes(11, Statement::Create)
    )
});

/// Creates a Note at version 1 with the fixed tabs; a repeated key (per author) replays.
pub(crate) async fn create_note(db: &Object, new: &NewNote) -> Result<(StoredNote, bool), Fail> {
    let key = new.idempotency_key.as_deref();
    if let Some(key) = key
        && let Some(first) = created_before(db, &new.author, key).await?
    {
        return Ok((first, true));
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
    let strip = serde_json::to_string(&strip_of(&note))?;
    let tab_ids: Vec<&str> = note.tabs.iter().map(|t| t.id.as_str()).collect();
    let contents = note
        .tabs
        .iter()
        .map(|t| serde_json::to_string(&t.data.to_value()))
        .collect::<Result<Vec<_>, _>>()?;
    let at = new.now.to_rfc3339();
    let index = Index::of(None, &note, None);
    let stmt = db.prepare_cached(&CREATE_INDEXED).await?;
    let seq = to_i64(note.seq)?;
    let id = note.id.as_str();
    let author_kind = new.author_kind.as_str();
    let params: [&(dyn ToSql + Sync); 10] = [
        &id,
        &note.title,
        &seq,
        &strip,
        &tab_ids,
        &at,
        &new.author,
        &contents,
        &key,
        &author_kind,
    ];
    let mut all: Vec<&(dyn ToSql + Sync)> = params.to_vec();
    all.extend(index.params());
    let created = db.execute(&stmt, &all).await.map_err(Fail::from);
    match (created, key) {
        (Ok(_), _) => {}
        // The same author created with the same key meanwhile: that Note is the answer.
        (Err(e), Some(key)) if is_duplicate(&e, "note_creations_pkey") => {
            let first = created_before(db, &new.author, key).await?.ok_or_else(|| {
                StoreError::Backend(format!("creation key {key:?} taken but not found"))
            })?;
            return Ok((first, true));
        }
        (Err(e), _) => return Err(e),
    }
    let meta = NoteMeta {
        deleted_at: None,
        agent_access: false,
        created_at: at.clone(),
        updated_at: at,
    };
    Ok((StoredNote { note, meta }, false))
}

/// The Note this author created under this key, as its creation returned it (version 1), with
/// its metadata as it is now.
async fn created_before(db: &Object, author: &str, key: &str) -> Result<Option<StoredNote>, Fail> {
    let stmt = db
        .prepare_cached(
            "SELECT n.id, n.agent_access, n.created_at, n.updated_at, n.deleted_at
             FROM note_creations c JOIN notes n ON n.id = c.note_id
             WHERE c.author = $1 AND c.key = $2",
        )
        .await?;
    let Some(row) = db.query_opt(&stmt, &[&author, &key]).await? else {
        return Ok(None);
    };
    let id: String = row.try_get("id")?;
    let id: NoteId = id
        .parse()
        .map_err(|e: quire_model::NoteIdError| StoreError::Backend(e.to_string()))?;
    let note =
        read::note_at(db, &id, Version(1))
            .await?
            .ok_or_else(|| StoreError::VersionNotFound {
                note_id: id.clone(),
                version: Version(1),
            })?;
    Ok(Some(StoredNote {
        note,
        meta: read::meta_of(&row)?,
    }))
}

/// Sets the Note's agent access and, if that changes it, records who changed it and when, in
/// one statement: the record is written only if the `UPDATE` changed the row (a concurrent
/// request setting the same value waits for the row lock, then finds nothing to change).
const SET_AGENT_ACCESS: &str = "
WITH changed AS (
    UPDATE notes SET agent_access = $2 WHERE id = $1 AND agent_access IS DISTINCT FROM $2
    RETURNING id
), record AS (
    INSERT INTO agent_access_changes (note_id, approved, changed_by, changed_at)
    SELECT id, $2, $3, $4 FROM changed
)
SELECT id FROM changed";

pub(crate) async fn set_agent_access(
    db: &Object,
    id: &NoteId,
    approved: bool,
    by: &str,
    now: Timestamp,
) -> Result<NoteMeta, Fail> {
    let stmt = db.prepare_cached(SET_AGENT_ACCESS).await?;
    db.execute(&stmt, &[&id.as_str(), &approved, &by, &now.to_rfc3339()])
        .await?;
    read::note_meta(db, id)
        .await?
        .ok_or_else(|| StoreError::NoteNotFound(id.clone()).into())
}

/// Stores a token by its hash. Its `created_at` is metadata, read from the database's clock.
pub(crate) async fn create_token(db: &Object, token: &HashedToken) -> Result<TokenRecord, Fail> {
    let HashedToken {
        name,
        scopes,
        kind,
        hash,
        expires_at,
    } = token;
    let (kind, expires_at) = (*kind, *expires_at);
    let stmt = db
        .prepare_cached(
            "INSERT INTO tokens (name, hash, scopes, kind, created_at, expires_at)
             VALUES ($1, $2, $3, $4,
                     to_char(clock_timestamp() AT TIME ZONE 'UTC',
                             'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),
                     $5)
             RETURNING id, created_at",
        )
        .await?;
    let row = db
        .query_one(
            &stmt,
            &[
                &name,
                &hash,
                &serde_json::to_string(scopes)?,
                &kind.as_str(),
                &expires_at.map(Timestamp::millis),
            ],
        )
        .await?;
    Ok(TokenRecord {
        id: row.try_get(0)?,
        name: name.clone(),
        scopes: scopes.clone(),
        kind,
        created_at: row.try_get(1)?,
        expires_at,
        revoked_at: None,
        last_used_at: None,
    })
}

/// See [`quire_store::Store::revoke_tokens`]: one statement, so "unknown" and "revoked"
/// are decided on the same snapshot.
pub(crate) async fn revoke_tokens(
    db: &Object,
    name: &str,
    kind: Option<AuthorKind>,
    now: Timestamp,
) -> Result<usize, Fail> {
    let stmt = db
        .prepare_cached(
            "WITH named AS (
                      SELECT id, revoked_at FROM tokens
                      WHERE name = $1 AND ($2::text IS NULL OR kind = $2::text)
                      FOR UPDATE),
                  revoked AS (
                      UPDATE tokens SET revoked_at = $3
                      WHERE id IN (SELECT id FROM named WHERE revoked_at IS NULL)
                      RETURNING id)
             SELECT (SELECT count(*) FROM named), (SELECT count(*) FROM revoked)",
        )
        .await?;
    let kind = kind.map(AuthorKind::as_str);
    let row = db.query_one(&stmt, &[&name, &kind, &now.millis()]).await?;
    let (named, revoked): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
    if named == 0 {
        return Err(StoreError::TokenNotFound(name.to_owned()).into());
    }
    Ok(usize::try_from(revoked)?)
}

/// See [`quire_store::Store::record_token_use`].
pub(crate) async fn record_token_use(db: &Object, id: i64, at: Timestamp) -> Result<(), Fail> {
    let stmt = db
        .prepare_cached(
            "UPDATE tokens SET last_used_at = $2
             WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)",
        )
        .await?;
    db.execute(&stmt, &[&id, &at.millis()]).await?;
    Ok(())
}

/// See [`quire_store::Store::settle_token_kinds`].
pub(crate) async fn settle_token_kinds(
    db: &Object,
    person_hash: &str,
) -> Result<Vec<String>, Fail> {
    let stmt = db
        .prepare_cached(
            "UPDATE tokens SET kind = CASE WHEN hash = $1 THEN 'person' ELSE 'agent' END
             WHERE kind IS NULL
             RETURNING name, kind",
        )
        .await?;
    let mut agents = Vec::new();
    for row in db.query(&stmt, &[&person_hash]).await? {
        let kind: String = row.try_get(1)?;
        if kind == AuthorKind::Agent.as_str() {
            agents.push(row.try_get(0)?);
        }
    }
    agents.sort();
    Ok(agents)
}
