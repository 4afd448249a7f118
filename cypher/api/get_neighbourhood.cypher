// The memories within $hops (1..3) of a memory and the edges between them, all within reach
// ($keys / $prefix); at most $limit memories besides the centre.
MATCH (m:Memory {id: $id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix)
OPTIONAL MATCH p = (m)-[*1..3]-(n:Memory)
WHERE length(p) <= $hops
  AND all(x IN nodes(p) WHERE x:Memory
          AND (x.scope_key IN $keys OR ($prefix IS NOT NULL AND x.scope_key STARTS WITH $prefix)))
  AND all(r IN relationships(p) WHERE r.scope_key IN $keys
          OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
WITH m, [x IN collect(DISTINCT n) WHERE x <> m][..$limit] AS found
WITH [m] + found AS members
UNWIND members AS a
OPTIONAL MATCH (a)-[r]->(b:Memory)
WHERE b IN members
  AND (r.scope_key IN $keys OR ($prefix IS NOT NULL AND r.scope_key STARTS WITH $prefix))
WITH members, collect(DISTINCT r {.*, relationship: type(r), source: a.id, target: b.id}) AS edges
RETURN [x IN members | x {.*, embedding: null}] AS nodes, edges
