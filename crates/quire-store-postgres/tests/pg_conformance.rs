//! The store conformance suite against PostgreSQL, unchanged: a fresh database per case (so the
//! cases run in parallel), on the server named by `QUIRE_TEST_PG` or, if unset, on one this test
//! starts itself (`quire_testkit::pg`). Without PostgreSQL the cases fail, saying
//! what to install.

use std::sync::Arc;

use quire_store::Store;
use quire_store_postgres::{PgOptions, PgStore};
use quire_testkit::pg::{Cluster, TestDatabase};

async fn open() -> (Arc<dyn Store>, TestDatabase) {
    let cluster = Cluster::shared().unwrap_or_else(|e| panic!("no PostgreSQL to test on: {e}"));
    let db = cluster
        .fresh_database()
        .await
        .unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
    let store = PgStore::connect(db.url(), PgOptions::default())
        .await
        .unwrap_or_else(|e| panic!("cannot open the store on {}: {e}", db.url()));
    (Arc::new(store), db)
}

quire_store::conformance_tests!(open());
