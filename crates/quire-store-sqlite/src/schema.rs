//! Append-only migrations, applied in order and tracked with `PRAGMA user_version`.

use rusqlite::Connection;

use crate::fail::Result;
use quire_store::StoreError;

/// Every schema change ever made, oldest first. Never edit or reorder an entry: add one.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_init.sql"),
    include_str!("migrations/0002_small_write_keys.sql"),
    include_str!("migrations/0003_compact_strip.sql"),
    include_str!("migrations/0004_keys_with_versions.sql"),
    include_str!("migrations/0005_text_splices.sql"),
    include_str!("migrations/0006_author_kinds.sql"),
    include_str!("migrations/0007_token_lifetimes.sql"),
    include_str!("migrations/0008_splice_ranges.sql"),
    include_str!("migrations/0009_trash.sql"),
    include_str!("migrations/0010_search.sql"),
    include_str!("migrations/0011_search_runs.sql"),
    include_str!("migrations/0012_smaller_history.sql"),
    include_str!("migrations/0013_search_after_write.sql"),
    include_str!("migrations/0014_splice_digests.sql"),
];

/// The schema of the search index as this build cuts it (it made the index at 10 and re-made
/// it at 11): the Notes already there are indexed once, in the transaction of the last
/// migration a file below it takes (the index reads Notes as this build does, from the newest
/// schema's columns).
const SEARCH_SCHEMA: usize = 11;

/// Brings the database up to the newest schema, one transaction per migration.
pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
    let applied: usize = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if applied > MIGRATIONS.len() {
        return Err(StoreError::Backend(format!(
            "the database is at schema {applied}, newer than this build knows ({})",
            MIGRATIONS.len()
        ))
        .into());
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute_batch(sql)?;
        if applied < SEARCH_SCHEMA && index + 1 == MIGRATIONS.len() {
            super::search::index_existing(&tx)?;
        }
        tx.pragma_update(None, "user_version", index + 1)?;
        tx.commit()?;
    }
    Ok(())
}
