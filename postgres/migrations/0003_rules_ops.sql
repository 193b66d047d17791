-- 0003_rules_ops: what the management of rules needs: a revision per rule
-- for optimistic concurrency, the indexes that keep a page of a
-- million-rule project fast, and a per-project rule count.

-- revision starts at 1 and grows by one at each update; an update or delete
-- may name the revision it was made against. A constant DEFAULT adds the
-- column without rewriting the table, gives existing rules revision 1, and
-- gives revision 1 to rules an import copies in without naming the column.
ALTER TABLE rules ADD COLUMN revision BIGINT NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- (project_id, id) serves the id order of a rule page (see
-- redirects.RuleSort): a page is one range of it after the cursor's ID, so
-- the ten-thousandth page costs what the first does. The source order is
-- read from the UNIQUE index (project_id, match_type, source), one range per
-- match type, merged; sources use the "C" collation, so a LIKE 'prefix%' on
-- them is a range of it too.
--
-- Three indexes were measured and left out, for what they cost every
-- import of a million rules: (project_id, source, id) and (project_id,
-- priority, id) (a priority page sorts the project's rules instead), and
-- trigram (pg_trgm) GIN indexes on source and destination for substring
-- search, which made the COPY take several times as long (a search scans
-- the project's rules instead). docs/operations.md shows how to add the
-- trigram indexes where searches matter more than imports; the store's
-- queries use them when present.
CREATE INDEX rules_project_id ON rules (project_id, id);

-- rule_counts keeps the number of rules of each project, so the total of an
-- unfiltered rule page is one row, not a count of up to a million. Statement
-- triggers with transition tables keep it: one upsert per statement, however
-- many rows the statement (a COPY of a million rules included) inserts or
-- deletes. Rules are never moved between projects, so updates need no
-- trigger. Concurrent writers of one project's rules wait for each other on
-- its row for the rest of their transaction, as the draft's advisory lock
-- already makes them do.
CREATE TABLE rule_counts (
	project_id TEXT   PRIMARY KEY,
	n          BIGINT NOT NULL
);

INSERT INTO rule_counts (project_id, n) SELECT project_id, count(*) FROM rules GROUP BY project_id;

CREATE FUNCTION count_inserted_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO rule_counts (project_id, n)
		SELECT project_id, count(*) FROM inserted_rules GROUP BY project_id
		ON CONFLICT (project_id) DO UPDATE SET n = rule_counts.n + excluded.n;
	RETURN NULL;
END
$$;

CREATE FUNCTION count_deleted_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE rule_counts c SET n = c.n - d.n
		FROM (SELECT project_id, count(*) AS n FROM deleted_rules GROUP BY project_id) d
		WHERE c.project_id = d.project_id;
	RETURN NULL;
END
$$;

CREATE TRIGGER rules_count_insert AFTER INSERT ON rules
	REFERENCING NEW TABLE AS inserted_rules
	FOR EACH STATEMENT EXECUTE FUNCTION count_inserted_rules();

CREATE TRIGGER rules_count_delete AFTER DELETE ON rules
	REFERENCING OLD TABLE AS deleted_rules
	FOR EACH STATEMENT EXECUTE FUNCTION count_deleted_rules();

-- A deleted project's rules go (and their count is brought to 0 by the
-- trigger above); then its count's row goes too.
CREATE OR REPLACE FUNCTION delete_project_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM rules WHERE project_id = OLD.id;
	DELETE FROM rule_counts WHERE project_id = OLD.id;
	RETURN OLD;
END
$$;
