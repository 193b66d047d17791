-- 0002_accounts (PostgreSQL): users, their roles in organizations,
-- management tokens, dashboard sessions and the audit log.
--
-- The tables and columns are those of the SQLite store (sqlite/migrations),
-- with a seq column where "oldest first" needs a stable order among rows
-- created at the same clock time.
--
-- Secrets are never stored: passwords as argon2id hashes (PHC strings),
-- tokens and session cookies as SHA-256 hashes.

CREATE TABLE users (
	id            TEXT    PRIMARY KEY,
	seq           BIGSERIAL NOT NULL,
	-- email is normalized (trimmed, lower-case) before it is stored, so
	-- UNIQUE holds one account per address.
	email         TEXT    NOT NULL UNIQUE,
	password_hash TEXT    NOT NULL,
	operator      BOOLEAN NOT NULL,
	created_at    BIGINT  NOT NULL,
	disabled_at   BIGINT
);

CREATE TABLE members (
	org_id     TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	user_id    TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	seq        BIGSERIAL NOT NULL,
	role       TEXT    NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
	created_at BIGINT  NOT NULL,
	PRIMARY KEY (org_id, user_id)
);

CREATE INDEX members_user_id ON members (user_id);

-- management_tokens.created_by is NULL for a token made on the command
-- line without a user; the audit log names who ran the command.
CREATE TABLE management_tokens (
	id           TEXT    PRIMARY KEY,
	seq          BIGSERIAL NOT NULL,
	org_id       TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	role         TEXT    NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),
	label        TEXT    NOT NULL,
	hash         TEXT    NOT NULL UNIQUE,
	last4        TEXT    NOT NULL,
	created_by   TEXT    REFERENCES users (id) ON DELETE SET NULL,
	created_at   BIGINT  NOT NULL,
	expires_at   BIGINT,
	last_used_at BIGINT,
	revoked_at   BIGINT
);

CREATE INDEX management_tokens_org_id ON management_tokens (org_id);
CREATE INDEX management_tokens_created_by ON management_tokens (created_by);

CREATE TABLE sessions (
	id           TEXT    PRIMARY KEY,
	hash         TEXT    NOT NULL UNIQUE,
	user_id      TEXT    NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	csrf_token   TEXT    NOT NULL,
	created_at   BIGINT  NOT NULL,
	expires_at   BIGINT  NOT NULL,
	last_seen_at BIGINT  NOT NULL
);

CREATE INDEX sessions_user_id ON sessions (user_id);

-- audit_log records every change, in the transaction of the change. It has
-- no foreign keys: entries outlive what they name. org_id and project_id
-- are '' when the change belongs to none (a user created by an operator).
-- before and after are JSON objects of the fields the change touched, or
-- NULL. "Newest first" is ORDER BY id DESC: IDs follow the order in which
-- transactions asked for them, close enough to commit order for reading a
-- log (the event feed, which pollers page through, needs more; see
-- recordEvent).
CREATE TABLE audit_log (
	id          BIGSERIAL PRIMARY KEY,
	at          BIGINT  NOT NULL,
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
);

CREATE INDEX audit_log_org_id ON audit_log (org_id, id);
CREATE INDEX audit_log_project_id ON audit_log (project_id, id);
CREATE INDEX audit_log_at ON audit_log (at);
