-- 0002_accounts: users, their roles in organizations, management tokens,
-- dashboard sessions and the audit log.
--
-- Secrets are never stored: passwords as argon2id hashes (PHC strings),
-- tokens and session cookies as SHA-256 hashes.

CREATE TABLE users (
	id            TEXT    PRIMARY KEY,
	-- email is normalized (trimmed, lower-case) before it is stored, so
	-- UNIQUE holds one account per address.
	email         TEXT    NOT NULL UNIQUE,
	password_hash TEXT    NOT NULL,
	operator      INTEGER NOT NULL CHECK (operator IN (0, 1)),
	created_at    INTEGER NOT NULL,
	disabled_at   INTEGER
) STRICT;

CREATE TABLE members (
	org_id     TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	user_id    TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	role       TEXT    NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
	created_at INTEGER NOT NULL,
	PRIMARY KEY (org_id, user_id)
) STRICT;

CREATE INDEX members_user_id ON members (user_id);

-- management_tokens.created_by is NULL for a token made on the command
-- line without a user; the audit log names who ran the command.
CREATE TABLE management_tokens (
	id           TEXT    PRIMARY KEY,
	org_id       TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	role         TEXT    NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
	label        TEXT    NOT NULL,
	hash         TEXT    NOT NULL UNIQUE,
	last4        TEXT    NOT NULL,
	created_by   TEXT    REFERENCES users (id) ON DELETE SET NULL,
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	last_used_at INTEGER,
	revoked_at   INTEGER
) STRICT;

CREATE INDEX management_tokens_org_id ON management_tokens (org_id);
CREATE INDEX management_tokens_created_by ON management_tokens (created_by);

CREATE TABLE sessions (
	id           TEXT    PRIMARY KEY,
	hash         TEXT    NOT NULL UNIQUE,
	user_id      TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	csrf_token   TEXT    NOT NULL,
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	last_seen_at INTEGER NOT NULL
) STRICT;

CREATE INDEX sessions_user_id ON sessions (user_id);

-- audit_log records every change, in the transaction of the change. It has
-- no foreign keys: entries outlive what they name. org_id and project_id
-- are '' when the change belongs to none (a user created by an operator).
-- before and after are JSON objects of the fields the change touched, or
-- NULL. AUTOINCREMENT keeps IDs in commit order (one writer at a time), so
-- "newest first" is ORDER BY id DESC.
CREATE TABLE audit_log (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	at          INTEGER NOT NULL,
	org_id      TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	actor_kind  TEXT    NOT NULL CHECK (actor_kind IN ('cli', 'user', 'token', 'system')),
	actor_id    TEXT    NOT NULL,
	actor_label TEXT    NOT NULL,
	remote_addr TEXT    NOT NULL,
	action      TEXT    NOT NULL,
	object_type TEXT    NOT NULL,
	object_id   TEXT    NOT NULL,
	before      TEXT,
	after       TEXT
) STRICT;

CREATE INDEX audit_log_org_id ON audit_log (org_id, id);
CREATE INDEX audit_log_project_id ON audit_log (project_id, id);
CREATE INDEX audit_log_at ON audit_log (at);
