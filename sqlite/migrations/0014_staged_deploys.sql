-- 0014_staged_deploys: staged deploys and promote
-- (docs/contract.md#staged-deploys).
--
-- projects.live_version: the project's live pointer, the version lookups and
--   exports without a version answer from; 0 while none is live. It starts
--   at each project's newest version, which was the live one until now.
-- projects.require_stage: deploys must be staged, and go live by a promote.
-- deployments.staged: deployed with --stage and never promoted.
-- deployments.promoted_at: when a promote last made the version live.
-- deployments.discarded_at: a discarded staged version: its rules are
--   emptied and its exports deleted; the row stays so that its number is
--   never handed out again (edge nodes may still hold it in a cache until
--   the discard's event reaches them).
ALTER TABLE projects ADD COLUMN live_version INTEGER NOT NULL DEFAULT 0 CHECK (live_version >= 0);
ALTER TABLE projects ADD COLUMN require_stage INTEGER NOT NULL DEFAULT 0 CHECK (require_stage IN (0, 1));
ALTER TABLE deployments ADD COLUMN staged INTEGER NOT NULL DEFAULT 0 CHECK (staged IN (0, 1));
ALTER TABLE deployments ADD COLUMN promoted_at INTEGER;
ALTER TABLE deployments ADD COLUMN discarded_at INTEGER;
UPDATE projects SET live_version = COALESCE((SELECT MAX(version) FROM deployments WHERE deployments.project_id = projects.id), 0);
