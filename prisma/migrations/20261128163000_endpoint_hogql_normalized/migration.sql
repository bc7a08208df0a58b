-- Stored HogQL query nodes as PostHog stores them (issue 26 A4): `HogQLQuery(...).model_dump()`,
-- every field of the model present, unset ones null (src/endpoints/rules/query.ts
-- `normalizedQueryNode`). `||` keeps every key the stored node has; only the missing ones are added.
UPDATE "endpoint_versions"
SET "query" = jsonb_build_object(
    'explain', NULL, 'filters', NULL, 'kind', NULL, 'modifiers', NULL, 'name', NULL, 'query', NULL,
    'response', NULL, 'tags', NULL, 'values', NULL, 'variables', NULL, 'version', NULL
  ) || "query"
WHERE "query"->>'kind' = 'HogQLQuery';
