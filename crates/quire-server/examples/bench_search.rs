//! Full-text search on 10,000 Notes of about 2 KB of generated Markdown each (SQLite): search
//! p50 / p99 for one-word, two-word and phrase queries in the store (`Store::search`) and over
//! HTTP (`GET /search`, one keep-alive connection); the guarded write's median with the index
//! (the write alone, and the write with a catch-up of the index asked at once) and without it
//! (the same file with the index's tables swapped for views that drop every row: the index's
//! statements still run, against nothing); the file's size with and without the index (each
//! after `VACUUM`).
//!
//! `cargo run --release -p quire-server --example bench_search [-- --notes N --queries N --writes N]`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use quire_api::Scope;
use quire_model::{AuthorKind, NoteId, Op, TabId, Timestamp, Version};
use quire_server::ServeConfig;
use quire_store::search::{SearchQuery, SearchScope};
use quire_store::{Change, NewNote, Store, WriteRequest};
use quire_store_sqlite::{SqliteOptions, SqliteStore, Synchronous};
use quire_testkit::bench::{Samples, arg};

const NOW: Timestamp = Timestamp(1_796_019_882_000);

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// An index in `0..n`, small ones far more often (about Zipf-like).
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u) * n as f64) as usize
    }
}

/// A vocabulary of `n` pronounceable words, accented now and then.
fn vocabulary(rng: &mut Rng, n: usize) -> Vec<String> {
    const ONSETS: [&str; 16] = [
        "b", "c", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "br", "st", "tr",
    ];
    const VOWELS: [&str; 8] = ["a", "e", "i", "o", "u", "é", "ou", "ai"];
    let mut words = std::collections::BTreeSet::new();
    while words.len() < n {
        let syllables = 2 + rng.below(3);
        let word: String = (0..syllables)
            .map(|_| format!("{}{}", ONSETS[rng.below(16)], VOWELS[rng.below(8)]))
            .collect();
        words.insert(word);
    }
    let mut words: Vec<String> = words.into_iter().collect();
    // Shuffle, so that frequency does not follow the alphabet.
    for i in (1..words.len()).rev() {
        let j = rng.below(i + 1);
        words.swap(i, j);
    }
    words
}

/// About 2 KB of Markdown: paragraphs of skewed words.
fn text(rng: &mut Rng, words: &[String]) -> String {
    let mut out = String::new();
    while out.len() < 2_000 {
        let n = 30 + rng.below(40);
        let para: Vec<&str> = (0..n)
            .map(|_| words[rng.skewed(words.len())].as_str())
            .collect();
        out.push_str(&para.join(" "));
        out.push_str(".\n\n");
    }
    out
}

fn write_req(id: &NoteId, version: Version, i: usize, text: String) -> WriteRequest {
    WriteRequest {
        note_id: id.clone(),
        expected_version: version,
        idempotency_key: Some(format!("bench-{i}")),
        author: "bench".to_owned(),
        author_kind: AuthorKind::Person,
        change: Change::Ops(vec![Op::ReplaceText {
            tab_id: TabId::new(TabId::MARKDOWN),
            text,
        }]),
        now: NOW,
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn report(what: &str, samples: Samples) {
    let s = samples.stats();
    println!("| {what} | {} | {} |", ms(s.median), ms(s.p99));
}

struct Corpus {
    ids: Vec<NoteId>,
    texts: Vec<String>,
    words: Vec<String>,
}

async fn load(store: &SqliteStore, notes: usize) -> Corpus {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let words = vocabulary(&mut rng, 5_000);
    let mut ids = Vec::with_capacity(notes);
    let mut texts = Vec::with_capacity(notes);
    for n in 0..notes {
        let id = NoteId::from_uuid(uuid::Uuid::now_v7());
        let title = format!(
            "{} {} {n}",
            words[rng.skewed(words.len())],
            words[rng.below(words.len())]
        );
        store
            .create_note(NewNote {
                id: id.clone(),
                title,
                author: "bench".to_owned(),
                author_kind: AuthorKind::Person,
                now: NOW,
                idempotency_key: None,
            })
            .await
            .unwrap();
        let body = text(&mut rng, &words);
        store
            .write(write_req(&id, Version(1), n, body.clone()))
            .await
            .unwrap();
        ids.push(id);
        texts.push(body);
    }
    Corpus { ids, texts, words }
}

/// The three query sets: one word (of any frequency), two words of one Note, and two words in a
/// row of one Note as a quoted phrase.
fn queries(corpus: &Corpus, n: usize) -> [(&'static str, Vec<String>); 3] {
    let mut rng = Rng(42);
    let mut one = Vec::new();
    let mut two = Vec::new();
    let mut phrase = Vec::new();
    for _ in 0..n {
        one.push(corpus.words[rng.below(1_000)].clone());
        let text = &corpus.texts[rng.below(corpus.texts.len())];
        let words: Vec<&str> = text.split_whitespace().collect();
        let i = rng.below(words.len() - 1);
        let (a, b) = (
            words[i].trim_end_matches('.'),
            words[i + 1].trim_end_matches('.'),
        );
        two.push(format!(
            "{a} {}",
            words[rng.below(words.len())].trim_end_matches('.')
        ));
        phrase.push(format!("\"{a} {b}\""));
    }
    [("one word", one), ("two words", two), ("phrase", phrase)]
}

/// Replaces the index's tables of the file at `path` by views that keep nothing: the writes'
/// index statements still run, but write no row and no FTS5 entry.
fn without_index(path: &Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "DROP TABLE search_fts;
         DROP TABLE search_chunks;
         CREATE VIEW search_chunks AS SELECT 0 AS id, 0 AS nid, '' AS tab_id, '' AS tab_type,
             '' AS tab_label, 0 AS title_tab, 0 AS hash, '' AS title, '' AS body WHERE 0;
         CREATE TRIGGER search_chunks_ins INSTEAD OF INSERT ON search_chunks BEGIN SELECT 1; END;
         CREATE TRIGGER search_chunks_del INSTEAD OF DELETE ON search_chunks BEGIN SELECT 1; END;
         CREATE TRIGGER search_chunks_upd INSTEAD OF UPDATE ON search_chunks BEGIN SELECT 1; END;",
    )
    .unwrap();
}

fn vacuumed_size(path: &Path) -> u64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")
        .unwrap();
    drop(conn);
    std::fs::metadata(path).unwrap().len()
}

fn copy_db(from: &Path, to: &Path) {
    let conn = rusqlite::Connection::open(from).unwrap();
    conn.execute("VACUUM INTO ?1", [to.to_str().unwrap()])
        .unwrap();
}

fn main() {
    let notes = arg("--notes", 10_000);
    let per_set = arg("--queries", 1_000);
    let writes = arg("--writes", 2_000);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("search.db");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    let normal = SqliteOptions {
        synchronous: Synchronous::Normal,
        ..SqliteOptions::default()
    };
    let started = Instant::now();
    let (corpus, token) = rt.block_on(async {
        let store = SqliteStore::open(&db, normal.clone()).unwrap();
        let corpus = load(&store, notes).await;
        let token = quire_server::tokens::create(
            &store,
            "bench",
            &[Scope::NotesRead, Scope::NotesWrite],
            AuthorKind::Person,
        )
        .await
        .unwrap()
        .token;
        store.close().await.unwrap();
        (corpus, token)
    });
    println!(
        "{notes} Notes of about 2 KB loaded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let sets = queries(&corpus, per_set);

    println!("\n| search, limit 20 | p50 | p99 |\n| --- | ---: | ---: |");
    rt.block_on(async {
        let store = SqliteStore::open(&db, normal.clone()).unwrap();
        for (name, qs) in &sets {
            let mut samples = Samples::with_capacity(qs.len());
            let mut hits = 0;
            for (i, q) in qs.iter().cycle().take(qs.len() + 100).enumerate() {
                let t = Instant::now();
                let query = SearchQuery::parse(q).unwrap();
                let found = store
                    .search(&query, 20, SearchScope::AllNotes)
                    .await
                    .unwrap();
                if i >= 100 {
                    samples.push(t.elapsed());
                    hits += found.len();
                }
            }
            report(
                &format!(
                    "store, {name} ({:.1} hits on average)",
                    hits as f64 / qs.len() as f64
                ),
                samples,
            );
        }
        store.close().await.unwrap();
    });

    // Over HTTP: the server on its own runtime and threads, as the binary runs it.
    let config = ServeConfig {
        synchronous: Synchronous::Normal,
        ..ServeConfig::new(&db, SocketAddr::from(([127, 0, 0, 1], 0)))
    };
    let server = support::serve(config);
    let addr = server.addr;
    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    client.block_on(async {
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1)
            .build()
            .unwrap();
        let base = format!("http://{addr}/search");
        for (name, qs) in &sets {
            let mut samples = Samples::with_capacity(qs.len());
            for (i, q) in qs.iter().cycle().take(qs.len() + 100).enumerate() {
                let url = url::Url::parse_with_params(&base, [("q", q.as_str())]).unwrap();
                let t = Instant::now();
                let res = http.get(url).bearer_auth(&token).send().await.unwrap();
                assert!(res.status().is_success(), "{}", res.status());
                res.bytes().await.unwrap();
                if i >= 100 {
                    samples.push(t.elapsed());
                }
            }
            report(&format!("HTTP GET /search, {name}"), samples);
        }
    });
    server.stop();

    // The guarded write with and without the index: a one-word edit of a 2 KB Note, in
    // alternating blocks on two copies of the file, so that both see the same load. A SQLite
    // write lists its Note and the index catches up later (`search_pending`): on the copy with
    // the index, every write is followed by a catch-up asked at once, timed apart, so the
    // index's whole cost is measured as if each write brought it along.
    let with_path = dir.path().join("with.db");
    let without_path = dir.path().join("without.db");
    copy_db(&db, &with_path);
    copy_db(&db, &without_path);
    without_index(&without_path);
    // Each Note's version in each copy, across both modes.
    let mut versions = std::collections::HashMap::new();
    for (round, (mode, synchronous)) in
        [("NORMAL", Synchronous::Normal), ("FULL", Synchronous::Full)]
            .into_iter()
            .enumerate()
    {
        let opts = SqliteOptions {
            synchronous,
            ..SqliteOptions::default()
        };
        let measured = rt.block_on(async {
            let a = SqliteStore::open(&with_path, opts.clone()).unwrap();
            let b = SqliteStore::open(&without_path, opts.clone()).unwrap();
            let mut rng = Rng(7 + round as u64);
            let mut samples = [
                Samples::with_capacity(writes),
                Samples::with_capacity(writes),
            ];
            let mut caught_up = Samples::with_capacity(writes);
            let block = 100;
            for i in 0..writes * 2 + 2 * block {
                let which = (i / block) % 2;
                let store = if which == 0 { &a } else { &b };
                let n = rng.below(corpus.ids.len());
                let id = &corpus.ids[n];
                let version = *versions.entry((which, n)).or_insert(2u64);
                let edited = corpus.texts[n].replacen(' ', &format!(" edit{i} "), 1);
                let t = Instant::now();
                store
                    .write(write_req(id, Version(version), 1_000_000 + i, edited))
                    .await
                    .unwrap();
                let took = t.elapsed();
                let t = Instant::now();
                store.catch_up_search().await.unwrap();
                let catching_up = t.elapsed();
                versions.insert((which, n), version + 1);
                if i >= 2 * block {
                    samples[which].push(took);
                    if which == 0 {
                        caught_up.push(took + catching_up);
                    }
                }
            }
            a.close().await.unwrap();
            b.close().await.unwrap();
            let [with, without] = samples;
            (
                with.stats().median,
                caught_up.stats().median,
                without.stats().median,
            )
        });
        let (with, caught_up, without) = measured;
        println!(
            "\nguarded write ({mode}), one-word edit of a 2 KB Note, median: with the index {} \
             (the write alone; with its catch-up at once {}), without {}: {:.2}x ({:.2}x)",
            ms(with),
            ms(caught_up),
            ms(without),
            with.as_secs_f64() / without.as_secs_f64(),
            caught_up.as_secs_f64() / without.as_secs_f64()
        );
    }

    let with_size = vacuumed_size(&with_path);
    let bare = dir.path().join("bare.db");
    copy_db(&with_path, &bare);
    let conn = rusqlite::Connection::open(&bare).unwrap();
    conn.execute_batch("DROP TABLE search_fts; DROP TABLE search_chunks;")
        .unwrap();
    drop(conn);
    let without_size = vacuumed_size(&bare);
    println!(
        "\ndatabase size after VACUUM: with the index {:.1} MB, without {:.1} MB (+{:.0}%)",
        with_size as f64 / 1e6,
        without_size as f64 / 1e6,
        (with_size as f64 / without_size as f64 - 1.0) * 100.0
    );
}
