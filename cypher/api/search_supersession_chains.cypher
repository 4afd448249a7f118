// For each id, every version of the fact linked to it by SUPERSEDES (either way, itself
// included), oldest first; only versions within reach ($keys / $prefix).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix)
MATCH (m)-[:SUPERSEDES*0..25]-(c:Memory)
WHERE c.scope_key IN $keys OR ($prefix IS NOT NULL AND c.scope_key STARTS WITH $prefix)
WITH DISTINCT id, c
ORDER BY c.created_at, c.id
RETURN id, collect(c {.*, embedding: null}) AS chain
