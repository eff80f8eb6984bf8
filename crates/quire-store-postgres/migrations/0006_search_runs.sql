-- The chunks of every tab but Markdown are now runs of units that depend on their own units
-- only (a sheet's rows in blocks of 64 cells: `quire_store::search::chunks`), so that a write
-- re-chunks what it touched, not its whole tab. The chunks made before are cut otherwise: the
-- index is emptied here and every Note indexed again in the upgrade's transaction
-- (`SEARCH_SCHEMA`).
TRUNCATE search_titles, search_tabs, search_chunks;
