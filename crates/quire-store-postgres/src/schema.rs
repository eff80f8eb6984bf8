//! Append-only migrations, applied in order and tracked in `quire_migrations`. Several servers
//! may start at once on one database: an advisory lock makes them take turns.

use deadpool_postgres::Object;

use crate::Fail;
use quire_store::StoreError;

/// Every schema change ever made, oldest first, named by number beside the SQLite ones
/// (`crates/quire-store-sqlite/src/migrations/`). Never edit or reorder an entry: add one.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_author_kinds.sql"),
    include_str!("../migrations/0003_token_lifetimes.sql"),
    include_str!("../migrations/0004_trash.sql"),
    include_str!("../migrations/0005_search.sql"),
    include_str!("../migrations/0006_search_runs.sql"),
];

/// The schema of the search index as this build cuts it (it made the index at 5 and re-made
/// it at 6): the Notes already there are indexed in the upgrade's transaction, once.
const SEARCH_SCHEMA: usize = 6;

/// The advisory lock that serialises migrations ("quire" in ASCII).
const LOCK: i64 = 0x71_75_69_72_65;

/// Brings the database up to the newest schema: one transaction for the whole upgrade, under
/// the advisory lock, so a second server waits and then finds nothing left to do.
pub(crate) async fn migrate(client: &mut Object) -> Result<(), Fail> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS quire_migrations (
             version    integer     NOT NULL PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await?;
    let applied: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM quire_migrations",
            &[],
        )
        .await?
        .try_get(0)?;
    let applied = usize::try_from(applied)?;
    if applied > MIGRATIONS.len() {
        return Err(Fail::Store(StoreError::Backend(format!(
            "the database is at schema {applied}, newer than this build knows ({})",
            MIGRATIONS.len()
        ))));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(applied) {
        tx.batch_execute(sql).await?;
        if index + 1 == SEARCH_SCHEMA {
            crate::search::index_existing(&tx).await?;
        }
        let version = i32::try_from(index + 1)?;
        tx.execute(
            "INSERT INTO quire_migrations (version) VALUES ($1)",
            &[&version],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
