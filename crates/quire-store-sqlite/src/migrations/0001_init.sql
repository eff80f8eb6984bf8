-- Quire's first schema. Migrations are append-only: never edit this file once released, add
-- 0002_*.sql.
--
-- An accepted write appends one `versions` row and one `idempotency` row, nothing else: two
-- b-tree pages, whatever the size of the Note.

-- A Note's identity. `nid` numbers it inside this file; its history is keyed by it.
CREATE TABLE notes (
    nid          INTEGER PRIMARY KEY,
    id           TEXT    NOT NULL UNIQUE,
    agent_access INTEGER NOT NULL DEFAULT 0,
    created_at   TEXT    NOT NULL
) STRICT;

-- Every version of every Note (version 1 is the creation), keyed `nid << 32 | version`, so that
-- one Note's history is one contiguous run of the table and its newest row is one seek away.
-- A row holds the small parts of the Note at that version (title, ID counter and the strip:
-- JSON [{id, kind, label, data_at}] in order) and the content of the tabs whose data this
-- version wrote (JSON {tab_id: data}). `data_at` names the version whose row holds a tab's
-- content, so a tab that did not change costs nothing, and a restore points at the old rows.
CREATE TABLE versions (
    key             INTEGER PRIMARY KEY,
    author          TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    summary         TEXT    NOT NULL,
    changed_tab_ids TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    seq             INTEGER NOT NULL,
    strip           TEXT    NOT NULL,
    data            TEXT    NOT NULL
) STRICT;

-- Idempotency keys, scoped per Note: the request's fingerprint (SHA-256) and the first result.
CREATE TABLE idempotency (
    nid         INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint BLOB    NOT NULL,
    result      TEXT    NOT NULL,
    PRIMARY KEY (nid, key)
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
