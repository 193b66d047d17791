-- 0018_sqlite_only: migration 0018 (hit ids) is SQLite's alone
-- (docs/operations.md); PostgreSQL keeps its versions without a gap.
SELECT 1;
