-- 0011_webhooks: the audit log as a stream (docs/delivery.md#webhooks).
--
-- webhook_endpoints: where an organization wants its audit entries sent.
--   actions, projects: space-separated lists; "" selects every action,
--     every project. An action may end in ".*" ("rule.*").
--   secret: the key of the signatures (the sender needs it, so it is kept,
--     never shown again after creation); old_secret signs too until
--     old_secret_until (a rotation's overlap).
--   paused: set and cleared by people; disabled_at: set by the sender when
--     every delivery failed for 24 hours, cleared by resume.
--   last_success_at: the last 2xx answer (creation counts as one).
CREATE TABLE webhook_endpoints (
	id               TEXT    PRIMARY KEY,
	org_id           TEXT    NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	url              TEXT    NOT NULL,
	actions          TEXT    NOT NULL DEFAULT '',
	projects         TEXT    NOT NULL DEFAULT '',
	secret           TEXT    NOT NULL,
	old_secret       TEXT,
	old_secret_until INTEGER,
	paused           INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
	disabled_at      INTEGER,
	created_at       INTEGER NOT NULL,
	last_success_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, created_at);

-- webhook_deliveries: the outbox, one row per entry and endpoint, written
-- in the transaction of the audit entry.
--   state: 'pending' until a 2xx answer ('delivered') or 24 hours of
--     failures ('failed').
--   next_at: when the next attempt is due; lease_owner and lease_until:
--     the node sending it now, which holds it until lease_until.
CREATE TABLE webhook_deliveries (
	id           TEXT    PRIMARY KEY,
	endpoint_id  TEXT    NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
	audit_id     INTEGER,
	action       TEXT    NOT NULL,
	body         TEXT    NOT NULL,
	created_at   INTEGER NOT NULL,
	state        TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
	attempts     INTEGER NOT NULL DEFAULT 0,
	next_at      INTEGER NOT NULL,
	lease_owner  TEXT    NOT NULL DEFAULT '',
	lease_until  INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);

-- webhook_attempts: every attempt of a delivery, what it answered.
--   status: the HTTP status, 0 when none came (refused, timeout);
--   error: why it failed without a status; excerpt: the answer's first
--   4 KiB.
CREATE TABLE webhook_attempts (
	delivery_id TEXT    NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
	n           INTEGER NOT NULL,
	at          INTEGER NOT NULL,
	status      INTEGER NOT NULL,
	latency_ns  INTEGER NOT NULL,
	error       TEXT    NOT NULL,
	excerpt     TEXT    NOT NULL,
	PRIMARY KEY (delivery_id, n)
) STRICT;
