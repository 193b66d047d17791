-- 0007_compressed_exports: export files are stored compressed, in the HTTP
-- content codings the edge serves, so that a deployment grows the database
-- by the compressed size of its files (about two fifths of it) and nothing
-- is compressed per request (see docs/exports.md).

-- coding is the content coding body is stored in: 'zstd' for deployments
-- made since this migration, whose identity bytes are not stored and are
-- decompressed when read, or 'identity' for the deployments made before it,
-- which the DEFAULT keeps as they are (served uncompressed).
ALTER TABLE deployment_exports ADD COLUMN coding TEXT NOT NULL DEFAULT 'identity' CHECK (coding IN ('identity', 'zstd'));

-- gzip is the file in the gzip content coding, or NULL when it was not made.
ALTER TABLE deployment_exports ADD COLUMN gzip BLOB;
