// transaction: read
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (a:Memory) USING INDEX SEEK a:Memory(scope_key)
WHERE a.scope_key IN visible
MATCH (a)-[r]->(b:Memory)
WHERE r.scope_key IN visible AND b.scope_key IN visible
  AND ($relationship IS NULL OR type(r) = $relationship)
RETURN r {.*, relationship: type(r), source: a.id, target: b.id} AS r
ORDER BY r.created_at DESC, r.id
SKIP $offset LIMIT $limit
