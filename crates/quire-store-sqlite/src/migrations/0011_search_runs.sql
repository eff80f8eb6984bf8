-- The chunks of every tab but Markdown are now runs of units that depend on their own units
-- only (a sheet's rows in blocks of 64 cells: `quire_store::search::chunks`), so that a write
-- re-chunks what it touched, not its whole tab. The chunks made before are cut otherwise: the
-- index is emptied here and every Note indexed again in this migration's transaction
-- (`SEARCH_SCHEMA`). FTS5 forgets everything at once ('delete-all'), not chunk by chunk.
DROP TRIGGER search_chunks_ad;
DELETE FROM search_chunks;
INSERT INTO search_fts (search_fts) VALUES ('delete-all');
CREATE TRIGGER search_chunks_ad AFTER DELETE ON search_chunks BEGIN
    INSERT INTO search_fts (search_fts, rowid, title, body, title_tab)
    VALUES ('delete', old.id, old.title, old.body, old.title_tab);
END;
