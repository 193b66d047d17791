-- 0023_hit_counts: SQLite's rule_hits keeps its counts in a narrow table
-- of their own (its 0023); on PostgreSQL a flush updates rule_hits by its
-- key (see 0021), and nothing changes. The number is kept so both engines'
-- migrations count alike.
SELECT 1;
