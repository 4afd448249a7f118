// transaction: read
// A batch of a subtree's memories for export, by id ($after_id: last id seen, or null).
// $key / $prefix: the subtree; $with_embedding: include the vectors.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory)
WHERE (m.scope_key = $key OR m.scope_key STARTS WITH $prefix)
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
  AND ($after_id IS NULL OR m.id > $after_id)
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding END} AS m
ORDER BY m.id
LIMIT $limit
