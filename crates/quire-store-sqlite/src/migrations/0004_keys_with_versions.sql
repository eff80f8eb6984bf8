-- A write's idempotency key is stored in the history row of the version it made, and indexed
-- in `write_keys` later, many keys at a time. Inserting each key into `write_keys` with its
-- write put a second b-tree page (the key's leaf) into every commit, next to the version's
-- row: a third of a NORMAL write's time and a larger fsync under FULL.
--
-- `write_keys` holds the keys of a Note's versions up to `notes.keys_through` (and the keys of
-- no-op writes, which make no version). A version after `keys_through` holds its own key in
-- `idem_key` / `idem_fingerprint`. The writer moves them into `write_keys` (and advances
-- `keys_through`) in the same transaction as the write that finds enough of them waiting, so
-- a Note never has more than a few dozen keys outside the index.

ALTER TABLE versions ADD COLUMN idem_key TEXT;
ALTER TABLE versions ADD COLUMN idem_fingerprint BLOB;
ALTER TABLE notes ADD COLUMN keys_through INTEGER NOT NULL DEFAULT 0;

-- Every key so far is in `write_keys`.
UPDATE notes SET keys_through = COALESCE(
    (SELECT max(key) FROM versions WHERE key >= (notes.nid << 32) AND key < ((notes.nid + 1) << 32))
        & 4294967295,
    0);
