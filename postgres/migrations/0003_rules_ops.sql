-- 0003_rules_ops: what the management of rules needs: a revision per rule
-- for optimistic concurrency, the indexes that keep a page of a
-- million-rule project fast in every order, and trigram indexes for
-- substring search.

-- revision starts at 1 and grows by one at each update; an update or delete
-- may name the revision it was made against. A constant DEFAULT adds the
-- column without rewriting the table, gives existing rules revision 1, and
-- gives revision 1 to rules an import copies in without naming the column.
ALTER TABLE rules ADD COLUMN revision BIGINT NOT NULL DEFAULT 1 CHECK (revision >= 1);

-- One index per order of a rule page (see redirects.RuleSort). Each ends
-- with the ID, so a page is one range of the index after the cursor's keys
-- and costs the same on the first page and the ten-thousandth. The UNIQUE
-- index (project_id, match_type, source) already serves the source order
-- of one match type. Sources use the "C" collation, so a LIKE 'prefix%'
-- on them is a range of rules_project_source.
CREATE INDEX rules_project_id ON rules (project_id, id);
CREATE INDEX rules_project_source ON rules (project_id, source, id);
CREATE INDEX rules_project_priority ON rules (project_id, priority, id);

-- A substring search (LIKE '%text%' on source or destination) is answered
-- from trigram indexes when the pg_trgm extension can be had: it ships with
-- PostgreSQL and is trusted, so a role that may create objects in the
-- database may install it. Where it cannot be installed, the migration goes
-- on without the indexes and a search scans the project's rules instead:
-- slower on large projects, the same answers. The indexes name the operator
-- class by the extension's schema, wherever an earlier install put it.
DO $$
DECLARE
	trgm name;
BEGIN
	BEGIN
		CREATE EXTENSION IF NOT EXISTS pg_trgm;
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'pg_trgm cannot be installed (%); rule search will scan', SQLERRM;
	END;
	SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
	IF trgm IS NOT NULL THEN
		EXECUTE format('CREATE INDEX rules_source_trgm ON rules USING gin (source %I.gin_trgm_ops)', trgm);
		EXECUTE format('CREATE INDEX rules_destination_trgm ON rules USING gin (destination %I.gin_trgm_ops)', trgm);
	END IF;
END
$$;
