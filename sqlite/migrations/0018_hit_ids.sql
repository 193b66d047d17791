-- 0018_hit_ids: each rule_hits row gets an integer id that is never reused
-- (AUTOINCREMENT), so a node that flushed a rule's hits once updates its
-- row by that id afterwards: a descent of integer keys, three integers
-- bound, instead of a descent compared on the project, match type, source
-- and host. The key stays unique. A primary key that changes means a
-- rebuild in SQLite.
CREATE TABLE rule_hits_new (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	match_type TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex')),
	host       TEXT    NOT NULL DEFAULT '',
	source     TEXT    NOT NULL,
	hits       INTEGER NOT NULL,
	last_hit   INTEGER NOT NULL,
	UNIQUE (project_id, match_type, source, host)
) STRICT;

INSERT INTO rule_hits_new (project_id, match_type, host, source, hits, last_hit)
	SELECT project_id, match_type, host, source, hits, last_hit FROM rule_hits
	ORDER BY project_id, match_type, source, host;

DROP TABLE rule_hits;
ALTER TABLE rule_hits_new RENAME TO rule_hits;

CREATE INDEX rule_hits_by_source ON rule_hits (project_id, source);
