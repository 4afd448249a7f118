// transaction: read
// Memories by id, only those within reach. $ids; reach: $keys (exact) or $prefix (subtree).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE (m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
RETURN m {.*, embedding: null} AS m
