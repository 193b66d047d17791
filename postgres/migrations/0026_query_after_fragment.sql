-- 0026_query_after_fragment: a rule's queryAfterFragment option
-- (docs/contract.md#rule-options): the request's query after the
-- destination's fragment.
ALTER TABLE rules ADD COLUMN query_after_fragment BOOLEAN NOT NULL DEFAULT FALSE;
