-- 0003_rules_ops: what the management of rules needs: a revision per rule
-- for optimistic concurrency, and the indexes that keep a page of a
-- million-rule project fast in every order.

-- revision starts at 1 and grows by one at each update; an update or delete
-- may name the revision it was made against. The DEFAULT gives existing
-- rules, and rules that an import inserts without naming the column,
-- revision 1.
ALTER TABLE rules ADD COLUMN revision INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- One index per order of a rule page (see redirects.RuleSort). Each ends
-- with the ID, so a page is one range of the index after the cursor's keys
-- and costs the same on the first page and the ten-thousandth. The UNIQUE
-- index (project_id, match_type, source) already serves the source order
-- of one match type.
CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE INDEX rules_project_source ON rules (project_id, source, id);
CREATE INDEX rules_project_priority ON rules (project_id, priority, id);
