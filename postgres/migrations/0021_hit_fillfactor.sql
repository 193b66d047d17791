-- 0021_hit_fillfactor: rule_hits pages are kept half empty (fillfactor
-- 50), so a flush's UPDATE of a row's hits and last_hit, neither of them
-- indexed, writes the new row version on the row's own page: a HOT update,
-- which adds no entry to the table's two indexes and writes a fifth of the
-- WAL. With full pages every update moved its row to another page and
-- wrote an entry in each index. CLUSTER rewrites the table at the new
-- fillfactor (in key order, the order flushes write in); the rows and
-- their counts are kept as they are.
ALTER TABLE rule_hits SET (fillfactor = 50);
CLUSTER rule_hits USING rule_hits_pkey;
