-- The search index no longer changes inside a guarded write's transaction: the write lists its
-- Note here (the first write since the index was last brought up to date; later ones add
-- nothing), and the writer brings the index up to the Note's newest version a moment later, in
-- a later commit, and always before a search reads it (`src/search.rs`, `catch_up`). A Note
-- listed here is indexed as it was at `indexed_version`; a Note not listed is indexed at its
-- newest version. Writes of one Note in a burst are indexed once. An older build, which would
-- search past the listed Notes' newest versions, refuses the file by its number.
CREATE TABLE search_pending (
    nid             INTEGER PRIMARY KEY REFERENCES notes (nid),
    indexed_version INTEGER NOT NULL
) STRICT;
