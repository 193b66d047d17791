-- 0004_usage_daily: usage per edge key and UTC day, and how many
-- deployments of a project keep their export files.

-- usage_daily counts live lookups per organization, edge key and UTC day
-- ("2006-01-02"). Its rows outlive their key (a deleted project's keys are
-- gone, their usage is not) and go with the organization.
CREATE TABLE usage_daily (
	org_id TEXT   NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
	day    TEXT   NOT NULL,
	key_id TEXT   NOT NULL,
	count  BIGINT NOT NULL,
	PRIMARY KEY (org_id, day, key_id)
);

-- export_retention is how many of a project's latest deployments keep
-- their export files; older ones keep their rules, and their exports are
-- rendered again on demand.
ALTER TABLE projects ADD COLUMN export_retention INTEGER NOT NULL DEFAULT 20 CHECK (export_retention >= 1);
