-- Who holds a token, not which endpoint it calls, decides what it may do: a token is the
-- person's or an agent's (`kind`). Each version records which of them made it
-- (`author_kind`), and every approval of a Note for agents, and its withdrawal, is recorded.
--
-- NULL in either kind column means "made before kinds existed". Such a token counts as the
-- person's until the desktop app settles it (it knows its own person token; every other token
-- in its database was made by its "Connect an agent" panel). Such a version is an agent's when
-- its author is the name of an agent token and of no person token, else the person's: the
-- columns are added without rewriting a single row of history.

ALTER TABLE tokens ADD COLUMN kind TEXT CHECK (kind IN ('person', 'agent'));
ALTER TABLE versions ADD COLUMN author_kind TEXT CHECK (author_kind IN ('person', 'agent'));

-- Append-only: a row per change of `notes.agent_access`, by whom and when.
CREATE TABLE agent_access_changes (
    id         INTEGER PRIMARY KEY,
    nid        INTEGER NOT NULL,
    approved   INTEGER NOT NULL,
    changed_by TEXT    NOT NULL,
    changed_at TEXT    NOT NULL
) STRICT;
CREATE INDEX agent_access_changes_by_note ON agent_access_changes (nid, id);
