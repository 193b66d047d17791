-- 0024_destination_check_jobs: the checks of a project's destinations that
-- run in the background (docs/contract.md#destination-checks), started
-- through the management API, the dashboard, the command line or the
-- schedule, and read while they run.
--
-- destination_check_jobs: one row per check: its state (running, done,
--   failed), the node that runs it (owner) until lease_until (Unix
--   nanoseconds; renewed as it goes, a running check whose lease ran out
--   is failed, abandoned), the base URL of relative destinations, how
--   many destinations it requests (total), how many are done (checked)
--   and broken so far, how many were skipped, when it started and ended
--   (Unix nanoseconds, 0 while it runs), why it failed, and a done
--   check's report (JSON, '' otherwise). At most one running check per
--   project (the partial unique index); a project keeps its 10 latest.
CREATE TABLE destination_check_jobs (
	id          TEXT    NOT NULL PRIMARY KEY,
	project_id  TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	state       TEXT    NOT NULL CHECK (state IN ('running', 'done', 'failed')),
	owner       TEXT    NOT NULL,
	lease_until INTEGER NOT NULL,
	base_url    TEXT    NOT NULL,
	total       INTEGER NOT NULL,
	checked     INTEGER NOT NULL,
	broken      INTEGER NOT NULL,
	skipped     INTEGER NOT NULL,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER NOT NULL,
	error       TEXT    NOT NULL,
	report      TEXT    NOT NULL
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX destination_check_jobs_running ON destination_check_jobs (project_id) WHERE state = 'running';
CREATE INDEX destination_check_jobs_by_project ON destination_check_jobs (project_id, started_at);
