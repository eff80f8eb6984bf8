-- A long Markdown text edited a little is stored as one splice of the text before it, not
-- whole again: JSON {tab_id: {"base": V, "keep": bytes, "cut": bytes, "put": text}} (the text
-- at version V with `cut` bytes after the first `keep` replaced by `put`). A tab is either in
-- `data` or in `deltas` of the row its strip entry points at; NULL when no tab is spliced.
-- An older build, which cannot read the new column, refuses the file (schema number).
ALTER TABLE versions ADD COLUMN deltas TEXT;
