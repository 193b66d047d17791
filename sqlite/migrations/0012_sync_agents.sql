-- 0012_sync_agents: a placeholder on branch wt-stage, which needs migrations to
-- run without a gap up to its 0014_staged_deploys. The real migration of
-- this number comes from the branch that owns it (wt-delivery); on merge,
-- take that branch's file.
SELECT 1;
