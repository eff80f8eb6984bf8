-- Quire's first schema. Migrations are append-only: never edit this file, add 0002_*.sql.
--
-- The history tables are WITHOUT ROWID, clustered on their key: an accepted write then dirties
-- one b-tree page per table it appends to (not a table page plus an index page), which is
-- most of its cost.

-- The current state of each Note, minus tab contents: title, version counter, ID counter and
-- the tab strip (JSON [{id, kind, label}] in order).
CREATE TABLE notes (
    id           TEXT    NOT NULL PRIMARY KEY,
    title        TEXT    NOT NULL,
    version      INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    strip        TEXT    NOT NULL,
    agent_access INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT    NOT NULL,
    updated_at   TEXT    NOT NULL
) STRICT;

-- One row per accepted write (version 1 is the creation): who, when, what, and the small
-- parts of the Note at that version (title, ID counter, strip).
CREATE TABLE versions (
    note_id         TEXT    NOT NULL,
    version         INTEGER NOT NULL,
    author          TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    summary         TEXT    NOT NULL,
    changed_tab_ids TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    seq             INTEGER NOT NULL,
    strip           TEXT    NOT NULL,
    PRIMARY KEY (note_id, version)
) STRICT, WITHOUT ROWID;

-- A tab's content, written only at the versions where it changed. The content of tab T at
-- version V is the row with the greatest version <= V (one index seek).
CREATE TABLE tab_versions (
    note_id TEXT    NOT NULL,
    tab_id  TEXT    NOT NULL,
    version INTEGER NOT NULL,
    data    TEXT    NOT NULL,
    PRIMARY KEY (note_id, tab_id, version)
) STRICT, WITHOUT ROWID;

-- Idempotency keys, scoped per Note: the request's fingerprint and the first result.
CREATE TABLE idempotency (
    note_id     TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    result      TEXT NOT NULL,
    PRIMARY KEY (note_id, key)
) STRICT, WITHOUT ROWID;

-- Idempotency keys of Note creation, scoped per author.
CREATE TABLE note_creations (
    author  TEXT NOT NULL,
    key     TEXT NOT NULL,
    note_id TEXT NOT NULL,
    PRIMARY KEY (author, key)
) STRICT, WITHOUT ROWID;

-- Bearer tokens, by hash only.
CREATE TABLE tokens (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    hash       TEXT NOT NULL UNIQUE,
    scopes     TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;
