-- 0019_reserved: the number is taken by a change of another branch; this
-- placeholder keeps the versions without a gap and does nothing. It goes
-- when that change is merged.
SELECT 1;
