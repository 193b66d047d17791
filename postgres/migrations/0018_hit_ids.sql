-- 0018_hit_ids: SQLite's rule_hits got an integer id (its 0018); on
-- PostgreSQL a flush updates its rows by their key (see 0021), and
-- nothing changes. The number is kept so both engines' migrations count
-- alike.
SELECT 1;
