-- 0020_suggestions: rules proposed for missed paths (docs/suggest.md).
--
-- One row per suggestion: its ID is a hash of the project, host, path and
-- destination, so computing again finds the ones accepted or dismissed
-- (state) and does not propose them again. Open ones are replaced by each
-- computation. created_at is Unix nanoseconds.
CREATE TABLE suggestions (
	project_id  TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	id          TEXT    COLLATE "C" NOT NULL,
	host        TEXT    COLLATE "C" NOT NULL DEFAULT '',
	path        TEXT    COLLATE "C" NOT NULL,
	destination TEXT    COLLATE "C" NOT NULL,
	status_code INTEGER NOT NULL,
	kind        TEXT    NOT NULL CHECK (kind IN ('case', 'trailing_slash', 'prefix', 'sitemap')),
	confidence  INTEGER NOT NULL,
	misses      BIGINT  NOT NULL,
	evidence    TEXT    NOT NULL,
	reason      TEXT    NOT NULL,
	setting     TEXT    NOT NULL DEFAULT '',
	state       TEXT    NOT NULL CHECK (state IN ('open', 'accepted', 'dismissed')),
	created_at  BIGINT  NOT NULL,
	PRIMARY KEY (project_id, id)
);
