// transaction: read
// For each id, every version of the fact linked to it by SUPERSEDES (either way, itself
// included), oldest first; only versions within reach ($keys / $prefix).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE (m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
MATCH (m)-[:SUPERSEDES*0..25]-(c:Memory)
WHERE (c.scope_key IN $keys OR ($prefix IS NOT NULL AND c.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE c.scope_key = gone OR c.scope_key STARTS WITH gone + '/')
WITH DISTINCT id, c
ORDER BY c.created_at, c.id
RETURN id, collect(c {.*, embedding: null}) AS chain
