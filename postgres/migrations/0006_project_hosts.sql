-- 0006_project_hosts: the host names a project's site answers on, which an
-- import reads full-URL sources against (https://www.example.com/old is
-- /old when www.example.com is one of them). hosts holds them lower-case,
-- one per line, in the order declared; '' is none. At most 50, each a DNS
-- name, as redirects.NormalizeHosts checks before they are stored.
ALTER TABLE projects ADD COLUMN hosts TEXT NOT NULL DEFAULT '';
