// transaction: read
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN visible
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding END} AS m
