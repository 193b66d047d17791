-- 0029_hit_batches: SQLite's flush appends batches as PostgreSQL's does
-- since its 0025; nothing changes here. The number is kept so both
-- engines' migrations count alike.
SELECT 1;
