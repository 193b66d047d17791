-- 0013_import_undo: an applied import can be undone until the draft changes
-- again (docs/migrate.md#importing).
--
-- import_undos: one row per applied import, the latest
-- redirects.MaxImportUndos of each project kept.
--   before_draft: the draft as it was before the import, every rule with
--     its ID, options, priority, revision and creation time, encoded by
--     sqlstore (see sqlstore/importundo.go) and compressed with zstd.
--   rules: how many rules before_draft holds.
--   after_digest: the digest of the draft (its rules and settings) right
--     after the import; an undo restores before_draft only while the
--     draft's digest is still this one.
CREATE TABLE import_undos (
	id           BIGSERIAL PRIMARY KEY,
	project_id   TEXT      NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
	created_at   BIGINT    NOT NULL,
	mode         TEXT      NOT NULL,
	rules        BIGINT    NOT NULL,
	before_draft BYTEA     NOT NULL,
	after_digest BYTEA     NOT NULL
);

CREATE INDEX import_undos_project ON import_undos (project_id, id);
