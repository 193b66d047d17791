-- 0027_merge_query: a rule's mergeQuery option
-- (docs/contract.md#rule-options): the request's query parameters merged
-- into the destination's, the destination's value standing.
ALTER TABLE rules ADD COLUMN merge_query BOOLEAN NOT NULL DEFAULT FALSE;
