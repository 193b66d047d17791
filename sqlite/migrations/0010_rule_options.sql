-- 0010_rule_options: the rule options and project settings of
-- docs/contract.md#rule-options.
--
-- projects and deployments get the matching settings: a project's are its
-- draft's, a deployment's are what the deploy froze.
ALTER TABLE projects ADD COLUMN case_sensitive INTEGER NOT NULL DEFAULT 1 CHECK (case_sensitive IN (0, 1));
ALTER TABLE projects ADD COLUMN trailing_slash TEXT NOT NULL DEFAULT 'exact' CHECK (trailing_slash IN ('exact', 'ignore'));
ALTER TABLE deployments ADD COLUMN case_sensitive INTEGER NOT NULL DEFAULT 1 CHECK (case_sensitive IN (0, 1));
ALTER TABLE deployments ADD COLUMN trailing_slash TEXT NOT NULL DEFAULT 'exact' CHECK (trailing_slash IN ('exact', 'ignore'));

-- rules takes the new statuses, which its CHECK refuses, so SQLite rebuilds
-- the table: a new one, the rows copied with their IDs, the AUTOINCREMENT
-- sequence carried over (so no deleted rule's ID is ever handed out again),
-- then the old one dropped (with its triggers and index) and the new one
-- renamed. New columns:
--   preserve_path, preserve_query: the rule's options.
--   match_key: the source as the project's settings compare it
--     (redirects.Settings.Key), NULL while the project has the default
--     settings, where the key is the source itself. Its UNIQUE index refuses
--     two rules of one match type that clash under the settings.
CREATE TABLE rules_new (
	id             INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id     TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	source         TEXT    NOT NULL,
	destination    TEXT    NOT NULL,
	status_code    INTEGER NOT NULL CHECK (status_code IN (301, 302, 303, 307, 308, 410)),
	match_type     TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with')),
	priority       INTEGER NOT NULL,
	created_at     INTEGER NOT NULL,
	revision       INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1),
	preserve_path  INTEGER NOT NULL DEFAULT 0 CHECK (preserve_path IN (0, 1)),
	preserve_query INTEGER NOT NULL DEFAULT 0 CHECK (preserve_query IN (0, 1)),
	match_key      TEXT,
	UNIQUE (project_id, match_type, source)
) STRICT;

INSERT INTO rules_new (id, project_id, source, destination, status_code, match_type, priority, created_at, revision)
	SELECT id, project_id, source, destination, status_code, match_type, priority, created_at, revision FROM rules ORDER BY id;

DELETE FROM sqlite_sequence WHERE name = 'rules_new';
INSERT INTO sqlite_sequence (name, seq)
	SELECT 'rules_new', MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rules'), 0), COALESCE((SELECT MAX(id) FROM rules), 0));

DROP TABLE rules;
ALTER TABLE rules_new RENAME TO rules;

CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE UNIQUE INDEX rules_match_key ON rules (project_id, match_type, match_key);

CREATE TRIGGER rules_count_insert AFTER INSERT ON rules BEGIN
	INSERT INTO rule_counts (project_id, n) VALUES (NEW.project_id, 1)
		ON CONFLICT (project_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rules_count_delete AFTER DELETE ON rules BEGIN
	UPDATE rule_counts SET n = n - 1 WHERE project_id = OLD.project_id;
END;
