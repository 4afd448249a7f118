MATCH (m:Memory)
WHERE m.scope_key IN $visible AND m.embedding IS NOT NULL
RETURN count(m) AS count
