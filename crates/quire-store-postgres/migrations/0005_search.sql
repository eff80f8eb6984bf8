-- Full-text search (see src/search.rs). A tab is indexed in chunks (lines grouped into a few
-- KiB, rows, slides, sources, file names: `quire_store::search::chunks`), one row each, keyed
-- by Note, tab and the chunk's hash, so a write re-indexes only the chunks it changed. The
-- words are computed by the store (`quire_store::search::tsvector`: case- and accent-folded,
-- the very words the SQLite store's tokenizer finds) and stored as `tsvector`s, no text search
-- configuration in between. The title's words are kept once per Note (a rename costs one row),
-- the labels once per tab. Written by the same statement as the write that changes them; the
-- rows of the Notes already there are written by this migration's transaction.
CREATE TABLE search_titles (
    note_id   text     COLLATE "C" NOT NULL PRIMARY KEY,
    title_tsv tsvector NOT NULL
);
CREATE INDEX search_titles_words ON search_titles USING gin (title_tsv);

CREATE TABLE search_tabs (
    note_id   text COLLATE "C" NOT NULL,
    tab_id    text COLLATE "C" NOT NULL,
    tab_type  text NOT NULL,
    tab_label text NOT NULL,
    PRIMARY KEY (note_id, tab_id)
);

-- `title_tab`: the tab a match in the title alone is reported in.
CREATE TABLE search_chunks (
    id        bigserial PRIMARY KEY,
    note_id   text      COLLATE "C" NOT NULL,
    tab_id    text      COLLATE "C" NOT NULL,
    title_tab boolean   NOT NULL,
    hash      bigint    NOT NULL,
    body      text      NOT NULL,
    body_tsv  tsvector  NOT NULL
);
CREATE INDEX search_chunks_words ON search_chunks USING gin (body_tsv);
CREATE INDEX search_chunks_by_tab ON search_chunks (note_id, tab_id, hash);
