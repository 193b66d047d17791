-- 0015_pattern_rules: pattern and regex rules, query conditions and hosts
-- (docs/contract.md#pattern-rules).
--
-- rules takes the match types pattern and regex, and a host: the host key
-- the rule is scoped to (docs/contract.md#hosts), '' for a rule that answers
-- every host. Adding a column with a constant default rewrites no row. A
-- project holds one rule per match type, source and host
-- (docs/contract.md#keys): host is the last column of the UNIQUE
-- constraint, so its index still serves every range of sources of one match
-- type (in the "C" collation, byte order). The match_key index takes the
-- host likewise.
ALTER TABLE rules DROP CONSTRAINT rules_match_type_check;
ALTER TABLE rules DROP CONSTRAINT rules_project_id_match_type_source_key;
DROP INDEX rules_match_key;
ALTER TABLE rules
	ADD CONSTRAINT rules_match_type_check CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex')),
	ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '',
	ADD CONSTRAINT rules_project_id_match_type_source_host_key UNIQUE (project_id, match_type, source, host);
CREATE UNIQUE INDEX rules_match_key ON rules (project_id, match_type, match_key, host);

-- rule_hits counts the hits of rules of every match type.
ALTER TABLE rule_hits DROP CONSTRAINT rule_hits_match_type_check;
ALTER TABLE rule_hits ADD CONSTRAINT rule_hits_match_type_check CHECK (match_type IN ('exact', 'starts_with', 'pattern', 'regex'));
