-- 0019_destination_checks: where each destination of a project's live
-- version led when last checked (docs/contract.md#destination-checks).
--
-- destination_checks: one row per project and distinct destination, all
--   of a project's rows replaced at the end of a check in one
--   transaction: outcome (ok, offsite, broken, timeout, loop, error,
--   refused), the final status (0: none), final URL and redirects
--   followed, the time taken (nanoseconds) and checked_at (Unix
--   nanoseconds).
CREATE TABLE destination_checks (
	project_id  TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	destination TEXT    COLLATE "C" NOT NULL,
	url         TEXT    NOT NULL,
	outcome     TEXT    NOT NULL,
	status      BIGINT  NOT NULL,
	final_url   TEXT    NOT NULL,
	hops        BIGINT  NOT NULL,
	duration    BIGINT  NOT NULL,
	checked_at  BIGINT  NOT NULL,
	error       TEXT    NOT NULL,
	PRIMARY KEY (project_id, destination)
);

-- destination_check_runs: the scheduled checks' lease per project
-- (serve --check-destinations-every): the node that owns it until
-- lease_until (Unix nanoseconds, 0 when released) runs the project's
-- check; started_at is when the last scheduled check started, so the
-- next is due a period later whichever node runs it.
CREATE TABLE destination_check_runs (
	project_id  TEXT    NOT NULL PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
	owner       TEXT    NOT NULL,
	lease_until BIGINT  NOT NULL,
	started_at  BIGINT  NOT NULL
);
