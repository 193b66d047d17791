-- 0007_compressed_exports: export files are stored compressed, in the HTTP
-- content codings the edge serves, so that a deployment grows the database
-- by the compressed size of its files (about two fifths of it) and nothing
-- is compressed per request (see docs/exports.md).

-- coding is the content coding body is stored in: 'zstd' for deployments
-- made since this migration, whose identity bytes are not stored and are
-- decompressed when read, or 'identity' for the deployments made before it,
-- which the DEFAULT keeps as they are (served uncompressed). gzip is the
-- file in the gzip content coding, or NULL when it was not made.
ALTER TABLE deployment_exports
	ADD COLUMN coding TEXT NOT NULL DEFAULT 'identity' CHECK (coding IN ('identity', 'zstd')),
	ADD COLUMN gzip BYTEA;

-- Compressed bytes do not compress again: EXTERNAL stores them out of line
-- without TOAST trying lz4 (or pglz) on them first. Rows written before this
-- migration keep the compression they were stored with.
ALTER TABLE deployment_exports ALTER COLUMN body SET STORAGE EXTERNAL;
ALTER TABLE deployment_exports ALTER COLUMN gzip SET STORAGE EXTERNAL;
