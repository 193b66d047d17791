-- 0026_query_after_fragment: a rule's queryAfterFragment option
-- (docs/contract.md#rule-options): the request's query after the
-- destination's fragment.
ALTER TABLE rules ADD COLUMN query_after_fragment INTEGER NOT NULL DEFAULT 0 CHECK (query_after_fragment IN (0, 1));
