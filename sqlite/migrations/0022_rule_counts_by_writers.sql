-- 0022_rule_counts_by_writers: the bulk write path of rules without the
-- work it did not need. The table is rebuilt as 0015 did (a new one, the
-- rows copied with their IDs, revisions, options, keys and hosts, the
-- AUTOINCREMENT sequence carried over, the old one dropped with its
-- triggers and indexes, the new one renamed):
--
-- - Its CHECKs of status_code and match_type compare the value with each
--   allowed one in turn. As IN lists, SQLite built a temporary B-tree of
--   the list for every row it checked, two per inserted row; the values
--   they allow are the same.
-- - rule_counts (0003) was kept by triggers that ran once per inserted or
--   deleted row, an upsert of the project's count per rule. The writers of
--   rules keep it themselves, once per statement and in the same
--   transaction (sqlstore/rulecount.go), so the triggers are not created
--   again; the count is taken again here from the rules.
-- - rules_match_key (0015) makes the key that a project's settings compare
--   unique. Under the default settings match_key is NULL, and NULLs never
--   clash in a UNIQUE index, so those entries served nothing: it holds
--   only the rules that have a key. Its lookup (match_key = ?) and the
--   rewrite of keys (match_key IS NOT NULL) both imply its condition, so
--   SQLite uses it for them as before.
CREATE TABLE rules_new (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id     TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	source         TEXT    NOT NULL,
	destination    TEXT    NOT NULL,
	status_code    INTEGER NOT NULL CHECK (status_code = 301 OR status_code = 302 OR status_code = 303 OR status_code = 307 OR status_code = 308 OR status_code = 410),
	match_type     TEXT    NOT NULL CHECK (match_type = 'exact' OR match_type = 'starts_with' OR match_type = 'pattern' OR match_type = 'regex'),
	priority       INTEGER NOT NULL,
	created_at     INTEGER NOT NULL,
	revision       INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1),
	preserve_path  INTEGER NOT NULL DEFAULT 0 CHECK (preserve_path IN (0, 1)),
	preserve_query INTEGER NOT NULL DEFAULT 0 CHECK (preserve_query IN (0, 1)),
	match_key      TEXT,
	host           TEXT    NOT NULL DEFAULT '',
	UNIQUE (project_id, match_type, source, host)
) STRICT;

INSERT INTO rules_new (id, project_id, source, destination, status_code, match_type, priority, created_at, revision, preserve_path, preserve_query, match_key, host)
	SELECT id, project_id, source, destination, status_code, match_type, priority, created_at, revision, preserve_path, preserve_query, match_key, host FROM rules ORDER BY id;

DELETE FROM sqlite_sequence WHERE name = 'rules_new';
INSERT INTO sqlite_sequence (name, seq)
	SELECT 'rules_new', MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rules'), 0), COALESCE((SELECT MAX(id) FROM rules), 0));

DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;

CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE UNIQUE INDEX rules_match_key ON rules (project_id, match_type, match_key, host) WHERE match_key IS NOT NULL;

DELETE FROM rule_counts;
INSERT INTO rule_counts (project_id, n) SELECT project_id, count(*) FROM rules GROUP BY project_id;
