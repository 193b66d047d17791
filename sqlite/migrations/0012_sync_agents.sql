-- 0012_sync_agents: which servers have which version
-- (docs/delivery.md#which-servers-have-which-version).
--
-- sync_agents: each sync agent's last report, per project and format: the
--   deployment version it applied (its Redirects-Applied-Version header)
--   as of seen_at (Unix nanoseconds). agent is the name it sent in
--   Redirects-Agent, or its User-Agent and address. An upsert keeps the
--   latest report.
CREATE TABLE sync_agents (
	project_id      TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	agent           TEXT    NOT NULL,
	format          TEXT    NOT NULL,
	applied_version INTEGER NOT NULL CHECK (applied_version > 0),
	seen_at         INTEGER NOT NULL,
	PRIMARY KEY (project_id, agent, format)
) STRICT, WITHOUT ROWID;
