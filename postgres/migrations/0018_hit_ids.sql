-- 0018_hit_ids: nothing on PostgreSQL. The SQLite store's 0018 rebuilds
-- rule_hits with an integer id; PostgreSQL's flush of hits needs no such
-- change. This file keeps the two engines' versions in step, so that
-- 0019 is 0019 on both.
SELECT 1;
