-- 0020_reserved: a placeholder that keeps the versions contiguous until
-- the change that owns number 0020 is merged; that change's file replaces
-- this one.
SELECT 1;
