// transaction: autocommit
// Phase 2.5 — pending_edges: the inferred links that spreading activation left as
// (:PendingLink {scope_key, source, target, score, created_at}) in the subtree become INFERRED
// edges written in the scope where they were inferred, when both ends still exist, are
// visible from that scope and are not linked already (any type, either direction).
// Every pending link read is consumed, written or not.
CYPHER replan=skip
MATCH (p:PendingLink)
WHERE p.scope_key STARTS WITH $scope_key
  AND (p.scope_key = $scope_key OR p.scope_key STARTS WITH $subtree_prefix)
OPTIONAL MATCH (a:Memory {id: p.source}) USING INDEX SEEK a:Memory(id)
OPTIONAL MATCH (b:Memory {id: p.target}) USING INDEX SEEK b:Memory(id)
WITH p, a, b, p.scope_key AS key
WITH key, p,
     CASE WHEN a IS NULL OR b IS NULL OR a.id < b.id THEN a ELSE b END AS x,
     CASE WHEN a IS NULL OR b IS NULL OR a.id < b.id THEN b ELSE a END AS y
WITH key, x, y, max(p.score) AS score, collect(p) AS pendings
CALL (key, x, y, score, pendings) {
  WITH key, x, y, score, pendings,
       x IS NOT NULL AND y IS NOT NULL AND x <> y
       AND NOT coalesce(x.retracted, false) AND NOT coalesce(y.retracted, false)
       AND (key = x.scope_key OR key STARTS WITH x.scope_key + '/')
       AND (key = y.scope_key OR key STARTS WITH y.scope_key + '/') AS usable
  WITH key, x, y, score, pendings, usable AND NOT EXISTS { (x)--(y) } AS ok
  FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END |
    CREATE (x)-[:INFERRED {id: randomUUID(),
                           weight: CASE WHEN score > 0 THEN score ELSE $default_weight END,
                           provenance: 'inferred', uses: 0, created_at: $now,
                           source_episodic_ids: [], scope_key: key}]->(y))
  FOREACH (q IN pendings | DETACH DELETE q)
  RETURN CASE WHEN ok THEN 1 ELSE 0 END AS written, size(pendings) AS consumed
} IN TRANSACTIONS OF $batch ROWS
RETURN coalesce(sum(written), 0) AS edges, coalesce(sum(consumed), 0) AS consumed
