// transaction: read
// The memories within $hops (1..3) of a memory and the edges between them, all within reach
// ($keys / $prefix); at most $limit memories besides the centre.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE (m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
OPTIONAL MATCH p = (m)-[*1..3]-(n:Memory)
WHERE length(p) <= $hops
  AND all(x IN nodes(p) WHERE x:Memory
          AND (x.scope_key IN $keys OR ($prefix IS NOT NULL AND x.scope_key STARTS WITH $prefix))
          AND none(gone IN erasing WHERE x.scope_key = gone OR x.scope_key STARTS WITH gone + '/'))
  AND all(r IN relationships(p) WHERE (r.scope_key IN $keys
          OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
          AND none(gone IN erasing WHERE r.scope_key = gone OR r.scope_key STARTS WITH gone + '/'))
WITH erasing, m, [x IN collect(DISTINCT n) WHERE x <> m][..$limit] AS found
WITH erasing, [m] + found AS members
UNWIND members AS a
OPTIONAL MATCH (a)-[r]->(b:Memory)
WHERE b IN members
  AND (r.scope_key IN $keys OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE r.scope_key = gone OR r.scope_key STARTS WITH gone + '/')
WITH members, collect(DISTINCT r {.*, relationship: type(r), source: a.id, target: b.id}) AS edges
RETURN [x IN members | x {.*, embedding: null}] AS nodes, edges
