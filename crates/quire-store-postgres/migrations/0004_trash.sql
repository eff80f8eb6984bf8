-- The trash: when a Note was moved to it, in milliseconds since the Unix epoch; NULL: not in
-- the trash (every Note from before this schema). Beside SQLite's 0009_trash.sql.

ALTER TABLE notes ADD COLUMN deleted_at bigint;

CREATE INDEX notes_in_trash ON notes (deleted_at) WHERE deleted_at IS NOT NULL;
