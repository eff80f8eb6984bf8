//! The store conformance suite against SQLite: a fresh database file per case, under the
//! default options (WAL, synchronous=FULL, group commit).

use std::sync::Arc;

use quire_store::Store;
use quire_store_sqlite::{SqliteOptions, SqliteStore};

async fn open() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = SqliteStore::open(&dir.path().join("quire.db"), SqliteOptions::default())
        .expect("open the store");
    (Arc::new(store), dir)
}

quire_store::conformance_tests!(open());
