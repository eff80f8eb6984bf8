-- Tokens people can manage: an optional end (`token create --expires-in-days`), revocation
-- (`token revoke`: the row stays, so history keeps telling who its author was) and about when
-- each was last used. Times are milliseconds since the Unix epoch; NULL: none. Beside SQLite's
-- 0007_token_lifetimes.sql.

ALTER TABLE tokens ADD COLUMN expires_at bigint;
ALTER TABLE tokens ADD COLUMN revoked_at bigint;
ALTER TABLE tokens ADD COLUMN last_used_at bigint;

CREATE INDEX tokens_by_name ON tokens (name);
