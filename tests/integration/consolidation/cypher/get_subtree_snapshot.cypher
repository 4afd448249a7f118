// Test inspection: every memory of a subtree with all its properties (internal ones included,
// embedding excluded) and every relationship leaving it, plus the subtree's pending links.
MATCH (m:Memory)
WHERE m.scope_key = $scope_key OR m.scope_key STARTS WITH $scope_key + '/'
OPTIONAL MATCH (m)-[r]->(o)
WITH m, collect(CASE WHEN r IS NULL THEN NULL ELSE
       r {.*, type: type(r), target: CASE WHEN o:Memory THEN o.id
                                      ELSE labels(o)[0] + ':' + coalesce(o.key, '') END} END) AS out
RETURN m {.*, embedding: null, labels: labels(m), out: out} AS node
ORDER BY node.id
