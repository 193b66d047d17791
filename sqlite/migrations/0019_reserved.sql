-- 0019_reserved: a placeholder that keeps the versions contiguous until
-- the change that owns number 0019 is merged; that change's file replaces
-- this one.
SELECT 1;
