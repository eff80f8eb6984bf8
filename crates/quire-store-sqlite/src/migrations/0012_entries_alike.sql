-- A version whose history entry (author, author kind, summary, changed tabs, outcomes) is that
-- of an older version's row names that version in `entry_at` and spells none of it out: its
-- `author`, `summary` and `changed_tab_ids` are '' and its `outcomes` and `author_kind` NULL.
-- The row named always spells its entry out. A person typing makes one such row per save,
-- about a hundred bytes smaller than a row that repeats the entry. Rows written before keep
-- their whole entry and read as before; the number makes an older build, which would read the
-- empty entry, refuse the file.
ALTER TABLE versions ADD COLUMN entry_at INTEGER;
