-- 0003_rules_ops: what the management of rules needs: a revision per rule
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

-- rule_counts keeps the number of rules of each project, so the total of an
-- unfiltered rule page is one row, not a count of up to a million index
-- entries. Triggers keep it; rules never move between projects, so updates
-- need none. A deleted project's rules go with it (ON DELETE CASCADE), and
-- its count's row with them.
CREATE TABLE rule_counts (
	project_id TEXT    PRIMARY KEY,
	n          INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO rule_counts (project_id, n) SELECT project_id, count(*) FROM rules GROUP BY project_id;

CREATE TRIGGER rules_count_insert AFTER INSERT ON rules BEGIN
	INSERT INTO rule_counts (project_id, n) VALUES (NEW.project_id, 1)
		ON CONFLICT (project_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER rules_count_delete AFTER DELETE ON rules BEGIN
	UPDATE rule_counts SET n = n - 1 WHERE project_id = OLD.project_id;
END;

CREATE TRIGGER projects_count_delete AFTER DELETE ON projects BEGIN
	DELETE FROM rule_counts WHERE project_id = OLD.id;
END;
