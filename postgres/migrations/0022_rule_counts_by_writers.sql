-- 0022_rule_counts_by_writers: SQLite's per-row triggers that kept
-- rule_counts gave way to its writers (its 0022); PostgreSQL's triggers run
-- once per statement and stay, and nothing changes here. The number is kept
-- so both engines' migrations count alike.
SELECT 1;
