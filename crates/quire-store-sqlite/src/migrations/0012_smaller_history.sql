-- A version whose history entry (author, author kind, summary, changed tabs, outcomes) and title
-- are those of an older version's row names that version in `entry_at` and spells none of them
-- out: its `author`, `summary`, `changed_tab_ids` and `title` are '' and its `outcomes` and
-- `author_kind` NULL. Its `strip` is '' too when it is that row's strip with the tabs the entry
-- changed at this version. The row named always spells its entry out. A person typing makes one
-- such row per save, about 150 bytes smaller than a row that repeats it all. Rows written
-- before keep their whole entry and read as before; the number makes an older build, which
-- would read the empty entry, refuse the file.
ALTER TABLE versions ADD COLUMN entry_at INTEGER;

-- The keys of versions are indexed by a 31-bit hash of the key (the top bits of
-- `quire_store::search::text_hash`, XXH3) and the version whose row holds the key and its
-- request fingerprint: under 20 bytes a key, where `write_keys` repeated the key and the
-- fingerprint (about 90). A lookup reads the rows of the hash and takes the one whose version
-- holds the very key. `write_keys` keeps the keys indexed before, and those of no-op writes
-- (which make no version, and keep their whole fingerprint).
--
-- No table change: a version's `idem_fingerprint` keeps the first 16 bytes of the request's
-- SHA-256 (32 before).
CREATE TABLE version_keys (
    nid     INTEGER NOT NULL,
    hash    INTEGER NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (nid, hash, version)
) STRICT, WITHOUT ROWID;

-- No table change: a splice in `versions.deltas` leaves out its `base` when that is the version
-- before the row's own, and a `cut` of 0 (also in the ranges of `more`).

-- A version's `idem_key` is stored short (`src/stored_key.rs`): a UUID as `~` and its bytes in
-- base64url, a key starting with `~` with another in front. The keys of versions not indexed
-- yet are moved into `write_keys` here, as they are, so that no row written before is ever
-- read back as the short form.
INSERT INTO write_keys (nid, key, fingerprint, version)
    SELECT n.nid, v.idem_key, v.idem_fingerprint, v.key & 4294967295
    FROM notes AS n JOIN versions AS v
        ON v.key > (n.nid << 32) | n.keys_through AND v.key <= (n.nid << 32) | 4294967295
    WHERE v.idem_key IS NOT NULL;
UPDATE notes SET keys_through = coalesce(
    (SELECT max(key) & 4294967295 FROM versions
     WHERE key BETWEEN notes.nid << 32 AND (notes.nid << 32) | 4294967295),
    keys_through);
