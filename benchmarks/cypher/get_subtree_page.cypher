// Benchmark inspection (consolidation_ab): one page of the memories of a subtree in id order,
// after $after, at most $limit — every property (internal ones included, the embedding left
// out) and every relationship leaving it, without its id (new edges get random ids).
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.id > $after
WITH m ORDER BY m.id LIMIT $limit
OPTIONAL MATCH (m)-[r]->(o)
WITH m, collect(CASE WHEN r IS NULL THEN NULL ELSE
       r {.*, id: null, type: type(r),
          target: CASE WHEN o:Memory THEN o.id ELSE labels(o)[0] END} END) AS out
RETURN m {.*, embedding: null, labels: labels(m), out: out} AS node
ORDER BY node.id
