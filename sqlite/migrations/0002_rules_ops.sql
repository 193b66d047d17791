-- 0002_rules_ops: what the management of rules needs: a revision per rule
-- for optimistic concurrency, and the indexes that keep a page of a
-- million-rule project fast.

-- revision starts at 1 and grows by one at each update; an update or delete
-- may name the revision it was made against. The DEFAULT gives existing
-- rules, and rules that an import inserts without naming the column,
-- revision 1.
ALTER TABLE rules ADD COLUMN revision INTEGER NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- (project_id, id) serves the id order of a rule page (see
-- redirects.RuleSort), and lets a substring search read the table in
-- storage order: a page is one range of it after the cursor's ID, so the
-- ten-thousandth page costs what the first does. The source order is read
-- from the UNIQUE index (project_id, match_type, source), one range per
-- match type, merged. Indexes of their own for the source and priority
-- orders made a million-rule import take about three times as long (their
-- entries go in out of order), so there are none: a priority page sorts the
-- project's rules.
CREATE INDEX rules_project_id ON rules (project_id, id);
