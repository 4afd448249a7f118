// transaction: read
// The neighbours of many memories at once (one call per page), heaviest edges first, at most
// $limit each. Both ends and the edge itself must be within reach ($keys / $prefix).
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[r]-(n:Memory) USING INDEX SEEK m:Memory(id)
WHERE (m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix))
  AND (n.scope_key IN $keys OR ($prefix IS NOT NULL AND n.scope_key STARTS WITH $prefix))
  AND (r.scope_key IN $keys OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE n.scope_key = gone OR n.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE r.scope_key = gone OR r.scope_key STARTS WITH gone + '/')
WITH id, r, n, startNode(r) = m AS outgoing
ORDER BY r.weight DESC, n.id
WITH id, collect({edge: r {.*, relationship: type(r), source: startNode(r).id, target: endNode(r).id},
                  node: n {.*, embedding: null}, outgoing: outgoing})[..$limit] AS rows
RETURN id, rows
