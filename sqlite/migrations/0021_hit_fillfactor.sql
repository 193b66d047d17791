-- 0021_hit_fillfactor: PostgreSQL's rule_hits keeps half of each page free
-- for the flush's updates (its 0021). SQLite rewrites a row in place and
-- has no such setting: nothing changes here. The number is kept so both
-- engines' migrations count alike.
SELECT 1;
