-- Who holds a token, not which endpoint it calls, decides what it may do: a token is the
-- person's or an agent's (`kind`). Each version records which of them made it
-- (`author_kind`), and every approval of a Note for agents, and its withdrawal, is recorded.
-- As in SQLite's 0006_author_kinds.sql: NULL in either kind column means "made before kinds
-- existed" (a token counts as the person's until settled; a version is an agent's when its
-- author is the name of an agent token and of no person token), so no history row is
-- rewritten.

ALTER TABLE tokens ADD COLUMN kind text CHECK (kind IN ('person', 'agent'));
ALTER TABLE versions ADD COLUMN author_kind text CHECK (author_kind IN ('person', 'agent'));

-- Append-only: a row per change of `notes.agent_access`, by whom and when.
CREATE TABLE agent_access_changes (
    id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    note_id    text    COLLATE "C" NOT NULL,
    approved   boolean NOT NULL,
    changed_by text    NOT NULL,
    changed_at text    NOT NULL
);
CREATE INDEX agent_access_changes_by_note ON agent_access_changes (note_id, id);
