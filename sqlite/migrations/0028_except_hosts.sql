-- 0028_except_hosts: a rule's exceptHosts (docs/contract.md#hosts): the
-- host keys a host-less rule does not answer, joined by a space ('' for
-- none; no host key holds a space).
ALTER TABLE rules ADD COLUMN except_hosts TEXT NOT NULL DEFAULT '';
