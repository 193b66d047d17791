-- 0008_insight: what the edge counts of a project's traffic (see
-- docs/contract.md "Hits and misses").

-- rule_hits holds each rule's lookups summed over every edge node, named
-- by match type and source so they carry over from one deployment to the
-- next. last_hit is the time of the flush that last added to it (Unix ns).
CREATE TABLE rule_hits (
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	match_type TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with')),
	source     TEXT    NOT NULL,
	hits       INTEGER NOT NULL,
	last_hit   INTEGER NOT NULL,
	PRIMARY KEY (project_id, match_type, source)
) STRICT, WITHOUT ROWID;

-- A page of rules reads the hits of its sources.
CREATE INDEX rule_hits_by_source ON rule_hits (project_id, source);

-- misses holds a project's most frequent paths that no rule answered,
-- summed over every edge node, with first and last seen (Unix ns).
CREATE TABLE misses (
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	path       TEXT    NOT NULL,
	count      INTEGER NOT NULL,
	first_seen INTEGER NOT NULL,
	last_seen  INTEGER NOT NULL,
	PRIMARY KEY (project_id, path)
) STRICT, WITHOUT ROWID;

CREATE INDEX misses_by_count ON misses (project_id, count DESC, path);
