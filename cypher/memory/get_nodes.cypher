UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $visible
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding END} AS m
