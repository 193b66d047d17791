-- 0016_insight_hosts: hits and misses by host (docs/contract.md#keys).
--
-- A rule's hits are named by its match type, host and source, so two rules
-- that differ only in their host count apart; a miss is recorded under the
-- lookup's host key ('' for a lookup without one). Rows counted before
-- count as host-less, which they were. A primary key that changes means a
-- rebuild in SQLite.
CREATE TABLE rule_hits_new (
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	match_type TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex')),
	host       TEXT    NOT NULL DEFAULT '',
	source     TEXT    NOT NULL,
	hits       INTEGER NOT NULL,
	last_hit   INTEGER NOT NULL,
	PRIMARY KEY (project_id, match_type, source, host)
) STRICT, WITHOUT ROWID;

INSERT INTO rule_hits_new (project_id, match_type, host, source, hits, last_hit)
	SELECT project_id, match_type, '', source, hits, last_hit FROM rule_hits;

DROP TABLE rule_hits;
ALTER TABLE rule_hits_new RENAME TO rule_hits;

CREATE INDEX rule_hits_by_source ON rule_hits (project_id, source);

CREATE TABLE misses_new (
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	host       TEXT    NOT NULL DEFAULT '',
	path       TEXT    NOT NULL,
	count      INTEGER NOT NULL,
	first_seen INTEGER NOT NULL,
	last_seen  INTEGER NOT NULL,
	PRIMARY KEY (project_id, path, host)
) STRICT, WITHOUT ROWID;

INSERT INTO misses_new (project_id, host, path, count, first_seen, last_seen)
	SELECT project_id, '', path, count, first_seen, last_seen FROM misses;

DROP TABLE misses;
ALTER TABLE misses_new RENAME TO misses;

CREATE INDEX misses_by_count ON misses (project_id, count DESC, path);
