-- 0009_must_change_password: a one-time password someone else chose
-- (user create, user reset-password, quickstart) must be changed at the
-- user's next sign-in; setting a password clears the mark.
ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0 CHECK (must_change_password IN (0, 1));
