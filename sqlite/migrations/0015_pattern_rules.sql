-- 0015_pattern_rules: pattern and regex rules, query conditions and hosts
-- (docs/contract.md#pattern-rules).
--
-- rules takes the match types pattern and regex, which its CHECK refuses,
-- so SQLite rebuilds the table as 0010 did: a new one, the rows copied with
-- their IDs, revisions, options and match keys, the AUTOINCREMENT sequence
-- carried over (so no deleted rule's ID is ever handed out again), then the
-- old one dropped (with its triggers and indexes) and the new one renamed.
-- New column:
--   host: the host key the rule is scoped to (docs/contract.md#hosts), ''
--     for a rule that answers every host.
-- A project holds one rule per match type, source and host
-- (docs/contract.md#keys): host is the last column of the UNIQUE index, so
-- the index still serves every range of sources of one match type. The
-- match_key index takes the host likewise.
CREATE TABLE rules_new (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id     TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	source         TEXT    NOT NULL,
	destination    TEXT    NOT NULL,
	status_code    INTEGER NOT NULL CHECK (status_code IN (301, 302, 303, 307, 308, 410)),
	match_type     TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex')),
	priority       INTEGER NOT NULL,
	created_at     INTEGER NOT NULL,
	revision       INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1),
	preserve_path  INTEGER NOT NULL DEFAULT 0 CHECK (preserve_path IN (0, 1)),
	preserve_query INTEGER NOT NULL DEFAULT 0 CHECK (preserve_query IN (0, 1)),
	match_key      TEXT,
	host           TEXT    NOT NULL DEFAULT '',
	UNIQUE (project_id, match_type, source, host)
) STRICT;

INSERT INTO rules_new (id, project_id, source, destination, status_code, match_type, priority, created_at, revision, preserve_path, preserve_query, match_key)
	SELECT id, project_id, source, destination, status_code, match_type, priority, created_at, revision, preserve_path, preserve_query, match_key FROM rules ORDER BY id;

DELETE FROM sqlite_sequence WHERE name = 'rules_new';
INSERT INTO sqlite_sequence (name, seq)
	SELECT 'rules_new', MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rules'), 0), COALESCE((SELECT MAX(id) FROM rules), 0));

DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;

CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE UNIQUE INDEX rules_match_key ON rules (project_id, match_type, match_key, host);

CREATE TRIGGER rules_count_insert AFTER INSERT ON rules BEGIN
	INSERT INTO rule_counts (project_id, n) VALUES (NEW.project_id, 1)
		ON CONFLICT (project_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rules_count_delete AFTER DELETE ON rules BEGIN
	UPDATE rule_counts SET n = n - 1 WHERE project_id = OLD.project_id;
END;

-- rule_hits counts the hits of rules of every match type: its CHECK takes
-- the new ones, which again means a rebuild.
CREATE TABLE rule_hits_new (
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	match_type TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex')),
	source     TEXT    NOT NULL,
	hits       INTEGER NOT NULL,
	last_hit   INTEGER NOT NULL,
	PRIMARY KEY (project_id, match_type, source)
) STRICT, WITHOUT ROWID;

INSERT INTO rule_hits_new (project_id, match_type, source, hits, last_hit)
	SELECT project_id, match_type, source, hits, last_hit FROM rule_hits;

DROP TABLE rule_hits;
ALTER TABLE rule_hits_new RENAME TO rule_hits;

CREATE INDEX rule_hits_by_source ON rule_hits (project_id, source);
