-- Full-text search (see `src/search.rs`). A tab is indexed in chunks (lines grouped into a few
-- KiB, rows, slides, sources, file names: `quire_store::search::chunks`), one row each, keyed
-- by Note, tab and the chunk's hash, so a write re-indexes only the chunks it changed. Every
-- row carries the Note's title (the title counts as part of each tab) and its tab's label and
-- type (what a hit shows). `title_tab`: the tab a match in the title alone is reported in.
-- Kept in the same transaction as the write that changes what it indexes; the rows of the
-- existing Notes are written right after this migration, in its transaction.
CREATE TABLE search_chunks (
    id        INTEGER PRIMARY KEY,
    nid       INTEGER NOT NULL REFERENCES notes (nid),
    tab_id    TEXT    NOT NULL,
    tab_type  TEXT    NOT NULL,
    tab_label TEXT    NOT NULL,
    title_tab INTEGER NOT NULL,
    hash      INTEGER NOT NULL,
    title     TEXT    NOT NULL,
    body      TEXT    NOT NULL
) STRICT;

CREATE INDEX search_chunks_by_tab ON search_chunks (nid, tab_id, hash);

-- The words of `search_chunks` (external content: the text is stored once), case- and
-- accent-folded. `title_tab` is indexed too (the token 1 or 0), so that one MATCH can say "in
-- the body, or in the title tab's row".
CREATE VIRTUAL TABLE search_fts USING fts5 (
    title, body, title_tab,
    content = 'search_chunks', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_chunks_ai AFTER INSERT ON search_chunks BEGIN
    INSERT INTO search_fts (rowid, title, body, title_tab)
    VALUES (new.id, new.title, new.body, new.title_tab);
END;

CREATE TRIGGER search_chunks_ad AFTER DELETE ON search_chunks BEGIN
    INSERT INTO search_fts (search_fts, rowid, title, body, title_tab)
    VALUES ('delete', old.id, old.title, old.body, old.title_tab);
END;

-- A new label or type costs nothing in the words; a new title re-indexes the Note's chunks.
CREATE TRIGGER search_chunks_au AFTER UPDATE OF title, body, title_tab ON search_chunks BEGIN
    INSERT INTO search_fts (search_fts, rowid, title, body, title_tab)
    VALUES ('delete', old.id, old.title, old.body, old.title_tab);
    INSERT INTO search_fts (rowid, title, body, title_tab)
    VALUES (new.id, new.title, new.body, new.title_tab);
END;
