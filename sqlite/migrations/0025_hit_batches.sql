-- 0025_hit_batches: PostgreSQL's flush appends batches that a fold adds to
-- rule_hits (its 0025); SQLite updates rule_hit_counts by id (0023), and
-- nothing changes. The number is kept so both engines' migrations count
-- alike.
SELECT 1;
