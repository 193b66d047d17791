-- 0023_hit_counts: a rule's hits and last hit move out of rule_hits into
-- rule_hit_counts, a narrow table keyed by rule_hits' id. A flush rewrites
-- the counts of every rule it names; with the key's text beside them, each
-- rewrite copied the whole row and the flush wrote every page of the wide
-- table to the WAL and back. A counts row is three integers, so a flush
-- dirties a sixth of the pages. rule_hits keeps the key (project, match
-- type, source, host), unique, and its id; a counts row goes with its key
-- row (ON DELETE CASCADE), which goes with its project.
CREATE TABLE rule_hit_counts (
	id       INTEGER PRIMARY KEY REFERENCES rule_hits (id) ON DELETE CASCADE,
	hits     INTEGER NOT NULL,
	last_hit INTEGER NOT NULL
) STRICT;

INSERT INTO rule_hit_counts (id, hits, last_hit)
	SELECT id, hits, last_hit FROM rule_hits ORDER BY id;

ALTER TABLE rule_hits DROP COLUMN hits;
ALTER TABLE rule_hits DROP COLUMN last_hit;
