//! The full-text index (`0010_search.sql`, FTS5), read by [`search`]. A new Note is indexed in
//! the transaction that creates it ([`index_new`]). A guarded write does not index: it lists its
//! Note in `search_pending` (`0013_search_after_write.sql`, [`fall_behind`]) with the version
//! the index holds, and the writer brings the index up to every listed Note's newest version
//! later ([`catch_up`]): a moment after the first listing, in the commit of whatever batch is
//! then running (or alone), and always before a search reads the index ([`behind`]). So a
//! write's commit holds no index work, the writes of a burst to one Note are indexed once, and
//! a search still finds every write acknowledged before it started.

use quire_api::SearchHit;
use std::borrow::Cow;

use quire_model::{Note, NoteId, Tab, TabData, TabId, TabKind, Text, Version};
use quire_store::StoreError;
use quire_store::search::{self, IndexPlan, SearchQuery, SearchScope};
use rusqlite::Connection;

use super::cache::NoteCache;
use super::read::{self, Located};
use crate::fail::Result;

/// Lists Note `nid` in `search_pending` as indexed at version `at`, unless it is listed: true
/// when this call listed it.
pub(super) fn fall_behind(conn: &Connection, nid: i64, at: Version) -> Result<bool> {
    let listed = conn
        .prepare_cached(
            "INSERT INTO search_pending (nid, indexed_version) VALUES (?1, ?2)
             ON CONFLICT (nid) DO NOTHING",
        )?
        .execute(rusqlite::params![nid, at.0])?;
    Ok(listed == 1)
}

/// Whether the index lags some Note's newest version (a search must have it caught up first).
pub(super) fn behind(conn: &Connection) -> Result<bool> {
    let mut stmt = conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM search_pending)")?;
    Ok(stmt.query_row([], |r| r.get(0))?)
}

/// Brings the index of every Note listed in `search_pending` from the version it holds to the
/// Note's newest, and empties the listing: the comparison a write makes, of the Note as the
/// index holds it (kept by the writer, else read from the history) with the Note now, over the
/// tabs written since where the writer saw every write since (else over all of them). A Note
/// whose indexed version cannot be read is indexed afresh. Returns how many Notes it indexed.
pub(super) fn catch_up(conn: &Connection, cache: &mut NoteCache) -> Result<usize> {
    let listed: Vec<(i64, String, Version)> = conn
        .prepare_cached(
            "SELECT p.nid, n.id, p.indexed_version
             FROM search_pending AS p JOIN notes AS n ON n.nid = p.nid
             ORDER BY p.nid",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, Version(r.get(2)?))))?
        .collect::<rusqlite::Result<_>>()?;
    for (nid, id, at) in &listed {
        let id: NoteId = id.parse().map_err(read::bad_id)?;
        let mut now_read = None;
        let now = match cache.current(&id) {
            Some(cached) => &cached.located,
            None => {
                let version = read::current_version(conn, *nid)?;
                let found = read::located_at(conn, *nid, &id, version, None)?;
                now_read.insert(found.ok_or_else(|| {
                    StoreError::Backend(format!("note {id}: version {version} is not stored"))
                })?)
            }
        };
        let hint = cache.behind(*nid).filter(|b| b.at == Some(*at));
        let mut was_read = None;
        let was: Option<&Located> = match hint.and_then(|b| b.indexed.as_ref()) {
            Some(kept) => Some(kept),
            // The index holds what this history row held: unreadable, it is made afresh.
            None => match read::located_at(conn, *nid, &id, *at, None) {
                Ok(found) => was_read.insert(found).as_ref(),
                Err(e) => {
                    tracing::warn!("note {id}: indexed afresh, version {at} unreadable: {e}");
                    None
                }
            },
        };
        let changed: Option<Vec<TabId>> = hint
            .and_then(|b| b.changed.as_ref())
            .map(|tabs| tabs.iter().cloned().collect());
        let now_note = written_out(&now.note);
        match was {
            Some(was) => {
                let known = search::KnownHashes {
                    before: Some(&was.hashes),
                    after: Some(&now.hashes),
                };
                let was_note = written_out(&was.note);
                reindex(conn, *nid, &was_note, &now_note, changed.as_deref(), known)?;
            }
            None => {
                conn.prepare_cached("DELETE FROM search_chunks WHERE nid = ?1")?
                    .execute([nid])?;
                index_new(conn, *nid, &now_note)?;
            }
        }
    }
    conn.prepare_cached("DELETE FROM search_pending")?
        .execute([])?;
    cache.caught_up();
    Ok(listed.len())
}

/// `note` with each Markdown text that is in pieces (spliced by the writer's batches) written out
/// into a copy of its own, for the index's passes over it: the writer's texts stay in pieces,
/// rather than each kept written out beside the text its pieces stand on (10 MiB more for a
/// 10 MiB Note, for as long as the writer keeps it).
fn written_out(note: &Note) -> Cow<'_, Note> {
    let in_pieces = |tab: &Tab| matches!(&tab.data, TabData::Markdown(text) if text.is_in_pieces());
    if !note.tabs.iter().any(in_pieces) {
        return Cow::Borrowed(note);
    }
    let mut copy = note.clone();
    for tab in &mut copy.tabs {
        if let TabData::Markdown(text) = &mut tab.data
            && text.is_in_pieces()
        {
            *text = Text::new(text.to_string());
        }
    }
    Cow::Owned(copy)
}

/// Brings the index of Note `nid` from `old` to `new`. `changed`: the tabs whose data the write
/// changed, if it knows (a restore does not); `known`: the hashes the writer kept of long texts.
pub(super) fn reindex(
    conn: &Connection,
    nid: i64,
    old: &Note,
    new: &Note,
    changed: Option<&[TabId]>,
    known: search::KnownHashes<'_>,
) -> Result<()> {
    apply(
        conn,
        nid,
        &new.title,
        &search::plan_known(Some(old), new, changed, known),
    )
}

/// Indexes a Note that has no rows yet.
pub(super) fn index_new(conn: &Connection, nid: i64, note: &Note) -> Result<()> {
    apply(conn, nid, &note.title, &search::plan(None, note, None))
}

/// Indexes every Note as it is now (a Note row without any version holds nothing to index):
/// run once, by the migration that made the index.
pub(super) fn index_existing(conn: &Connection) -> Result<()> {
    let ids: Vec<(i64, String)> = conn
        .prepare(
            "SELECT nid, id FROM notes AS n WHERE EXISTS (
                 SELECT 1 FROM versions
                 WHERE key BETWEEN n.nid << 32 AND (n.nid << 32) | 4294967295
             )
             ORDER BY nid",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (nid, id) in ids {
        let id: NoteId = id
            .parse()
            .map_err(|e| quire_store::StoreError::Backend(format!("notes.id: {e}")))?;
        let note = read::current_note(conn, &id, None)?.note;
        index_new(conn, nid, &note)?;
    }
    Ok(())
}

/// Writes a plan, in as few statements that write words as it can: FTS5 flushes the words it
/// holds in memory to a new segment (which it later merges) at the start of every statement
/// that writes in the transaction once it has words pending, and whenever a row comes below the
/// last one it was given. So the statements that write no words go first (labels), and the
/// chunks go in at most two statements: each chunk removed is overwritten in place by one
/// added (one `UPDATE`, in rising rowid order: FTS5 takes the old words out and the new in
/// under the same rowid), then the chunks left over are deleted (rising order) or the chunks
/// left over inserted (above every row there is). A write that changes one chunk is one
/// statement and one segment.
fn apply(conn: &Connection, nid: i64, title: &str, plan: &IndexPlan<'_>) -> Result<()> {
    if plan.is_empty() {
        return Ok(());
    }
    let mut relabel = conn
        .prepare_cached("UPDATE search_chunks SET tab_label = ?3 WHERE nid = ?1 AND tab_id = ?2")?;
    for tab in plan.tabs.iter().filter(|t| t.relabel) {
        relabel.execute(rusqlite::params![nid, tab.tab_id.as_str(), tab.label])?;
    }
    if let Some(title) = plan.title {
        conn.prepare_cached(
            "UPDATE search_chunks SET title = ?2
             WHERE id IN (SELECT id FROM search_chunks WHERE nid = ?1)",
        )?
        .execute(rusqlite::params![nid, title])?;
    }
    let gone = gone(conn, nid, plan)?;
    let added: Vec<serde_json::Value> = plan
        .tabs
        .iter()
        .flat_map(|tab| {
            tab.add.iter().map(move |(hash, body)| {
                serde_json::json!([
                    tab.tab_id.as_str(),
                    tab.kind.as_str(),
                    tab.label,
                    tab.carries_title,
                    hash,
                    body.as_ref(),
                ])
            })
        })
        .collect();
    let paired = gone.len().min(added.len());
    if paired > 0 {
        let rows: Vec<serde_json::Value> = gone
            .iter()
            .zip(&added)
            .map(|(id, row)| serde_json::json!([id, row]))
            .collect();
        conn.prepare_cached(
            "UPDATE search_chunks
             SET tab_id = j.value ->> '$[1][0]', tab_type = j.value ->> '$[1][1]',
                 tab_label = j.value ->> '$[1][2]', title_tab = j.value ->> '$[1][3]',
                 hash = j.value ->> '$[1][4]', title = ?2, body = j.value ->> '$[1][5]'
             FROM json_each(?1) AS j
             WHERE search_chunks.id = j.value ->> '$[0]'",
        )?
        .execute(rusqlite::params![serde_json::to_string(&rows)?, title])?;
    }
    if gone.len() > paired {
        conn.prepare_cached(
            "DELETE FROM search_chunks WHERE id IN (SELECT value FROM json_each(?1))",
        )?
        .execute([serde_json::to_string(&gone[paired..])?])?;
    }
    if added.len() > paired {
        conn.prepare_cached(
            "INSERT INTO search_chunks (nid, tab_id, tab_type, tab_label, title_tab, hash, title, body)
             SELECT ?1, value ->> '$[0]', value ->> '$[1]', value ->> '$[2]', value ->> '$[3]',
                    value ->> '$[4]', ?2, value ->> '$[5]'
             FROM json_each(?3)",
        )?
        .execute(rusqlite::params![
            nid,
            title,
            serde_json::to_string(&added[paired..])?
        ])?;
    }
    Ok(())
}

/// A tab's chunks of one hash. No `LIMIT ?`: SQLite plans a statement with a bound limit
/// again at every run (the limit's value may change the plan).
const CHUNKS_OF_HASH: &str =
    "SELECT id FROM search_chunks WHERE nid = ?1 AND tab_id = ?2 AND hash = ?3 ORDER BY id";

/// The rows of the chunks the plan removes, in rising order.
fn gone(conn: &Connection, nid: i64, plan: &IndexPlan<'_>) -> Result<Vec<i64>> {
    let mut gone: Vec<i64> = Vec::new();
    let mut of_tab =
        conn.prepare_cached("SELECT id FROM search_chunks WHERE nid = ?1 AND tab_id = ?2")?;
    for tab in &plan.removed_tabs {
        for id in of_tab.query_map(rusqlite::params![nid, tab.as_str()], |r| r.get(0))? {
            gone.push(id?);
        }
    }
    let mut of_hash = conn.prepare_cached(CHUNKS_OF_HASH)?;
    for tab in &plan.tabs {
        let id = tab.tab_id.as_str();
        if tab.clear {
            for row in of_tab.query_map(rusqlite::params![nid, id], |r| r.get(0))? {
                gone.push(row?);
            }
            continue;
        }
        // A chunk the tab holds twice may be removed twice: as many rows as the plan says.
        let mut times: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        for hash in &tab.remove {
            *times.entry(*hash).or_default() += 1;
        }
        for (hash, n) in times {
            let rows = of_hash.query_map(rusqlite::params![nid, id, hash], |r| r.get(0))?;
            for row in rows.take(n) {
                gone.push(row?);
            }
        }
    }
    gone.sort_unstable();
    Ok(gone)
}

/// The SQL that says whether a search may find a Note (`n`), the one place a search decides
/// which Notes it sees: never one in the trash; `?2` is 1 for agents (approved Notes only).
const VISIBLE: &str = "(n.deleted_at IS NULL AND (?2 = 0 OR n.agent_access = 1))";

/// The best `limit` matching tabs, best first (bm25, the title weighing twice the body): one
/// hit per tab, its snippet from its best chunk. A chunk matches when every part of the query
/// is in it or in the Note's title, and some part is in its body unless it is the title tab's
/// (a match in the title alone counts for that tab only: checked for the candidates alone).
/// FTS5 ranks the matching chunks and hands over the best `window` (ORDER BY rank LIMIT, no
/// join per match); the window widens only when it held too few visible tabs. Too few in all:
/// the tabs that hold every part across their chunks follow ([`spread`]).
pub(super) fn search(
    conn: &Connection,
    query: &SearchQuery,
    limit: usize,
    scope: SearchScope,
) -> Result<Vec<SearchHit>> {
    let matching = format!("{{title body}} : ({})", query.to_fts5());
    let in_body = query.to_fts5_body_any();
    let agents_only = matches!(scope, SearchScope::AgentApproved);
    let mut window = limit.saturating_mul(4).max(32);
    loop {
        let found = candidates(conn, &matching, agents_only, window)?;
        let exhausted = found.len() < window;
        let mut seen = std::collections::HashSet::new();
        let mut best = Vec::new();
        for chunk in found {
            if best.len() == limit {
                break;
            }
            if !chunk.visible || seen.contains(&(chunk.nid, chunk.tab_id.clone())) {
                continue;
            }
            // A match in the title alone counts for the title tab only.
            if !chunk.title_tab && !chunk_matches(conn, chunk.id, &in_body)? {
                continue;
            }
            seen.insert((chunk.nid, chunk.tab_id.clone()));
            best.push(chunk);
        }
        if best.len() >= limit || exhausted {
            // Then the tabs that hold every word though no chunk of them holds them all.
            if best.len() < limit {
                best.extend(spread(conn, query, agents_only, limit - best.len(), &seen)?);
            }
            return best.into_iter().map(|c| hit(conn, query, c)).collect();
        }
        window = window.saturating_mul(4);
    }
}

/// Most chunks of one part of a query read when the words are shared out over a tab's chunks.
const SPREAD_SCAN: usize = 2_000;

/// At most `limit` tabs (none of `found`) that hold every part of the query in one chunk or
/// another though no chunk holds them all, best first (the bm25 of the rarest part's best chunk
/// in the tab). The rarest part's chunks (at most [`SPREAD_SCAN`]) name the tabs, those of one chunk
/// aside (it would have matched whole); each other part is looked for in those tabs' chunks
/// alone. A tab whose only match is the Note's title is not one (the title tab would have
/// matched already).
fn spread(
    conn: &Connection,
    query: &SearchQuery,
    agents_only: bool,
    limit: usize,
    found: &std::collections::HashSet<(i64, String)>,
) -> Result<Vec<Candidate>> {
    let parts = query.parts_fts5();
    if parts.len() < 2 || limit == 0 {
        return Ok(Vec::new());
    }
    // Limits written out, not bound (see [`CHUNKS_OF_HASH`]).
    let mut count = conn.prepare_cached(&format!(
        "SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ?1 LIMIT {SPREAD_SCAN})"
    ))?;
    let mut rarest = (0, i64::MAX);
    for (i, part) in parts.iter().enumerate() {
        let n: i64 = count.query_row([part], |r| r.get(0))?;
        if n < rarest.1 {
            rarest = (i, n);
        }
    }
    if rarest.1 == 0 {
        return Ok(Vec::new());
    }

    // The rarest part's best chunk in each visible tab.
    let sql = format!(
        "SELECT m.id, m.rank, c.nid, c.tab_id, n.id, c.title_tab
         FROM (SELECT rowid AS id, rank FROM search_fts
               WHERE search_fts MATCH ?1 AND rank MATCH 'bm25(2.0, 1.0, 0.0)'
               LIMIT {SPREAD_SCAN}) AS m
         JOIN search_chunks AS c ON c.id = m.id
         JOIN notes AS n ON n.nid = c.nid
         WHERE {VISIBLE}
           AND EXISTS (SELECT 1 FROM search_chunks AS o
                       WHERE o.nid = c.nid AND o.tab_id = c.tab_id AND o.id <> c.id)"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params![parts[rarest.0], agents_only], |r| {
        Ok((
            r.get::<_, f64>(1)?,
            Candidate {
                id: r.get(0)?,
                nid: r.get(2)?,
                tab_id: r.get(3)?,
                note_id: r.get(4)?,
                title_tab: r.get(5)?,
                visible: true,
            },
        ))
    })?;
    let mut tabs: std::collections::HashMap<(i64, String), (f64, Candidate)> =
        std::collections::HashMap::new();
    for row in rows {
        let (rank, chunk) = row?;
        let key = (chunk.nid, chunk.tab_id.clone());
        if found.contains(&key) {
            continue;
        }
        match tabs.get(&key) {
            Some((best, _)) if *best <= rank => {}
            _ => {
                tabs.insert(key, (rank, chunk));
            }
        }
    }

    // Each other part somewhere in the same tab, and not every part in the title alone. Chunk
    // by chunk, whether it matches: FTS5 seeks one rowid in the part's doclist (a `rowid IN
    // (…)` filter, or a rank, would read every chunk the part matches, once per tab). The tabs
    // rank by the rarest part's best chunk.
    let mut chunks_of =
        conn.prepare_cached("SELECT id FROM search_chunks WHERE nid = ?1 AND tab_id = ?2")?;
    let in_title = format!("title : ({})", query.to_fts5());
    let mut out: Vec<(f64, Candidate)> = Vec::new();
    'tabs: for ((nid, tab_id), (rank, chunk)) in tabs {
        let ids = chunks_of
            .query_map(rusqlite::params![nid, tab_id], |r| r.get::<_, i64>(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        for (i, part) in parts.iter().enumerate() {
            if i == rarest.0 {
                continue;
            }
            let mut any = false;
            for &id in &ids {
                if chunk_matches(conn, id, part)? {
                    any = true;
                    break;
                }
            }
            if !any {
                continue 'tabs;
            }
        }
        if !chunk.title_tab && chunk_matches(conn, chunk.id, &in_title)? {
            continue;
        }
        out.push((rank, chunk));
    }
    out.sort_by(|(a, x), (b, y)| {
        a.total_cmp(b)
            .then_with(|| x.note_id.cmp(&y.note_id))
            .then_with(|| x.tab_id.cmp(&y.tab_id))
    });
    out.truncate(limit);
    Ok(out.into_iter().map(|(_, c)| c).collect())
}

/// A matching chunk, as ranked.
struct Candidate {
    id: i64,
    nid: i64,
    tab_id: String,
    note_id: String,
    /// Whether its tab is the Note's title tab.
    title_tab: bool,
    /// Whether this search may find its Note ([`VISIBLE`]).
    visible: bool,
}

/// Whether chunk `id` matches `matching` (FTS5 text: e.g. some part of the query in its body).
fn chunk_matches(conn: &Connection, id: i64, matching: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM search_fts WHERE rowid = ?1 AND search_fts MATCH ?2)",
    )?;
    Ok(stmt.query_row(rusqlite::params![id, matching], |r| r.get(0))?)
}

/// The best `window` matching chunks, best first. The window is written into the statement,
/// not bound (see [`CHUNKS_OF_HASH`]): a search uses one or two windows, each prepared once.
fn candidates(
    conn: &Connection,
    matching: &str,
    agents_only: bool,
    window: usize,
) -> Result<Vec<Candidate>> {
    let sql = format!(
        "SELECT m.id, c.nid, c.tab_id, n.id, c.title_tab, {VISIBLE}
         FROM (SELECT rowid AS id, rank FROM search_fts
               WHERE search_fts MATCH ?1 AND rank MATCH 'bm25(2.0, 1.0, 0.0)'
               ORDER BY rank LIMIT {window}) AS m
         JOIN search_chunks AS c ON c.id = m.id
         JOIN notes AS n ON n.nid = c.nid
         ORDER BY m.rank, n.id, c.tab_id"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(rusqlite::params![matching, agents_only], |r| {
        Ok(Candidate {
            id: r.get(0)?,
            nid: r.get(1)?,
            tab_id: r.get(2)?,
            note_id: r.get(3)?,
            title_tab: r.get(4)?,
            visible: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The hit a chunk gives: its tab, its Note's title and current version, the snippet.
fn hit(conn: &Connection, query: &SearchQuery, chunk: Candidate) -> Result<SearchHit> {
    let mut stmt = conn.prepare_cached(
        "SELECT tab_type, tab_label, title, body FROM search_chunks WHERE id = ?1",
    )?;
    let (tab_type, tab_label, title, body): (String, String, String, String) = stmt
        .query_row([chunk.id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
    Ok(SearchHit {
        note_id: chunk
            .note_id
            .parse()
            .map_err(|e| quire_store::StoreError::Backend(format!("notes.id: {e}")))?,
        snippet: search::snippet(query, &title, &body),
        title,
        tab_id: TabId::from(chunk.tab_id.as_str()),
        tab_label,
        tab_type: tab_kind(&tab_type)?,
        version: read::current_version(conn, chunk.nid)?,
    })
}

fn tab_kind(name: &str) -> Result<TabKind> {
    Ok(serde_json::from_value(serde_json::Value::String(
        name.to_owned(),
    ))?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use quire_store::search::TabIndex;

    use super::*;

    /// The writer's lookup of the chunks a write removes is planned once, not at every write.
    #[test]
    fn the_chunks_to_remove_are_looked_up_without_planning_again() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::schema::migrate(&mut conn).unwrap();
        let tab = TabId::new(TabId::MARKDOWN);
        let plan = IndexPlan {
            tabs: vec![TabIndex {
                tab_id: &tab,
                kind: TabKind::Markdown,
                label: "Note",
                carries_title: true,
                clear: false,
                relabel: false,
                remove: vec![1, 2, 2],
                add: Vec::new(),
            }],
            ..IndexPlan::default()
        };
        for _ in 0..3 {
            assert_eq!(gone(&conn, 1, &plan).unwrap(), Vec::<i64>::new());
        }
        let stmt = conn.prepare_cached(CHUNKS_OF_HASH).unwrap();
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::Run), 6);
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
    }

    /// The index reads a text in pieces from a copy of its own: the writer's text stays in
    /// pieces, not written out and kept beside the text it stands on.
    #[test]
    fn the_index_reads_a_copy_of_a_text_in_pieces() {
        let mut note = Note::new(
            "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50".parse().unwrap(),
            "Log".to_owned(),
        );
        let whole = Text::from("a line of the log\n".repeat(10_000));
        let spliced = whole.spliced(18, 0, "new ").unwrap();
        assert!(
            matches!(written_out(&note), Cow::Borrowed(_)),
            "nothing in pieces"
        );
        note.tabs[0].data = TabData::Markdown(spliced.clone());
        let copy = written_out(&note);
        assert!(matches!(copy, Cow::Owned(_)));
        assert!(
            spliced.is_in_pieces(),
            "the writer's text is not written out"
        );
        assert_eq!(copy.tabs, note.tabs);
    }
}
