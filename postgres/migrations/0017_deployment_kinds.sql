-- 0017_deployment_kinds: a deployment counts its pattern and regex rules
-- apart from its starts_with rules (prefix_count stays the starts_with
-- count). Versions deployed before held neither kind: 0.
ALTER TABLE deployments ADD COLUMN pattern_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE deployments ADD COLUMN regex_count INTEGER NOT NULL DEFAULT 0;
