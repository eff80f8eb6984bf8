-- Quire's first PostgreSQL schema. SQLite's migrations live beside the SQLite store
-- (crates/quire-store/src/sqlite/migrations/), numbered the same way; the two schemas hold the
-- same things, each laid out for its engine. Migrations are append-only: never edit this file,
-- add 0002_*.sql and list it in src/schema.rs.
--
-- Contents (tab data, results) are JSON kept as `text`: the store never looks inside them, and
-- text skips jsonb's parse on every write. IDs and keys compare byte-wise (COLLATE "C"),
-- whatever the database's locale. No foreign keys: every write is one statement that keeps the
-- tables consistent, and a foreign key check would cost a lookup and a row lock per write.

-- The current state of each Note, minus tab contents: title, version counter, ID counter and
-- the tab strip (JSON [{id, kind, label}] in order; `tab_ids` is its IDs, for the queries).
CREATE TABLE notes (
    id           text    COLLATE "C" NOT NULL PRIMARY KEY,
    title        text    NOT NULL,
    version      bigint  NOT NULL,
    seq          bigint  NOT NULL,
    strip        text    NOT NULL,
    tab_ids      text[]  NOT NULL,
    agent_access boolean NOT NULL DEFAULT false,
    created_at   text    NOT NULL,
    updated_at   text    NOT NULL
);

-- One row per accepted write (version 1 is the creation): who, when, what, and the small
-- parts of the Note at that version (title, ID counter, strip).
CREATE TABLE versions (
    note_id         text   COLLATE "C" NOT NULL,
    version         bigint NOT NULL,
    author          text   NOT NULL,
    created_at      text   NOT NULL,
    summary         text   NOT NULL,
    changed_tab_ids text[] NOT NULL,
    title           text   NOT NULL,
    seq             bigint NOT NULL,
    strip           text   NOT NULL,
    tab_ids         text[] NOT NULL,
    PRIMARY KEY (note_id, version)
);

-- A tab's content, written only at the versions where it changed. The content of tab T at
-- version V is the row with the greatest version <= V (one backward index seek).
CREATE TABLE tab_versions (
    note_id text   COLLATE "C" NOT NULL,
    tab_id  text   COLLATE "C" NOT NULL,
    version bigint NOT NULL,
    data    text   NOT NULL,
    PRIMARY KEY (note_id, tab_id, version)
);

-- Idempotency keys, scoped per Note: the request's fingerprint and the first result. The
-- primary key is what makes two racing writes with one key end as one write and one replay.
CREATE TABLE idempotency (
    note_id     text COLLATE "C" NOT NULL,
    key         text COLLATE "C" NOT NULL,
    fingerprint text NOT NULL,
    result      text NOT NULL,
    PRIMARY KEY (note_id, key)
);

-- Idempotency keys of Note creation, scoped per author.
CREATE TABLE note_creations (
    author  text COLLATE "C" NOT NULL,
    key     text COLLATE "C" NOT NULL,
    note_id text NOT NULL,
    PRIMARY KEY (author, key)
);

-- Bearer tokens, by hash only.
CREATE TABLE tokens (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL,
    hash       text COLLATE "C" NOT NULL UNIQUE,
    scopes     text NOT NULL,
    created_at text NOT NULL
);
