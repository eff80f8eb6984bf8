-- No table changes: a new form of the `versions.strip` value. A version whose tabs, kinds and
-- labels (its layout) are those of the version before it stores
-- {"layout": V, "data_at": [...]} instead of the whole strip: V is the version whose row
-- spells the layout out. Rows written before keep their whole strip and read as before. The
-- schema number moves so that an older build, which cannot read the new form, refuses the file
-- instead of misreading it.
SELECT 1;
