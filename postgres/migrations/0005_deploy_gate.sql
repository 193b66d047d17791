-- 0005_deploy_gate: what the deploy gate needs of a project (see the
-- "Deploy safety" section of the README).

-- shrink_limit is the percentage of the live rules a deploy may remove
-- without an explicit confirmation. A constant DEFAULT adds the column
-- without rewriting the table.
ALTER TABLE projects ADD COLUMN shrink_limit INTEGER NOT NULL DEFAULT 10 CHECK (shrink_limit BETWEEN 0 AND 100);

-- project_tests holds a project's expected-outcome test file, as the user
-- stored it (CSV). A table of its own keeps the file, up to megabytes, out
-- of every read of a project.
CREATE TABLE project_tests (
	project_id TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
	body       TEXT NOT NULL
);
