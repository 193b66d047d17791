-- 0029_hit_batches: a flush of rows a store has flushed before appends one
-- row to rule_hit_batches (the rows' ids, hits and last hits, 32 bytes an
-- entry, the format of PostgreSQL's 0025, whose token is 0 here), instead
-- of rewriting a row of rule_hit_counts per rule; a read of hits adds the
-- pending batches to the counts it reads, and a fold adds them to
-- rule_hit_counts, each row once, when a million entries wait. rule_hit_generation changes with every delete of a
-- rule_hit_counts row (a delete of rule_hits rows deletes their counts:
-- the foreign key cascades; a store remembers only rows that have counts;
-- a second trigger, on rule_hits, doubled the trigger's cost in a
-- project's delete). An append names the generation its store read its
-- ids under and is refused once it changed, so a store never appends by
-- an id whose counts are gone; the next flush by key folds first, so a
-- batch appended before counts went never adds to the counts written in
-- their place.
CREATE TABLE rule_hit_batches (
	seq     INTEGER PRIMARY KEY,
	n       INTEGER NOT NULL,
	entries BLOB NOT NULL
);
CREATE TABLE rule_hit_generation (
	one INTEGER PRIMARY KEY CHECK (one = 1),
	gen INTEGER NOT NULL
);
INSERT INTO rule_hit_generation (one, gen) VALUES (1, 0);
CREATE TRIGGER rule_hit_counts_generation AFTER DELETE ON rule_hit_counts
BEGIN
	UPDATE rule_hit_generation SET gen = gen + 1;
END;
