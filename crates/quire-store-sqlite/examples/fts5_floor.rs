//! What FTS5 alone adds to a small write, with no Quire code: the floor under issue 13's target
//! (the guarded write with the index <= 1.3x without it). The bundled SQLite Quire uses, WAL,
//! one connection, 10,000 rows of ~2 KB text indexed as `0010_search.sql` indexes them (an
//! external-content FTS5 table, `unicode61 remove_diacritics 2`, kept by triggers). Each
//! transaction is what a small write without the index writes (a ~420-byte history row
//! inserted, a small row updated), and the same plus one indexed row's text replaced by text
//! that differs in one word (the update trigger takes the old words out of FTS5 and puts the new
//! in: the one chunk a 2 KB Note's write re-indexes). The two alternate, `--writes` each
//! (default 2,000), under `synchronous=FULL` (as `serve` runs) and `NORMAL`, for the table as
//! Quire makes it and three other ways to make it ([`VARIANTS`]).
//!
//! `cargo run --release -p quire-store-sqlite --example fts5_floor [-- --writes N]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use quire_testkit::bench::{Samples, arg, micros};
use rusqlite::{Connection, params};

const ROWS: usize = 10_000;

/// About 2 KB of words: a shared vocabulary and a few words of row `n`'s own.
fn text(n: usize, edit: usize) -> String {
    const WORDS: [&str; 16] = [
        "notes", "agent", "version", "written", "draft", "merge", "sheet", "slides", "source",
        "person", "history", "search", "quire", "review", "change", "table",
    ];
    let mut out = String::with_capacity(2_100);
    let mut i = 0;
    while out.len() < 2_000 {
        let w = WORDS[(n * 7 + i * 13) % WORDS.len()];
        out.push_str(w);
        out.push_str(&format!("{} ", (n * 31 + i) % 997));
        i += 1;
    }
    out.push_str(&format!("edit{edit}"));
    out
}

fn main() {
    let writes = arg("--writes", 2_000);
    println!(
        "FTS5's share of a small write, bare SQLite (no Quire code), {writes} writes each, alternated"
    );
    println!(
        "| FTS5 table | synchronous | without the index, p50 | with one row re-indexed, p50 | ratio | FTS5 adds |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for (variant, extra, after) in VARIANTS {
        for mode in ["FULL", "NORMAL"] {
            let dir = tempfile::tempdir().unwrap();
            let conn = Connection::open(dir.path().join("floor.db")).unwrap();
            conn.execute_batch(&format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = {mode};
             CREATE TABLE history (id INTEGER PRIMARY KEY, row TEXT NOT NULL) STRICT;
             CREATE TABLE notes (id INTEGER PRIMARY KEY, version INTEGER NOT NULL) STRICT;
             CREATE TABLE chunks (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL,
                                  title_tab INTEGER NOT NULL) STRICT;
             CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, body, title_tab,
                 content = 'chunks', content_rowid = 'id',
                 tokenize = 'unicode61 remove_diacritics 2'{extra});
             CREATE TRIGGER chunks_au AFTER UPDATE OF title, body, title_tab ON chunks BEGIN
                 INSERT INTO chunks_fts (chunks_fts, rowid, title, body, title_tab)
                 VALUES ('delete', old.id, old.title, old.body, old.title_tab);
                 INSERT INTO chunks_fts (rowid, title, body, title_tab)
                 VALUES (new.id, new.title, new.body, new.title_tab);
             END;"
            ))
            .unwrap();
            conn.execute_batch(after).unwrap();
            conn.execute_batch("BEGIN").unwrap();
            for n in 0..ROWS {
                conn.execute("INSERT INTO notes (id, version) VALUES (?1, 1)", [n])
                    .unwrap();
                conn.execute(
                    "INSERT INTO chunks (id, title, body, title_tab) VALUES (?1, ?2, ?3, 1)",
                    params![n, format!("Note {n}"), text(n, 0)],
                )
                .unwrap();
            }
            conn.execute_batch(
                "INSERT INTO chunks_fts (rowid, title, body, title_tab)
                 SELECT id, title, body, title_tab FROM chunks;
             COMMIT",
            )
            .unwrap();
            let history_row = "x".repeat(420);
            let (mut without, mut with) = (Samples::default(), Samples::default());
            for i in 0..writes + 50 {
                let n = (i * 7919) % ROWS;
                for indexed in [false, true] {
                    let body = text(n, i + 1);
                    let t = Instant::now();
                    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
                    conn.prepare_cached("INSERT INTO history (row) VALUES (?1)")
                        .unwrap()
                        .execute([&history_row])
                        .unwrap();
                    conn.prepare_cached("UPDATE notes SET version = version + 1 WHERE id = ?1")
                        .unwrap()
                        .execute([n])
                        .unwrap();
                    if indexed {
                        conn.prepare_cached("UPDATE chunks SET body = ?2 WHERE id = ?1")
                            .unwrap()
                            .execute(params![n, body])
                            .unwrap();
                    }
                    conn.execute_batch("COMMIT").unwrap();
                    let elapsed = t.elapsed();
                    if i >= 50 {
                        if indexed {
                            with.push(elapsed)
                        } else {
                            without.push(elapsed)
                        }
                    }
                }
            }
            let (a, b) = (without.stats().median, with.stats().median);
            println!(
                "| {variant} | {mode} | {:.0} us | {:.0} us | {:.2}x | {:.0} us |",
                micros(a),
                micros(b),
                b.as_secs_f64() / a.as_secs_f64(),
                micros(b) - micros(a)
            );
        }
    }
}

/// The FTS5 table as Quire makes it, and what else was tried: what the table adds to its
/// options, and statements run after it is made.
const VARIANTS: [(&str, &str, &str); 4] = [
    ("as 0010_search.sql", "", ""),
    (
        "detail = column (no positions: no phrases)",
        ", detail = column",
        "",
    ),
    (
        "no merging while writing (automerge 0)",
        "",
        "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 0);",
    ),
    (
        "contentless, contentless_delete = 1 (old words not read again)",
        "",
        "DROP TRIGGER chunks_au; DROP TABLE chunks_fts;
         CREATE VIRTUAL TABLE chunks_fts USING fts5 (title, body, title_tab, content = '',
             contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2');
         CREATE TRIGGER chunks_au AFTER UPDATE OF title, body, title_tab ON chunks BEGIN
             DELETE FROM chunks_fts WHERE rowid = old.id;
             INSERT INTO chunks_fts (rowid, title, body, title_tab)
             VALUES (new.id, new.title, new.body, new.title_tab);
         END;",
    ),
];
