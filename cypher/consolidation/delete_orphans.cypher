// transaction: autocommit
// Phase 3 — prune_orphans (one pass; the caller repeats until a pass deletes nothing).
// Hard-deletes memories of the subtree that are TTL-expired, and memories of $layers with
// importance < $importance_below, idle for more than $idle seconds and at most
// $max_neighbors live neighbours. Never SOUL:, AGENT_IDENTITY or META: memories, never
// retracted ones (those wait for phase 9.5, restorable until then), never superseded versions
// and never keyed facts, however unimportant (a key's versions are its history: deleting the
// current one would leave the key without a present and as-of queries wrong).
// A deleted memory's keys ((:Key)-[:KEY_OF]->) go with it.
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
  AND m.superseded_by IS NULL
WITH m, m.ttl IS NOT NULL AND m.created_at + m.ttl <= $now AS expired
WHERE expired OR (
  m.layer IN $layers
  AND m.key IS NULL
  AND coalesce(m.importance, 5.0) < $importance_below
  AND $now - coalesce(m.last_accessed_at, m.updated_at, m.created_at) > $idle
  AND NOT m.label STARTS WITH 'SOUL:' AND NOT m.label STARTS WITH 'AGENT_IDENTITY'
  AND NOT m.label STARTS WITH 'META:')
WITH m, expired  // neighbours are counted only for the candidates left (the costly part)
WHERE expired
   OR COUNT { MATCH (m)--(n:Memory) WHERE NOT coalesce(n.retracted, false) RETURN DISTINCT n } <= $max_neighbors
CALL (m, expired) {
  FOREACH (k IN COLLECT { MATCH (k:Key)-[:KEY_OF]->(m) RETURN k } | DETACH DELETE k)
  DETACH DELETE m
  RETURN CASE WHEN expired THEN 1 ELSE 0 END AS ttl
} IN TRANSACTIONS OF $batch ROWS
RETURN coalesce(sum(ttl), 0) AS expired, count(*) - coalesce(sum(ttl), 0) AS orphans
