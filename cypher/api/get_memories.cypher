// Memories by id, only those within reach. $ids; reach: $keys (exact) or $prefix (subtree).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix)
RETURN m {.*, embedding: null} AS m
