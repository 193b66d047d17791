-- 0016_insight_hosts: hits and misses by host (docs/contract.md#keys).
--
-- A rule's hits are named by its match type, host and source, so two rules
-- that differ only in their host count apart; a miss is recorded under the
-- lookup's host key ('' for a lookup without one). Rows counted before
-- count as host-less, which they were; a column with a constant default
-- rewrites no row.
ALTER TABLE rule_hits ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE rule_hits DROP CONSTRAINT rule_hits_pkey;
ALTER TABLE rule_hits ADD PRIMARY KEY (project_id, match_type, source, host);

ALTER TABLE misses ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE misses DROP CONSTRAINT misses_pkey;
ALTER TABLE misses ADD PRIMARY KEY (project_id, path, host);
