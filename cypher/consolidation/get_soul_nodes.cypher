// transaction: read
// Phase 5 — soul_corrections, the read: SOUL:<name> profile memories of the subtree that carry
// pending corrections in their properties map.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.label STARTS WITH 'SOUL:'
  AND NOT coalesce(m.retracted, false)
  AND m.properties CONTAINS '"corrections"'
RETURN m.id AS id, m.properties AS properties
ORDER BY m.id
