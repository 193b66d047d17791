-- 0002_rules_ops: what the management of rules needs: a revision per rule
-- for optimistic concurrency, and the indexes that keep a page of a
-- million-rule project fast.

-- revision starts at 1 and grows by one at each update; an update or delete
-- may name the revision it was made against. The DEFAULT gives existing
-- rules, and rules that an import inserts without naming the column,
-- revision 1.
ALTER TABLE rules ADD COLUMN revision INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- The indexes of the orders of a rule page (see redirects.RuleSort). Each
-- ends with the ID, so a page is one range of the index after the cursor's
-- keys and costs the same on the first page and the ten-thousandth. The
-- UNIQUE index (project_id, match_type, source) already serves the source
-- order of one match type. The priority order has no index of its own: one
-- made a million-rule import take three times as long (its entries go in in
-- random order), so a priority page sorts the project's rules instead.
CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE INDEX rules_project_source ON rules (project_id, source, id);
