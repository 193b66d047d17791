-- 0010_rule_options: the rule options and project settings of
-- docs/contract.md#rule-options.
--
-- projects and deployments get the matching settings: a project's are its
-- draft's, a deployment's are what the deploy froze.
ALTER TABLE projects
	ADD COLUMN case_sensitive BOOLEAN NOT NULL DEFAULT TRUE,
	ADD COLUMN trailing_slash TEXT NOT NULL DEFAULT 'exact' CHECK (trailing_slash IN ('exact', 'ignore'));
ALTER TABLE deployments
	ADD COLUMN case_sensitive BOOLEAN NOT NULL DEFAULT TRUE,
	ADD COLUMN trailing_slash TEXT NOT NULL DEFAULT 'exact' CHECK (trailing_slash IN ('exact', 'ignore'));

-- rules takes the new statuses, and the options. match_key is the source as
-- the project's settings compare it (redirects.Settings.Key), NULL while
-- the project has the default settings, where the key is the source itself;
-- its UNIQUE index refuses two rules of one match type that clash under the
-- settings. Adding columns with constant defaults rewrites no row.
ALTER TABLE rules DROP CONSTRAINT rules_status_code_check;
ALTER TABLE rules
	ADD CONSTRAINT rules_status_code_check CHECK (status_code IN (301, 302, 303, 307, 308, 410)),
	ADD COLUMN preserve_path BOOLEAN NOT NULL DEFAULT FALSE,
	ADD COLUMN preserve_query BOOLEAN NOT NULL DEFAULT FALSE,
	ADD COLUMN match_key TEXT COLLATE "C";
CREATE UNIQUE INDEX rules_match_key ON rules (project_id, match_type, match_key);
