-- The trash: when a Note was moved to it, in milliseconds since the Unix epoch; NULL: not in
-- the trash (every Note from before this schema). Kept in the Note's row, not in a version, so
-- that listings filter without reading content; each move in or out is also a version of its
-- own ("moved to trash", "restored from trash"). Beside PostgreSQL's 0005_trash.sql.

ALTER TABLE notes ADD COLUMN deleted_at INTEGER;

-- The trash listing and `trash empty --older-than-days` read only the trashed Notes.
CREATE INDEX notes_in_trash ON notes (deleted_at) WHERE deleted_at IS NOT NULL;
