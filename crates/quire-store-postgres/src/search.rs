//! The full-text index (`migrations/0005_search.sql`): written by the very statement of the
//! write that changes it ([`Index::ctes`], appended to `guarded`'s `COMMIT` and `CREATE`), so a
//! refused write leaves it untouched and an acknowledged one is found at once; read by
//! [`search`].

use deadpool_postgres::Object;
use quire_api::SearchHit;
use quire_model::{Note, NoteId, TabId, TabKind, Version};
use quire_store::search::{self, IndexPlan, SearchQuery, SearchScope};
use tokio_postgres::types::ToSql;

use crate::Fail;

/// Whether the statement makes a Note (its title row is new) or changes one.
#[derive(Clone, Copy)]
pub(crate) enum Statement {
    /// `CREATE`: the CTE named `note` is the new Note.
    Create,
    /// `COMMIT`: the CTE named `bumped` is the version the compare-and-swap made.
    Commit,
}

/// How many parameters [`Index::params`] binds.
pub(crate) const PARAMS: usize = 13;

/// The data-modifying CTEs that bring the index along, with parameters `$first..`; each runs
/// only if the statement's write does (it selects from the write's CTE). `$1` is the Note's ID.
pub(crate) fn ctes(first: usize, statement: Statement) -> String {
    let p = |i: usize| format!("${}", first + i);
    let guard = match statement {
        Statement::Create => "note",
        Statement::Commit => "bumped",
    };
    let title = match statement {
        Statement::Create => format!(
            "search_title AS (
                INSERT INTO search_titles (note_id, title_tsv)
                SELECT $1, {0}::text::tsvector FROM note
            )",
            p(0)
        ),
        Statement::Commit => format!(
            "search_title AS (
                UPDATE search_titles SET title_tsv = {0}::text::tsvector
                FROM bumped WHERE note_id = $1 AND {0}::text IS NOT NULL
            )",
            p(0)
        ),
    };
    format!(
        ", {title}, search_cleared AS (
            DELETE FROM search_chunks c USING {guard}
            WHERE c.note_id = $1 AND c.tab_id = ANY({cleared}::text[])
        ), search_unchunked AS (
            DELETE FROM search_chunks c
            USING {guard}, (
                SELECT x.id FROM (
                    SELECT s.id, s.tab_id, s.hash,
                           row_number() OVER (PARTITION BY s.tab_id, s.hash ORDER BY s.id) AS n
                    FROM search_chunks s
                    WHERE s.note_id = $1
                      AND (s.tab_id, s.hash) IN (
                          SELECT * FROM unnest({rm_tabs}::text[], {rm_hashes}::bigint[]))
                ) x
                JOIN (
                    SELECT r.tab_id, r.hash, count(*) AS k
                    FROM unnest({rm_tabs}::text[], {rm_hashes}::bigint[]) AS r(tab_id, hash)
                    GROUP BY r.tab_id, r.hash
                ) r ON r.tab_id = x.tab_id AND r.hash = x.hash
                WHERE x.n <= r.k
            ) gone
            WHERE c.id = gone.id
        ), search_tabs_gone AS (
            DELETE FROM search_tabs t USING {guard}
            WHERE t.note_id = $1 AND t.tab_id = ANY({gone}::text[])
        ), search_tabs_set AS (
            INSERT INTO search_tabs (note_id, tab_id, tab_type, tab_label)
            SELECT $1, t.tab_id, t.tab_type, t.tab_label
            FROM {guard}, unnest({tab_ids}::text[], {tab_types}::text[], {tab_labels}::text[])
                AS t(tab_id, tab_type, tab_label)
            ON CONFLICT (note_id, tab_id)
            DO UPDATE SET tab_type = excluded.tab_type, tab_label = excluded.tab_label
        ), search_chunked AS (
            INSERT INTO search_chunks (note_id, tab_id, title_tab, hash, body, body_tsv)
            SELECT $1, k.tab_id, k.title_tab, k.hash, k.body, k.words::tsvector
            FROM {guard}, unnest({k_tabs}::text[], {k_title}::boolean[], {k_hashes}::bigint[],
                                 {k_bodies}::text[], {k_words}::text[])
                AS k(tab_id, title_tab, hash, body, words)
        )",
        cleared = p(1),
        rm_tabs = p(2),
        rm_hashes = p(3),
        gone = p(4),
        tab_ids = p(5),
        tab_types = p(6),
        tab_labels = p(7),
        k_tabs = p(8),
        k_title = p(9),
        k_hashes = p(10),
        k_bodies = p(11),
        k_words = p(12),
    )
}

/// The parameters of [`ctes`], from what a write changes in the index.
pub(crate) struct Index {
    title_words: Option<String>,
    cleared: Vec<String>,
    rm_tabs: Vec<String>,
    rm_hashes: Vec<i64>,
    gone: Vec<String>,
    tab_ids: Vec<String>,
    tab_types: Vec<&'static str>,
    tab_labels: Vec<String>,
    k_tabs: Vec<String>,
    k_title: Vec<bool>,
    k_hashes: Vec<i64>,
    k_bodies: Vec<String>,
    k_words: Vec<String>,
}

impl Index {
    /// What the write from `old` (None: a new Note) to `new` changes. `changed`: see
    /// [`search::plan`].
    pub(crate) fn of(old: Option<&Note>, new: &Note, changed: Option<&[TabId]>) -> Index {
        let plan = search::plan(old, new, changed);
        let mut index = Index::from_plan(&plan);
        if old.is_none() {
            index.title_words = Some(search::tsvector(&new.title, ""));
        }
        index
    }

    fn from_plan(plan: &IndexPlan<'_>) -> Index {
        let mut index = Index {
            title_words: plan.title.map(|t| search::tsvector(t, "")),
            cleared: plan.removed_tabs.iter().map(|t| t.to_string()).collect(),
            rm_tabs: Vec::new(),
            rm_hashes: Vec::new(),
            gone: plan.removed_tabs.iter().map(|t| t.to_string()).collect(),
            tab_ids: Vec::new(),
            tab_types: Vec::new(),
            tab_labels: Vec::new(),
            k_tabs: Vec::new(),
            k_title: Vec::new(),
            k_hashes: Vec::new(),
            k_bodies: Vec::new(),
            k_words: Vec::new(),
        };
        for tab in &plan.tabs {
            let id = tab.tab_id.to_string();
            if tab.clear {
                index.cleared.push(id.clone());
            }
            for hash in &tab.remove {
                index.rm_tabs.push(id.clone());
                index.rm_hashes.push(*hash);
            }
            index.tab_ids.push(id.clone());
            index.tab_types.push(tab.kind.as_str());
            index.tab_labels.push(tab.label.to_owned());
            for (hash, body) in &tab.add {
                index.k_tabs.push(id.clone());
                index.k_title.push(tab.carries_title);
                index.k_hashes.push(*hash);
                index.k_words.push(search::tsvector("", body));
                index.k_bodies.push(body.clone().into_owned());
            }
        }
        index
    }

    /// The parameters, in [`ctes`]' order.
    pub(crate) fn params(&self) -> [&(dyn ToSql + Sync); PARAMS] {
        [
            &self.title_words,
            &self.cleared,
            &self.rm_tabs,
            &self.rm_hashes,
            &self.gone,
            &self.tab_ids,
            &self.tab_types,
            &self.tab_labels,
            &self.k_tabs,
            &self.k_title,
            &self.k_hashes,
            &self.k_bodies,
            &self.k_words,
        ]
    }
}

/// Indexes every Note as it is now, inside the transaction of the migration that made the
/// index (so no write runs in between).
pub(crate) async fn index_existing(tx: &tokio_postgres::Transaction<'_>) -> Result<(), Fail> {
    let ids = tx.query("SELECT id FROM notes ORDER BY id", &[]).await?;
    let sql = format!(
        "WITH note AS (SELECT id FROM notes WHERE id = $1){}
         SELECT 1",
        ctes(2, Statement::Create)
    );
    let stmt = tx.prepare(&sql).await?;
    for row in ids {
        let id: String = row.try_get(0)?;
        let id: NoteId = id
            .parse()
            .map_err(|e| quire_store::StoreError::Backend(format!("notes.id: {e}")))?;
        let note = crate::read::current_in(tx, &id).await?;
        let index = Index::of(None, &note, None);
        let id_text = id.as_str();
        let mut params: Vec<&(dyn ToSql + Sync)> = vec![&id_text];
        params.extend(index.params());
        tx.execute(&stmt, &params).await?;
    }
    Ok(())
}

/// The Notes a search may find, the one place a search decides which Notes it sees: never one
/// in the trash; the parameter `agents` names is true for agents (approved Notes only).
fn visible(agents: &str) -> String {
    format!("(n.deleted_at IS NULL AND ({agents} = false OR n.agent_access))")
}

/// The best `limit` matching tabs, best first (`ts_rank`, the title's words weighing more):
/// one hit per tab, its snippet from its best chunk. A chunk matches when every part of the
/// query is in it or in the Note's title; a match in the title alone counts for the Note's
/// title tab only. Too few: the tabs that hold every part across their chunks follow
/// ([`spread`]).
pub(crate) async fn search(
    db: &Object,
    query: &SearchQuery,
    limit: usize,
    scope: SearchScope,
) -> Result<Vec<SearchHit>, Fail> {
    let visible = visible("$3");
    let sql = format!(
        "WITH q AS (SELECT $1::text::tsquery AS every, $2::text::tsquery AS any),
         titled AS (SELECT s.note_id FROM search_titles s, q WHERE s.title_tsv @@ q.every),
         hits AS (
             SELECT c.note_id, c.tab_id, c.body,
                    ts_rank(s.title_tsv || c.body_tsv, q.every) AS rank
             FROM q, search_chunks c JOIN search_titles s ON s.note_id = c.note_id
             WHERE (c.body_tsv @@ q.any
                    OR (c.title_tab AND c.note_id IN (SELECT note_id FROM titled)))
               AND (s.title_tsv || c.body_tsv) @@ q.every
         ),
         best AS (
             SELECT DISTINCT ON (note_id, tab_id) note_id, tab_id, body, rank
             FROM hits ORDER BY note_id, tab_id, rank DESC
         )
         SELECT b.note_id, n.title, n.version, b.tab_id, t.tab_type, t.tab_label, b.body
         FROM best b
         JOIN notes n ON n.id = b.note_id
         JOIN search_tabs t ON t.note_id = b.note_id AND t.tab_id = b.tab_id
         WHERE {visible}
         ORDER BY b.rank DESC, b.note_id, b.tab_id
         LIMIT $4"
    );
    let stmt = db.prepare_cached(&sql).await?;
    let agents_only = matches!(scope, SearchScope::AgentApproved);
    let wanted = limit;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = db
        .query(
            &stmt,
            &[
                &query.to_tsquery(),
                &query.to_tsquery_body_any(),
                &agents_only,
                &limit,
            ],
        )
        .await?;
    // Too few: then the tabs that hold every word though no chunk of them holds them all.
    let mut rows = rows;
    let parts = query.parts_tsquery();
    if parts.len() > 1 && rows.len() < wanted {
        let more = spread(db, query, &parts, &rows, agents_only, wanted - rows.len()).await?;
        rows.extend(more);
    }
    let mut hits = Vec::with_capacity(rows.len());
    for row in rows {
        let id: String = row.try_get(0)?;
        let title: String = row.try_get(1)?;
        let version: i64 = row.try_get(2)?;
        let tab_id: String = row.try_get(3)?;
        let tab_type: String = row.try_get(4)?;
        let body: String = row.try_get(6)?;
        hits.push(SearchHit {
            note_id: id
                .parse()
                .map_err(|e| quire_store::StoreError::Backend(format!("notes.id: {e}")))?,
            snippet: search::snippet(query, &title, &body),
            title,
            tab_id: TabId::from(tab_id.as_str()),
            tab_label: row.try_get(5)?,
            tab_type: serde_json::from_value::<TabKind>(serde_json::Value::String(tab_type))?,
            version: Version(u64::try_from(version)?),
        });
    }
    Ok(hits)
}

/// At most `limit` tabs (none of those in `found`) that hold every part of the query, in one
/// chunk or another (or the Note's title) though no chunk holds them all, best first (the sum
/// of each part's best `ts_rank` in the tab); rows as [`search`] reads them, the snippet's body
/// from the chunk that best holds the first part found in a body. A tab whose only match is the
/// Note's title is not one (the title tab would have matched already).
async fn spread(
    db: &Object,
    query: &SearchQuery,
    parts: &[String],
    found: &[tokio_postgres::Row],
    agents_only: bool,
    limit: usize,
) -> Result<Vec<tokio_postgres::Row>, Fail> {
    let mut found_notes = Vec::with_capacity(found.len());
    let mut found_tabs = Vec::with_capacity(found.len());
    for row in found {
        found_notes.push(row.try_get::<_, String>(0)?);
        found_tabs.push(row.try_get::<_, String>(3)?);
    }
    let visible = visible("$4");
    let sql = format!(
        "WITH p AS (SELECT t::tsquery AS q, i FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i)),
         in_body AS (
             SELECT c.note_id, c.tab_id, p.i, max(ts_rank(c.body_tsv, p.q)) AS rank
             FROM p JOIN search_chunks c ON c.body_tsv @@ p.q
             GROUP BY c.note_id, c.tab_id, p.i
         ),
         in_title AS (
             SELECT t.note_id, t.tab_id, p.i, ts_rank(s.title_tsv, p.q) AS rank
             FROM p JOIN search_titles s ON s.title_tsv @@ p.q
             JOIN search_tabs t ON t.note_id = s.note_id
         ),
         tabs AS (
             SELECT note_id, tab_id, sum(rank) AS rank
             FROM (SELECT note_id, tab_id, i, max(rank) AS rank, bool_or(body) AS body
                   FROM (SELECT *, true AS body FROM in_body
                         UNION ALL SELECT *, false FROM in_title) AS each_part
                   GROUP BY note_id, tab_id, i) AS per_part
             GROUP BY note_id, tab_id
             HAVING count(*) = $2 AND bool_or(body)
         )
         SELECT b.note_id, n.title, n.version, b.tab_id, t.tab_type, t.tab_label,
                (SELECT c.body FROM search_chunks c
                 WHERE c.note_id = b.note_id AND c.tab_id = b.tab_id AND c.body_tsv @@ $3::text::tsquery
                 ORDER BY ts_rank(c.body_tsv, $3::text::tsquery) DESC, c.id LIMIT 1)
         FROM tabs b
         JOIN notes n ON n.id = b.note_id
         JOIN search_tabs t ON t.note_id = b.note_id AND t.tab_id = b.tab_id
         WHERE {visible}
           AND NOT EXISTS (SELECT 1 FROM unnest($5::text[], $6::text[]) AS f(note_id, tab_id)
                           WHERE f.note_id = b.note_id AND f.tab_id = b.tab_id)
         ORDER BY b.rank DESC, b.note_id, b.tab_id
         LIMIT $7"
    );
    let stmt = db.prepare_cached(&sql).await?;
    let count = i64::try_from(parts.len()).unwrap_or(i64::MAX);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    Ok(db
        .query(
            &stmt,
            &[
                &parts,
                &count,
                &query.to_tsquery_body_any(),
                &agents_only,
                &found_notes,
                &found_tabs,
                &limit,
            ],
        )
        .await?)
}
