-- 0001_initial: the first schema of the redirect store.
--
-- Conventions:
--   * Times are INTEGER unix nanoseconds (UTC), so they sort and compare as
--     numbers and round-trip exactly through time.Time.
--   * Limits (rate_limit_override, quota_override) are NULL when the tier's
--     default applies, -1 when unlimited, or a request count >= 0.
--   * Tables are STRICT, so a wrongly typed value is an error, not a silent
--     conversion.
--   * Child rows cascade on delete, so an operator who prunes a deployment or
--     removes a project deletes its dependants in one statement.

CREATE TABLE orgs (
	id                  TEXT    PRIMARY KEY,
	name                TEXT    NOT NULL,
	tier                TEXT    NOT NULL CHECK (tier IN ('free', 'pro', 'enterprise')),
	rate_limit_override INTEGER CHECK (rate_limit_override >= -1),
	quota_override      INTEGER CHECK (quota_override >= -1),
	created_at          INTEGER NOT NULL
) STRICT;

CREATE TABLE projects (
	id         TEXT    PRIMARY KEY,
	org_id     TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	name       TEXT    NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX projects_org_id ON projects (org_id);

-- rules holds the draft rules. AUTOINCREMENT keeps a deleted rule's ID from
-- being handed to a new rule, so "delete rule 12" from a stale listing can
-- never delete a different rule. The UNIQUE constraint's index also serves
-- every per-project query, as a covering index for conflict checks.
CREATE TABLE rules (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	project_id  TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	source      TEXT    NOT NULL,
	destination TEXT    NOT NULL,
	status_code INTEGER NOT NULL CHECK (status_code IN (301, 302)),
	match_type  TEXT    NOT NULL CHECK (match_type IN ('exact', 'starts_with')),
	priority    INTEGER NOT NULL,
	created_at  INTEGER NOT NULL,
	UNIQUE (project_id, match_type, source)
) STRICT;

-- keys holds API keys as SHA-256 hashes only; the secret is never stored.
CREATE TABLE keys (
	id         TEXT    PRIMARY KEY,
	project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	name       TEXT    NOT NULL,
	test       INTEGER NOT NULL CHECK (test IN (0, 1)),
	hash       TEXT    NOT NULL UNIQUE,
	last4      TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	revoked_at INTEGER
) STRICT;

CREATE INDEX keys_project_id ON keys (project_id);

-- deployments holds one immutable row per released version. rules is the
-- snapshot in redirects.EncodeRules form: one value, written once, read
-- whole, so a 1M-rule snapshot costs one blob instead of 1M rows.
CREATE TABLE deployments (
	project_id   TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	version      INTEGER NOT NULL CHECK (version >= 1),
	created_at   INTEGER NOT NULL,
	message      TEXT    NOT NULL,
	from_version INTEGER NOT NULL,
	exact_count  INTEGER NOT NULL,
	prefix_count INTEGER NOT NULL,
	report       TEXT    NOT NULL,
	rules        BLOB    NOT NULL,
	PRIMARY KEY (project_id, version)
) STRICT;

-- deployment_exports holds the files rendered at deploy time, served as
-- stored bytes.
CREATE TABLE deployment_exports (
	project_id TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	format     TEXT    NOT NULL,
	body       BLOB    NOT NULL,
	etag       TEXT    NOT NULL,
	PRIMARY KEY (project_id, version, format),
	FOREIGN KEY (project_id, version) REFERENCES deployments (project_id, version) ON DELETE CASCADE
) STRICT;

-- events is the change feed edge nodes poll. AUTOINCREMENT never reuses an
-- ID, and SQLite runs one write transaction at a time, so IDs are handed out
-- in commit order: a reader that saw event N can never later find a new
-- event below N.
CREATE TABLE events (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	kind       TEXT    NOT NULL,
	org_id     TEXT    NOT NULL,
	project_id TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;

-- usage counts live lookups per organization and calendar month ("2006-01").
CREATE TABLE usage (
	org_id TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	period TEXT    NOT NULL,
	count  INTEGER NOT NULL,
	PRIMARY KEY (org_id, period)
) STRICT, WITHOUT ROWID;

-- usage_period serves FindUsage, which reads one period for every org.
CREATE INDEX usage_period ON usage (period);
