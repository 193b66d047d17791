-- 0001_initial: the first schema of the redirect store on PostgreSQL.
--
-- The tables and columns are those of the SQLite store (sqlite/migrations),
-- so the two read alike. Conventions:
--   * Times are BIGINT unix nanoseconds (UTC), as in SQLite: they round-trip
--     exactly through time.Time, which timestamptz (microseconds) would not.
--   * Limits (rate_limit_override, quota_override) are NULL when the tier's
--     default applies, -1 when unlimited, or a request count >= 0.
--   * orgs, projects and keys have a seq column, filled from a sequence, so
--     "oldest first" has a stable order among rows created at the same clock
--     time (SQLite orders those by rowid).
--   * Rule sources and match types use the "C" collation: byte order, the
--     order of Go strings, so ImportRules, which sorts a batch in Go, sends
--     it in the UNIQUE index's order; it also compares far faster than a
--     locale's collation.
--   * Child rows cascade on delete, so an operator who prunes a deployment or
--     removes a project deletes its dependants in one statement.

CREATE TABLE orgs (
	id                  TEXT      PRIMARY KEY,
	seq                 BIGSERIAL NOT NULL,
	name                TEXT      NOT NULL,
	tier                TEXT      NOT NULL CHECK (tier IN ('free', 'pro', 'enterprise')),
	rate_limit_override BIGINT    CHECK (rate_limit_override >= -1),
	quota_override      BIGINT    CHECK (quota_override >= -1),
	created_at          BIGINT    NOT NULL
);

CREATE TABLE projects (
	id         TEXT      PRIMARY KEY,
	seq        BIGSERIAL NOT NULL,
	org_id     TEXT      NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	name       TEXT      NOT NULL,
	created_at BIGINT    NOT NULL
);

CREATE INDEX projects_org_id ON projects (org_id);

-- rules holds the draft rules. A sequence never hands out a value twice, so
-- a deleted rule's ID is never given to a new rule, and "delete rule 12" from
-- a stale listing can never delete a different rule. The UNIQUE constraint's
-- index also serves every per-project query, in (match type, source) order.
--
-- project_id has no FOREIGN KEY: PostgreSQL checks one with a query per
-- inserted row, which makes a million-rule COPY about three times slower.
-- The store instead locks the project's row FOR KEY SHARE once per AddRule
-- or ImportRules (the lock the check would take for every row), so the
-- project cannot be deleted while its rules go in, and the trigger below
-- deletes a project's rules with it (the key's ON DELETE CASCADE). Rules
-- inserted by hand, outside the store, are not checked.
CREATE TABLE rules (
	id          BIGSERIAL PRIMARY KEY,
	project_id  TEXT      NOT NULL,
	match_type  TEXT      COLLATE "C" NOT NULL CHECK (match_type IN ('exact', 'starts_with')),
	source      TEXT      COLLATE "C" NOT NULL,
	destination TEXT      NOT NULL,
	status_code INTEGER   NOT NULL CHECK (status_code IN (301, 302)),
	priority    INTEGER   NOT NULL,
	created_at  BIGINT    NOT NULL,
	UNIQUE (project_id, match_type, source)
);

-- delete_project_rules runs with the search_path of the migration, so it
-- finds this schema's rules whatever the deleting session's path is.
CREATE FUNCTION delete_project_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM rules WHERE project_id = OLD.id;
	RETURN OLD;
END
$$;

CREATE TRIGGER projects_delete_rules AFTER DELETE ON projects
	FOR EACH ROW EXECUTE FUNCTION delete_project_rules();

-- keys holds API keys as SHA-256 hashes only; the secret is never stored.
CREATE TABLE keys (
	id         TEXT      PRIMARY KEY,
	seq        BIGSERIAL NOT NULL,
	project_id TEXT      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	name       TEXT      NOT NULL,
	test       BOOLEAN   NOT NULL,
	hash       TEXT      NOT NULL UNIQUE,
	last4      TEXT      NOT NULL,
	created_at BIGINT    NOT NULL,
	revoked_at BIGINT
);

CREATE INDEX keys_project_id ON keys (project_id);

-- deployments holds one immutable row per released version. rules is the
-- snapshot in redirects.EncodeRules form: one value, written once, read
-- whole, so a 1M-rule snapshot costs one value instead of 1M rows.
CREATE TABLE deployments (
	project_id   TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	version      INTEGER NOT NULL CHECK (version >= 1),
	created_at   BIGINT  NOT NULL,
	message      TEXT    NOT NULL,
	from_version INTEGER NOT NULL,
	exact_count  INTEGER NOT NULL,
	prefix_count INTEGER NOT NULL,
	report       TEXT    NOT NULL,
	rules        BYTEA   NOT NULL,
	PRIMARY KEY (project_id, version)
);

-- deployment_exports holds the files rendered at deploy time, served as
-- stored bytes.
CREATE TABLE deployment_exports (
	project_id TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	format     TEXT    NOT NULL,
	body       BYTEA   NOT NULL,
	etag       TEXT    NOT NULL,
	PRIMARY KEY (project_id, version, format),
	FOREIGN KEY (project_id, version) REFERENCES deployments (project_id, version) ON DELETE CASCADE
);

-- Snapshots and export files are large values: a million rules make about
-- 90 MiB. lz4 compresses them about as well as PostgreSQL's default pglz at
-- several times the speed (such a snapshot is stored in 1 s instead of 4).
-- A server built without lz4 keeps pglz.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
		ALTER TABLE deployments ALTER COLUMN rules SET COMPRESSION lz4;
		ALTER TABLE deployment_exports ALTER COLUMN body SET COMPRESSION lz4;
	END IF;
END
$$;

-- events is the change feed edge nodes poll (and are told of by NOTIFY). A
-- sequence alone hands out IDs in the order transactions ask, not the order
-- they commit; the store therefore takes an advisory lock before it inserts
-- an event and holds it to commit (see recordEvent), so IDs follow commit
-- order: a reader that saw event N can never later find a new event below N.
CREATE TABLE events (
	id         BIGSERIAL PRIMARY KEY,
	kind       TEXT      NOT NULL,
	org_id     TEXT      NOT NULL,
	project_id TEXT      NOT NULL,
	version    INTEGER   NOT NULL,
	created_at BIGINT    NOT NULL
);

-- usage counts live lookups per organization and calendar month ("2006-01").
CREATE TABLE usage (
	org_id TEXT   NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	period TEXT   NOT NULL,
	count  BIGINT NOT NULL,
	PRIMARY KEY (org_id, period)
);

-- usage_period serves FindUsage, which reads one period for every org.
CREATE INDEX usage_period ON usage (period);
