// transaction: read
// Shortest paths (at most 6 hops, then cut to $max_hops) between two memories over memories
// and edges within reach ($keys / $prefix); at most $limit paths.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (a:Memory {id: $from_id}), (b:Memory {id: $to_id}) USING INDEX SEEK a:Memory(id) USING INDEX SEEK b:Memory(id)
WHERE a <> b
  AND (a.scope_key IN $keys OR ($prefix IS NOT NULL AND a.scope_key STARTS WITH $prefix))
  AND (b.scope_key IN $keys OR ($prefix IS NOT NULL AND b.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE a.scope_key = gone OR a.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE b.scope_key = gone OR b.scope_key STARTS WITH gone + '/')
MATCH p = allShortestPaths((a)-[*..6]-(b))
WHERE all(x IN nodes(p) WHERE x:Memory
          AND (x.scope_key IN $keys OR ($prefix IS NOT NULL AND x.scope_key STARTS WITH $prefix))
          AND none(gone IN erasing WHERE x.scope_key = gone OR x.scope_key STARTS WITH gone + '/'))
  AND all(r IN relationships(p) WHERE (r.scope_key IN $keys
          OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
          AND none(gone IN erasing WHERE r.scope_key = gone OR r.scope_key STARTS WITH gone + '/'))
WITH p WHERE length(p) <= $max_hops
RETURN [x IN nodes(p) | x {.*, embedding: null}] AS nodes,
       [r IN relationships(p) | r {.*, relationship: type(r), source: startNode(r).id, target: endNode(r).id}] AS edges
LIMIT $limit
