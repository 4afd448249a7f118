// transaction: read
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN visible
MATCH (m)-[r]-(n:Memory)
WHERE n.scope_key IN visible AND r.scope_key IN visible
  AND ($relationship IS NULL OR type(r) = $relationship)
  AND ($include_retracted OR NOT coalesce(n.retracted, false))
RETURN n {.*, embedding: null} AS n,
       r {.*, relationship: type(r), source: startNode(r).id, target: endNode(r).id} AS r
ORDER BY r.weight DESC, n.id
LIMIT $limit
