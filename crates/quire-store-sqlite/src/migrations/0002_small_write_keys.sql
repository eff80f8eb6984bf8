-- Smaller idempotency rows. In 0001 a key's row held the whole first result as JSON (~200
-- bytes) in a WITHOUT ROWID table, whose interior pages hold copies of whole rows: the tree
-- was deep and an insert often rebalanced three leaves and their parent, ~3.4 pages written
-- per accepted write. Now an accepted write's result is rebuilt from its history row (which
-- gains the write's `outcomes`), and a key's row holds only what finds it: about 60 bytes.

-- The outcomes of the write that made this version (JSON), NULL for a creation and for rows
-- written before this migration.
ALTER TABLE versions ADD COLUMN outcomes TEXT;

-- Idempotency keys, scoped per Note: the request's fingerprint (SHA-256), the version the
-- write left the Note at and, only when that version's history row cannot give it back (a
-- no-op write, or a key stored before this migration), the first result as JSON.
CREATE TABLE write_keys (
    nid         INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint BLOB    NOT NULL,
    version     INTEGER NOT NULL,
    result      TEXT,
    PRIMARY KEY (nid, key)
) STRICT, WITHOUT ROWID;

INSERT INTO write_keys (nid, key, fingerprint, version, result)
    SELECT nid, key, fingerprint, json_extract(result, '$.version'), result FROM idempotency;

DROP TABLE idempotency;
