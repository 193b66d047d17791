-- 0027_placeholder: a version number held for another rule field's
-- migration; it changes nothing.
SELECT 1;
