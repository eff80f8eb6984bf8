-- Tokens people can manage: an optional end (`token create --expires-in-days`), revocation
-- (`token revoke`: the row stays, so history keeps telling who its author was) and about when
-- each was last used. Times are milliseconds since the Unix epoch; NULL: none (a token made
-- before this schema never expires and has not been used since).

ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE tokens ADD COLUMN revoked_at INTEGER;
ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;

-- `token revoke --name` finds every token of that name.
CREATE INDEX tokens_by_name ON tokens (name);
